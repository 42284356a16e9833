import { describe, expect, it } from "vitest";
import { cleanTitle, folderName, TitleScanner } from "./terminal-title";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("terminal titles", () => {
  it("reads OSC 0 and 2 titles and the prompt mark, across chunks", () => {
    const scanner = new TitleScanner();
    expect(scanner.scan(bytes("hello \x1b]0;vim notes.txt\x07 world"))).toEqual([{ title: "vim notes.txt" }]);
    expect(scanner.scan(bytes("\x1b]2;to"))).toEqual([]);
    expect(scanner.scan(bytes("p\x1b"))).toEqual([]);
    expect(scanner.scan(bytes("\\"))).toEqual([{ title: "top" }]);
    expect(scanner.scan(bytes("\x1b]133;A;kp=abc\x07$ \x1b]7;file://h/tmp\x07"))).toEqual([{ prompt: true }]);
    // Other sequences, and a cancelled one, say nothing.
    expect(scanner.scan(bytes("\x1b[1m\x1b]1;icon\x07\x1b]0;x\x18\x1b]133;C\x07"))).toEqual([]);
  });

  it("skips a payload too long for a title", () => {
    const scanner = new TitleScanner();
    expect(scanner.scan(bytes(`\x1b]0;${"a".repeat(2000)}\x07\x1b]0;ok\x07`))).toEqual([{ title: "ok" }]);
  });

  it("cleans a title for the tab", () => {
    expect(cleanTitle("alice@web1: ~/src")).toBe("~/src");
    expect(cleanTitle("\u202evim\u0007 x")).toBe("vim x");
    expect(cleanTitle("  ")).toBeNull();
    expect(cleanTitle("x".repeat(100))).toHaveLength(48);
  });

  it("names the folder", () => {
    expect(folderName("/srv/www/")).toBe("www");
    expect(folderName("/")).toBe("/");
  });
});
