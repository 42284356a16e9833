import { describe, expect, it } from "vitest";
import { pinchedFontSize, wordAt } from "./touch";

describe("terminal gestures", () => {
  it("scale the font size by the pinch, in whole points, within bounds", () => {
    expect(pinchedFontSize(14, 100, 200, 8, 32)).toBe(28);
    expect(pinchedFontSize(14, 100, 150, 8, 32)).toBe(21);
    expect(pinchedFontSize(14, 100, 10, 8, 32)).toBe(8);
    expect(pinchedFontSize(20, 100, 400, 8, 32)).toBe(32);
    expect(pinchedFontSize(14, 0, 100, 8, 32)).toBe(14);
  });

  it("find the word under a long-press", () => {
    const line = "$ tail -f /var/log/syslog  ";
    expect(wordAt(line, 0)).toEqual({ start: 0, length: 1 });
    expect(wordAt(line, 4)).toEqual({ start: 2, length: 4 });
    expect(wordAt(line, 12)).toEqual({ start: 10, length: 15 });
    expect(wordAt(line, 1)).toBeNull();
    expect(wordAt(line, 40)).toBeNull();
  });
});
