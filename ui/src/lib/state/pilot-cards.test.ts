import { describe, expect, it } from "vitest";
import type { Event } from "../protocol";
import { applyPilotEvent, initialPilot, tabPilot } from "./pilot";
import { cardDetails, cardStatus, duration, isDangerousOperation, isLeftOutMarker, shortArgs } from "./pilot-cards";

function card(...events: Event[]) {
  const state = events.reduce(applyPilotEvent, initialPilot());
  const found = Object.values(tabPilot(state, "t").calls)[0];
  if (found === undefined) throw new Error("no card");
  return found;
}

const requested: Event = {
  type: "tool_requested",
  tab: "t",
  call: "c",
  tool: "run_command",
  args: { command: "seq 1 100000" },
};

describe("what a tool card says", () => {
  it("says the command, the status in a word and a shape, and the duration", () => {
    expect(shortArgs("run_command", { command: "df -h /" })).toBe("df -h /");
    expect(shortArgs("edit_file", { path: "/etc/app.conf", edits: [] })).toBe("/etc/app.conf");
    expect(shortArgs("run_command", { command: "a\nb" })).toBe("a ⏎ b");
    expect(shortArgs("run_command", { command: "x".repeat(200) })).toHaveLength(80);
    expect(cardStatus(card(requested))).toEqual({ status: "requested", word: "checking", shape: "…" });
    expect(cardStatus(card(requested, { type: "tool_running", tab: "t", call: "c" })).word).toBe("running");
    expect(duration(340)).toBe("340 ms");
    expect(duration(1234)).toBe("1.2 s");
    expect(duration(125_000)).toBe("2 min 5 s");
  });

  it("shows detection, exit code, the output and what was left out of it", () => {
    const finished = card(requested, {
      type: "tool_finished",
      tab: "t",
      call: "c",
      outcome: {
        tool: "run_command",
        status: "ok",
        result: {
          status: "completed",
          output: "1\n2\n[… 99990 lines (588888 bytes) left out …]\n100000\n",
          exit_code: 3,
          duration_ms: 420,
          detection: "shell_integration",
          truncated: { omitted_bytes: 588888, omitted_lines: 99990 },
        },
      },
      verdict: "allow",
      decided_by: "rule",
      duration_ms: 450,
    });
    expect(cardStatus(finished)).toEqual({ status: "ok", word: "ok", shape: "✓" });
    const details = cardDetails(finished);
    expect(details.detection).toBe("shell integration");
    expect(details.exitCode).toBe(3);
    expect(details.commandMs).toBe(420);
    expect(details.leftOut).toBe("99990 lines (588888 bytes) left out");
    expect(details.output?.split("\n").filter(isLeftOutMarker)).toEqual(["[… 99990 lines (588888 bytes) left out …]"]);
  });

  it("names the files read and an error", () => {
    const read = card(
      { type: "tool_requested", tab: "t", call: "c", tool: "search_files", args: { path: "/etc", pattern: "port" } },
      {
        type: "tool_finished",
        tab: "t",
        call: "c",
        outcome: {
          tool: "search_files",
          status: "ok",
          result: {
            matches: [{ path: "/etc/a", line: 2, text: "port=1" }],
            truncated: false,
            files_read: ["/etc/a", "/etc/b"],
            skipped: [],
          },
        },
        verdict: "allow",
        duration_ms: 5,
      },
    );
    expect(cardDetails(read).filesRead).toEqual(["/etc/a", "/etc/b"]);
    expect(cardDetails(read).output).toBe("/etc/a:2: port=1");
    const failed = card(requested, {
      type: "tool_finished",
      tab: "t",
      call: "c",
      outcome: { tool: "run_command", status: "denied", error: "rm is forbidden here" },
      verdict: "deny",
      decided_by: "rule",
      duration_ms: 1,
    });
    expect(cardStatus(failed)).toEqual({ status: "denied", word: "denied", shape: "⊘" });
    expect(cardDetails(failed).error).toBe("rm is forbidden here");
  });

  it("marks the storage operations that destroy something", () => {
    expect(isDangerousOperation("1. delete /backups/old (storage)")).toBe(true);
    expect(isDangerousOperation("upload a.txt to /b/a.txt, 3 KB, REPLACING the existing file")).toBe(true);
    expect(isDangerousOperation("make folder /b (storage)")).toBe(false);
  });
});
