import { describe, expect, it } from "vitest";
import type { Event } from "../protocol";
import {
  applyEvent,
  initialState,
  connectionWords,
  promptAnswered,
  reconnectWords,
  movedIndex,
  promptsHere,
  shortTitle,
  tabDetail,
  terminalTitled,
  tabClosing,
  tabOpening,
  tabReconnecting,
  visibleNotices,
  type AppState,
} from "./app";

function apply(state: AppState, ...events: Event[]): AppState {
  return events.reduce(applyEvent, state);
}

const hostKey: Event = {
  type: "prompt_requested",
  tab: "t1",
  prompt_id: "p1",
  prompt: {
    kind: "unknown_host_key",
    host: "127.0.0.1",
    port: 2222,
    key_type: "ssh-ed25519",
    fingerprint: "SHA256:abc",
  },
};

describe("the event → state reducer", () => {
  it("keeps the engine's hello", () => {
    const state = apply(initialState(), {
      type: "hello",
      version: "0.1.0",
      tools: ["run_command"],
      local_terminal: false,
      documents: "/data/Documents",
    });
    expect(state.engine).toEqual({
      version: "0.1.0",
      tools: ["run_command"],
      localTerminal: false,
      documents: "/data/Documents",
    });
  });

  it("shows a tab the user opens at once, then follows its connection", () => {
    let state = tabOpening(initialState(), "t1", { kind: "local" }, "local");
    expect(state.active).toBe("t1");
    expect(state.tabs[0]?.connection).toEqual({ state: "connecting" });
    state = apply(
      state,
      { type: "tab_opened", tab: "t1", kind: "terminal", title: "local shell" },
      { type: "connection_state", tab: "t1", state: { state: "connected" } },
    );
    expect(state.tabs).toEqual([
      {
        id: "t1",
        kind: "terminal",
        title: "local shell",
        target: { kind: "local" },
        askedHere: true,
        connection: { state: "connected" },
        cwd: null,
        terminalTitle: null,
      },
    ]);
  });

  it("adds a tab another page opened once, even when the server replays it", () => {
    const opened: Event = { type: "tab_opened", tab: "t9", kind: "terminal", title: "web1" };
    const state = apply(initialState(), opened, opened);
    expect(state.tabs.map((t) => t.id)).toEqual(["t9"]);
    expect(state.tabs[0]?.target).toBeNull();
    expect(state.active).toBe("t9");
  });

  it("shows the tabs in the engine's one order, those it does not name after them", () => {
    let state = initialState();
    for (const id of ["a", "b", "c", "d"]) {
      state = tabOpening(state, id, { kind: "local" }, id);
    }
    state = apply(state, { type: "tabs_reordered", tabs: ["c", "a", "b"] });
    expect(state.tabs.map((t) => t.id)).toEqual(["c", "a", "b", "d"]);
    expect(movedIndex(state, "c", -1)).toBeNull();
    expect(movedIndex(state, "c", 1)).toBe(1);
    expect(movedIndex(state, "d", 1)).toBeNull();
  });

  it("asks a connection's prompt in the page that opened the tab, mentions it elsewhere", () => {
    const opened: Event = { type: "tab_opened", tab: "t1", kind: "terminal", title: "web1" };
    // Another page opened t1: the prompt is not this page's to answer, until the user says so.
    let elsewhere = apply(initialState(), opened, hostKey);
    expect(promptsHere(elsewhere, []).here).toEqual([]);
    expect(promptsHere(elsewhere, []).elsewhere.map((p) => p.promptId)).toEqual(["p1"]);
    expect(promptsHere(elsewhere, ["p1"]).here.map((p) => p.promptId)).toEqual(["p1"]);
    // Reconnecting it here makes its next prompts this page's.
    elsewhere = apply(tabReconnecting(elsewhere, "t1"), hostKey);
    expect(promptsHere(elsewhere, []).here.map((p) => p.promptId)).toEqual(["p1"]);
    const here = apply(tabOpening(initialState(), "t1", { kind: "local" }, "web1"), opened, hostKey);
    expect(promptsHere(here, []).here.map((p) => p.promptId)).toEqual(["p1"]);
  });

  it("moves to the neighbour when the visible tab closes", () => {
    let state = initialState();
    for (const id of ["a", "b", "c"]) {
      state = tabOpening(state, id, { kind: "local" }, id);
    }
    state = { ...state, active: "b" };
    state = apply(state, { type: "tab_closed", tab: "b" });
    expect(state.tabs.map((t) => t.id)).toEqual(["a", "c"]);
    expect(state.active).toBe("c");
    state = tabClosing(state, "c");
    expect(state.active).toBe("a");
    state = tabClosing(state, "a");
    expect(state.active).toBeNull();
  });

  it("queues prompts once each and drops them when answered or settled", () => {
    let state = tabOpening(initialState(), "t1", { kind: "local" }, "x");
    state = apply(state, hostKey, hostKey);
    expect(state.prompts).toHaveLength(1);
    expect(promptAnswered(state, "p1").prompts).toEqual([]);
    const failed = apply(state, {
      type: "connection_state",
      tab: "t1",
      state: { state: "failed", error: "host key changed" },
    });
    expect(failed.prompts).toEqual([]);
    expect(failed.tabs[0]?.connection).toEqual({ state: "failed", error: "host key changed" });
  });

  it("reconnects a dropped tab in its place: the same tab", () => {
    let state = tabOpening(initialState(), "a", { kind: "local" }, "a");
    state = tabOpening(state, "b", { kind: "local" }, "b");
    state = apply(state, {
      type: "connection_state",
      tab: "a",
      state: { state: "disconnected", reason: "the shell exited" },
    });
    state = { ...state, active: "a" };
    state = tabReconnecting(state, "a");
    expect(state.tabs.map((t) => [t.id, t.connection.state])).toEqual([
      ["a", "connecting"],
      ["b", "connecting"],
    ]);
    expect(state.active).toBe("a");
  });

  it("counts down a reconnect's wait in whole seconds, then says it is trying", () => {
    expect(reconnectWords(4000, 0)).toBe("Reconnecting in 4 s…");
    expect(reconnectWords(4000, 1200)).toBe("Reconnecting in 3 s…");
    expect(reconnectWords(1000, 999)).toBe("Reconnecting in 1 s…");
    expect(reconnectWords(1000, 1000)).toBe("Reconnecting…");
    expect(reconnectWords(1000, 5000)).toBe("Reconnecting…");
    const state = apply(tabOpening(initialState(), "a", { kind: "local" }, "a"), {
      type: "connection_state",
      tab: "a",
      state: { state: "reconnecting", attempt: 2, in_ms: 2000, reason: "the connection was lost" },
    });
    expect(connectionWords(state.tabs[0]!.connection)).toBe("reconnecting");
  });

  it("keeps the last few errors as notices", () => {
    let state = initialState();
    for (let i = 0; i < 8; i++) {
      state = apply(state, { type: "error", message: `e${i}` });
    }
    expect(state.notices.map((n) => n.message)).toEqual(["e3", "e4", "e5", "e6", "e7"]);
  });

  it("shows an error once, and none about a tab it does not show", () => {
    let state = tabOpening(initialState(), "t1", { kind: "local" }, "x");
    const error: Event = { type: "error", tab: "t1", message: "the shell is gone" };
    state = apply(state, error, error, { type: "error", tab: "closed", message: "there is no tab" });
    expect(state.notices.map((n) => n.message)).toEqual(["the shell is gone"]);
    state = apply(state, { type: "tab_closed", tab: "t1" });
    expect(state.notices).toEqual([]);
  });

  it("shows a tab's notices with that tab only, and drops them once it reconnects", () => {
    let state = tabOpening(initialState(), "ssh", { kind: "local" }, "web1");
    state = tabOpening(state, "ftp", { kind: "local" }, "files");
    state = apply(
      state,
      { type: "error", tab: "ssh", message: "the upload failed" },
      { type: "error", message: "about no tab" },
    );
    expect(visibleNotices(state, "ssh").map((n) => n.message)).toEqual(["the upload failed", "about no tab"]);
    expect(visibleNotices(state, "ftp").map((n) => n.message)).toEqual(["about no tab"]);
    // Reconnect: the old connection's notices go.
    const reconnecting = tabReconnecting(state, "ssh");
    expect(visibleNotices(reconnecting, "ssh").map((n) => n.message)).toEqual(["about no tab"]);
    // Connected again (another page reconnected it, or it came back): its notices go.
    const connected = apply(state, { type: "connection_state", tab: "ssh", state: { state: "connected" } });
    expect(visibleNotices(connected, "ssh").map((n) => n.message)).toEqual(["about no tab"]);
  });

  it("titles tabs short, and two tabs on one server apart", () => {
    expect(shortTitle("ssh://alice@web1:22")).toBe("alice@web1");
    expect(shortTitle("ssh://alice@web1:2222")).toBe("alice@web1:2222");
    expect(shortTitle("ssh://alice@[::1]:22")).toBe("alice@[::1]");
    expect(shortTitle("web1")).toBe("web1");
    expect(shortTitle("s3://backups/site")).toBe("s3://backups/site");
    let state = apply(
      initialState(),
      { type: "tab_opened", tab: "a", kind: "terminal", title: "ssh://alice@web1:22" },
      { type: "tab_opened", tab: "b", kind: "terminal", title: "ssh://alice@web1:22" },
      { type: "tab_opened", tab: "c", kind: "terminal", title: "ssh://alice@web1:22" },
    );
    expect(state.tabs.map((t) => t.title)).toEqual(["alice@web1", "alice@web1 (2)", "alice@web1 (3)"]);
    // Told again (a reload's replay), a tab keeps its own title.
    state = apply(state, { type: "tab_opened", tab: "b", kind: "terminal", title: "ssh://alice@web1:22" });
    expect(state.tabs.map((t) => t.title)).toEqual(["alice@web1", "alice@web1 (2)", "alice@web1 (3)"]);
  });

  it("adds the shell's folder, or the running program's title, after a tab's name", () => {
    let state = apply(initialState(), { type: "tab_opened", tab: "a", kind: "terminal", title: "web1" });
    const detail = () => (state.tabs[0] === undefined ? undefined : tabDetail(state.tabs[0]));
    expect(detail()).toBeNull();
    state = apply(state, { type: "terminal_cwd", tab: "a", cwd: "/srv/www" });
    expect(detail()).toBe("www");
    state = terminalTitled(state, "a", [{ title: "alice@web1: vim index.html" }]);
    expect(detail()).toBe("vim index.html");
    expect(state.tabs[0]?.title).toBe("web1");
    // Back at the prompt: the program's title is over, the folder shows again.
    state = terminalTitled(state, "a", [{ prompt: true }]);
    expect(detail()).toBe("www");
    // A new connection is a new shell: nothing is known about it yet.
    state = tabReconnecting(state, "a");
    expect(detail()).toBeNull();
  });

  it("leaves the state alone for events other views show", () => {
    const state = initialState();
    expect(apply(state, { type: "tool_running", tab: "t", call: "c" })).toBe(state);
  });
});

describe("tabs restored", () => {
  it("shows the tab the engine's last run showed, when it is open", () => {
    let state = initialState();
    for (const tab of ["a", "b", "c"]) {
      state = applyEvent(state, { type: "tab_opened", tab, kind: "terminal", title: `web-${tab}` });
    }
    expect(state.active).toBe("a");
    state = applyEvent(state, { type: "tabs_restored", active: "b", views: {} });
    expect(state.active).toBe("b");
    state = applyEvent(state, { type: "tabs_restored", active: "gone", views: {} });
    expect(state.active).toBe("b");
  });
});
