import { describe, expect, it } from "vitest";
import type { Snippet } from "../protocol";
import { answerOf } from "./snippets.svelte";
import {
  draftOf,
  filterSnippets,
  moveSelection,
  scopeLabel,
  snippetFields,
  snippetOfDraft,
  snippetValues,
  typedBytes,
} from "./snippets";

function snippet(name: string, command: string, extra: Partial<Snippet> = {}): Snippet {
  return { name, description: "", command, enter: false, scope: { kind: "global" }, variables: [], ...extra };
}

const logs = snippet("follow log", "tail -f {{file:/var/log/syslog}}", {
  description: "Follow a log file",
  variables: [{ name: "file", default: "/var/log/syslog", builtin: false }],
});
const disk = snippet("disk", "df -h {{cwd}}", { variables: [{ name: "cwd", default: null, builtin: true }] });
const restart = snippet("restart unit", "sudo systemctl restart {{unit}}", {
  enter: true,
  scope: { kind: "group", tag: "web" },
  variables: [{ name: "unit", default: null, builtin: false }],
});

describe("the snippet palette", () => {
  it("filters by every word, names that start with the query first", () => {
    const all = [logs, disk, restart];
    expect(filterSnippets(all, "").map((s) => s.name)).toEqual(["follow log", "disk", "restart unit"]);
    expect(filterSnippets(all, "LOG").map((s) => s.name)).toEqual(["follow log"]);
    expect(filterSnippets(all, "systemctl unit").map((s) => s.name)).toEqual(["restart unit"]);
    expect(filterSnippets(all, "r").map((s) => s.name)).toEqual(["restart unit", "follow log"]);
    expect(filterSnippets(all, "nothing here")).toEqual([]);
  });

  it("moves the selection with the arrow keys, wrapping, and Home/End", () => {
    expect(moveSelection(0, "ArrowDown", 3)).toBe(1);
    expect(moveSelection(2, "ArrowDown", 3)).toBe(0);
    expect(moveSelection(0, "ArrowUp", 3)).toBe(2);
    expect(moveSelection(1, "Home", 3)).toBe(0);
    expect(moveSelection(0, "End", 3)).toBe(2);
    expect(moveSelection(5, "", 3)).toBe(2);
    expect(moveSelection(0, "ArrowDown", 0)).toBe(-1);
  });

  it("asks for the variables with their defaults, and for built-ins only when the tab does not know them", () => {
    expect(snippetFields(logs, {})).toEqual([
      { name: "file", label: "file", value: "/var/log/syslog", builtin: false },
    ]);
    expect(snippetFields(disk, { cwd: "/srv" })).toEqual([]);
    expect(snippetFields(disk, { host: "web1", cwd: null })).toEqual([
      { name: "cwd", label: "cwd (not known for this tab)", value: "", builtin: true },
    ]);
    const fields = snippetFields(restart, {});
    fields[0]!.value = "nginx";
    expect(snippetValues(fields)).toEqual([{ name: "unit", value: "nginx" }]);
  });

  it("types the line, with Enter only when the snippet says so", () => {
    expect(new TextDecoder().decode(typedBytes("ls -l", false))).toBe("ls -l");
    expect(new TextDecoder().decode(typedBytes("ls -l", true))).toBe("ls -l\r");
  });

  it("reads the engine's answers, a problem first", () => {
    expect(answerOf({ type: "snippet_expanded", tab: "t", name: "x", line: "ls", enter: true })).toEqual({
      kind: "expanded",
      line: "ls",
      enter: true,
    });
    expect(
      answerOf({ type: "snippet_expanded", tab: "t", name: "x", line: "", enter: false, problem: "no value" }),
    ).toEqual({ kind: "error", message: "no value" });
    expect(answerOf({ type: "snippets", snippets: [logs] })).toEqual({
      kind: "listed",
      snippets: [logs],
      builtins: {},
    });
  });

  it("edits a snippet through a draft", () => {
    const fresh = draftOf(null, "web1");
    expect(fresh).toMatchObject({ scope: "connection", scopeName: "web1", enter: false });
    expect(snippetOfDraft(fresh)).toBe("Give the snippet a name.");
    expect(snippetOfDraft({ ...fresh, name: "x" })).toBe("Give the snippet a command.");
    expect(snippetOfDraft({ ...fresh, name: "x", command: "ls", scopeName: " " })).toBe("Name the saved connection.");
    expect(snippetOfDraft({ ...draftOf(restart, null), name: " restart " })).toEqual({
      name: "restart",
      description: "",
      command: restart.command,
      enter: true,
      scope: { kind: "group", tag: "web" },
      variables: [],
    });
    expect(draftOf(null, null).scope).toBe("global");
    expect(scopeLabel(restart.scope)).toBe("group web");
    expect(scopeLabel({ kind: "connection", name: "db1" })).toBe("connection db1");
  });
});
