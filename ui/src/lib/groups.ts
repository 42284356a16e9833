// The sidebar's groups of saved connections: one group per tag (a connection with several tags
// is in each), the untagged ones last, and a filter over names, addresses and tags.

import type { SavedConnection } from "./protocol";

export interface ConnectionGroup {
  /** The tag; null for the connections without one. */
  tag: string | null;
  connections: SavedConnection[];
}

/** Whether `connection` matches what was typed into the filter (name, address or a tag). */
export function matchesFilter(connection: SavedConnection, filter: string): boolean {
  const needle = filter.trim().toLowerCase();
  if (needle === "") {
    return true;
  }
  return (
    connection.name.toLowerCase().includes(needle) ||
    connection.address.toLowerCase().includes(needle) ||
    connection.tags.some((tag) => tag.toLowerCase().includes(needle))
  );
}

/** The groups to show, tags in alphabetical order, each in the saved order; groups left empty
 * by the filter are left out. */
export function groupConnections(saved: SavedConnection[], filter: string): ConnectionGroup[] {
  const shown = saved.filter((connection) => matchesFilter(connection, filter));
  const tags = [...new Set(shown.flatMap((connection) => connection.tags))].sort((a, b) =>
    a.localeCompare(b, undefined, { sensitivity: "base" }),
  );
  const groups: ConnectionGroup[] = tags.map((tag) => ({
    tag,
    connections: shown.filter((connection) => connection.tags.includes(tag)),
  }));
  const untagged = shown.filter((connection) => connection.tags.length === 0);
  if (untagged.length > 0) {
    groups.push({ tag: null, connections: untagged });
  }
  return groups;
}

/** Tags as typed into the tags field: comma-separated, trimmed, empty ones and repeats dropped. */
export function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(",")
        .map((tag) => tag.trim())
        .filter((tag) => tag !== ""),
    ),
  ];
}
