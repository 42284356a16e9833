// The snippet palette's logic (no Svelte, no transport): which snippets a query shows, which
// variables to ask for, the values sent back, the bytes typed, and the edit form's draft.
// The engine parses and expands commands; nothing here knows the `{{…}}` syntax.

import type { Snippet, SnippetBuiltins, SnippetScope, SnippetValue } from "../protocol";

/** The snippets whose name, description or command hold every word of `query` (any case),
 * names that start with the query first, otherwise in their saved order. */
export function filterSnippets(snippets: readonly Snippet[], query: string): Snippet[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "");
  const shown = snippets.filter((s) => {
    const text = `${s.name} ${s.description ?? ""} ${s.command}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
  const start = query.trim().toLowerCase();
  if (start === "") return shown;
  const first = shown.filter((s) => s.name.toLowerCase().startsWith(start));
  return [...first, ...shown.filter((s) => !first.includes(s))];
}

/** The selected row after a key: ↑/↓ wrap around, Home/End go to the ends; -1 when empty. */
export function moveSelection(index: number, key: string, count: number): number {
  if (count === 0) return -1;
  switch (key) {
    case "ArrowDown":
      return (index + 1) % count;
    case "ArrowUp":
      return (index - 1 + count) % count;
    case "Home":
      return 0;
    case "End":
      return count - 1;
    default:
      return Math.min(Math.max(index, 0), count - 1);
  }
}

/** One field of the variables form. */
export interface SnippetField {
  name: string;
  label: string;
  value: string;
  builtin: boolean;
}

/** The fields to ask for: every variable but the built-ins the tab knows, defaults filled. */
export function snippetFields(snippet: Snippet, builtins: SnippetBuiltins): SnippetField[] {
  return (snippet.variables ?? [])
    .filter((v) => v.builtin !== true || builtinValue(builtins, v.name) == null)
    .map((v) => ({
      name: v.name,
      label: v.builtin === true ? `${v.name} (not known for this tab)` : v.name,
      value: v.default ?? "",
      builtin: v.builtin === true,
    }));
}

function builtinValue(builtins: SnippetBuiltins, name: string): string | null {
  if (name === "host") return builtins.host ?? null;
  if (name === "user") return builtins.user ?? null;
  if (name === "cwd") return builtins.cwd ?? null;
  return null;
}

/** What `ExpandSnippet` is sent: every field, as typed. */
export function snippetValues(fields: readonly SnippetField[]): SnippetValue[] {
  return fields.map((f) => ({ name: f.name, value: f.value }));
}

/** The bytes typed into the terminal: the line, and Enter (a carriage return, as the Enter key
 * sends) only when the snippet says so. */
export function typedBytes(line: string, enter: boolean): Uint8Array {
  return new TextEncoder().encode(enter ? `${line}\r` : line);
}

/** Where a snippet applies, in words. */
export function scopeLabel(scope: SnippetScope): string {
  switch (scope.kind) {
    case "global":
      return "every tab";
    case "connection":
      return `connection ${scope.name}`;
    case "group":
      return `group ${scope.tag}`;
  }
}

/** The edit form's fields. */
export interface SnippetDraft {
  name: string;
  description: string;
  command: string;
  enter: boolean;
  scope: "global" | "connection" | "group";
  /** The connection's name or the group's tag. */
  scopeName: string;
}

export function draftOf(snippet: Snippet | null, connection: string | null): SnippetDraft {
  if (snippet === null) {
    return {
      name: "",
      description: "",
      command: "",
      enter: false,
      scope: connection === null ? "global" : "connection",
      scopeName: connection ?? "",
    };
  }
  const scope = snippet.scope;
  return {
    name: snippet.name,
    description: snippet.description ?? "",
    command: snippet.command,
    enter: snippet.enter ?? false,
    scope: scope.kind,
    scopeName: scope.kind === "connection" ? scope.name : scope.kind === "group" ? scope.tag : "",
  };
}

/** The snippet a draft saves, or what is missing (the engine checks the command). */
export function snippetOfDraft(draft: SnippetDraft): Snippet | string {
  if (draft.name.trim() === "") return "Give the snippet a name.";
  if (draft.command.trim() === "") return "Give the snippet a command.";
  const scopeName = draft.scopeName.trim();
  let scope: SnippetScope;
  if (draft.scope === "global") {
    scope = { kind: "global" };
  } else if (scopeName === "") {
    return draft.scope === "connection" ? "Name the saved connection." : "Name the group (a tag).";
  } else {
    scope = draft.scope === "connection" ? { kind: "connection", name: scopeName } : { kind: "group", tag: scopeName };
  }
  return {
    name: draft.name.trim(),
    description: draft.description.trim(),
    command: draft.command,
    enter: draft.enter,
    scope,
    variables: [],
  };
}
