import { describe, expect, it } from "vitest";
import { groupConnections, parseTags } from "./groups";
import type { SavedConnection } from "./protocol";
import { DEFAULT_SETTINGS } from "./state/settings-form";

function saved(name: string, tags: string[], host = "10.0.0.1"): SavedConnection {
  return {
    name,
    kind: "ssh",
    address: `ssh://ops@${host}:22`,
    target: { kind: "ssh", host, port: 22, user: "ops", identity_files: [], jump_hosts: [] },
    settings: DEFAULT_SETTINGS,
    tags,
  };
}

describe("the sidebar's groups", () => {
  const all = [saved("web1", ["web", "eu"]), saved("db", [], "10.0.0.9"), saved("web2", ["web"])];
  const names = (filter: string) =>
    groupConnections(all, filter).map((group) => [group.tag, group.connections.map((c) => c.name)]);

  it("puts a connection in each of its tags' groups, alphabetically, untagged last", () => {
    expect(names("")).toEqual([
      ["eu", ["web1"]],
      ["web", ["web1", "web2"]],
      [null, ["db"]],
    ]);
  });

  it("filters by name, address and tag, leaving out emptied groups", () => {
    expect(names("10.0.0.9")).toEqual([[null, ["db"]]]);
    expect(names("EU")).toEqual([
      ["eu", ["web1"]],
      ["web", ["web1"]],
    ]);
    expect(names("web2")).toEqual([["web", ["web2"]]]);
  });

  it("reads tags typed comma-separated", () => {
    expect(parseTags(" web, eu,,web ")).toEqual(["web", "eu"]);
    expect(parseTags("")).toEqual([]);
  });
});
