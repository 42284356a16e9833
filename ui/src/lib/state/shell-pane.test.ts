import { describe, expect, it } from "vitest";
import { cdLine, followTarget, hasFilePane, notFollowingReason, shellQuote } from "./shell-pane";

describe("the SSH tab's file pane", () => {
  it("is on SSH terminal tabs only", () => {
    expect(hasFilePane({ kind: "terminal", target: { kind: "profile", name: "web" } })).toBe(true);
    expect(hasFilePane({ kind: "terminal", target: null })).toBe(true);
    expect(hasFilePane({ kind: "terminal", target: { kind: "local" } })).toBe(false);
    expect(hasFilePane({ kind: "storage", target: null })).toBe(false);
  });

  it("quotes folders as one shell word", () => {
    expect(shellQuote("/tmp/a b")).toBe("'/tmp/a b'");
    expect(shellQuote("/tmp/it's")).toBe("'/tmp/it'\\''s'");
    expect(shellQuote("/x/$(rm -rf ~)`id`;*")).toBe("'/x/$(rm -rf ~)`id`;*'");
    expect(cdLine("/-n")).toBe("cd -- '/-n'\r");
  });

  it("follows each new folder the shell reports while on", () => {
    expect(followTarget(true, "/tmp", "/home/u")).toBe("/tmp");
    // The same folder again: the user may have gone elsewhere in the pane meanwhile.
    expect(followTarget(true, "/tmp", "/tmp")).toBeNull();
    expect(followTarget(false, "/tmp", "/home/u")).toBeNull();
    expect(followTarget(true, null, null)).toBeNull();
  });

  it("says why it does not follow without shell integration", () => {
    expect(notFollowingReason(true, null, true)).toMatch(/^Not following: .*shell integration is off/);
    expect(notFollowingReason(true, "/tmp", true)).toBeNull();
    expect(notFollowingReason(false, null, true)).toBeNull();
    expect(notFollowingReason(true, null, false)).toBeNull();
  });
});
