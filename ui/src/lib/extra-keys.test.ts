import { describe, expect, it } from "vitest";
import { EXTRA_KEYS, NO_MODIFIERS, controlCode, extraKeyData, modified } from "./extra-keys";

const CTRL = { ctrl: true, alt: false };
const ALT = { ctrl: false, alt: true };

describe("the extra-keys row", () => {
  it("has the keys a phone keyboard hides, in order, with their names", () => {
    expect(EXTRA_KEYS.map((k) => k.name)).toEqual([
      "Esc",
      "Tab",
      "Ctrl",
      "Alt",
      "Left",
      "Down",
      "Up",
      "Right",
      "|",
      "~",
      "/",
      "-",
    ]);
  });

  it("sends Esc, Tab and the symbols as they are", () => {
    expect(extraKeyData("Esc", NO_MODIFIERS, false)).toBe("\x1b");
    expect(extraKeyData("Tab", NO_MODIFIERS, false)).toBe("\t");
    expect(["|", "~", "/", "-"].map((k) => extraKeyData(k as "|", NO_MODIFIERS, false))).toEqual(["|", "~", "/", "-"]);
  });

  it("sends arrows in the terminal's cursor-key mode", () => {
    expect(extraKeyData("Up", NO_MODIFIERS, false)).toBe("\x1b[A");
    expect(extraKeyData("Left", NO_MODIFIERS, false)).toBe("\x1b[D");
    expect(extraKeyData("Up", NO_MODIFIERS, true)).toBe("\x1bOA");
    expect(extraKeyData("Right", NO_MODIFIERS, true)).toBe("\x1bOC");
  });

  it("sends modified arrows as xterm does, whatever the mode", () => {
    expect(extraKeyData("Left", CTRL, true)).toBe("\x1b[1;5D");
    expect(extraKeyData("Right", ALT, false)).toBe("\x1b[1;3C");
    expect(extraKeyData("Up", { ctrl: true, alt: true }, false)).toBe("\x1b[1;7A");
  });

  it("turns the next typed character into its control code with Ctrl, and prefixes ESC with Alt", () => {
    expect(modified("c", CTRL)).toBe("\x03");
    expect(modified("C", CTRL)).toBe("\x03");
    expect(modified("d", CTRL)).toBe("\x04");
    expect(modified("[", CTRL)).toBe("\x1b");
    expect(modified("b", ALT)).toBe("\x1bb");
    expect(modified("x", { ctrl: true, alt: true })).toBe("\x1b\x18");
    // Nothing latched, or a whole word from the keyboard: as it is (Alt still on the front).
    expect(modified("ls", NO_MODIFIERS)).toBe("ls");
    expect(modified("ls", CTRL)).toBe("ls");
    expect(modified("ls", ALT)).toBe("\x1bls");
    expect(modified("é", CTRL)).toBe("é");
  });

  it("knows the control codes of the symbols", () => {
    expect(controlCode("@")).toBe("\x00");
    expect(controlCode("?")).toBe("\x7f");
    expect(controlCode("-")).toBe("\x1f");
    expect(controlCode("1")).toBeNull();
    expect(extraKeyData("-", CTRL, false)).toBe("\x1f");
  });
});
