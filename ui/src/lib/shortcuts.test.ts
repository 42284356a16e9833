import { describe, expect, it } from "vitest";
import { onMac, opensSettings, type Chord } from "./shortcuts";

const none: Chord = { code: "Comma", key: ",", ctrlKey: false, metaKey: false, altKey: false, shiftKey: false };

describe("opensSettings", () => {
  it("takes Ctrl+, outside macOS and ⌘, on macOS", () => {
    expect(opensSettings({ ...none, ctrlKey: true }, false)).toBe(true);
    expect(opensSettings({ ...none, metaKey: true }, true)).toBe(true);
    expect(opensSettings({ ...none, metaKey: true }, false)).toBe(false);
    expect(opensSettings({ ...none, ctrlKey: true }, true)).toBe(false);
  });

  it("leaves other chords and plain commas to the terminal", () => {
    expect(opensSettings(none, false)).toBe(false);
    expect(opensSettings({ ...none, ctrlKey: true, shiftKey: true }, false)).toBe(false);
    expect(opensSettings({ ...none, ctrlKey: true, altKey: true }, false)).toBe(false);
    expect(opensSettings({ ...none, code: "Period", key: ".", ctrlKey: true }, false)).toBe(false);
  });

  it("reads the key where a layout moves the comma", () => {
    expect(opensSettings({ ...none, code: "KeyM", key: ",", ctrlKey: true }, false)).toBe(true);
  });
});

describe("onMac", () => {
  it("knows Apple's platforms", () => {
    expect(onMac("MacIntel")).toBe(true);
    expect(onMac("iPad")).toBe(true);
    expect(onMac("Linux x86_64")).toBe(false);
    expect(onMac("Win32")).toBe(false);
  });
});
