import { describe, expect, it } from "vitest";
import type { BroadcastTabResult, SavedConnection } from "../protocol";
import type { TabView } from "./app";
import {
  type BroadcastState,
  applyBroadcastEvent,
  heldTabs,
  initialBroadcast,
  receivingCandidates,
  refusedTabs,
  resultWords,
  tabGroups,
} from "./broadcast";

const result = (tab: string, outcome: BroadcastTabResult["outcome"], reasons: string[] = []): BroadcastTabResult => ({
  tab,
  connection: `c-${tab}`,
  decision: outcome === "refused" ? "deny" : "allow",
  outcome,
  reasons,
});

const tab = (id: string, profile: string | null, state: "connected" | "connecting" = "connected"): TabView => ({
  id,
  kind: "terminal",
  title: id,
  target: profile === null ? null : { kind: "profile", name: profile },
  askedHere: true,
  connection: { state },
  cwd: null,
  terminalTitle: null,
});

describe("broadcast state", () => {
  it("takes the answer to its pending line only", () => {
    let state: BroadcastState = { ...initialBroadcast(), tabs: ["a", "b"], pending: "b1" };
    const tabs = [result("a", "held"), result("b", "refused", ["touch is forbidden"])];
    state = applyBroadcastEvent(state, { type: "broadcast_judged", broadcast: "other", line: "x", tabs });
    expect(state.pending).toBe("b1");
    state = applyBroadcastEvent(state, { type: "broadcast_judged", broadcast: "b1", line: "touch x", tabs });
    expect(state.pending).toBeNull();
    expect(heldTabs(state.last)).toEqual(["a"]);
    expect(refusedTabs(state.last).map((t) => t.connection)).toEqual(["c-b"]);
  });

  it("stops waiting on an engine error and drops a closed tab", () => {
    let state: BroadcastState = { ...initialBroadcast(), tabs: ["a", "b"], pending: "b1" };
    state = applyBroadcastEvent(state, { type: "error", tab: "a", message: "x" });
    expect(state.pending).toBe("b1");
    state = applyBroadcastEvent(state, { type: "error", tab: null, message: "one line" });
    expect(state.pending).toBeNull();
    state = applyBroadcastEvent(state, { type: "tab_closed", tab: "a" });
    expect(state.tabs).toEqual(["b"]);
  });

  it("words each outcome", () => {
    expect(resultWords(result("a", "sent"))).toBe("sent");
    expect(resultWords(result("a", "refused", ["touch is forbidden"]))).toBe("refused: touch is forbidden");
    expect(resultWords(result("a", "held"))).toBe("not sent (refused on another tab)");
    expect(resultWords(result("a", "failed", ["not connected"]))).toBe("not sent: not connected");
  });

  it("offers connected terminals, grouped by their saved connections' tags", () => {
    const tabs = [tab("t1", "web1"), tab("t2", "web2"), tab("t3", null), tab("t4", "db", "connecting")];
    const candidates = receivingCandidates(tabs);
    expect(candidates.map((t) => t.id)).toEqual(["t1", "t2", "t3"]);
    const saved = [
      { name: "web1", tags: ["web", "eu"] },
      { name: "web2", tags: ["web"] },
      { name: "db", tags: ["db"] },
    ] as unknown as SavedConnection[];
    expect(tabGroups(candidates, saved)).toEqual([
      { tag: "web", tabs: ["t1", "t2"] },
      { tag: "eu", tabs: ["t1"] },
    ]);
  });
});
