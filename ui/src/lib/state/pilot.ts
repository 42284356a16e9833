// Pilot's side of each tab as a pure function of what happened: its conversation (the user's
// messages, the model's text, one card per tool call, questions, the plan), the mode, the turn
// and how full the context is. Engine events in, a new state out; no DOM, no Svelte.
//
// Every tab has its own conversation. Cards are keyed by call id; the conversation keeps them in
// the order they appeared.

import type { TabId } from "../ids";
import type { RuleRemoval } from "./library";
import type {
  ApprovalDecision,
  ApprovalPreview,
  DecidedBy,
  Event,
  HostFacts,
  Mode,
  ModelSettings,
  Permission,
  PlanCard,
  Risk,
  ToolOutcome,
  ToolStatus,
  TurnStatus,
  Value,
  Verdict,
  ViewButton,
  ViewReport,
} from "../protocol";

export type CallId = Extract<Event, { type: "tool_running" }>["call"];

/** Where a tool call stands, as its card shows it. */
export type CallPhase =
  /** Asked for, not decided yet (the policy is looking at it). */
  | "requested"
  /** Waits for the user's Approve or Deny. */
  | "approval"
  /** ask_user: waits for the user's answer. */
  | "question"
  | "running"
  | "finished";

export interface Approval {
  reasons: string[];
  /** What is at stake: routine, dangerous, or a change that can lock the user out. */
  risk: Risk;
  preview: ApprovalPreview | null;
  /** Set when only the connection's settings refuse the call and the user may allow it. */
  permission: Permission | null;
  /** The model's own reason for the call (its words, shown as such). */
  why: string | null;
  /** run_command: the allowed-commands rule "Always allow" adds (`systemctl status`). */
  allowRule: string | null;
}

/** A view button the user confirmed, and how it ended (`view_button_finished`). */
export interface ButtonPress {
  /** The button's words; a press this page did not make (another page's) names its command. */
  label: string;
  command: string;
  /** "sent": on its way; "ok": typed into the terminal; "denied"/"error": refused, see `message`. */
  status: "sent" | ToolStatus;
  message: string | null;
}

/** The rule "Always allow this command on this connection" added, shown on its card with an
 * undo: where that undo stands. */
export interface AlwaysAllowed {
  rule: string;
  /** added; undoing: asked; removed; gone: the user had removed it already; failed: `message`. */
  state: "added" | "undoing" | "removed" | "gone" | "failed";
  message: string | null;
}

export interface CallCard {
  call: CallId;
  tool: string;
  args: Value;
  phase: CallPhase;
  /** Kept after the decision: the expanded card still shows what was approved. */
  approval: Approval | null;
  question: { question: string; options: string[] } | null;
  /** The user's answer, sent and not yet confirmed by the engine. */
  answered: { decision: ApprovalDecision } | { answer: string | null } | null;
  outcome: ToolOutcome | null;
  verdict: Verdict | null;
  decidedBy: DecidedBy | null;
  durationMs: number | null;
  /** show_view: the view the engine showed (`view_shown`); null until it arrives. */
  view: ViewReport | null;
  /** show_view: the buttons the user confirmed, oldest first. */
  presses: ButtonPress[];
  /** The allowed-commands rule the user's "Always allow" added; null when none. */
  alwaysAllowed: AlwaysAllowed | null;
}

export type Item =
  | { kind: "user"; id: number; text: string }
  | { kind: "assistant"; id: number; turn: number; text: string }
  | { kind: "call"; id: number; call: CallId }
  | { kind: "plan"; id: number; plan: PlanCard }
  /** How a turn ended when it did not simply complete, or the model API being retried. */
  | { kind: "note"; id: number; tone: "info" | "error"; text: string };

/** A plan call (propose_plan, or update_plan adding a step) that waits for the user. */
export interface PlanApproval {
  call: CallId;
  what: "plan" | "step";
  answered: ApprovalDecision | null;
}

export interface ContextUsage {
  usedTokens: number;
  contextTokens: number;
  elidedResults: number;
}

export interface TabPilot {
  mode: Mode;
  items: Item[];
  calls: Record<CallId, CallCard>;
  planApproval: PlanApproval | null;
  /** The running turn's number; null when Pilot is idle. */
  turn: number | null;
  /** A message was sent and its turn has not started yet. */
  sending: boolean;
  context: ContextUsage | null;
  /** The model the user picked for this tab; null: the server's. */
  model: ModelSettings | null;
  /** What kaiport's probe found about the tab's host (terminal tabs); null until it answered. */
  host: HostFacts | null;
  /** The terminal's current folder as its shell integration reports it; null until it did
   * (server text, shown as text only). */
  cwd: string | null;
  /** A command Pilot ran stopped at a password prompt: the user types the secret in the
   * terminal (the banner over it says so) until they press Enter there or the turn ends. */
  secretWanted: boolean;
  nextId: number;
}

export interface PilotState {
  tabs: Record<TabId, TabPilot>;
}

/** A mode as the radio group "Mode" names it. */
const MODE_NAMES: Record<Mode, string> = { ask: "Ask", autopilot: "Autopilot", plan: "Plan" };

/** propose_plan and update_plan show as the plan card, not as tool cards of their own. */
const PLAN_TOOLS = new Set(["propose_plan", "update_plan"]);

export function initialPilot(): PilotState {
  return { tabs: {} };
}

export function emptyTab(): TabPilot {
  return {
    mode: "ask",
    items: [],
    calls: {},
    planApproval: null,
    turn: null,
    sending: false,
    context: null,
    model: null,
    host: null,
    cwd: null,
    secretWanted: false,
    nextId: 1,
  };
}

/** The outcome of a command that stopped at a password, passphrase or PIN prompt. */
function awaitsSecret(outcome: ToolOutcome): boolean {
  const result = outcome.result;
  return (
    outcome.status === "ok" &&
    typeof result === "object" &&
    result !== null &&
    !Array.isArray(result) &&
    result["status"] === "awaiting_secret"
  );
}

/** The user pressed Enter in the tab's terminal: a secret prompt they were typing at is answered. */
export function secretEntered(state: PilotState, tab: TabId): PilotState {
  const pilot = state.tabs[tab];
  if (pilot === undefined || !pilot.secretWanted) {
    return state;
  }
  return { tabs: { ...state.tabs, [tab]: { ...pilot, secretWanted: false } } };
}

/** The host in a few words for the Pilot panel ("Debian GNU/Linux 12 · alice · sudo"), and the
 * whole of what the probe found for its tooltip. Server text, shown as text only. */
export function hostSummary(facts: HostFacts, cwd: string | null = null): { line: string; details: string } {
  if (facts.probe_error !== null && facts.user === null) {
    return { line: "host unknown", details: `kaiport could not probe the host: ${facts.probe_error}` };
  }
  const sudo =
    facts.uid === 0 ? "root" : facts.may_sudo === true ? "sudo" : facts.may_sudo === false ? "no sudo" : null;
  const line = [facts.os ?? "unknown system", facts.uid === 0 ? null : facts.user, sudo]
    .filter((part): part is string => part !== null && part !== "")
    .join(" · ");
  const rows: [string, string | null][] = [
    ["System", facts.os],
    ["Kernel", facts.kernel],
    ["Host name", facts.hostname],
    ["User", facts.user === null ? null : `${facts.user} (uid ${facts.uid ?? "?"})`],
    ["Groups", facts.groups.length > 0 ? facts.groups.join(" ") : null],
    ["Login shell", facts.login_shell],
    ["Init", facts.init],
    ["Packages", facts.package_manager],
    ["Tools", facts.userland],
    ["Container", facts.container],
    ["Server time", facts.server_time],
    ["Folder", cwd],
  ];
  const details = rows.map(([name, value]) => `${name}: ${value ?? "unknown"}`).join("\n");
  return { line, details };
}

/** The tab's Pilot, or an empty one (a tab Pilot has not spoken in yet). */
export function tabPilot(state: PilotState, tab: TabId): TabPilot {
  return state.tabs[tab] ?? emptyTab();
}

function update(state: PilotState, tab: TabId, change: (pilot: TabPilot) => TabPilot): PilotState {
  const before = tabPilot(state, tab);
  const after = change(before);
  return after === before ? state : { tabs: { ...state.tabs, [tab]: after } };
}

function addItem(pilot: TabPilot, item: DistributiveOmit<Item, "id">): TabPilot {
  return { ...pilot, items: [...pilot.items, { ...item, id: pilot.nextId } as Item], nextId: pilot.nextId + 1 };
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

function updateCall(pilot: TabPilot, call: CallId, change: (card: CallCard) => CallCard): TabPilot {
  const card = pilot.calls[call];
  if (card === undefined) {
    return pilot;
  }
  return { ...pilot, calls: { ...pilot.calls, [call]: change(card) } };
}

/** A card for `call`, made from whatever event shows it first (the replay may have lost the
 * `tool_requested` of an old call). */
function ensureCall(pilot: TabPilot, call: CallId, tool: string, args: Value = null): TabPilot {
  if (pilot.calls[call] !== undefined || PLAN_TOOLS.has(tool)) {
    return pilot;
  }
  const card: CallCard = {
    call,
    tool,
    args,
    phase: "requested",
    approval: null,
    question: null,
    answered: null,
    outcome: null,
    verdict: null,
    decidedBy: null,
    durationMs: null,
    view: null,
    presses: [],
    alwaysAllowed: null,
  };
  return addItem({ ...pilot, calls: { ...pilot.calls, [call]: card } }, { kind: "call", call });
}

/** The newest plan card's index, if any. */
function lastPlan(pilot: TabPilot): number {
  for (let i = pilot.items.length - 1; i >= 0; i--) {
    if (pilot.items[i]?.kind === "plan") {
      return i;
    }
  }
  return -1;
}

function setPlan(pilot: TabPilot, plan: PlanCard, fresh: boolean): TabPilot {
  const index = lastPlan(pilot);
  const current = pilot.items[index];
  // A new proposal after a rejected one is a new card; an update changes the newest.
  if (current?.kind !== "plan" || (fresh && current.plan.phase !== "proposed")) {
    return addItem(pilot, { kind: "plan", plan });
  }
  const items = [...pilot.items];
  items[index] = { ...current, plan };
  return { ...pilot, items };
}

function tabOf(event: Event): TabId | null {
  return "tab" in event && typeof event.tab === "string" ? event.tab : null;
}

/** How a turn that did not simply complete ended, in a word. */
function turnEndWords(status: TurnStatus): string {
  switch (status) {
    case "completed":
      return "Done";
    case "cancelled":
      return "Stopped";
    case "failed":
      return "Failed";
    case "interrupted":
      return "Interrupted";
    default: {
      const unknown: never = status;
      return String(unknown);
    }
  }
}

/** One engine event applied to Pilot's state. */
export function applyPilotEvent(state: PilotState, event: Event): PilotState {
  if (event.type === "tab_closed") {
    if (state.tabs[event.tab] === undefined) {
      return state;
    }
    const tabs = { ...state.tabs };
    delete tabs[event.tab];
    return { tabs };
  }
  const tab = tabOf(event);
  if (tab === null) {
    return state;
  }
  switch (event.type) {
    case "mode_changed":
      return update(state, tab, (p) => {
        if (p.mode === event.mode) {
          return p;
        }
        const next = { ...p, mode: event.mode };
        // The engine leaves plan mode when the plan is approved: say which mode Pilot works in
        // now (a mode the user chose here was set already and says nothing).
        const plan = next.items[lastPlan(next)];
        return p.mode === "plan" && plan?.kind === "plan" && plan.plan.phase === "approved"
          ? addItem(next, {
              kind: "note",
              tone: "info",
              text: `Plan approved — Pilot now works in ${MODE_NAMES[event.mode]} mode`,
            })
          : next;
      });
    case "host_facts":
      return update(state, tab, (p) => ({ ...p, host: event.facts }));
    case "terminal_cwd":
      return update(state, tab, (p) => (p.cwd === event.cwd ? p : { ...p, cwd: event.cwd }));
    case "turn_started":
      return update(state, tab, (p) => {
        // This page shows its own message as it sends it; another page's (or the one a
        // reload replays) comes from the engine.
        const shown = p.sending ? p : addItem(p, { kind: "user", text: event.text });
        return { ...shown, turn: event.turn, sending: false };
      });
    case "assistant_text":
      return update(state, tab, (p) => {
        const last = p.items[p.items.length - 1];
        if (last?.kind === "assistant" && last.turn === event.turn) {
          const items = [...p.items];
          items[items.length - 1] = { ...last, text: last.text + event.delta };
          return { ...p, items };
        }
        return addItem(p, { kind: "assistant", turn: event.turn, text: event.delta });
      });
    case "model_retrying":
      return update(state, tab, (p) =>
        addItem(p, {
          kind: "note",
          tone: "info",
          text: `${event.reason}; trying again in ${Math.ceil(event.wait_ms / 1000)} s (attempt ${event.attempt})`,
        }),
      );
    case "turn_finished":
      return update(state, tab, (p) => {
        let next: TabPilot = { ...p, turn: null, sending: false, secretWanted: false };
        if (event.status !== "completed" || event.message != null) {
          const words = turnEndWords(event.status);
          next = addItem(next, {
            kind: "note",
            tone: event.status === "failed" ? "error" : "info",
            text: event.message != null ? `${words}: ${event.message}` : words,
          });
        }
        return next;
      });
    case "context_usage":
      return update(state, tab, (p) => ({
        ...p,
        context: {
          usedTokens: event.used_tokens,
          contextTokens: event.context_tokens,
          elidedResults: event.elided_results,
        },
      }));
    case "tool_requested":
      return update(state, tab, (p) => ensureCall(p, event.call, event.tool, event.args));
    case "approval_requested": {
      const approval: Approval = {
        reasons: event.reasons,
        risk: event.risk,
        preview: event.preview ?? null,
        permission: event.permission ?? null,
        why: event.why ?? null,
        allowRule: event.allow_rule ?? null,
      };
      if (PLAN_TOOLS.has(event.tool)) {
        return update(state, tab, (p) => ({
          ...p,
          planApproval: { call: event.call, what: event.tool === "propose_plan" ? "plan" : "step", answered: null },
        }));
      }
      return update(state, tab, (p) =>
        updateCall(ensureCall(p, event.call, event.tool), event.call, (card) => ({
          ...card,
          phase: "approval",
          approval,
          answered: null,
        })),
      );
    }
    case "question_asked":
      return update(state, tab, (p) =>
        updateCall(ensureCall(p, event.call, "ask_user"), event.call, (card) => ({
          ...card,
          phase: "question",
          question: { question: event.question, options: event.options },
          answered: null,
        })),
      );
    case "tool_running":
      return update(state, tab, (p) => {
        const next = clearPlanApproval(p, event.call);
        return updateCall(next, event.call, (card) => ({ ...card, phase: "running", answered: null }));
      });
    case "tool_finished":
      return update(state, tab, (p) => {
        let next = clearPlanApproval(p, event.call);
        if (PLAN_TOOLS.has(event.outcome.tool)) {
          // The plan card shows the plan; a refused or broken plan call says why.
          if (event.outcome.status === "error" && event.outcome.error != null) {
            next = addItem(next, {
              kind: "note",
              tone: "error",
              text: `${event.outcome.tool}: ${event.outcome.error}`,
            });
          }
          return next;
        }
        next = ensureCall(next, event.call, event.outcome.tool);
        if (awaitsSecret(event.outcome)) {
          next = { ...next, secretWanted: true };
        }
        return updateCall(next, event.call, (card) => ({
          ...card,
          phase: "finished",
          answered: null,
          outcome: event.outcome,
          verdict: event.verdict,
          decidedBy: event.decided_by ?? null,
          durationMs: event.duration_ms,
        }));
      });
    case "view_shown":
      return update(state, tab, (p) =>
        updateCall(ensureCall(p, event.call, "show_view"), event.call, (card) => ({ ...card, view: event.report })),
      );
    case "view_button_finished":
      return update(state, tab, (p) =>
        updateCall(p, event.call, (card) => ({
          ...card,
          presses: pressFinished(card, event.command, event.status, event.message ?? null),
        })),
      );
    case "plan_proposed":
      return update(state, tab, (p) => setPlan(p, event.plan, true));
    case "plan_updated":
      return update(state, tab, (p) => setPlan(p, event.plan, false));
    default:
      return state;
  }
}

/** The oldest press of `command` still on its way gets its end; a press this page did not send
 * (another page's, or one a reload lost) is added as it ended. */
function pressFinished(card: CallCard, command: string, status: ToolStatus, message: string | null): ButtonPress[] {
  const index = card.presses.findIndex((p) => p.status === "sent" && p.command === command);
  if (index >= 0) {
    return card.presses.map((p, i) => (i === index ? { ...p, status, message } : p));
  }
  const label = card.view?.buttons?.find((b) => b.command === command)?.label ?? command;
  return [...card.presses, { label, command, status, message }];
}

function clearPlanApproval(pilot: TabPilot, call: CallId): TabPilot {
  return pilot.planApproval?.call === call ? { ...pilot, planApproval: null } : pilot;
}

/** The user sent a message: it shows at once; the turn starts when the engine says so. */
export function messageSent(state: PilotState, tab: TabId, text: string): PilotState {
  return update(state, tab, (p) => ({ ...addItem(p, { kind: "user", text }), sending: true }));
}

/** The engine refused the message (the tab is gone, Pilot is busy): no longer sending. */
export function sendFailed(state: PilotState, tab: TabId): PilotState {
  return update(state, tab, (p) => (p.sending ? { ...p, sending: false } : p));
}

/** The user chose a mode; the engine's `mode_changed` confirms it. */
export function modeChosen(state: PilotState, tab: TabId, mode: Mode): PilotState {
  return update(state, tab, (p) => ({ ...p, mode }));
}

/** The user picked a model for this tab's next messages. */
export function modelChosen(state: PilotState, tab: TabId, model: ModelSettings | null): PilotState {
  return update(state, tab, (p) => ({ ...p, model }));
}

/** The user approved or denied a call (or a plan, or an added step); `edited` when they
 * approved a command line they edited. "Always allow" on a card that offered a rule (for the
 * model's own line) adds that rule, which the card then shows. */
export function decided(
  state: PilotState,
  tab: TabId,
  call: CallId,
  decision: ApprovalDecision,
  edited = false,
): PilotState {
  return update(state, tab, (p) => {
    if (p.planApproval?.call === call) {
      return { ...p, planApproval: { ...p.planApproval, answered: decision } };
    }
    return updateCall(p, call, (card) => {
      const rule = card.approval?.permission === null ? card.approval.allowRule : null;
      const adds = decision === "allow_for_connection" && !edited && rule !== null;
      return {
        ...card,
        answered: { decision },
        alwaysAllowed: adds ? { rule, state: "added", message: null } : card.alwaysAllowed,
      };
    });
  });
}

/** "Undo always allow" on a card: asked (`undoing`), then how it ended. */
export function alwaysAllowUndo(
  state: PilotState,
  tab: TabId,
  call: CallId,
  undo: { kind: "undoing" } | RuleRemoval,
): PilotState {
  return update(state, tab, (p) =>
    updateCall(p, call, (card) => {
      if (card.alwaysAllowed === null) {
        return card;
      }
      const next: AlwaysAllowed = {
        rule: card.alwaysAllowed.rule,
        state: undo.kind,
        message: undo.kind === "failed" ? undo.message : null,
      };
      return { ...card, alwaysAllowed: next };
    }),
  );
}

/** The user answered an ask_user question (null: "Don't answer"). */
export function questionAnswered(state: PilotState, tab: TabId, call: CallId, answer: string | null): PilotState {
  return update(state, tab, (p) => updateCall(p, call, (card) => ({ ...card, answered: { answer } })));
}

/** The user confirmed a view's button: it shows as sent until `view_button_finished` says how
 * it ended. */
export function viewButtonPressed(state: PilotState, tab: TabId, call: CallId, button: ViewButton): PilotState {
  return update(state, tab, (p) =>
    updateCall(p, call, (card) => ({
      ...card,
      presses: [...card.presses, { label: button.label, command: button.command, status: "sent", message: null }],
    })),
  );
}

/** How many things in the tab wait for the user (approvals, questions, a plan, a step). */
export function waitingCount(state: PilotState, tab: TabId): number {
  const pilot = state.tabs[tab];
  if (pilot === undefined) {
    return 0;
  }
  let count = pilot.planApproval !== null && pilot.planApproval.answered === null ? 1 : 0;
  for (const card of Object.values(pilot.calls)) {
    if ((card.phase === "approval" || card.phase === "question") && card.answered === null) {
      count++;
    }
  }
  return count;
}

/** Whether Pilot is working in the tab (a turn runs, or a message is on its way). */
export function isBusy(state: PilotState, tab: TabId): boolean {
  const pilot = state.tabs[tab];
  return pilot !== undefined && (pilot.turn !== null || pilot.sending);
}
