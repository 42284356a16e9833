import { describe, expect, it } from "vitest";
import {
  DEFAULT_FONT_SIZE,
  MAX_FONT_SIZE,
  MIN_FONT_SIZE,
  cellAt,
  copyButtonAt,
  noticeBelow,
  plainState,
  shortcut,
  zoomedFontSize,
  type XtermInternals,
} from "./terminal";

const key = (code: string, ctrlKey = true, shiftKey = true) => ({ code, ctrlKey, shiftKey });

describe("the terminal's shortcuts", () => {
  it("are Ctrl+Shift and a physical key: copy, zoom, and the app's own", () => {
    expect(shortcut(key("KeyC"))).toBe("copy");
    expect(shortcut(key("Equal"))).toBe("zoom-in");
    expect(shortcut(key("Minus"))).toBe("zoom-out");
    expect(shortcut(key("Digit0"))).toBe("zoom-reset");
    for (const code of ["KeyT", "KeyW", "KeyF", "KeyV"]) {
      expect(shortcut(key(code))).toBe("app");
    }
  });

  it("leave every other key to the shell", () => {
    expect(shortcut(key("KeyC", true, false))).toBeNull();
    expect(shortcut(key("KeyC", false, true))).toBeNull();
    expect(shortcut(key("KeyA"))).toBeNull();
    expect(shortcut(key("Equal", true, false))).toBeNull();
  });
});

describe("zoom", () => {
  it("steps a point at a time within bounds, and 0 goes back to the default", () => {
    expect(zoomedFontSize(14, 1)).toBe(15);
    expect(zoomedFontSize(14, -1)).toBe(13);
    expect(zoomedFontSize(20, 0)).toBe(DEFAULT_FONT_SIZE);
    expect(zoomedFontSize(MAX_FONT_SIZE, 1)).toBe(MAX_FONT_SIZE);
    expect(zoomedFontSize(MIN_FONT_SIZE, -1)).toBe(MIN_FONT_SIZE);
  });
});

describe("touch geometry", () => {
  const screen = { left: 10, top: 20, width: 800, height: 480 };
  const size = { cols: 80, rows: 24 };

  it("finds the cell under a point, and nothing outside the grid", () => {
    expect(cellAt(10, 20, screen, size)).toEqual({ col: 0, row: 0 });
    expect(cellAt(10 + 25, 20 + 45, screen, size)).toEqual({ col: 2, row: 2 });
    expect(cellAt(809, 499, screen, size)).toEqual({ col: 79, row: 23 });
    expect(cellAt(810, 30, screen, size)).toBeNull();
    expect(cellAt(5, 30, screen, size)).toBeNull();
    expect(cellAt(50, 500, screen, size)).toBeNull();
  });

  it("floats Copy above the finger, inside the pane", () => {
    const pane = { left: 0, top: 100, width: 400, height: 600 };
    expect(copyButtonAt(200, 300, pane)).toEqual({ x: 200, y: 144 });
    expect(copyButtonAt(390, 300, pane)).toEqual({ x: 310, y: 144 });
    expect(copyButtonAt(-5, 110, pane)).toEqual({ x: 4, y: 4 });
  });
});

describe("a notice over the terminal", () => {
  it("goes below when the cursor's line is in the top half, else above, and above when unseen", () => {
    expect(noticeBelow(0, 24)).toBe(true);
    expect(noticeBelow(11, 24)).toBe(true);
    expect(noticeBelow(12, 24)).toBe(false);
    expect(noticeBelow(23, 24)).toBe(false);
    expect(noticeBelow(null, 24)).toBe(false);
  });
});

describe("plain state", () => {
  const plain = (): XtermInternals => ({
    rows: 24,
    buffer: { active: { type: "normal" } },
    _core: {
      buffer: { scrollTop: 0, scrollBottom: 23 },
      coreService: { isCursorHidden: false },
      _charsetService: { glevel: 0, charset: undefined },
    },
  });

  it("is the normal screen, no scroll region, a shown cursor and the default character set", () => {
    expect(plainState(plain())).toBe(true);
  });

  it("is not a full-screen program, a scroll region, a hidden cursor or a shifted character set", () => {
    const alternate = plain();
    alternate.buffer.active.type = "alternate";
    const region = plain();
    region._core = { ...region._core, buffer: { scrollTop: 0, scrollBottom: 9 } };
    const hidden = plain();
    hidden._core = { ...hidden._core, coreService: { isCursorHidden: true } };
    const shifted = plain();
    shifted._core = { ...shifted._core, _charsetService: { glevel: 1 } };
    const graphics = plain();
    graphics._core = { ...graphics._core, _charsetService: { glevel: 0, charset: { q: "─" } } };
    for (const term of [alternate, region, hidden, shifted, graphics]) {
      expect(plainState(term)).toBe(false);
    }
  });

  it("is not what cannot be read: xterm.js's internals may change", () => {
    const { _core, ...noCore } = plain();
    expect(_core).toBeDefined();
    expect(plainState(noCore)).toBe(false);
    expect(plainState({ ...plain(), _core: {} })).toBe(false);
  });
});
