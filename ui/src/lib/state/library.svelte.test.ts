import { describe, expect, it } from "vitest";
import type { Event, Op, TabTarget } from "../protocol";
import type { Incoming, Transport } from "../transport/transport";
import { Library } from "./library.svelte";

class FakeTransport implements Transport {
  ops: Op[] = [];
  handlers: ((message: Incoming) => void)[] = [];
  send(op: Op): void {
    this.ops.push(op);
  }
  input(): void {}
  subscribe(handler: (message: Incoming) => void): () => void {
    this.handlers.push(handler);
    return () => (this.handlers = this.handlers.filter((h) => h !== handler));
  }
  close(): void {}
  emit(event: Event): void {
    for (const handler of this.handlers) handler({ kind: "event", event });
  }
}

describe("the library's requests", () => {
  it("lists the saved connections whenever the link opens", () => {
    const transport = new FakeTransport();
    new Library(transport);
    transport.handlers.forEach((h) => h({ kind: "link", status: "open" }));
    expect(transport.ops).toEqual([{ type: "list_connections" }]);
  });

  it("resolves a save with null once the list comes back, and with the engine's message on an error", async () => {
    const transport = new FakeTransport();
    const library = new Library(transport);
    const target: TabTarget = { kind: "ssh", host: "h", port: 22, user: "u", identity_files: [], jump_hosts: [] };
    const saved = library.save("web1", target, [{ kind: "password", value: "pw" }]);
    expect(transport.ops[0]).toEqual({
      type: "save_connection",
      name: "web1",
      target,
      settings: null,
      secrets: [{ kind: "password", value: "pw" }],
      replace: false,
    });
    // Events about something else do not answer it.
    transport.emit({ type: "error", tab: "t1", message: "tab trouble" });
    transport.emit({ type: "saved_connections", connections: [] });
    await expect(saved).resolves.toBeNull();

    const again = library.save("web1", target, []);
    const refusal: Event = { type: "error", message: 'a connection named "web1" exists already' };
    transport.emit(refusal);
    await expect(again).resolves.toBe('a connection named "web1" exists already');
    // That error was the dialog's answer: the page shows no notice of its own for it.
    expect(library.answered(refusal)).toBe(true);
    expect(library.answered({ type: "error", message: "other" })).toBe(false);
  });

  it("renames an edited connection: saved under the new name with its settings, then the old one deleted", async () => {
    const transport = new FakeTransport();
    const library = new Library(transport);
    const target: TabTarget = { kind: "ssh", host: "h", port: 22, user: "u", identity_files: [], jump_hosts: [] };
    const settings = { forbidden_commands: ["rm"] };
    transport.emit({
      type: "saved_connections",
      connections: [{ name: "old", kind: "ssh", address: "ssh://u@h:22", target, settings, tags: [] }],
    });
    const done = library.saveEdited("old", "new", target, []);
    expect(transport.ops).toEqual([
      { type: "save_connection", name: "new", target, settings, secrets: [], replace: false },
    ]);
    transport.emit({ type: "saved_connections", connections: [] });
    await Promise.resolve();
    expect(transport.ops[1]).toEqual({ type: "delete_connection", name: "old" });
    transport.emit({ type: "saved_connections", connections: [] });
    await expect(done).resolves.toBeNull();
  });

  it("settles a request answered before an older one: the agents' keys come when they come", async () => {
    const transport = new FakeTransport();
    const library = new Library(transport);
    // The form lists the agents' keys as it opens; Connect checks the key file meanwhile, and
    // the page's server answers that at once.
    const agents = library.listAgentKeys();
    const checked = library.checkKeyFile("/h/key");
    let agentsDone = false;
    void agents.then(() => (agentsDone = true));
    transport.emit({ type: "key_file_checked", path: "/h/key", problem: null });
    await expect(checked).resolves.toBeNull();
    expect(agentsDone).toBe(false);
    // A refusal answers the request that can be refused, not the list that cannot be.
    const saved = library.save("web1", { kind: "local" }, []);
    transport.emit({ type: "error", message: "cannot save web1: the disk is full" });
    await expect(saved).resolves.toBe("cannot save web1: the disk is full");
    expect(agentsDone).toBe(false);
    transport.emit({ type: "agent_keys", agents: [] });
    await expect(agents).resolves.toBeNull();
  });

  it("gives up waiting when the link to kaiport is lost", async () => {
    const transport = new FakeTransport();
    const library = new Library(transport);
    const reading = library.readAudit();
    expect(transport.ops[0]).toEqual({ type: "read_audit", limit: 200 });
    transport.handlers.forEach((h) => h({ kind: "link", status: "closed" }));
    await expect(reading).resolves.toMatch(/lost/);
  });
});
