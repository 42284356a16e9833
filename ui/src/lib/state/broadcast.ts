// Broadcast input as a pure function of what happened: which terminal tabs receive the line
// typed once, the line on its way, and what became of the last one on each tab
// (`BroadcastJudged`). The engine judges the line on every tab by that tab's own rules; this only
// remembers and words the answer.

import type { TabId } from "../ids";
import type { BroadcastTabResult, Event, SavedConnection } from "../protocol";
import type { TabView } from "./app";

export interface BroadcastLast {
  broadcast: string;
  line: string;
  tabs: BroadcastTabResult[];
}

export interface BroadcastState {
  /** The receiving tabs, in the order chosen; empty: no broadcast. */
  tabs: TabId[];
  /** The id of the line on its way, until the engine answers. */
  pending: string | null;
  /** What became of the last line. */
  last: BroadcastLast | null;
}

export function initialBroadcast(): BroadcastState {
  return { tabs: [], pending: null, last: null };
}

/** The engine's answer to the pending line; a closed tab stops receiving. */
export function applyBroadcastEvent(state: BroadcastState, event: Event): BroadcastState {
  switch (event.type) {
    case "broadcast_judged":
      if (event.broadcast !== state.pending) return state;
      return { ...state, pending: null, last: { broadcast: event.broadcast, line: event.line, tabs: event.tabs } };
    case "error":
      // The engine refuses a line it cannot take whole (a line break) with an error of no tab.
      return state.pending !== null && event.tab == null ? { ...state, pending: null } : state;
    case "tab_closed":
      return state.tabs.includes(event.tab) ? { ...state, tabs: state.tabs.filter((t) => t !== event.tab) } : state;
    default:
      return state;
  }
}

/** The tabs that refused the last line. */
export function refusedTabs(last: BroadcastLast | null): BroadcastTabResult[] {
  return (last?.tabs ?? []).filter((t) => t.outcome === "refused");
}

/** The tabs the last line was held from because another refused it. */
export function heldTabs(last: BroadcastLast | null): TabId[] {
  return (last?.tabs ?? []).filter((t) => t.outcome === "held").map((t) => t.tab);
}

/** One tab's part of the last line, in words. */
export function resultWords(result: BroadcastTabResult): string {
  const why = result.reasons.join("; ");
  switch (result.outcome) {
    case "sent":
      return "sent";
    case "refused":
      return `refused: ${why}`;
    case "held":
      return "not sent (refused on another tab)";
    case "failed":
      return `not sent: ${why}`;
  }
}

/** The terminal tabs that can receive: connected terminals. */
export function receivingCandidates(tabs: TabView[]): TabView[] {
  return tabs.filter((t) => t.kind === "terminal" && t.connection.state === "connected");
}

/** The groups (tags) of the saved connections `candidates` were opened from, each with its
 * open tabs, in the order first met. */
export function tabGroups(candidates: TabView[], saved: SavedConnection[]): { tag: string; tabs: TabId[] }[] {
  const groups: { tag: string; tabs: TabId[] }[] = [];
  for (const tab of candidates) {
    const target = tab.target;
    if (target?.kind !== "profile") continue;
    const tags = saved.find((c) => c.name === target.name)?.tags ?? [];
    for (const tag of tags) {
      const group = groups.find((g) => g.tag === tag);
      if (group === undefined) {
        groups.push({ tag, tabs: [tab.id] });
      } else if (!group.tabs.includes(tab.id)) {
        group.tabs.push(tab.id);
      }
    }
  }
  return groups;
}
