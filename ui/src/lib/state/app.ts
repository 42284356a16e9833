// The screen's state as a pure function of what happened: engine events in, a new state out.
// No DOM and no Svelte here, so Vitest checks it directly; `app.svelte.ts` holds it in a rune.

import type { ConnectionState, Event, Prompt, TabKind, TabTarget, ToolName } from "../protocol";
import type { PromptId, TabId } from "../ids";
import type { LinkStatus } from "../transport/transport";
import { cleanTitle, folderName, type TitleChange } from "../terminal-title";

export interface EngineInfo {
  version: string;
  tools: ToolName[];
  localTerminal: boolean;
  documents: string | null;
}

export interface TabView {
  id: TabId;
  kind: TabKind;
  title: string;
  /** What the tab was opened on, when this page opened it (for "Reconnect"). */
  target: TabTarget | null;
  /** This page opened or reconnected the tab: the prompts of its connection (host key,
   * password) are asked here; other pages only say that one waits. */
  askedHere: boolean;
  connection: ConnectionState;
  /** The shell's folder, as its integration last said (terminal tabs). */
  cwd: string | null;
  /** The title the terminal's programs gave it (OSC 0/2), cleaned; null at the prompt. */
  terminalTitle: string | null;
}

export interface PendingPrompt {
  promptId: PromptId;
  tab: TabId | null;
  prompt: Prompt;
}

export interface Notice {
  id: number;
  tab: TabId | null;
  message: string;
}

export interface AppState {
  /** What the engine's `hello` said: its version, its tools, whether it opens local terminals,
   * and the one folder storage tabs keep their local side in, when it decides that. */
  engine: EngineInfo | null;
  tabs: TabView[];
  active: TabId | null;
  /** Prompts waiting for the user, oldest first. */
  prompts: PendingPrompt[];
  /** Errors outside any tool call, newest last; the user dismisses them. */
  notices: Notice[];
  link: LinkStatus;
  nextNotice: number;
}

/** At most this many notices are kept. */
const MAX_NOTICES = 5;

export function initialState(): AppState {
  return {
    engine: null,
    tabs: [],
    active: null,
    prompts: [],
    notices: [],
    link: "connecting",
    nextNotice: 1,
  };
}

/** The user opened a tab: it shows at once, connecting, before the engine answers. */
/** A connection's label as a tab's title: `user@host` for SSH, with the port only when it is
 * not 22; other labels (saved names, storage URLs) as they are. */
export function shortTitle(label: string): string {
  const ssh = /^ssh:\/\/([^@/]+@)?(\[[^\]]+\]|[^:/]+)(?::(\d+))?\/?$/.exec(label);
  if (ssh === null) {
    return label;
  }
  const [, user = "", host = "", port] = ssh;
  return `${user}${host}${port !== undefined && port !== "22" ? `:${port}` : ""}`;
}

/** `title` for tab `id`, numbered when another tab has it already ("web1 (2)"). */
function uniqueTitle(tabs: TabView[], id: TabId, title: string): string {
  const taken = (candidate: string) => tabs.some((t) => t.id !== id && t.title === candidate);
  if (!taken(title)) {
    return title;
  }
  let n = 2;
  while (taken(`${title} (${n})`)) {
    n++;
  }
  return `${title} (${n})`;
}

export function tabOpening(state: AppState, tab: TabId, target: TabTarget, title: string): AppState {
  const view: TabView = {
    id: tab,
    kind: target.kind === "storage" ? "storage" : "terminal",
    title: uniqueTitle(state.tabs, tab, shortTitle(title)),
    target,
    askedHere: true,
    connection: { state: "connecting" },
    cwd: null,
    terminalTitle: null,
  };
  return { ...state, tabs: [...state.tabs.filter((t) => t.id !== tab), view], active: tab };
}

/** What a terminal tab's title adds after its name: what the running program calls itself
 * (its terminal title), else the shell's folder; null when the terminal has said neither. */
export function tabDetail(tab: TabView): string | null {
  if (tab.terminalTitle !== null) return tab.terminalTitle;
  return tab.cwd === null ? null : folderName(tab.cwd);
}

/** The terminal of `tab` set its title, or its shell is at the prompt again (a finished
 * program's title is over then). */
export function terminalTitled(state: AppState, tab: TabId, changes: readonly TitleChange[]): AppState {
  const last = changes[changes.length - 1];
  if (last === undefined) return state;
  const title = "title" in last ? cleanTitle(last.title) : null;
  const view = state.tabs.find((t) => t.id === tab);
  if (view === undefined || view.terminalTitle === title) return state;
  return updateTab(state, tab, (t) => ({ ...t, terminalTitle: title }));
}

/** The user asked to connect `tab` again: it connects, in its place; what went wrong with the
 * old connection (its notices, its prompts) is over. */
export function tabReconnecting(state: AppState, tab: TabId): AppState {
  // A new shell: what the old one said about its folder and program is not its.
  const next = updateTab(state, tab, (t) => ({
    ...t,
    askedHere: true,
    connection: { state: "connecting" },
    cwd: null,
    terminalTitle: null,
  }));
  return {
    ...next,
    prompts: next.prompts.filter((p) => p.tab !== tab),
    notices: next.notices.filter((n) => n.tab !== tab),
  };
}

/** The engine's one order of tabs (every window shows it): the tabs this page knows in that
 * order, any it does not name after them as they were. */
export function tabsReordered(state: AppState, order: TabId[]): AppState {
  const place = (tab: TabView) => {
    const index = order.indexOf(tab.id);
    return index < 0 ? order.length : index;
  };
  // A stable sort keeps the unnamed ones in their order.
  return { ...state, tabs: [...state.tabs].sort((a, b) => place(a) - place(b)) };
}

/** Where tab `tab` goes when moved `by` places (-1 left, +1 right), or null at an end. */
export function movedIndex(state: AppState, tab: TabId, by: number): number | null {
  const from = state.tabs.findIndex((t) => t.id === tab);
  const to = from + by;
  return from < 0 || to < 0 || to >= state.tabs.length ? null : to;
}

export function activate(state: AppState, tab: TabId): AppState {
  return state.tabs.some((t) => t.id === tab) ? { ...state, active: tab } : state;
}

/** The user closed a tab; it goes at once (the engine's `tab_closed` follows). */
export function tabClosing(state: AppState, tab: TabId): AppState {
  return removeTab(state, tab);
}

export function promptAnswered(state: AppState, promptId: PromptId): AppState {
  return { ...state, prompts: state.prompts.filter((p) => p.promptId !== promptId) };
}

/** The prompts this page asks (about no tab, a tab it opened or reconnected, or one the user
 * chose to answer here, `answerHere`) and those another window asked for, which this page
 * only mentions. */
export function promptsHere(
  state: AppState,
  answerHere: readonly PromptId[],
): { here: PendingPrompt[]; elsewhere: PendingPrompt[] } {
  const ours = (p: PendingPrompt) =>
    p.tab === null || answerHere.includes(p.promptId) || state.tabs.some((t) => t.id === p.tab && t.askedHere);
  return { here: state.prompts.filter(ours), elsewhere: state.prompts.filter((p) => !ours(p)) };
}

/** The notices to show with `active`: its own and those about no tab. */
export function visibleNotices(state: AppState, active: TabId | null): Notice[] {
  return state.notices.filter((n) => n.tab === null || n.tab === active);
}

export function noticeDismissed(state: AppState, id: number): AppState {
  return { ...state, notices: state.notices.filter((n) => n.id !== id) };
}

export function linkChanged(state: AppState, link: LinkStatus): AppState {
  return state.link === link ? state : { ...state, link };
}

function removeTab(state: AppState, tab: TabId): AppState {
  const index = state.tabs.findIndex((t) => t.id === tab);
  if (index < 0) {
    return state;
  }
  const tabs = state.tabs.filter((t) => t.id !== tab);
  let active = state.active;
  if (active === tab) {
    // The neighbour takes its place: the one after it, else the one before.
    active = (tabs[index] ?? tabs[index - 1])?.id ?? null;
  }
  return {
    ...state,
    tabs,
    active,
    prompts: state.prompts.filter((p) => p.tab !== tab),
    notices: state.notices.filter((n) => n.tab !== tab),
  };
}

function updateTab(state: AppState, tab: TabId, change: (view: TabView) => TabView): AppState {
  if (!state.tabs.some((t) => t.id === tab)) {
    return state;
  }
  return { ...state, tabs: state.tabs.map((t) => (t.id === tab ? change(t) : t)) };
}

export function addNotice(state: AppState, tab: TabId | null, message: string): AppState {
  if (tab !== null && !state.tabs.some((t) => t.id === tab)) {
    // About a tab this page does not show (closed here, or by another page): nothing to tell.
    return state;
  }
  if (state.notices.some((n) => n.tab === tab && n.message === message)) {
    // Already on screen once.
    return state;
  }
  const notice: Notice = { id: state.nextNotice, tab, message };
  return {
    ...state,
    notices: [...state.notices, notice].slice(-MAX_NOTICES),
    nextNotice: state.nextNotice + 1,
  };
}

/** One engine event applied to the state. */
export function applyEvent(state: AppState, event: Event): AppState {
  switch (event.type) {
    case "hello":
      return {
        ...state,
        engine: {
          version: event.version,
          tools: event.tools,
          localTerminal: event.local_terminal,
          documents: event.documents,
        },
      };
    case "tab_opened": {
      const known = state.tabs.find((t) => t.id === event.tab);
      const title = uniqueTitle(state.tabs, event.tab, shortTitle(event.title));
      if (known !== undefined) {
        return updateTab(state, event.tab, (t) => ({ ...t, kind: event.kind, title }));
      }
      // A tab another page (or this page before a reload) opened.
      const view: TabView = {
        id: event.tab,
        kind: event.kind,
        title,
        target: null,
        askedHere: false,
        connection: { state: "connecting" },
        cwd: null,
        terminalTitle: null,
      };
      return { ...state, tabs: [...state.tabs, view], active: state.active ?? event.tab };
    }
    case "connection_state": {
      let next = updateTab(state, event.tab, (t) => ({ ...t, connection: event.state }));
      if (event.state.state !== "connecting") {
        // Whatever a prompt of this tab was asking is settled now.
        next = { ...next, prompts: next.prompts.filter((p) => p.tab !== event.tab) };
      }
      if (event.state.state === "connected") {
        // A connected tab has nothing left to warn about from before.
        next = { ...next, notices: next.notices.filter((n) => n.tab !== event.tab) };
      }
      return next;
    }
    case "tab_closed":
      return removeTab(state, event.tab);
    case "tabs_reordered":
      return tabsReordered(state, event.tabs);
    case "tabs_restored":
      // The tabs of the engine's last run: show the one that was shown then.
      return event.active !== null ? activate(state, event.active) : state;
    case "prompt_requested": {
      if (state.prompts.some((p) => p.promptId === event.prompt_id)) {
        return state;
      }
      const pending: PendingPrompt = {
        promptId: event.prompt_id,
        tab: event.tab ?? null,
        prompt: event.prompt,
      };
      return { ...state, prompts: [...state.prompts, pending] };
    }
    case "error":
      return addNotice(state, event.tab ?? null, event.message);
    case "terminal_cwd":
      return updateTab(state, event.tab, (t) => (t.cwd === event.cwd ? t : { ...t, cwd: event.cwd }));
    // Shown by views that are not built yet (Pilot, cards, transfers) or carried elsewhere
    // (terminal bytes arrive as binary frames): nothing in this state changes.
    case "terminal_output":
    case "mode_changed":
    case "host_facts":
    case "settings_changed":
    case "tool_requested":
    case "approval_requested":
    case "tool_running":
    case "question_asked":
    case "tool_finished":
    case "plan_proposed":
    case "plan_updated":
    case "transfer_progress":
    case "view_shown":
    case "view_button_finished":
    case "turn_started":
    case "assistant_text":
    case "model_retrying":
    case "turn_finished":
    case "context_usage":
    case "models":
    case "model_settings_saved": // the "Pilot settings" dialog's answers: pilot-setup.ts
    case "model_tested":
    case "provider_models":
    case "key_file_checked": // the "New connection" form's question: library.ts
    case "agent_keys":
    case "security_key_touch":
    case "saved_connections": // saved connections, the ssh config import and the audit log: library.ts
    case "ssh_config_hosts":
    case "audit_log":
    case "audit_recorded":
    case "host_key_changed":
    case "host_key_replaced":
    case "forward_state": // a terminal tab's forwards: not shown in this version of the page
    case "fleet_checked": // fleet runs: not started from this version of the page
    case "fleet_host_running":
    case "fleet_host_finished":
    case "fleet_finished":
    case "snippets": // the snippet palette's answers: snippets.svelte.ts
    case "snippet_expanded":
    case "broadcast_judged": // broadcast input: broadcast.ts
      return state;
    default: {
      // A new event type fails to compile here; one from a newer engine is ignored.
      const unknown: never = event;
      void unknown;
      return state;
    }
  }
}

/** The line above a reconnecting tab's terminal: the wait left of the engine's `in_ms`,
 * `elapsedMs` after it was told, in whole seconds rounded up. */
export function reconnectWords(inMs: number, elapsedMs: number): string {
  const left = Math.ceil(Math.max(0, inMs - elapsedMs) / 1000);
  return left > 0 ? `Reconnecting in ${left} s…` : "Reconnecting…";
}

/** A tab's connection state in words, for its tab and the line above the terminal. */
export function connectionWords(state: ConnectionState): string {
  switch (state.state) {
    case "connecting":
      return "connecting";
    case "connected":
      return "connected";
    case "disconnected":
      return "dropped";
    case "failed":
      return "failed";
    case "reconnecting":
      return "reconnecting";
    default: {
      const unknown: never = state;
      void unknown;
      return "unknown";
    }
  }
}
