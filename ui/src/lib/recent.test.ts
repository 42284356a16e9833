import { describe, expect, it } from "vitest";
import { loadRecent, RECENT_KEY, recentLabel, rememberRecent, sshTargetFromForm } from "./recent";

class MemoryStore {
  items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

describe("the new connection form", () => {
  it("makes an SSH target of its fields", () => {
    expect(
      sshTargetFromForm({ host: " web1 ", port: "2222", user: "alice", keyFile: "~/.ssh/k", jumpHosts: "a@b, c@d:2" }),
    ).toEqual({
      target: {
        kind: "ssh",
        host: "web1",
        port: 2222,
        user: "alice",
        identity_files: ["~/.ssh/k"],
        jump_hosts: ["a@b", "c@d:2"],
      },
    });
  });

  it("names the agent chosen and forwards it only when asked", () => {
    const base = { host: "h", port: "22", user: "u", keyFile: "", jumpHosts: "" };
    const plain = sshTargetFromForm({ ...base, agent: "", forwardAgent: false });
    expect(plain).toEqual({
      target: { kind: "ssh", host: "h", port: 22, user: "u", identity_files: [], jump_hosts: [] },
    });
    expect(sshTargetFromForm({ ...base, agent: "/run/agent.sock", forwardAgent: true })).toMatchObject({
      target: { identity_agent: "/run/agent.sock", forward_agent: true },
    });
  });

  it("says what is wrong", () => {
    const base = { host: "h", port: "22", user: "u", keyFile: "", jumpHosts: "" };
    expect(sshTargetFromForm({ ...base, host: "" })).toEqual({ error: "Host is empty." });
    expect(sshTargetFromForm({ ...base, user: " " })).toEqual({ error: "User is empty." });
    for (const port of ["0", "65536", "22a", "-1", "1.5"]) {
      expect(sshTargetFromForm({ ...base, port })).toEqual({
        error: "Port must be a number from 1 to 65535.",
      });
    }
    expect(sshTargetFromForm({ ...base, port: "" })).toMatchObject({ target: { port: 22 } });
  });
});

describe("recent connections", () => {
  const target = (host: string, port = 22) => ({
    kind: "ssh" as const,
    host,
    port,
    user: "u",
    identity_files: [],
    jump_hosts: [],
  });

  it("keeps the newest first, once each", () => {
    const store = new MemoryStore();
    rememberRecent(store, target("a"));
    rememberRecent(store, target("b", 2222));
    rememberRecent(store, target("a"));
    expect(loadRecent(store).map(recentLabel)).toEqual(["u@a", "u@b:2222"]);
    expect(recentLabel(target("::1"))).toBe("u@[::1]");
  });

  it("keeps storage connections by URL and user, labelled by their tab's title", () => {
    const store = new MemoryStore();
    const ftp = { kind: "storage" as const, url: "ftp://127.0.0.1:2121/", user: "u", title: "ftp://u@127.0.0.1:2121/" };
    rememberRecent(store, ftp);
    rememberRecent(store, target("a"));
    rememberRecent(store, { ...ftp, local_roots: ["~"] });
    expect(loadRecent(store).map(recentLabel)).toEqual(["ftp://u@127.0.0.1:2121/", "u@a"]);
    store.setItem(RECENT_KEY, JSON.stringify([{ kind: "storage", url: "s3://b" }, ftp]));
    expect(loadRecent(store)).toEqual([ftp]);
  });

  it("ignores what it did not write", () => {
    const store = new MemoryStore();
    store.setItem(RECENT_KEY, "{broken");
    expect(loadRecent(store)).toEqual([]);
    store.setItem(RECENT_KEY, JSON.stringify([{ kind: "ssh", host: 1 }, target("ok")]));
    expect(loadRecent(store).map(recentLabel)).toEqual(["u@ok"]);
  });
});
