import { describe, expect, it } from "vitest";
import type { ApprovalPreview, Event, Value } from "../protocol";
import { applyPilotEvent, initialPilot, tabPilot } from "./pilot";
import {
  alwaysAllowedWords,
  approvalHeadline,
  cardDetails,
  cardStatus,
  duration,
  editedCommand,
  endingWords,
  failureWords,
  isDangerousOperation,
  isLeftOutMarker,
  notableReasons,
  riskLook,
  shortArgs,
} from "./pilot-cards";

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

describe("what an approval card says", () => {
  it("says what will happen, in words, for each tool", () => {
    const words = (tool: string, args: Value, preview: ApprovalPreview | null = null) =>
      approvalHeadline(tool, args, preview, "web1");
    expect(words("run_command", { command: "df -h" })).toBe("Run in web1’s terminal");
    expect(words("send_input", { text: "y" })).toBe("Type into web1’s terminal");
    expect(words("edit_file", { path: "/etc/nginx/nginx.conf", edits: [] })).toBe("Change /etc/nginx/nginx.conf");
    const diff = (newFile: boolean): ApprovalPreview => ({
      kind: "diff",
      path: "/srv/a",
      unified: "",
      new_file: newFile,
    });
    expect(words("write_file", { path: "/srv/a", content: "x" }, diff(true))).toBe("Create /srv/a");
    expect(words("write_file", { path: "/srv/a", content: "x" }, diff(false))).toBe("Replace /srv/a");
    expect(words("write_file", { path: "/srv/a", content: "x" })).toBe("Replace /srv/a");
    expect(words("make_dir", { path: "/srv/new" })).toBe("Create the folder /srv/new");
    expect(words("rename", { from: "/a", to: "/b" })).toBe("Rename /a to /b");
    expect(words("delete", { path: "/old" })).toBe("Delete /old");
    expect(words("delete", { path: "/old", recursive: true })).toBe("Delete /old and everything in it");
    expect(words("upload", { local_path: "~/a.tgz", remote_dir: "/srv" })).toBe("Upload ~/a.tgz to /srv");
    expect(words("download", { remote_path: "/srv/a", local_dir: "~" })).toBe("Download /srv/a to ~");
    expect(words("execute_plan", { ops: [{}, {}] })).toBe("Carry out 2 file operations");
    const forward: ApprovalPreview = {
      kind: "forward",
      forward: { kind: "local", bind_address: "127.0.0.1", listen_port: 8080, to_host: "localhost", to_port: 80 },
    };
    expect(words("open_forward", { forward: "-L 8080:localhost:80" }, forward)).toBe(
      "Open a port forward on web1: this computer’s 127.0.0.1:8080 → localhost:80 on the server",
    );
    expect(words("open_forward", { forward: "-L 8080:localhost:80" })).toBe(
      "Open a port forward on web1: -L 8080:localhost:80",
    );
    expect(words("something_new", {})).toBe("Let Pilot use something_new");
  });

  it("shows the policy's reasons only when they are more than routine", () => {
    expect(notableReasons({ reasons: ["runs a command in the terminal"], risk: "routine" })).toEqual([]);
    expect(notableReasons({ reasons: ["types into the terminal"], risk: "routine" })).toEqual([]);
    // A file change the headline already says.
    expect(notableReasons({ reasons: ["edits /srv/a"], risk: "routine" })).toEqual([]);
    expect(notableReasons({ reasons: ["replaces the existing file /srv/a"], risk: "routine" })).toEqual([]);
    // Kept: dangerous, lock-out, unknown options, other connections' data, writes, links.
    const kept = [
      "`rm -rf /srv/x` deletes files",
      "changes /etc/ssh/sshd_config, which can lock you out of the server (protected: /etc/ssh); this always asks",
      "option --frobnicate of tar is not known to kaiport's rules",
      "this session has seen data from a connection labelled restricted and this connection is labelled public: the call could copy that data here",
      "redirection writes to /tmp/x",
      "edits /tmp/l/notes (through a link: the file changed is /srv/notes)",
    ];
    expect(notableReasons({ reasons: kept, risk: "routine" })).toEqual(kept);
    // What a dangerous call changes stays with its warning.
    expect(notableReasons({ reasons: ["deletes /srv/a and everything in it"], risk: "dangerous" })).toEqual([
      "deletes /srv/a and everything in it",
    ]);
    expect(
      notableReasons({ reasons: ["runs a command in the terminal", "edits /etc/hosts"], risk: "dangerous" }),
    ).toEqual(["edits /etc/hosts"]);
  });

  it("marks dangerous and lock-out calls, puts Deny first, and confirms a lock-out twice", () => {
    expect(riskLook("routine")).toEqual({ label: null, denyFirst: false, confirmTwice: false });
    expect(riskLook("dangerous")).toEqual({ label: "Dangerous", denyFirst: true, confirmTwice: false });
    expect(riskLook("lockout")).toEqual({ label: "Can lock you out", denyFirst: true, confirmTwice: true });
  });

  it("keeps the approval's risk and the rule Always allow adds", () => {
    const asked = card(requested, {
      type: "approval_requested",
      tab: "t",
      call: "c",
      tool: "run_command",
      reasons: ["runs a command in the terminal"],
      risk: "routine",
      preview: { kind: "command", command: "seq 1 100000" },
      allow_rule: "seq",
    });
    expect(asked.approval).toMatchObject({ risk: "routine", allowRule: "seq" });
  });

  it("tells the user's own Deny and Cancel in people's words, not the model's", () => {
    const ended = (status: "denied" | "cancelled", error: string, decidedBy: "user" | "rule" | null) =>
      card(requested, {
        type: "tool_finished",
        tab: "t",
        call: "c",
        outcome: { tool: "run_command", status, error },
        verdict: "ask",
        ...(decidedBy !== null ? { decided_by: decidedBy } : {}),
        duration_ms: 0,
      });
    const denied = ended("denied", "the user denied this call: not on a Friday", "user");
    expect(cardStatus(denied)).toEqual({ status: "declined", word: "you denied it", shape: "⊘" });
    expect(endingWords(denied)).toBe("You denied it: “not on a Friday”");
    expect(endingWords(ended("denied", "the user denied this call", "user"))).toBe("You denied it.");
    expect(endingWords(ended("cancelled", "cancelled while waiting for approval", null))).toBe(
      "Cancelled before it ran.",
    );
    // A rule's refusal is not the user's: its reason stays.
    expect(endingWords(ended("denied", "rm is forbidden", "rule"))).toBeNull();
  });

  it("says a failed file change where it cannot be missed, in people's words", () => {
    const failed = (tool: string, error: string | null, status: "error" | "ok" = "error") =>
      card(
        { ...requested, tool, args: { path: "/etc/app.conf" } } as Event,
        {
          type: "tool_finished",
          tab: "t",
          call: "c",
          outcome: { tool, status, ...(error !== null ? { error } : {}) },
          verdict: "allow",
          duration_ms: 0,
        } as Event,
      );
    expect(
      failureWords(
        failed(
          "edit_file",
          "edit_file: edit 1 of 1: old_text matched 0 times (it must match the file exactly); nothing was changed",
        ),
      ),
    ).toBe("Edit failed: the text to replace is not in the file (it must match exactly). Nothing was changed.");
    expect(failureWords(failed("edit_file", "edit_file: edit 2 of 3: old_text matched 4 times; …"))).toBe(
      "Edit failed: the text to replace is in the file 4 times, so which one is unclear. Nothing was changed.",
    );
    expect(failureWords(failed("write_file", "permission denied (os error 13)"))).toBe(
      "Write failed: permission denied (os error 13)",
    );
    expect(failureWords(failed("edit_file", null))).toBe("Edit failed.");
    // Only a file change that failed.
    expect(failureWords(failed("edit_file", null, "ok"))).toBeNull();
    expect(failureWords(failed("run_command", "exit 1"))).toBeNull();
  });

  it("shows the line the user ran instead of Pilot's", () => {
    const ran = card(requested, {
      type: "tool_finished",
      tab: "t",
      call: "c",
      outcome: {
        tool: "run_command",
        status: "ok",
        result: {
          status: "completed",
          output: "1\n",
          duration_ms: 3,
          detection: "shell_integration",
          edited_by_user: "seq 1 1",
        },
      },
      verdict: "ask",
      decided_by: "user",
      duration_ms: 5,
    });
    expect(editedCommand(ran)).toBe("seq 1 1");
    expect(cardDetails(ran).facts).toContain("you edited the command before it ran; Pilot asked for: seq 1 100000");
    expect(editedCommand(card(requested))).toBeNull();
  });
});

describe("what a card says of the rule Always allow added", () => {
  it("names the rule, offers the undo until it is done, and says when it was gone already", () => {
    const words = (state: "added" | "undoing" | "removed" | "gone" | "failed", message: string | null = null) => {
      const said = alwaysAllowedWords({ rule: "df", state, message });
      return [`${said.before}df${said.after}`, said.undo];
    };
    expect(words("added")).toEqual(["Added df to this connection's allowed commands.", "offered"]);
    expect(words("undoing")).toEqual(["Removing df from this connection's allowed commands…", "busy"]);
    expect(words("removed")).toEqual([
      "Removed df from this connection's allowed commands: Pilot asks again before running it.",
      "none",
    ]);
    expect(words("gone")).toEqual([
      "df was already removed from this connection's allowed commands; nothing to undo.",
      "none",
    ]);
    expect(words("failed", "the connection to kaiport was lost")).toEqual([
      "Could not remove df: the connection to kaiport was lost.",
      "offered",
    ]);
  });
});
