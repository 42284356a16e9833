import { describe, expect, it } from "vitest";
import { displayPath, parseUnifiedDiff, showsSplit, sideBySide, splitFits } from "./diff";

// As the engine writes it (similar's unified diff, paths prefixed a/ and b/).
const ENGINE_DIFF = [
  "--- a/etc/app.conf",
  "+++ b/etc/app.conf",
  "@@ -1,4 +1,5 @@",
  "-port = 80",
  "+port = 8080",
  "+tls = on",
  " host = a",
  " user = www",
  "-end",
  "\\ No newline at end of file",
  "+END",
  "\\ No newline at end of file",
  "",
].join("\n");

describe("the unified diff of an approval", () => {
  it("numbers old and new lines and counts the changes", () => {
    const diff = parseUnifiedDiff(ENGINE_DIFF);
    expect(displayPath(diff.oldPath)).toBe("/etc/app.conf");
    expect(displayPath(diff.newPath)).toBe("/etc/app.conf");
    expect(diff.added).toBe(3);
    expect(diff.removed).toBe(2);
    expect(diff.hunks).toHaveLength(1);
    expect(diff.hunks[0]?.lines.map((l) => [l.kind, l.old, l.new, l.text])).toEqual([
      ["del", 1, null, "port = 80"],
      ["add", null, 1, "port = 8080"],
      ["add", null, 2, "tls = on"],
      ["context", 2, 3, "host = a"],
      ["context", 3, 4, "user = www"],
      ["del", 4, null, "end"],
      ["add", null, 5, "END"],
    ]);
    expect(diff.hunks[0]?.lines[5]?.noNewline).toBe(true);
    expect(diff.hunks[0]?.lines[6]?.noNewline).toBe(true);
  });

  it("pairs deletions with additions side by side", () => {
    const hunk = parseUnifiedDiff(ENGINE_DIFF).hunks[0];
    if (hunk === undefined) throw new Error("no hunk");
    const rows = sideBySide(hunk).map((r) => [r.left?.text ?? null, r.right?.text ?? null]);
    expect(rows).toEqual([
      ["port = 80", "port = 8080"],
      [null, "tls = on"],
      ["host = a", "host = a"],
      ["user = www", "user = www"],
      ["end", "END"],
    ]);
  });

  it("reads several hunks, hunks without counts, and a file header line that starts like a change", () => {
    const text = [
      "--- a/x",
      "+++ b/x",
      "@@ -3 +3 @@",
      "--- not a header",
      "+++ nor this",
      "@@ -10,2 +10,2 @@ fn main",
      " a",
      "-b",
      "+c",
    ].join("\n");
    const diff = parseUnifiedDiff(text);
    expect(diff.hunks.map((h) => h.lines.map((l) => `${l.kind}:${l.text}`))).toEqual([
      ["del:-- not a header", "add:++ nor this"],
      ["context:a", "del:b", "add:c"],
    ]);
    expect(diff.hunks[1]?.lines[2]?.new).toBe(11);
  });

  it("keeps markup in the text as text (the view puts it in text nodes)", () => {
    const diff = parseUnifiedDiff("@@ -1 +1 @@\n-<b>x</b>\n+<img src=x onerror=alert(1)>\n");
    expect(diff.hunks[0]?.lines[1]?.text).toBe("<img src=x onerror=alert(1)>");
  });

  it("shows a created file (from /dev/null)", () => {
    const diff = parseUnifiedDiff("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n");
    expect(displayPath(diff.oldPath)).toBe("/dev/null");
    expect(diff.added).toBe(2);
    expect(diff.hunks[0]?.lines[0]?.new).toBe(1);
  });
});

describe("showsSplit", () => {
  it("is side by side by default only when both sides fit", () => {
    expect(showsSplit("auto", 900, 722)).toBe(true);
    expect(showsSplit("auto", 722, 722)).toBe(true);
    // A docked Pilot panel of about 390 px.
    expect(showsSplit("auto", 360, 722)).toBe(false);
  });

  it("lets the user's choice win where it fits", () => {
    expect(showsSplit("unified", 900, 722)).toBe(false);
    expect(showsSplit("split", 900, 722)).toBe(true);
  });

  it("is unified where the sides do not fit, whatever was chosen", () => {
    expect(showsSplit("split", 360, 722)).toBe(false);
    expect(splitFits(360, 722)).toBe(false);
  });

  it("is unified until the sides are measured", () => {
    expect(showsSplit("auto", 900, 0)).toBe(false);
    expect(showsSplit("split", 0, 0)).toBe(false);
  });
});
