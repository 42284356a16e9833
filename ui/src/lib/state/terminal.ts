// A tab's terminal as plain values (Vitest checks them without a DOM): which keys belong to the
// app, the zoom steps, where a touch falls on the grid, and whether a screen can sleep as a
// snapshot. `Screen` is what the view-model (terminal.svelte.ts) needs of xterm.js; lib/xterm.ts
// gives it. Nothing here touches the page or xterm.js itself.

export interface Size {
  cols: number;
  rows: number;
}

/** A rectangle on the page, in CSS px (a DOMRect has these). */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export const DEFAULT_FONT_SIZE = 14;
export const MIN_FONT_SIZE = 8;
export const MAX_FONT_SIZE = 32;

/** A flood's pace on screen (the flood gate, lib/flood-gate.ts): ten updates a second, each
 * parsing for about FLOOD_PARSE_MS. */
export const FLOOD_INTERVAL_MS = 100;
export const FLOOD_PARSE_MS = 15;

/**
 * A hidden terminal that has printed nothing for this long goes to sleep: its screen and
 * history become the escape sequences that draw them again (xterm's serialize add-on), a byte
 * or two per character shown where xterm.js's buffer holds 12 per cell, and its xterm.js is
 * disposed. Shown again, it wakes: a new xterm.js draws the snapshot and what arrived
 * meanwhile. Awake, each tab of 10,000 lines took about 20 MB (BENCHMARKS.md, the desktop app).
 */
export const SLEEP_AFTER_MS = 30_000;
/** Bytes that may arrive for a sleeping terminal before it wakes (hidden) to take them. */
export const MAX_ASLEEP_BYTES = 1 << 20;

/** How long a finger rests before a long-press selects. */
export const LONG_PRESS_MS = 500;
/** How far (px) it may wander meanwhile. */
export const LONG_PRESS_SLOP = 10;

/** What a key pressed in the terminal does when it is the app's, not the shell's. */
export type Shortcut = "copy" | "zoom-in" | "zoom-out" | "zoom-reset" | "app";

/** The fields of a KeyboardEvent that decide a shortcut. */
export interface KeyPress {
  type: string;
  code: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  preventDefault(): void;
}

/** Ctrl+Shift and a physical key (so Shift does not change it): T, W, F, S (the app's), C (copy),
 * V (the browser's paste, which xterm turns into a bracketed paste), and +, - and 0 (zoom). */
const SHORTCUTS: Record<string, Shortcut> = {
  KeyT: "app",
  KeyW: "app",
  KeyF: "app",
  KeyS: "app",
  KeyV: "app",
  KeyC: "copy",
  Equal: "zoom-in",
  Minus: "zoom-out",
  Digit0: "zoom-reset",
};

/** The app's shortcut `event` is, or null when the key is the shell's. */
export function shortcut(event: Pick<KeyPress, "code" | "ctrlKey" | "shiftKey">): Shortcut | null {
  if (!event.ctrlKey || !event.shiftKey) {
    return null;
  }
  return SHORTCUTS[event.code] ?? null;
}

/** The font size a zoom step gives: a point bigger (1), smaller (-1), or the default (0: the
 * size chosen in Settings, `base`), within [MIN_FONT_SIZE, MAX_FONT_SIZE]. */
export function zoomedFontSize(size: number, step: 1 | -1 | 0, base = DEFAULT_FONT_SIZE): number {
  const next = step === 0 ? base : size + step;
  return Math.min(MAX_FONT_SIZE, Math.max(MIN_FONT_SIZE, next));
}

/** The cell under page point (x, y) of a grid drawn in `screen`, or null outside it. */
export function cellAt(x: number, y: number, screen: Box, size: Size): { col: number; row: number } | null {
  const col = Math.floor(((x - screen.left) / screen.width) * size.cols);
  const row = Math.floor(((y - screen.top) / screen.height) * size.rows);
  if (col < 0 || row < 0 || col >= size.cols || row >= size.rows) {
    return null;
  }
  return { col, row };
}

/** Where (px in the pane) the "Copy" button of a long-press at page point (x, y) floats: above
 * the finger, kept inside the pane. */
export function copyButtonAt(x: number, y: number, pane: Box): { x: number; y: number } {
  return { x: Math.max(4, Math.min(x - pane.left, pane.width - 90)), y: Math.max(4, y - pane.top - 56) };
}

/** What `plainState` reads of xterm.js (its public buffer type and rows, and its core, which
 * is not public API). */
export interface XtermInternals {
  rows: number;
  buffer: { active: { type: string } };
  _core?: {
    buffer?: { scrollTop?: number; scrollBottom?: number };
    coreService?: { isCursorHidden?: boolean };
    _charsetService?: { glevel?: number; charset?: unknown };
  };
}

/**
 * Whether a snapshot keeps all that shapes what the program prints next: the normal screen,
 * no scroll region, the cursor shown, the default character set. The serialize add-on keeps
 * the screen, the history and the modes, not these (a full-screen program, or apt's progress
 * bar in its scroll region, would come back wrong). They are read from xterm.js's internals,
 * so anything not found there counts as not plain, and the terminal stays awake.
 */
export function plainState(term: XtermInternals): boolean {
  const core = term._core;
  return (
    term.buffer.active.type === "normal" &&
    core?.buffer?.scrollTop === 0 &&
    core.buffer.scrollBottom === term.rows - 1 &&
    core.coreService?.isCursorHidden === false &&
    core._charsetService?.glevel === 0 &&
    core._charsetService.charset === undefined
  );
}

/** What draws a terminal again: its screen and history as escape sequences, at its size. */
export interface Snapshot extends Size {
  data: string;
  fontSize: number;
  /** Lines the view was scrolled up from the bottom. */
  scrolledUp: number;
}

/** What a new screen starts with, and where its events go. */
/** A search's place in words: "3 of 12", "No matches"; empty before the first search. */
export function searchWords(result: { index: number; count: number } | null): string {
  if (result === null) {
    return "";
  }
  if (result.count === 0) {
    return "No matches";
  }
  if (result.index < 0) {
    return `${result.count} matches`;
  }
  return `${result.index + 1} of ${result.count}`;
}

export interface ScreenOptions {
  /** The size to start at (a snapshot's), or null for xterm's default until the first fit. */
  size: Size | null;
  fontSize: number;
  /** A CSS font-family list (Settings). */
  fontFamily: string;
  /** A key pressed in the terminal; false keeps it from the shell. */
  onKey(event: KeyPress): boolean;
  /** Text typed or pasted. */
  onData(data: string): void;
  /** Bytes that are not text (a mouse report in X10 encoding), one per character. */
  onBinary(data: string): void;
  /** Where a search stands: the match shown (0-based; -1 when there are too many to number)
   * and how many there are. */
  onSearchResults(index: number, count: number): void;
}

/** One xterm.js in the tab's pane, as the view-model drives it (lib/xterm.ts). */
export interface Screen {
  readonly cols: number;
  readonly rows: number;
  fontSize: number;
  fontFamily: string;
  /** Lines of history kept above the screen. */
  readonly scrollback: number;
  /** Whether arrows send `ESC O A` (full-screen programs switch it on) rather than `ESC [ A`. */
  readonly applicationCursorKeys: boolean;
  /** Hands data to the parser; `parsed` runs once it is taken in. */
  write(data: Uint8Array | string, parsed?: () => void): void;
  /** Fits the grid to the pane; the size after, or null when the pane cannot be measured. */
  fit(): Size | null;
  focus(): void;
  reset(): void;
  scrollLines(lines: number): void;
  /** The whole buffer, history included, a line per row. */
  text(): string;
  selection(): string;
  clearSelection(): void;
  /** Calls `drawn` with the cursor's line and the two above it after each rendered frame. */
  watchRender(drawn: (lines: string[]) => void): () => void;
  /** Selects the next (or previous) match of `query`; false when there is none. */
  findNext(query: string, backwards: boolean): boolean;
  clearSearch(): void;
  /** The snapshot that draws this screen again, or null when its state is not plain. */
  snapshot(): Snapshot | null;
  /** Selects the word at page point (x, y); false when there is none there. */
  selectWordAt(x: number, y: number): boolean;
  /** The pane the terminal is drawn in. */
  pane(): Box;
  /** The cursor's row on the screen (0 at the top), or null while the view is scrolled away
   * from it. */
  cursorRow(): number | null;
  /** Ends xterm.js, its add-ons and its listeners. */
  dispose(): void;
}

/** Where a notice floating over the terminal goes so that it does not cover the cursor's line
 * (a password prompt): below when the cursor is in the top half, else above. */
export function noticeBelow(cursorRow: number | null, rows: number): boolean {
  return cursorRow !== null && cursorRow < rows / 2;
}
