// The engine's unified diff (edit_file / write_file approvals) as rows to draw: one list for the
// unified view and paired rows for the side-by-side view. The text is never interpreted as HTML:
// the components put it into text nodes.

export type LineKind = "context" | "add" | "del";

export interface DiffLine {
  kind: LineKind;
  /** Line number in the old file (context and deletions). */
  old: number | null;
  /** Line number in the new file (context and additions). */
  new: number | null;
  text: string;
  /** "\ No newline at end of file" followed this line. */
  noNewline: boolean;
}

export interface Hunk {
  header: string;
  lines: DiffLine[];
}

export interface ParsedDiff {
  oldPath: string | null;
  newPath: string | null;
  hunks: Hunk[];
  added: number;
  removed: number;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

/** Parse one file's unified diff. Lines outside a hunk (other than headers) are ignored. */
export function parseUnifiedDiff(text: string): ParsedDiff {
  const diff: ParsedDiff = { oldPath: null, newPath: null, hunks: [], added: 0, removed: 0 };
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") {
    lines.pop();
  }
  let hunk: Hunk | null = null;
  let oldLine = 0;
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (const raw of lines) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const inside = hunk !== null && (oldLeft > 0 || newLeft > 0);
    if (!inside) {
      if (line.startsWith("--- ")) {
        diff.oldPath = line.slice(4).trim();
        continue;
      }
      if (line.startsWith("+++ ")) {
        diff.newPath = line.slice(4).trim();
        continue;
      }
    }
    const header = HUNK.exec(line);
    if (header !== null) {
      oldLine = Number(header[1]);
      newLine = Number(header[3]);
      oldLeft = header[2] === undefined ? 1 : Number(header[2]);
      newLeft = header[4] === undefined ? 1 : Number(header[4]);
      hunk = { header: line, lines: [] };
      diff.hunks.push(hunk);
      continue;
    }
    if (hunk === null) {
      continue;
    }
    if (line.startsWith("\\")) {
      const last = hunk.lines[hunk.lines.length - 1];
      if (last !== undefined) {
        last.noNewline = true;
      }
      continue;
    }
    const mark = line[0];
    const body = line.slice(1);
    if (mark === "+") {
      hunk.lines.push({ kind: "add", old: null, new: newLine++, text: body, noNewline: false });
      newLeft--;
      diff.added++;
    } else if (mark === "-") {
      hunk.lines.push({ kind: "del", old: oldLine++, new: null, text: body, noNewline: false });
      oldLeft--;
      diff.removed++;
    } else if (mark === " " || line === "") {
      hunk.lines.push({ kind: "context", old: oldLine++, new: newLine++, text: body, noNewline: false });
      oldLeft--;
      newLeft--;
    }
  }
  return diff;
}

export interface SideBySideRow {
  left: DiffLine | null;
  right: DiffLine | null;
}

/** A hunk as side-by-side rows: context on both sides; within a change, the n-th deleted line
 * faces the n-th added line. */
export function sideBySide(hunk: Hunk): SideBySideRow[] {
  const rows: SideBySideRow[] = [];
  let dels: DiffLine[] = [];
  let adds: DiffLine[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
      rows.push({ left: dels[i] ?? null, right: adds[i] ?? null });
    }
    dels = [];
    adds = [];
  };
  for (const line of hunk.lines) {
    if (line.kind === "del") {
      if (adds.length > 0) {
        flush();
      }
      dels.push(line);
    } else if (line.kind === "add") {
      adds.push(line);
    } else {
      flush();
      rows.push({ left: line, right: line });
    }
  }
  flush();
  return rows;
}

/** How the user asked to see a diff: the default, or one of the two views. */
export type DiffChoice = "auto" | "unified" | "split";

/** Whether the two sides fit side by side: the diff is `width` px wide and the sides need `needed`
 * px at their least (0: not measured yet, so not known to fit). */
export function splitFits(width: number, needed: number): boolean {
  return needed > 0 && width >= needed;
}

/** Side by side only where both sides fit, else unified (an added line scrolled out of sight is
 * a change the user approves without seeing); where they fit, the user's choice, side by side by
 * default. */
export function showsSplit(choice: DiffChoice, width: number, needed: number): boolean {
  return splitFits(width, needed) && choice !== "unified";
}

/** A path from a diff header without git's `a/` / `b/` prefix. */
export function displayPath(path: string | null): string | null {
  if (path === null || path === "/dev/null") {
    return path;
  }
  return path.replace(/^[ab](?=\/)/, "");
}
