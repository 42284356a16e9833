// One xterm.js in a tab's pane: the only module that makes a Terminal and its add-ons (fit,
// search, serialize, web links, Unicode 11, WebGL where a GPU draws) and ends them. It draws,
// fits, reads, searches and snapshots the screen, and follows the system's colours and reduced
// motion. What a key or a byte means for the tab, and anything sent to the engine, is the
// view-model's (lib/state/terminal.svelte.ts): this module never decides or sends either.

import "@xterm/xterm/css/xterm.css";
import { Terminal, type ITheme } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { SearchAddon } from "@xterm/addon-search";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { SerializeAddon } from "@xterm/addon-serialize";
import { WebLinksAddon } from "@xterm/addon-web-links";
import { hardwareWebgl } from "./gpu";
import { layout } from "./layout.svelte";
import { drawnTheme, followTheme } from "./theme";
import { wordAt } from "./touch";
import {
  DEFAULT_FONT_SIZE,
  cellAt,
  plainState,
  type Box,
  type Screen,
  type ScreenOptions,
  type Size,
  type Snapshot,
  type XtermInternals,
} from "./state/terminal";

/** The most columns or rows the engine takes (`MAX_TERMINAL_SIZE` in crates/core/src/limits.rs). */
const MAX_TERMINAL_SIZE = 1000;

const DARK: ITheme = {
  background: "#16181d",
  foreground: "#d8dee9",
  cursor: "#d8dee9",
  selectionBackground: "#3b4252",
};
// On a light background the usual bright ANSI colours are unreadable: darker ones, each at
// least 4.5:1 against the background.
const LIGHT: ITheme = {
  background: "#fbfbfc",
  foreground: "#1f2328",
  cursor: "#1f2328",
  selectionBackground: "#c8d1dc",
  black: "#1f2328",
  red: "#b42318",
  green: "#1a7f37",
  yellow: "#8a5a00",
  blue: "#0b57d0",
  magenta: "#8a3ffc",
  cyan: "#0e7490",
  white: "#57606a",
  brightBlack: "#57606a",
  brightRed: "#c62828",
  brightGreen: "#1f7a3a",
  brightYellow: "#7a5200",
  brightBlue: "#1d4ed8",
  brightMagenta: "#7e22ce",
  brightCyan: "#0f766e",
  brightWhite: "#6e7781",
};

/** How matches of a search are marked: outlined (the text keeps its colours), the one shown
 * more strongly. */
const SEARCH_DECORATIONS = {
  matchBorder: "#c28e00",
  matchOverviewRuler: "#c28e00",
  activeMatchBorder: "#ff6a00",
  activeMatchColorOverviewRuler: "#ff6a00",
};

/** How long after the last key the cursor blinks again. */
const BLINK_AFTER_IDLE_MS = 1000;

export class Xterm implements Screen {
  readonly #host: HTMLElement;
  readonly #term: Terminal;
  readonly #fit = new FitAddon();
  readonly #search = new SearchAddon();
  readonly #serializer = new SerializeAddon();
  readonly #reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  /** What `dispose` ends besides the Terminal. */
  readonly #stops: (() => void)[] = [];
  #disposed = false;

  /** A new xterm.js drawn into `host`. */
  constructor(host: HTMLElement, options: ScreenOptions) {
    this.#host = host;
    const term = new Terminal({
      scrollback: 10_000,
      allowProposedApi: true,
      cursorBlink: !this.#reducedMotion.matches,
      fontFamily: options.fontFamily,
      fontSize: options.fontSize,
      theme: drawnTheme() === "dark" ? DARK : LIGHT,
      ...(options.size ?? {}),
    });
    this.#term = term;
    term.loadAddon(this.#fit);
    term.loadAddon(this.#search);
    term.loadAddon(this.#serializer);
    term.loadAddon(new WebLinksAddon());
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = "11";
    term.attachCustomKeyEventHandler((event) => options.onKey(event));
    const results = this.#search.onDidChangeResults((event) =>
      options.onSearchResults(event.resultIndex, event.resultCount),
    );
    this.#stops.push(() => results.dispose());
    term.open(host);
    this.#loadWebgl();

    // The theme chosen in Settings, or the system's (lib/theme.ts).
    this.#stops.push(followTheme((theme) => (term.options.theme = theme === "dark" ? DARK : LIGHT)));

    // While the user types the cursor holds still, as in other terminals, and blinks again
    // BLINK_AFTER_IDLE_MS after the last key. It also keeps echo fast: xterm's DOM renderer
    // blinks by a CSS animation that its cursor row restarts, and with it blinking an echo took
    // 28 ms to draw here instead of 13 (BENCHMARKS.md, the browser UI).
    let blinkTimer = 0;
    const holdCursor = () => {
      if (term.options.cursorBlink) {
        term.options.cursorBlink = false;
      }
      window.clearTimeout(blinkTimer);
      blinkTimer = window.setTimeout(() => {
        term.options.cursorBlink = !this.#reducedMotion.matches;
      }, BLINK_AFTER_IDLE_MS);
    };
    this.#stops.push(() => window.clearTimeout(blinkTimer));
    const typed = term.onData((data) => {
      holdCursor();
      options.onData(data);
    });
    const binary = term.onBinary((data) => options.onBinary(data));
    this.#stops.push(
      () => typed.dispose(),
      () => binary.dispose(),
    );
  }

  /** WebGL where the pointer is fine (desktops) and a GPU draws it (lib/gpu.ts). On touch
   * screens xterm's DOM renderer draws: a phone or tablet takes WebGL contexts away in the
   * background (iOS does, with the app), and at their pixel ratios the DOM's text is as sharp. */
  #loadWebgl(): void {
    if (layout.touch || !hardwareWebgl()) {
      return;
    }
    // Loaded only here: without a GPU the page never needs its 120 KB.
    import("@xterm/addon-webgl")
      .then(({ WebglAddon }) => {
        if (this.#disposed) {
          return; // closed or asleep meanwhile
        }
        const webgl = new WebglAddon();
        webgl.onContextLoss(() => webgl.dispose());
        this.#term.loadAddon(webgl);
      })
      .catch(() => {
        // No WebGL here after all, or the add-on did not load: xterm's DOM renderer draws.
      });
  }

  get cols(): number {
    return this.#term.cols;
  }

  get rows(): number {
    return this.#term.rows;
  }

  get fontSize(): number {
    return this.#term.options.fontSize ?? DEFAULT_FONT_SIZE;
  }

  set fontSize(size: number) {
    this.#term.options.fontSize = size;
  }

  get fontFamily(): string {
    return this.#term.options.fontFamily ?? "";
  }

  set fontFamily(family: string) {
    this.#term.options.fontFamily = family;
  }

  get scrollback(): number {
    return this.#term.options.scrollback ?? 0;
  }

  get applicationCursorKeys(): boolean {
    return this.#term.modes.applicationCursorKeysMode;
  }

  write(data: Uint8Array | string, parsed?: () => void): void {
    this.#term.write(data, parsed);
  }

  fit(): Size | null {
    try {
      this.#fit.fit();
    } catch {
      return null;
    }
    // The engine refuses a larger terminal (crates/core/src/limits.rs): a huge pane at a tiny
    // font draws at most this many.
    const cols = Math.min(this.#term.cols, MAX_TERMINAL_SIZE);
    const rows = Math.min(this.#term.rows, MAX_TERMINAL_SIZE);
    if (cols !== this.#term.cols || rows !== this.#term.rows) {
      this.#term.resize(cols, rows);
    }
    return { cols, rows };
  }

  focus(): void {
    this.#term.focus();
  }

  reset(): void {
    this.#term.reset();
  }

  scrollLines(lines: number): void {
    this.#term.scrollLines(lines);
  }

  text(): string {
    const buffer = this.#term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) {
      lines.push(buffer.getLine(y)?.translateToString(true) ?? "");
    }
    return lines.join("\n");
  }

  selection(): string {
    return this.#term.getSelection();
  }

  clearSelection(): void {
    this.#term.clearSelection();
  }

  watchRender(drawn: (lines: string[]) => void): () => void {
    const term = this.#term;
    const subscription = term.onRender(() => {
      const buffer = term.buffer.active;
      const cursor = buffer.baseY + buffer.cursorY;
      drawn([cursor - 2, cursor - 1, cursor].map((y) => buffer.getLine(y)?.translateToString(true) ?? ""));
    });
    return () => subscription.dispose();
  }

  findNext(query: string, backwards: boolean): boolean {
    // Decorations make the add-on count the matches (`onDidChangeResults`).
    const options = { decorations: SEARCH_DECORATIONS };
    return backwards ? this.#search.findPrevious(query, options) : this.#search.findNext(query, options);
  }

  clearSearch(): void {
    this.#search.clearDecorations();
  }

  snapshot(): Snapshot | null {
    const term = this.#term;
    if (!plainState(term as unknown as XtermInternals)) {
      return null;
    }
    const buffer = term.buffer.active;
    return {
      data: this.#serializer.serialize(),
      cols: term.cols,
      rows: term.rows,
      fontSize: this.fontSize,
      scrolledUp: buffer.baseY - buffer.viewportY,
    };
  }

  selectWordAt(x: number, y: number): boolean {
    const screen = this.#host.querySelector(".xterm-screen");
    if (screen === null) {
      return false;
    }
    const term = this.#term;
    const cell = cellAt(x, y, screen.getBoundingClientRect(), term);
    if (cell === null) {
      return false;
    }
    const buffer = term.buffer.active;
    const line = buffer.getLine(buffer.viewportY + cell.row)?.translateToString(false) ?? "";
    const word = wordAt(line, cell.col);
    if (word === null) {
      return false;
    }
    term.select(word.start, buffer.viewportY + cell.row, word.length);
    return true;
  }

  pane(): Box {
    return this.#host.getBoundingClientRect();
  }

  cursorRow(): number | null {
    const buffer = this.#term.buffer.active;
    const row = buffer.baseY + buffer.cursorY - buffer.viewportY;
    return row >= 0 && row < this.#term.rows ? row : null;
  }

  dispose(): void {
    this.#disposed = true;
    for (const stop of this.#stops.splice(0)) {
      stop();
    }
    this.#term.dispose();
  }
}
