import { describe, expect, it } from "vitest";
import type { Event, PlanCard } from "../protocol";
import {
  alwaysAllowUndo,
  applyPilotEvent,
  decided,
  hostSummary,
  secretEntered,
  initialPilot,
  isBusy,
  messageSent,
  modeChosen,
  questionAnswered,
  tabPilot,
  waitingCount,
  type PilotState,
} from "./pilot";

function apply(state: PilotState, ...events: Event[]): PilotState {
  return events.reduce(applyPilotEvent, state);
}

const plan = (phase: PlanCard["phase"], statuses: PlanCard["steps"][number]["status"][]): PlanCard => ({
  title: "Free disk space",
  findings: "/var/log is 9 GB",
  phase,
  steps: statuses.map((status, i) => ({
    title: `step ${i + 1}`,
    kind: "command",
    status,
    awaiting_confirmation: false,
  })),
});

describe("Pilot's event → state reducer", () => {
  it("keeps each tab's conversation apart: message, streamed text, turn", () => {
    let state = messageSent(initialPilot(), "t1", "how full is the disk?");
    expect(isBusy(state, "t1")).toBe(true);
    state = apply(
      state,
      { type: "turn_started", tab: "t1", turn: 1, text: "how full is the disk?" },
      { type: "assistant_text", tab: "t1", turn: 1, delta: "Let me " },
      { type: "assistant_text", tab: "t1", turn: 1, delta: "look." },
      { type: "assistant_text", tab: "t2", turn: 1, delta: "other tab" },
    );
    const t1 = tabPilot(state, "t1");
    expect(t1.turn).toBe(1);
    expect(t1.sending).toBe(false);
    expect(t1.items.map((i) => [i.kind, "text" in i ? i.text : null])).toEqual([
      ["user", "how full is the disk?"],
      ["assistant", "Let me look."],
    ]);
    expect(tabPilot(state, "t2").items).toHaveLength(1);
    state = apply(state, { type: "turn_finished", tab: "t1", turn: 1, status: "completed" });
    expect(isBusy(state, "t1")).toBe(false);
    // A completed turn adds no note.
    expect(tabPilot(state, "t1").items).toHaveLength(2);
  });

  it("shows the message of a turn another page started, or a reload replays", () => {
    const state = apply(
      initialPilot(),
      { type: "turn_started", tab: "t", turn: 1, text: "from the other window" },
      { type: "assistant_text", tab: "t", turn: 1, delta: "On it." },
    );
    expect(tabPilot(state, "t").items.map((i) => ("text" in i ? i.text : i.kind))).toEqual([
      "from the other window",
      "On it.",
    ]);
  });

  it("starts a new text block after a tool card", () => {
    const state = apply(
      initialPilot(),
      { type: "assistant_text", tab: "t", turn: 1, delta: "Checking." },
      { type: "tool_requested", tab: "t", call: "c1", tool: "run_command", args: { command: "df -h /" } },
      { type: "assistant_text", tab: "t", turn: 1, delta: "Done." },
    );
    expect(tabPilot(state, "t").items.map((i) => i.kind)).toEqual(["assistant", "call", "assistant"]);
  });

  it("follows a call from approval to its end, and a denied one says denied", () => {
    let state = apply(
      initialPilot(),
      { type: "tool_requested", tab: "t", call: "c1", tool: "run_command", args: { command: "rm -rf /tmp/x" } },
      {
        type: "approval_requested",
        tab: "t",
        call: "c1",
        tool: "run_command",
        reasons: ["rm is dangerous"],
        risk: "dangerous",
        preview: { kind: "command", command: "rm -rf /tmp/x" },
      },
    );
    expect(tabPilot(state, "t").calls["c1"]?.phase).toBe("approval");
    expect(waitingCount(state, "t")).toBe(1);
    state = decided(state, "t", "c1", "deny");
    expect(waitingCount(state, "t")).toBe(0);
    state = apply(state, {
      type: "tool_finished",
      tab: "t",
      call: "c1",
      outcome: { tool: "run_command", status: "denied", error: "the user denied it" },
      verdict: "ask",
      decided_by: "user",
      duration_ms: 1500,
    });
    const card = tabPilot(state, "t").calls["c1"];
    expect(card?.phase).toBe("finished");
    expect(card?.outcome?.status).toBe("denied");
    expect(card?.decidedBy).toBe("user");
    expect(card?.approval?.reasons).toEqual(["rm is dangerous"]);
  });

  it("keeps the permission an approval asks for, and none for an ordinary one", () => {
    const state = apply(
      initialPilot(),
      { type: "tool_requested", tab: "t", call: "r1", tool: "read_file", args: { path: "/etc/motd" } },
      {
        type: "approval_requested",
        tab: "t",
        call: "r1",
        tool: "read_file",
        reasons: ["This tab does not send file contents to the AI"],
        risk: "routine",
        permission: "file_contents",
      },
      { type: "tool_requested", tab: "t", call: "c2", tool: "run_command", args: { command: "ls" } },
      { type: "approval_requested", tab: "t", call: "c2", tool: "run_command", reasons: [], risk: "routine" },
    );
    expect(tabPilot(state, "t").calls["r1"]?.approval?.permission).toBe("file_contents");
    expect(tabPilot(state, "t").calls["c2"]?.approval?.permission).toBeNull();
    expect(waitingCount(state, "t")).toBe(2);
  });

  it("makes a card from a later event when the request was not seen (replay cut short)", () => {
    const state = apply(
      initialPilot(),
      { type: "tool_running", tab: "t", call: "c9" },
      {
        type: "question_asked",
        tab: "t",
        call: "q1",
        question: "Which one?",
        options: ["a", "b"],
      },
    );
    // tool_running alone shows nothing it cannot name; the question makes its card.
    expect(Object.keys(tabPilot(state, "t").calls)).toEqual(["q1"]);
    expect(waitingCount(state, "t")).toBe(1);
    const answered = questionAnswered(state, "t", "q1", null);
    expect(tabPilot(answered, "t").calls["q1"]?.answered).toEqual({ answer: null });
    expect(waitingCount(answered, "t")).toBe(0);
  });

  it("shows plan calls as the plan card: proposal, approval, live steps, an added step", () => {
    let state = apply(
      initialPilot(),
      { type: "tool_requested", tab: "t", call: "p1", tool: "propose_plan", args: {} },
      { type: "plan_proposed", tab: "t", call: "p1", plan: plan("proposed", ["pending", "pending"]) },
      {
        type: "approval_requested",
        tab: "t",
        call: "p1",
        tool: "propose_plan",
        reasons: ["a plan needs your approval"],
        risk: "routine",
        preview: { kind: "operations", lines: ["1. step 1", "2. step 2"] },
      },
    );
    let pilot = tabPilot(state, "t");
    expect(pilot.items.map((i) => i.kind)).toEqual(["plan"]);
    expect(pilot.calls).toEqual({});
    expect(pilot.planApproval).toEqual({ call: "p1", what: "plan", answered: null });
    expect(waitingCount(state, "t")).toBe(1);
    state = decided(state, "t", "p1", "approve");
    expect(waitingCount(state, "t")).toBe(0);
    state = apply(
      state,
      { type: "plan_updated", tab: "t", plan: plan("approved", ["pending", "pending"]) },
      { type: "mode_changed", tab: "t", mode: "ask" },
      {
        type: "tool_finished",
        tab: "t",
        call: "p1",
        outcome: { tool: "propose_plan", status: "ok" },
        verdict: "ask",
        duration_ms: 5,
      },
      { type: "plan_updated", tab: "t", plan: plan("approved", ["done", "running"]) },
      { type: "approval_requested", tab: "t", call: "u1", tool: "update_plan", reasons: [], risk: "routine" },
    );
    pilot = tabPilot(state, "t");
    expect(pilot.items).toHaveLength(1);
    const card = pilot.items[0];
    expect(card?.kind === "plan" && card.plan.steps.map((s) => s.status)).toEqual(["done", "running"]);
    expect(pilot.planApproval).toEqual({ call: "u1", what: "step", answered: null });
    state = apply(state, {
      type: "tool_finished",
      tab: "t",
      call: "u1",
      outcome: { tool: "update_plan", status: "ok" },
      verdict: "ask",
      duration_ms: 5,
    });
    expect(tabPilot(state, "t").planApproval).toBeNull();
  });

  it("says which mode Pilot works in once the engine leaves plan mode for an approved plan", () => {
    const proposed = apply(
      initialPilot(),
      { type: "mode_changed", tab: "t", mode: "plan" },
      { type: "plan_proposed", tab: "t", call: "p1", plan: plan("proposed", ["pending"]) },
    );
    const approved = apply(
      proposed,
      { type: "plan_updated", tab: "t", plan: plan("approved", ["pending"]) },
      { type: "mode_changed", tab: "t", mode: "ask" },
    );
    const notes = (state: typeof approved) =>
      tabPilot(state, "t").items.flatMap((i) => (i.kind === "note" ? [i.text] : []));
    expect(notes(approved)).toEqual(["Plan approved — Pilot now works in Ask mode"]);
    expect(tabPilot(approved, "t").mode).toBe("ask");
    // The user's own switch out of plan mode (the plan not approved) says nothing.
    expect(notes(apply(proposed, { type: "mode_changed", tab: "t", mode: "autopilot" }))).toEqual([]);
  });

  it("puts a new proposal after a rejected plan in a card of its own", () => {
    const state = apply(
      initialPilot(),
      { type: "plan_proposed", tab: "t", call: "p1", plan: plan("proposed", ["pending"]) },
      { type: "plan_updated", tab: "t", plan: plan("rejected", ["pending"]) },
      { type: "plan_proposed", tab: "t", call: "p2", plan: plan("proposed", ["pending", "pending"]) },
    );
    expect(tabPilot(state, "t").items.map((i) => (i.kind === "plan" ? i.plan.phase : i.kind))).toEqual([
      "rejected",
      "proposed",
    ]);
  });

  it("says how a turn ended when it did not complete, and how full the context is", () => {
    const state = apply(
      initialPilot(),
      { type: "turn_started", tab: "t", turn: 3, text: "go" },
      { type: "context_usage", tab: "t", turn: 3, used_tokens: 5000, context_tokens: 200000, elided_results: 1 },
      { type: "model_retrying", tab: "t", turn: 3, attempt: 1, wait_ms: 1500, reason: "rate limited" },
      { type: "turn_finished", tab: "t", turn: 3, status: "failed", message: "the model API failed" },
    );
    const pilot = tabPilot(state, "t");
    expect(pilot.context).toEqual({ usedTokens: 5000, contextTokens: 200000, elidedResults: 1 });
    expect(pilot.items).toEqual([
      { kind: "user", id: 1, text: "go" },
      { kind: "note", id: 2, tone: "info", text: "rate limited; trying again in 2 s (attempt 1)" },
      { kind: "note", id: 3, tone: "error", text: "Failed: the model API failed" },
    ]);
  });

  it("says a turn was interrupted by a time in the background", () => {
    const state = apply(
      initialPilot(),
      { type: "turn_started", tab: "t", turn: 1, text: "go" },
      {
        type: "turn_finished",
        tab: "t",
        turn: 1,
        status: "interrupted",
        message: "kaiport was in the background for about 40 s",
      },
    );
    const pilot = tabPilot(state, "t");
    expect(pilot.turn).toBeNull();
    expect(pilot.items.at(-1)).toEqual({
      kind: "note",
      id: 2,
      tone: "info",
      text: "Interrupted: kaiport was in the background for about 40 s",
    });
  });

  it("follows the mode and forgets a closed tab", () => {
    let state = modeChosen(initialPilot(), "t", "plan");
    expect(tabPilot(state, "t").mode).toBe("plan");
    state = apply(state, { type: "mode_changed", tab: "t", mode: "autopilot" });
    expect(tabPilot(state, "t").mode).toBe("autopilot");
    state = apply(state, { type: "tab_closed", tab: "t" });
    expect(state.tabs).toEqual({});
    expect(tabPilot(state, "t").mode).toBe("ask");
  });

  it("ignores events that are not Pilot's", () => {
    const state = initialPilot();
    expect(
      apply(
        state,
        { type: "hello", version: "1", tools: [], local_terminal: true, documents: null },
        { type: "error", message: "x" },
      ),
    ).toBe(state);
  });
});

describe("host facts", () => {
  const facts = {
    os: "Debian GNU/Linux 12 (bookworm)",
    kernel: "Linux 6.1.0 x86_64",
    hostname: "web1",
    user: "alice",
    uid: 1000,
    groups: ["alice", "sudo"],
    may_sudo: true,
    login_shell: "/bin/bash",
    init: "systemd",
    package_manager: "apt",
    userland: "GNU",
    container: "none",
    server_time: "2026-12-05 03:10:00 +0000 UTC",
    probe_error: null,
  };

  it("keeps the tab's host facts and sums them up", () => {
    const state = applyPilotEvent(initialPilot(), { type: "host_facts", tab: "t", facts });
    const host = tabPilot(state, "t").host;
    expect(host).toEqual(facts);
    const summary = hostSummary(facts);
    expect(summary.line).toBe("Debian GNU/Linux 12 (bookworm) · alice · sudo");
    expect(summary.details).toContain("Groups: alice sudo");
    expect(hostSummary({ ...facts, uid: 0, user: "root" }).line).toBe("Debian GNU/Linux 12 (bookworm) · root");
  });

  it("follows the terminal's current folder into the host details", () => {
    let state = applyPilotEvent(initialPilot(), { type: "terminal_cwd", tab: "t", cwd: "/tmp/a b" });
    expect(tabPilot(state, "t").cwd).toBe("/tmp/a b");
    const same = applyPilotEvent(state, { type: "terminal_cwd", tab: "t", cwd: "/tmp/a b" });
    expect(same).toBe(state);
    state = applyPilotEvent(state, { type: "terminal_cwd", tab: "t", cwd: "/" });
    expect(hostSummary(facts, tabPilot(state, "t").cwd).details).toContain("Folder: /");
    expect(hostSummary(facts).details).toContain("Folder: unknown");
  });

  it("says unknown when the probe failed", () => {
    const failed = {
      ...facts,
      os: null,
      user: null,
      uid: null,
      groups: [],
      probe_error: "it did not answer within 8 s",
    };
    expect(hostSummary(failed)).toEqual({
      line: "host unknown",
      details: "kaiport could not probe the host: it did not answer within 8 s",
    });
  });
});

describe("a password Pilot's command waits for", () => {
  const finished = (status: string): Event => ({
    type: "tool_finished",
    tab: "t",
    call: "c1",
    outcome: { tool: "run_command", status: "ok", result: { status, output: "" } },
    verdict: "allow",
    decided_by: "autopilot",
    duration_ms: 5,
  });

  it("wants the secret until the user presses Enter in the terminal or the turn ends", () => {
    let state = applyPilotEvent(initialPilot(), finished("awaiting_input"));
    expect(tabPilot(state, "t").secretWanted).toBe(false);
    state = applyPilotEvent(state, finished("awaiting_secret"));
    expect(tabPilot(state, "t").secretWanted).toBe(true);
    state = secretEntered(state, "t");
    expect(tabPilot(state, "t").secretWanted).toBe(false);
    state = applyPilotEvent(state, finished("awaiting_secret"));
    state = applyPilotEvent(state, { type: "turn_finished", tab: "t", turn: 1, status: "completed" });
    expect(tabPilot(state, "t").secretWanted).toBe(false);
  });
});

describe("a rule added by Always allow, on its card", () => {
  const asked = (call: string, allowRule: string | null): Event[] => [
    { type: "tool_requested", tab: "t", call, tool: "run_command", args: { command: "df -P /" } },
    {
      type: "approval_requested",
      tab: "t",
      call,
      tool: "run_command",
      reasons: ["run_command asks in ask mode"],
      risk: "routine",
      preview: { kind: "command", command: "df -P /" },
      allow_rule: allowRule,
    },
  ];
  const added = (state: PilotState, call: string) => tabPilot(state, "t").calls[call]?.alwaysAllowed ?? null;

  it("is the rule offered, kept through the call's end, and follows its undo", () => {
    let state = apply(initialPilot(), ...asked("c1", "df"));
    state = decided(state, "t", "c1", "allow_for_connection");
    expect(added(state, "c1")).toEqual({ rule: "df", state: "added", message: null });
    state = apply(
      state,
      { type: "tool_running", tab: "t", call: "c1" },
      {
        type: "tool_finished",
        tab: "t",
        call: "c1",
        outcome: { tool: "run_command", status: "ok", result: { output: "" } },
        verdict: "ask",
        decided_by: "user",
        duration_ms: 40,
      },
    );
    expect(added(state, "c1")?.state).toBe("added");
    state = alwaysAllowUndo(state, "t", "c1", { kind: "undoing" });
    expect(added(state, "c1")?.state).toBe("undoing");
    state = alwaysAllowUndo(state, "t", "c1", { kind: "failed", message: "the connection to kaiport was lost" });
    expect(added(state, "c1")).toEqual({ rule: "df", state: "failed", message: "the connection to kaiport was lost" });
    state = alwaysAllowUndo(state, "t", "c1", { kind: "removed" });
    expect(added(state, "c1")).toEqual({ rule: "df", state: "removed", message: null });
    state = alwaysAllowUndo(state, "t", "c1", { kind: "gone" });
    expect(added(state, "c1")?.state).toBe("gone");
  });

  it("is none for a plain approve, an edited line, a card without a rule, or a permission", () => {
    let state = apply(initialPilot(), ...asked("a", "df"), ...asked("e", "df"), ...asked("n", null));
    state = decided(state, "t", "a", "approve");
    state = decided(state, "t", "e", "allow_for_connection", true);
    state = decided(state, "t", "n", "allow_for_connection");
    state = apply(
      state,
      { type: "tool_requested", tab: "t", call: "p", tool: "read_file", args: { path: "/etc/motd" } },
      {
        type: "approval_requested",
        tab: "t",
        call: "p",
        tool: "read_file",
        reasons: ["file contents"],
        risk: "routine",
        permission: "file_contents",
      },
    );
    state = decided(state, "t", "p", "allow_for_connection");
    for (const call of ["a", "e", "n", "p"]) {
      expect(added(state, call)).toBeNull();
    }
    // An undo of a card that added nothing changes nothing.
    expect(alwaysAllowUndo(state, "t", "a", { kind: "removed" })).toEqual(state);
  });
});
