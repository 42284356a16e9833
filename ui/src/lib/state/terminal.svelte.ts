// One tab's terminal, what TerminalView.svelte shows: output to the screen as it comes, paced by
// a flood gate; keystrokes out as bytes (with the extra-keys row's sticky modifiers); the size
// the engine is told; the app's shortcuts, search, zoom, pinch and long-press; and the sleep of
// a hidden terminal as a snapshot. It drives a `Screen` (lib/xterm.ts in the page, a fake in its
// tests) and never touches the page itself: timers, the clipboard and the page's visibility come
// in through `TerminalDeps`.

import { extraKeyData, modified, NO_MODIFIERS, type ExtraKey, type Modifiers } from "../extra-keys";
import { FloodGate } from "../flood-gate";
import type { TabId } from "../ids";
import { registerTerminal, type TerminalReader } from "../terminal-text";
import type { TerminalSink } from "../terminal-output";
import { pinchedFontSize } from "../touch";
import { prefs } from "../prefs";
import {
  FLOOD_INTERVAL_MS,
  FLOOD_PARSE_MS,
  LONG_PRESS_MS,
  LONG_PRESS_SLOP,
  MAX_ASLEEP_BYTES,
  MAX_FONT_SIZE,
  MIN_FONT_SIZE,
  SLEEP_AFTER_MS,
  copyButtonAt,
  noticeBelow,
  shortcut,
  zoomedFontSize,
  type KeyPress,
  type Screen,
  type ScreenOptions,
  type Size,
  type Snapshot,
} from "./terminal";

/** Where the terminal's keystrokes and size go (the Session). */
export interface TerminalLink {
  input(tab: TabId, data: Uint8Array): void;
  resize(tab: TabId, cols: number, rows: number): void;
}

/** The extra-keys row's sticky Ctrl and Alt (StickyModifiers). */
export interface LatchedModifiers {
  readonly any: boolean;
  take(): Modifiers;
}

/** The page's clock and timers. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(id: number): void;
  /** Runs `callback` before the next frame is drawn. */
  nextFrame(callback: () => void): void;
}

export interface TerminalDeps {
  link: TerminalLink;
  tab: TabId;
  /** Whether the tab is shown (read when needed: it is the view's prop). */
  visible(): boolean;
  /** The sticky modifiers the next key takes, on touch screens. */
  modifiers(): LatchedModifiers | null;
  /** A new screen in the tab's pane. */
  open(options: ScreenOptions): Screen;
  clock?: Clock;
  /** Whether the page is hidden (it draws nothing then). */
  pageHidden?(): boolean;
  /** Puts text on the clipboard. */
  copy?(text: string): void;
}

/** A touch point on the page. */
export interface Touch {
  x: number;
  y: number;
}

const browserClock: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => window.setTimeout(callback, ms),
  clearTimeout: (id) => window.clearTimeout(id),
  nextFrame: (callback) => {
    requestAnimationFrame(() => callback());
  },
};

function copyToClipboard(text: string): void {
  navigator.clipboard?.writeText(text).catch(() => {
    // No clipboard access (an insecure origin, or refused): nothing to copy into.
  });
}

/** A sleeping terminal: what draws it again, and the output since. */
interface Asleep extends Snapshot {
  pending: Uint8Array[];
  pendingBytes: number;
}

const nothing = () => {};
const encoder = new TextEncoder();

export class TerminalModel implements TerminalSink {
  /** The search box is open. */
  searching = $state(false);
  /** Where the last search stands (null: not searched since the box opened or the text changed). */
  searchResult: { index: number; count: number } | null = $state(null);
  query = $state("");
  /** Where the "Copy" button of a long-press selection floats (px in the pane), or null. */
  copyAt: { x: number; y: number } | null = $state(null);
  /** A snapshot is being drawn into a new screen (kept out of sight meanwhile). */
  waking = $state(false);

  readonly #deps: TerminalDeps;
  readonly #clock: Clock;
  readonly #gate: FloodGate;
  #screen: Screen | undefined;
  /** The size last sent to the engine for this tab. */
  #told: Size | undefined;
  #asleep: Asleep | null = null;
  #sleepTimer = 0;
  #lastOutput = 0;
  #unregisterReader = nothing;
  #unfollowPrefs = nothing;
  #pinch: { distance: number; fontSize: number } | null = null;
  #press: { timer: number; x: number; y: number } | null = null;
  /** A long-press selected: the lift that ends it is no tap. */
  #selected = false;
  #pinchFrame = false;

  constructor(deps: TerminalDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? browserClock;
    const pageHidden = deps.pageHidden ?? (() => document.hidden);
    // Straight to the screen when it keeps up (an echo is drawn on the next frame), paced and
    // cut to what the history keeps when a flood outruns it (lib/flood-gate.ts).
    this.#gate = new FloodGate(
      {
        write: (data, parsed) => {
          if (this.#screen === undefined) {
            parsed();
          } else {
            this.#screen.write(data, parsed);
          }
        },
      },
      {
        keepLines: () => (this.#screen?.scrollback ?? 0) + (this.#screen?.rows ?? 0) + 1,
        // While a flood waits, the terminal takes a share of it FLOOD_INTERVAL_MS apart and is
        // drawn as often: drawing every frame (all rows change) would leave the page no time to
        // read its link. A hidden page draws nothing and gets its share at once.
        schedule: (next) => this.#clock.setTimeout(next, pageHidden() ? 0 : FLOOD_INTERVAL_MS),
        parseMs: FLOOD_PARSE_MS,
        now: () => this.#clock.now(),
      },
    );
  }

  /** Opens the first screen, at the font chosen in Settings; a change there applies at once. */
  start(): void {
    this.#open(null, prefs.current.fontSize);
    this.#unfollowPrefs = prefs.follow((chosen) => {
      const screen = this.#screen;
      if (screen !== undefined && (screen.fontSize !== chosen.fontSize || screen.fontFamily !== chosen.fontFamily)) {
        screen.fontFamily = chosen.fontFamily;
        screen.fontSize = chosen.fontSize;
        this.fit();
      }
    });
  }

  /** Ends the screen and every timer; the tab's terminal is gone from the page. */
  dispose(): void {
    this.#unfollowPrefs();
    this.#clock.clearTimeout(this.#sleepTimer);
    this.#cancelPress();
    this.#stop();
    this.#unregisterReader();
  }

  /** Output for the tab (TerminalOutput). */
  write(data: Uint8Array): void {
    this.#lastOutput = this.#clock.now();
    const asleep = this.#asleep;
    if (asleep !== null) {
      asleep.pending.push(data);
      asleep.pendingBytes += data.length;
      if (asleep.pendingBytes > MAX_ASLEEP_BYTES) {
        // Busy while hidden: awake it takes the output as it comes (and sleeps when quiet).
        this.#wake();
      }
    } else {
      this.#gate.push(data);
    }
    if (!this.#deps.visible()) {
      this.#armSleep();
    }
  }

  /** The server is about to replay the tab's screen. */
  reset(): void {
    this.#gate.reset();
    const asleep = this.#asleep;
    if (asleep !== null) {
      // The snapshot and what waited are out of date.
      asleep.data = "";
      asleep.pending = [];
      asleep.pendingBytes = 0;
      asleep.scrolledUp = 0;
    } else {
      this.#screen?.reset();
    }
  }

  /** Fits the screen to its pane and tells the engine a new size. */
  fit(): void {
    const screen = this.#screen;
    if (screen === undefined || !this.#deps.visible() || this.waking) {
      return;
    }
    const size = screen.fit();
    if (size === null) {
      return;
    }
    // Compared with what the engine was told, not with the size before the fit: the tab was
    // asked for at a default size, and a first fit that happens to keep xterm's own size must
    // still reach the shell.
    if (size.cols !== this.#told?.cols || size.rows !== this.#told?.rows) {
      this.#told = size;
      this.#deps.link.resize(this.#deps.tab, size.cols, size.rows);
    }
  }

  focus(): void {
    this.#screen?.focus();
  }

  /** Whether a notice over the terminal should go below, leaving the cursor's line (a prompt
   * the user answers) in sight. */
  noticeBelow(): boolean {
    const screen = this.#screen;
    return screen !== undefined && noticeBelow(screen.cursorRow(), screen.rows);
  }

  /** The page's link to kaiport is open (again): ops sent while it was down are lost, so the
   * size is told again. */
  linkOpened(): void {
    this.#told = undefined;
    this.fit();
  }

  /** The tab is shown: it wakes, and fits and takes focus on the next frame (the pane may have
   * changed size while hidden). */
  shown(): void {
    this.#clock.clearTimeout(this.#sleepTimer);
    this.#wake();
    this.#clock.nextFrame(() => {
      this.fit();
      this.#screen?.focus();
    });
  }

  /** The tab is hidden: it sleeps once quiet. */
  hidden(): void {
    this.#armSleep();
  }

  /** The desktop menu's zoom: a step bigger (1), smaller (-1), or the default size (0). */
  zoom(step: 1 | -1 | 0): void {
    if (this.#screen !== undefined) {
      this.#zoom(this.#screen, step);
    }
  }

  /** A key of the extra-keys row: its bytes (arrows in the terminal's cursor-key mode) with the
   * latched modifiers, to the shell. */
  sendExtraKey(key: ExtraKey): void {
    const screen = this.#screen;
    if (screen === undefined) {
      return;
    }
    const taken = this.#deps.modifiers()?.take() ?? NO_MODIFIERS;
    this.#input(extraKeyData(key, taken, screen.applicationCursorKeys));
  }

  /** Puts a hidden terminal to sleep once everything written to it is parsed, if its state is
   * plain (lib/state/terminal.ts). Resolves with whether it went to sleep. */
  sleep(): Promise<boolean> {
    const screen = this.#screen;
    if (screen === undefined || this.#deps.visible() || this.#asleep !== null) {
      return Promise.resolve(false);
    }
    const since = this.#lastOutput;
    return new Promise((resolve) => {
      screen.write("", () => {
        // Anything that came in meanwhile may still be on its way through the gate.
        const snapshot =
          this.#screen === screen && !this.#deps.visible() && this.#lastOutput === since && this.#gate.idle
            ? screen.snapshot()
            : null;
        if (snapshot === null) {
          resolve(false);
          return;
        }
        this.#asleep = { ...snapshot, pending: [], pendingBytes: 0 };
        this.#stop();
        this.#unregisterReader = registerTerminal(this.#deps.tab, this.#asleepReader);
        resolve(true);
      });
    });
  }

  findNext(backwards: boolean): void {
    if (this.query === "") {
      this.searchResult = null;
      return;
    }
    if (this.#screen?.findNext(this.query, backwards) === false) {
      this.searchResult = { index: -1, count: 0 };
    }
  }

  /** A key in the search box: Enter finds the next match (Shift: the previous), Escape closes. */
  searchKey(event: Pick<KeyboardEvent, "key" | "shiftKey" | "preventDefault">): void {
    if (event.key === "Enter") {
      event.preventDefault();
      this.findNext(event.shiftKey);
    } else if (event.key === "Escape") {
      event.preventDefault();
      this.closeSearch();
    }
  }

  closeSearch(): void {
    this.searching = false;
    this.searchResult = null;
    this.#screen?.clearSearch();
    this.#screen?.focus();
  }

  /** The "Copy" button of a long-press: the selection to the clipboard. */
  copyTouchSelection(): void {
    if (this.#screen !== undefined) {
      this.#copy(this.#screen);
      this.#screen.clearSelection();
    }
    this.copyAt = null;
  }

  /**
   * Fingers down in the terminal: two start a pinch of the font size; one held still for
   * LONG_PRESS_MS selects the word under it and offers "Copy". One finger moving is the
   * screen's own scrolling. Returns whether the page's default must be prevented.
   */
  touchStart(touches: Touch[]): boolean {
    this.copyAt = null;
    const screen = this.#screen;
    const [first] = touches;
    if (screen === undefined) {
      return false;
    }
    if (touches.length === 2) {
      this.#cancelPress();
      this.#pinch = { distance: distance(touches), fontSize: screen.fontSize };
      return true;
    }
    if (touches.length === 1 && first !== undefined) {
      const { x, y } = first;
      this.#selected = false;
      this.#cancelPress();
      this.#press = {
        x,
        y,
        timer: this.#clock.setTimeout(() => {
          this.#press = null;
          this.#selected = this.#selectWordAt(screen, x, y);
        }, LONG_PRESS_MS),
      };
    }
    return false;
  }

  /** Fingers moving: a pinch sets the font size once a frame (the shell learns the new size,
   * as with the zoom keys); a finger that wanders ends a long-press. */
  touchMove(touches: Touch[]): boolean {
    const screen = this.#screen;
    const pinch = this.#pinch;
    if (screen === undefined) {
      return false;
    }
    if (pinch !== null && touches.length === 2) {
      const next = pinchedFontSize(pinch.fontSize, pinch.distance, distance(touches), MIN_FONT_SIZE, MAX_FONT_SIZE);
      if (next !== screen.fontSize && !this.#pinchFrame) {
        this.#pinchFrame = true;
        this.#clock.nextFrame(() => {
          this.#pinchFrame = false;
          screen.fontSize = next;
          this.fit();
        });
      }
      return true;
    }
    const [first] = touches;
    const press = this.#press;
    if (press !== null && first !== undefined && Math.hypot(first.x - press.x, first.y - press.y) > LONG_PRESS_SLOP) {
      this.#cancelPress();
    }
    return false;
  }

  /** Fingers lifted (`left` still down). Returns whether the page's default must be prevented:
   * after a long-press selected, no mouse events, whose mousedown would start a new, empty
   * selection. */
  touchEnd(left: number): boolean {
    if (left < 2) {
      this.#pinch = null;
    }
    this.#cancelPress();
    if (this.#selected) {
      this.#selected = false;
      return true;
    }
    return false;
  }

  /** A new screen for the tab, at `size` and `fontSize` when it wakes from a snapshot. */
  #open(size: Size | null, fontSize: number): Screen {
    const screen = this.#deps.open({
      size,
      fontSize,
      fontFamily: prefs.current.fontFamily,
      onKey: (event) => this.#key(screen, event),
      onData: (data) => {
        // A latched Ctrl or Alt of the extra-keys row goes with the next key typed.
        const modifiers = this.#deps.modifiers();
        this.#input(modifiers?.any ? modified(data, modifiers.take()) : data);
      },
      onBinary: (data) => this.#send(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)),
      onSearchResults: (index, count) => (this.searchResult = { index, count }),
    });
    this.#screen = screen;
    this.#unregisterReader = registerTerminal(this.#deps.tab, this.#reader(screen));
    return screen;
  }

  /** Ends the current screen (asleep, or the tab gone). */
  #stop(): void {
    const screen = this.#screen;
    if (screen === undefined) {
      return;
    }
    this.#screen = undefined;
    this.#unregisterReader();
    this.#cancelPress();
    this.#pinch = null;
    screen.dispose();
  }

  #input(data: string): void {
    this.#send(encoder.encode(data));
  }

  #send(data: Uint8Array): void {
    this.#deps.link.input(this.#deps.tab, data);
  }

  /** A key pressed in the terminal: the app's shortcuts are done here and kept from the shell. */
  #key(screen: Screen, event: KeyPress): boolean {
    const action = shortcut(event);
    if (action === null) {
      return true;
    }
    if (event.type === "keydown" && action !== "app") {
      event.preventDefault();
      if (action === "copy") {
        this.#copy(screen);
      } else {
        this.#zoom(screen, action === "zoom-in" ? 1 : action === "zoom-out" ? -1 : 0);
      }
    }
    return false;
  }

  #zoom(screen: Screen, step: 1 | -1 | 0): void {
    screen.fontSize = zoomedFontSize(screen.fontSize, step, prefs.current.fontSize);
    this.fit();
  }

  #copy(screen: Screen): void {
    const text = screen.selection();
    if (text !== "") {
      (this.#deps.copy ?? copyToClipboard)(text);
    }
  }

  #selectWordAt(screen: Screen, x: number, y: number): boolean {
    if (this.#screen !== screen || !screen.selectWordAt(x, y)) {
      return false;
    }
    this.copyAt = copyButtonAt(x, y, screen.pane());
    return true;
  }

  #cancelPress(): void {
    if (this.#press !== null) {
      this.#clock.clearTimeout(this.#press.timer);
      this.#press = null;
    }
  }

  /** What the page's `kaiport.terminalText` and the benchmarks read of `screen`. */
  #reader(screen: Screen): TerminalReader {
    return {
      text: () => screen.text(),
      size: () => ({ cols: screen.cols, rows: screen.rows }),
      selection: () => screen.selection(),
      watchRender: (drawn) => screen.watchRender(drawn),
      sleep: () => this.sleep(),
    };
  }

  /** While asleep the page's readers get nothing but the fact. */
  readonly #asleepReader: TerminalReader = {
    text: () => null,
    size: () => (this.#asleep === null ? { cols: 0, rows: 0 } : { cols: this.#asleep.cols, rows: this.#asleep.rows }),
    selection: () => "",
    watchRender: () => nothing,
    sleep: () => Promise.resolve(true),
  };

  /** Arms the sleep of a hidden terminal: SLEEP_AFTER_MS after its last output. */
  #armSleep(): void {
    this.#clock.clearTimeout(this.#sleepTimer);
    if (this.#deps.visible() || this.#asleep !== null || this.#screen === undefined) {
      return;
    }
    const wait = Math.max(0, this.#lastOutput + SLEEP_AFTER_MS - this.#clock.now());
    this.#sleepTimer = this.#clock.setTimeout(() => {
      if (this.#clock.now() - this.#lastOutput >= SLEEP_AFTER_MS) {
        void this.sleep();
      } else {
        this.#armSleep();
      }
    }, wait);
  }

  /** A new screen draws the snapshot, then what arrived while it slept. */
  #wake(): void {
    const slept = this.#asleep;
    if (slept === null) {
      return;
    }
    this.#asleep = null;
    this.#unregisterReader();
    // At the size it slept at until the snapshot is drawn in (its lines wrap at that width),
    // out of sight meanwhile: the history would otherwise scroll past for a few frames.
    this.waking = true;
    const screen = this.#open({ cols: slept.cols, rows: slept.rows }, slept.fontSize);
    screen.write(slept.data, () => {
      if (this.#screen !== screen) {
        return;
      }
      this.waking = false;
      if (slept.scrolledUp > 0) {
        screen.scrollLines(-slept.scrolledUp);
      }
      this.fit();
      if (this.#deps.visible()) {
        screen.focus();
      }
    });
    for (const chunk of slept.pending) {
      this.#gate.push(chunk);
    }
  }
}

/** How far apart the first two fingers are. */
function distance(touches: Touch[]): number {
  const [a, b] = touches;
  return a === undefined || b === undefined ? 0 : Math.hypot(a.x - b.x, a.y - b.y);
}
