import { describe, expect, it } from "vitest";
import { targetFromLink } from "./links";

describe("targetFromLink", () => {
  it("makes an SSH tab of an ssh:// link, port 22 unless named", () => {
    expect(targetFromLink("ssh://alice@web1:2222")).toEqual({
      target: { kind: "ssh", host: "web1", port: 2222, user: "alice" },
      title: "alice@web1",
    });
    expect(targetFromLink("ssh://bob@[::1]")).toEqual({
      target: { kind: "ssh", host: "::1", port: 22, user: "bob" },
      title: "bob@[::1]",
    });
  });

  it("offers the keys the window names", () => {
    expect(targetFromLink("ssh://alice@web1", ["/home/a/.ssh/id_ed25519"])).toEqual({
      target: { kind: "ssh", host: "web1", port: 22, user: "alice", identity_files: ["/home/a/.ssh/id_ed25519"] },
      title: "alice@web1",
    });
  });

  it("makes an SFTP storage tab of an sftp:// link, with the home folder on this side", () => {
    expect(targetFromLink("sftp://carol@files.example:2200/srv/data")).toEqual({
      target: { kind: "storage", url: "sftp://carol@files.example:2200/srv/data", local_roots: ["~"] },
      title: "sftp carol@files.example",
    });
  });

  it("refuses links it cannot open, saying why", () => {
    expect(targetFromLink("ssh://web1")).toHaveProperty("error");
    expect(targetFromLink("https://example.invalid")).toHaveProperty("error");
    expect(targetFromLink("not a link")).toHaveProperty("error");
  });
});
