import { afterEach, describe, expect, it } from "vitest";
import { terminalSize, terminalText } from "../terminal-text";
import { StickyModifiers } from "./modifiers.svelte";
import {
  DEFAULT_FONT_SIZE,
  LONG_PRESS_MS,
  MAX_ASLEEP_BYTES,
  SLEEP_AFTER_MS,
  searchWords,
  type Box,
  type KeyPress,
  type Screen,
  type ScreenOptions,
  type Size,
  type Snapshot,
} from "./terminal";
import { TerminalModel, type Clock } from "./terminal.svelte";
import { DEFAULT_PREFS, prefs } from "../prefs";

/** Timers and frames that run only when the test says. */
class FakeClock implements Clock {
  time = 0;
  private nextId = 1;
  private timers = new Map<number, { at: number; callback: () => void }>();
  private frames: (() => void)[] = [];

  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number): number {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, callback });
    return id;
  }
  clearTimeout(id: number): void {
    this.timers.delete(id);
  }
  nextFrame(callback: () => void): void {
    this.frames.push(callback);
  }
  /** Moves the clock on, running the timers due meanwhile in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) {
        break;
      }
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].callback();
    }
    this.time = end;
  }
  frame(): void {
    for (const callback of this.frames.splice(0)) {
      callback();
    }
  }
}

/** A screen that keeps what it is handed; its grid is 8 px wide and 16 px tall cells of the
 * font size in a 800 × 480 pane, at 14 points. */
class FakeScreen implements Screen {
  cols: number;
  rows: number;
  fontSize: number;
  fontFamily: string;
  readonly scrollback = 100;
  applicationCursorKeys = false;
  written: string[] = [];
  scrolled = 0;
  focused = 0;
  resets = 0;
  disposed = false;
  plain = true;
  selected = "";
  found: [string, boolean][] = [];
  searchCleared = 0;
  /** Whether the pane can be measured. */
  measurable = true;
  /** Parse callbacks not yet run (with `parseLater`). */
  parseLater = false;
  unparsed: (() => void)[] = [];
  words: Record<string, string> = {};
  cursor: number | null = 0;

  constructor(readonly options: ScreenOptions) {
    this.fontSize = options.fontSize;
    this.fontFamily = options.fontFamily;
    this.cols = options.size?.cols ?? 80;
    this.rows = options.size?.rows ?? 24;
  }
  write(data: Uint8Array | string, parsed?: () => void): void {
    this.written.push(typeof data === "string" ? data : new TextDecoder().decode(data));
    if (parsed !== undefined) {
      if (this.parseLater) {
        this.unparsed.push(parsed);
      } else {
        parsed();
      }
    }
  }
  parse(): void {
    for (const parsed of this.unparsed.splice(0)) {
      parsed();
    }
  }
  fit(): Size | null {
    if (!this.measurable) {
      return null;
    }
    this.cols = Math.floor((80 * 14) / this.fontSize);
    this.rows = Math.floor((24 * 14) / this.fontSize);
    return { cols: this.cols, rows: this.rows };
  }
  focus(): void {
    this.focused++;
  }
  reset(): void {
    this.resets++;
  }
  scrollLines(lines: number): void {
    this.scrolled += lines;
  }
  text(): string {
    return this.written.join("");
  }
  selection(): string {
    return this.selected;
  }
  clearSelection(): void {
    this.selected = "";
  }
  watchRender(): () => void {
    return () => {};
  }
  findNext(query: string, backwards: boolean): boolean {
    this.found.push([query, backwards]);
    return query !== "nothing-like-this";
  }
  clearSearch(): void {
    this.searchCleared++;
  }
  snapshot(): Snapshot | null {
    if (!this.plain) {
      return null;
    }
    return {
      data: `[snapshot of ${this.text()}]`,
      cols: this.cols,
      rows: this.rows,
      fontSize: this.fontSize,
      scrolledUp: 3,
    };
  }
  selectWordAt(x: number, y: number): boolean {
    const word = this.words[`${x},${y}`];
    if (word === undefined) {
      return false;
    }
    this.selected = word;
    return true;
  }
  pane(): Box {
    return { left: 0, top: 0, width: 800, height: 480 };
  }
  cursorRow(): number | null {
    return this.cursor;
  }
  dispose(): void {
    this.disposed = true;
  }
}

let tabs = 0;

/** A started terminal view-model over fakes, shown or hidden. */
function setup({ visible = true, modifiers = null as StickyModifiers | null } = {}) {
  const clock = new FakeClock();
  const screens: FakeScreen[] = [];
  const input: string[] = [];
  const raw: number[][] = [];
  const resizes: Size[] = [];
  const copied: string[] = [];
  const view = { visible };
  /** Whether screens opened from now on parse only when told. */
  const next = { parseLater: false };
  const tab = `tab-${++tabs}`;
  const model = new TerminalModel({
    link: {
      input: (_tab, data) => {
        input.push(new TextDecoder().decode(data));
        raw.push(Array.from(data));
      },
      resize: (_tab, cols, rows) => resizes.push({ cols, rows }),
    },
    tab,
    visible: () => view.visible,
    modifiers: () => modifiers,
    open: (options) => {
      const screen = new FakeScreen(options);
      screen.parseLater = next.parseLater;
      screens.push(screen);
      return screen;
    },
    clock,
    pageHidden: () => false,
    copy: (text) => copied.push(text),
  });
  model.start();
  const screen = () => screens[screens.length - 1] as FakeScreen;
  const bytes = (text: string) => new TextEncoder().encode(text);
  return { model, clock, screens, screen, input, raw, resizes, copied, view, next, tab, bytes };
}

function keydown(code: string): KeyPress & { prevented: boolean } {
  return {
    type: "keydown",
    code,
    ctrlKey: true,
    shiftKey: true,
    prevented: false,
    preventDefault() {
      this.prevented = true;
    },
  };
}

describe("the font chosen in Settings", () => {
  afterEach(() => prefs.set(DEFAULT_PREFS));

  it("applies to an open terminal at once, the engine is told the new size, and zoom's reset returns to it", () => {
    const t = setup();
    t.model.fit();
    const screen = t.screen();
    expect(screen.fontFamily).toBe(DEFAULT_PREFS.fontFamily);
    prefs.set({ fontSize: 28, fontFamily: '"Fira Code", monospace' });
    expect(screen.fontSize).toBe(28);
    expect(screen.fontFamily).toBe('"Fira Code", monospace');
    expect(t.resizes.at(-1)).toEqual({ cols: 40, rows: 12 });
    screen.options.onKey(keydown("Equal"));
    expect(screen.fontSize).toBe(29);
    screen.options.onKey(keydown("Digit0"));
    expect(screen.fontSize).toBe(28);
    // A new tab starts at it.
    expect(setup().screen().fontSize).toBe(28);
  });

  it("is no longer followed by a terminal that is gone", () => {
    const t = setup();
    t.model.dispose();
    prefs.set({ fontSize: 20 });
    expect(t.screen().fontSize).toBe(DEFAULT_FONT_SIZE);
  });
});

describe("the size the engine is told", () => {
  it("is the first fit's, even when it is xterm's own size, and then only changes", () => {
    const t = setup();
    t.model.fit();
    expect(t.resizes).toEqual([{ cols: 80, rows: 24 }]);
    t.model.fit();
    expect(t.resizes).toHaveLength(1);
    t.screen().fontSize = 28;
    t.model.fit();
    expect(t.resizes).toEqual([
      { cols: 80, rows: 24 },
      { cols: 40, rows: 12 },
    ]);
  });

  it("is told again when the link to kaiport is back", () => {
    const t = setup();
    t.model.fit();
    t.model.linkOpened();
    expect(t.resizes).toEqual([
      { cols: 80, rows: 24 },
      { cols: 80, rows: 24 },
    ]);
  });

  it("is not measured while hidden or when the pane cannot be", () => {
    const t = setup({ visible: false });
    t.model.fit();
    t.view.visible = true;
    t.screen().measurable = false;
    t.model.fit();
    expect(t.resizes).toEqual([]);
  });

  it("follows a shown tab on the next frame, which also focuses it", () => {
    const t = setup();
    t.model.shown();
    expect(t.resizes).toEqual([]);
    t.clock.frame();
    expect(t.resizes).toEqual([{ cols: 80, rows: 24 }]);
    expect(t.screen().focused).toBe(1);
  });
});

describe("keys", () => {
  it("go to the shell as bytes, with a latched Ctrl or Alt taken by the next one", () => {
    const modifiers = new StickyModifiers();
    const t = setup({ modifiers });
    t.screen().options.onData("ls\r");
    modifiers.toggle("Ctrl");
    t.screen().options.onData("c");
    t.screen().options.onData("c");
    t.screen().options.onBinary("\x1b[M\xff");
    expect(t.input.slice(0, 3)).toEqual(["ls\r", "\x03", "c"]);
    expect(t.raw[3]).toEqual([0x1b, 0x5b, 0x4d, 0xff]);
    expect(modifiers.any).toBe(false);
  });

  it("of the extra-keys row follow the cursor-key mode and take the latched modifiers", () => {
    const modifiers = new StickyModifiers();
    const t = setup({ modifiers });
    t.model.sendExtraKey("Up");
    t.screen().applicationCursorKeys = true;
    t.model.sendExtraKey("Up");
    modifiers.toggle("Ctrl");
    t.model.sendExtraKey("Left");
    expect(t.input).toEqual(["\x1b[A", "\x1bOA", "\x1b[1;5D"]);
  });

  it("of the app stay out of the shell; copy and zoom are done here", () => {
    const t = setup();
    const screen = t.screen();
    screen.selected = "needle";
    const copy = keydown("KeyC");
    expect(screen.options.onKey(copy)).toBe(false);
    expect(copy.prevented).toBe(true);
    expect(t.copied).toEqual(["needle"]);
    // The app's own (here a new tab): neither the shell's nor prevented.
    const newTab = keydown("KeyT");
    expect(screen.options.onKey(newTab)).toBe(false);
    expect(newTab.prevented).toBe(false);
    // Only the key's press acts, not its release.
    expect(screen.options.onKey({ ...keydown("Equal"), type: "keyup" })).toBe(false);
    expect(screen.fontSize).toBe(DEFAULT_FONT_SIZE);
    expect(screen.options.onKey(keydown("Equal"))).toBe(false);
    expect(screen.fontSize).toBe(DEFAULT_FONT_SIZE + 1);
    expect(t.resizes.at(-1)).toEqual({ cols: 74, rows: 22 });
    screen.options.onKey(keydown("Digit0"));
    expect(screen.fontSize).toBe(DEFAULT_FONT_SIZE);
    expect(screen.options.onKey({ ...keydown("KeyA"), shiftKey: false })).toBe(true);
    expect(t.input).toEqual([]);
  });

  it("copy nothing when nothing is selected", () => {
    const t = setup();
    t.screen().options.onKey(keydown("KeyC"));
    expect(t.copied).toEqual([]);
  });
});

describe("search", () => {
  it("finds forwards on Enter and backwards with Shift, and Escape closes and clears it", () => {
    const t = setup();
    const key = (key: string, shiftKey = false) => ({ key, shiftKey, preventDefault() {} });
    t.model.searching = true;
    t.model.searchKey(key("Enter"));
    expect(t.screen().found).toEqual([]);
    t.model.query = "needle";
    t.model.searchKey(key("Enter"));
    t.model.searchKey(key("Enter", true));
    expect(t.screen().found).toEqual([
      ["needle", false],
      ["needle", true],
    ]);
    t.model.searchKey(key("Escape"));
    expect(t.model.searching).toBe(false);
    expect(t.screen().searchCleared).toBe(1);
    expect(t.screen().focused).toBe(1);
  });

  it("says where the search stands: which match of how many, or none", () => {
    const t = setup();
    const key = (key: string) => ({ key, shiftKey: false, preventDefault() {} });
    t.model.searching = true;
    expect(searchWords(t.model.searchResult)).toBe("");
    t.model.query = "needle";
    t.model.searchKey(key("Enter"));
    t.screen().options.onSearchResults(2, 12);
    expect(searchWords(t.model.searchResult)).toBe("3 of 12");
    t.screen().options.onSearchResults(-1, 1000);
    expect(searchWords(t.model.searchResult)).toBe("1000 matches");
    t.model.query = "nothing-like-this";
    t.model.searchKey(key("Enter"));
    expect(searchWords(t.model.searchResult)).toBe("No matches");
    t.model.closeSearch();
    expect(t.model.searchResult).toBeNull();
  });
});

describe("a hidden terminal's sleep", () => {
  it("comes after SLEEP_AFTER_MS without output; woken, a new screen draws the snapshot and what came meanwhile", async () => {
    const t = setup({ visible: false });
    t.model.write(t.bytes("before"));
    t.clock.advance(SLEEP_AFTER_MS - 1);
    t.model.write(t.bytes(" more"));
    t.clock.advance(SLEEP_AFTER_MS - 1);
    expect(t.screens).toHaveLength(1);
    expect(t.screen().disposed).toBe(false);
    t.clock.advance(1);
    await Promise.resolve();
    expect(t.screens[0]?.disposed).toBe(true);
    expect(terminalText(t.tab)).toBeNull();
    expect(terminalSize(t.tab)).toEqual({ cols: 80, rows: 24 });

    t.model.write(t.bytes(" meanwhile"));
    expect(t.screens).toHaveLength(1);
    t.view.visible = true;
    t.model.shown();
    const woken = t.screen();
    expect(t.screens).toHaveLength(2);
    expect(woken.options.size).toEqual({ cols: 80, rows: 24 });
    expect(woken.written).toEqual(["[snapshot of before more]", " meanwhile"]);
    expect(woken.scrolled).toBe(-3);
    expect(t.model.waking).toBe(false);
    expect(terminalText(t.tab)).toBe("[snapshot of before more] meanwhile");
  });

  it("waits for the snapshot's parse before it shows and fits the new screen", async () => {
    const t = setup({ visible: false });
    t.model.write(t.bytes("x"));
    await expect(t.model.sleep()).resolves.toBe(true);
    t.next.parseLater = true;
    t.view.visible = true;
    t.model.shown();
    const woken = t.screen();
    expect(t.model.waking).toBe(true);
    t.model.fit();
    expect(t.resizes).toEqual([]);
    woken.parse();
    expect(t.model.waking).toBe(false);
    expect(t.resizes).toEqual([{ cols: 80, rows: 24 }]);
    expect(woken.focused).toBe(1);
  });

  it("never comes to a shown terminal, nor to one whose state a snapshot would not keep", async () => {
    const shown = setup();
    shown.clock.advance(SLEEP_AFTER_MS * 2);
    await expect(shown.model.sleep()).resolves.toBe(false);
    expect(shown.screen().disposed).toBe(false);

    const region = setup({ visible: false });
    region.screen().plain = false;
    await expect(region.model.sleep()).resolves.toBe(false);
    expect(region.screen().disposed).toBe(false);
    region.screen().plain = true;
    await expect(region.model.sleep()).resolves.toBe(true);
  });

  it("does not come while output is still being parsed", async () => {
    const t = setup({ visible: false });
    t.screen().parseLater = true;
    t.model.write(t.bytes("x"));
    const slept = t.model.sleep();
    t.model.write(t.bytes("y"));
    t.screen().parse();
    await expect(slept).resolves.toBe(false);
  });

  it("ends when more than MAX_ASLEEP_BYTES arrive: the hidden terminal takes them awake", async () => {
    const t = setup({ visible: false });
    await expect(t.model.sleep()).resolves.toBe(true);
    const chunk = new Uint8Array(MAX_ASLEEP_BYTES / 2);
    t.model.write(chunk);
    t.model.write(chunk);
    expect(t.screens).toHaveLength(1);
    t.model.write(t.bytes("!"));
    expect(t.screens).toHaveLength(2);
    expect(t.screen().written).toHaveLength(4);
    expect(t.resizes).toEqual([]);
  });

  it("forgets the snapshot and what waited when the server replays the screen", async () => {
    const t = setup({ visible: false });
    t.model.write(t.bytes("old"));
    await expect(t.model.sleep()).resolves.toBe(true);
    t.model.write(t.bytes(" stale"));
    t.model.reset();
    t.model.write(t.bytes("replayed"));
    t.view.visible = true;
    t.model.shown();
    expect(t.screen().written).toEqual(["", "replayed"]);
    expect(t.screen().scrolled).toBe(0);
  });

  it("lets an awake terminal's reset go to its screen", () => {
    const t = setup();
    t.model.reset();
    expect(t.screen().resets).toBe(1);
  });
});

describe("touch", () => {
  const at = (x: number, y = 100) => ({ x, y });

  it("pinches the font size on the next frame, and the shell learns the new size", () => {
    const t = setup();
    expect(t.model.touchStart([at(100), at(200)])).toBe(true);
    expect(t.model.touchMove([at(50), at(250)])).toBe(true);
    expect(t.model.touchMove([at(40), at(260)])).toBe(true);
    expect(t.screen().fontSize).toBe(DEFAULT_FONT_SIZE);
    t.clock.frame();
    expect(t.screen().fontSize).toBe(28);
    expect(t.resizes).toEqual([{ cols: 40, rows: 12 }]);
    expect(t.model.touchEnd(0)).toBe(false);
  });

  it("selects the word under a long-press and offers Copy, whose lift is no tap", () => {
    const t = setup();
    t.screen().words = { "300,200": "pressme-42" };
    expect(t.model.touchStart([at(300, 200)])).toBe(false);
    t.clock.advance(LONG_PRESS_MS);
    expect(t.screen().selected).toBe("pressme-42");
    expect(t.model.copyAt).toEqual({ x: 300, y: 144 });
    expect(t.model.touchEnd(0)).toBe(true);
    t.model.copyTouchSelection();
    expect(t.copied).toEqual(["pressme-42"]);
    expect(t.screen().selected).toBe("");
    expect(t.model.copyAt).toBeNull();
  });

  it("selects nothing when the finger wanders or lifts early, or where there is no word", () => {
    const t = setup();
    t.screen().words = { "300,200": "word" };
    t.model.touchStart([at(300, 200)]);
    t.model.touchMove([at(320, 200)]);
    t.clock.advance(LONG_PRESS_MS);
    t.model.touchStart([at(300, 200)]);
    expect(t.model.touchEnd(0)).toBe(false);
    t.clock.advance(LONG_PRESS_MS);
    t.model.touchStart([at(10, 10)]);
    t.clock.advance(LONG_PRESS_MS);
    expect(t.model.touchEnd(0)).toBe(false);
    expect(t.screen().selected).toBe("");
    expect(t.model.copyAt).toBeNull();
  });
});
