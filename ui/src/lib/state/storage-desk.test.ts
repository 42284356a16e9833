import { describe, expect, it } from "vitest";
import type { Event, Op } from "../protocol";
import type { Incoming, Transport } from "../transport/transport";
import { Session } from "./session.svelte";

class FakeTransport implements Transport {
  ops: Op[] = [];
  handler: ((message: Incoming) => void) | null = null;
  send(op: Op): void {
    this.ops.push(op);
  }
  input(): void {}
  subscribe(handler: (message: Incoming) => void): () => void {
    this.handler = handler;
    return () => {};
  }
  close(): void {}
  emit(event: Event): void {
    this.handler?.({ kind: "event", event });
  }
}

function openStorage(secret: string) {
  const transport = new FakeTransport();
  const session = new Session(transport);
  const tab = session.openStorage({
    target: { kind: "storage", url: "ftp://127.0.0.1:2121/", user: "ann", local_roots: ["/home/ann"] },
    title: "ftp://ann@127.0.0.1:2121/",
    secret,
  });
  transport.emit({ type: "tab_opened", tab, kind: "storage", title: "ftp://ann@127.0.0.1:2121/" });
  return { transport, session, tab };
}

describe("a storage tab's session", () => {
  it("tells the engine the folders it shows, and reopens at them after a restart", () => {
    const { transport, session, tab } = openStorage("");
    transport.emit({ type: "connection_state", tab, state: { state: "connected" } });
    session.storage.list(tab, "remote", "/logs/2026");
    const remembered = transport.ops.filter((op) => op.type === "remember_tab_view");
    expect(remembered.at(-1)).toEqual({
      type: "remember_tab_view",
      tab,
      view: { pilot_open: false, folder: "/logs/2026", local_folder: "/home/ann" },
    });
    // The same folder listed again is not told again.
    session.storage.list(tab, "remote", "/logs/2026");
    expect(transport.ops.filter((op) => op.type === "remember_tab_view")).toHaveLength(remembered.length);

    // The next run: the tab comes back before it is connected, then the views.
    const again = new FakeTransport();
    const next = new Session(again);
    again.emit({ type: "tab_opened", tab: "t9", kind: "storage", title: "ftp://ann@127.0.0.1:2121/" });
    again.emit({
      type: "tabs_restored",
      active: "t9",
      views: { t9: { pilot_open: false, folder: "/logs/2026", local_folder: "/home/ann/in" } },
    });
    expect(again.ops.filter((op) => op.type === "run_tool")).toEqual([]);
    again.emit({ type: "connection_state", tab: "t9", state: { state: "connected" } });
    const lists = again.ops.filter((op) => op.type === "run_tool");
    expect(lists.map((op) => op.type === "run_tool" && op.args)).toEqual([
      { path: "/home/ann/in", side: "local" },
      { path: "/logs/2026", side: "remote" },
    ]);
    expect(next.storage.state.tabs["t9"]?.panes.remote.path).toBe("/logs/2026");
  });

  it("lists the restored folders at once when the tab is already connected", () => {
    const { transport, tab } = openStorage("");
    transport.emit({ type: "connection_state", tab, state: { state: "connected" } });
    transport.emit({ type: "tabs_restored", active: tab, views: { [tab]: { folder: "/srv" } } });
    const last = transport.ops.filter((op) => op.type === "run_tool").at(-1);
    expect(last?.type === "run_tool" && last.args).toEqual({ path: "/srv", side: "remote" });
  });

  it("answers the engine's password prompt with the typed secret once, and shows no dialog", () => {
    const { transport, session, tab } = openStorage("s3cret");
    transport.emit({
      type: "prompt_requested",
      tab,
      prompt_id: "p1",
      prompt: { kind: "password", user: "ann", host: "ftp://…" },
    });
    expect(transport.ops.at(-1)).toEqual({
      type: "answer_prompt",
      prompt: "p1",
      answer: { kind: "secret", value: "s3cret" },
    });
    expect(session.state.prompts).toEqual([]);
    // A second prompt (the secret was wrong) is the user's to answer.
    transport.emit({
      type: "prompt_requested",
      tab,
      prompt_id: "p2",
      prompt: { kind: "password", user: "ann", host: "ftp://…" },
    });
    expect(session.state.prompts.map((p) => p.promptId)).toEqual(["p2"]);
    expect(JSON.stringify(session.state)).not.toContain("s3cret");
  });

  it("lists both sides once connected, and approves the user's plain work but asks about deletes", () => {
    const { transport, session, tab } = openStorage("");
    transport.emit({ type: "connection_state", tab, state: { state: "connected" } });
    const lists = transport.ops.filter((op) => op.type === "run_tool");
    expect(lists.map((op) => op.type === "run_tool" && [op.tool, op.args])).toEqual([
      ["list_dir", { path: "/home/ann", side: "local" }],
      ["list_dir", { path: "/", side: "remote" }],
    ]);
    session.storage.makeDir(tab, "remote", "new");
    const make = transport.ops.at(-1);
    if (make?.type !== "run_tool") throw new Error("no run_tool");
    expect(make).toMatchObject({ tool: "make_dir", args: { path: "/new", side: "remote" } });
    transport.emit({
      type: "approval_requested",
      tab,
      call: make.call,
      tool: "make_dir",
      reasons: ["creates the folder /new"],
      risk: "routine",
    });
    expect(transport.ops.at(-1)).toEqual({
      type: "approve",
      call: make.call,
      decision: "approve",
      reason: null,
      automatic: false,
    });

    session.storage.delete(tab, "remote", ["old"]);
    const del = transport.ops.at(-1);
    if (del?.type !== "run_tool") throw new Error("no run_tool");
    transport.emit({
      type: "approval_requested",
      tab,
      call: del.call,
      tool: "delete",
      reasons: ["deletes /old"],
      risk: "dangerous",
    });
    expect(transport.ops.at(-1)).toBe(del);
    expect(session.storage.state.tabs[tab]?.confirmations.map((c) => c.call)).toEqual([del.call]);
    session.storage.confirm(tab, del.call, false);
    expect(transport.ops.at(-1)).toMatchObject({ type: "approve", call: del.call, decision: "deny" });
  });

  it("keeps the user's own calls to itself and lets Pilot's through", () => {
    const { session, tab } = openStorage("");
    const requested = (call: string): Event => ({
      type: "tool_requested",
      tab,
      call,
      tool: "list_dir",
      args: { path: "/" },
    });
    expect(session.storage.handle(requested("user-abc"))).toBe(true);
    expect(session.storage.handle({ type: "tool_running", tab, call: "user-abc" })).toBe(true);
    expect(session.storage.handle(requested("toolu_1"))).toBe(false);
    expect(
      session.storage.handle({
        type: "tool_finished",
        tab,
        call: "toolu_1",
        outcome: { tool: "list_dir", status: "ok" },
        verdict: "allow",
        duration_ms: 1,
      }),
    ).toBe(false);
  });

  it("never approves Pilot's calls", () => {
    const { transport, tab } = openStorage("");
    const before = transport.ops.length;
    transport.emit({
      type: "approval_requested",
      tab,
      call: "toolu_1",
      tool: "make_dir",
      reasons: [],
      risk: "routine",
    });
    expect(transport.ops.length).toBe(before);
  });

  it("copies the files of a selection, says what it left out, and still hears how the copies end", () => {
    const { transport, session, tab } = openStorage("");
    transport.emit({ type: "connection_state", tab, state: { state: "connected" } });
    const list = transport.ops.find((op) => op.type === "run_tool" && op.tool === "list_dir");
    if (list?.type !== "run_tool") throw new Error("no list_dir");
    const entries = [
      { name: "a.txt", kind: "file", size: 3, modified: null },
      { name: "b.txt", kind: "file", size: 3, modified: null },
      { name: "ln", kind: "symlink", size: 0, modified: null },
    ] as const;
    const ok = (tool: string, result: unknown) => ({ tool, status: "ok" as const, result: result as never });
    const finish = (call: string, outcome: ReturnType<typeof ok>): Event => ({
      type: "tool_finished",
      tab,
      call,
      outcome,
      verdict: "allow",
      duration_ms: 1,
    });
    transport.emit(finish(list.call, ok("list_dir", { path: "/home/ann", entries, omitted: 0 })));
    const before = transport.ops.length;
    session.storage.transfer(tab, "local", ["a.txt", "ln", "b.txt"]);
    const uploads = transport.ops.slice(before).filter((op) => op.type === "run_tool");
    expect(uploads.map((op) => op.type === "run_tool" && [op.tool, op.args])).toEqual([
      ["upload", { local_path: "/home/ann/a.txt", remote_dir: "/" }],
      ["upload", { local_path: "/home/ann/b.txt", remote_dir: "/" }],
    ]);
    const status = () => session.storage.state.tabs[tab]?.status;
    expect(status()).toEqual({ text: "Only files and folders are copied; left out: ln.", error: true });
    for (const op of uploads) {
      if (op.type === "run_tool") transport.emit(finish(op.call, ok("upload", { message: "uploaded" })));
    }
    expect(status()).toEqual({
      text: "Done: upload 2 files. Only files and folders are copied; left out: ln.",
      error: true,
    });
  });

  it("cancels and retries a transfer with its call", () => {
    const { transport, session, tab } = openStorage("");
    session.storage.cancel(tab, "user-1");
    expect(transport.ops.at(-1)).toEqual({ type: "cancel", tab, call: "user-1" });
    session.storage.retry(tab, "user-1");
    expect(transport.ops.at(-1)).toMatchObject({
      type: "retry_transfer",
      tab,
      call: "user-1",
      new_call: expect.stringMatching(/^user-/),
    });
  });
});

describe("an SSH tab's file pane", () => {
  function openShellPane() {
    const transport = new FakeTransport();
    const session = new Session(transport);
    const tab = "t1";
    session.storage.openShellPane(tab, "/home/ann");
    return { transport, session, tab };
  }
  const lists = (transport: FakeTransport) =>
    transport.ops.flatMap((op) => (op.type === "run_tool" && op.tool === "list_dir" ? [op] : []));
  const finished = (tab: string, call: string, outcome: Extract<Event, { type: "tool_finished" }>["outcome"]) =>
    ({ type: "tool_finished", tab, call, outcome, verdict: "allow", duration_ms: 1 }) as const;

  it("offers Open as root for a folder only root may open, and lists it and what is in it through sudo", () => {
    const { transport, session, tab } = openShellPane();
    session.storage.list(tab, "remote", "/home/ann/vault");
    const denied = lists(transport).at(-1);
    if (denied === undefined) throw new Error("no list_dir");
    expect(denied.args).toEqual({ path: "/home/ann/vault", side: "remote" });
    transport.emit(
      finished(tab, denied.call, {
        tool: "list_dir",
        status: "error",
        error: "list_dir: permission denied: only root may open /home/ann/vault; list it as root with sudo: true",
      }),
    );
    expect(session.storage.state.tabs[tab]?.panes.remote).toMatchObject({ denied: true, rootFolder: null });

    session.storage.list(tab, "remote", "/home/ann/vault", true);
    expect(lists(transport).at(-1)?.args).toEqual({ path: "/home/ann/vault", side: "remote", sudo: true });
    expect(session.storage.state.tabs[tab]?.panes.remote).toMatchObject({
      denied: false,
      rootFolder: "/home/ann/vault",
    });
    // A folder in it goes through sudo too; the folder above it does not.
    session.storage.list(tab, "remote", "/home/ann/vault/inner");
    expect(lists(transport).at(-1)?.args).toEqual({ path: "/home/ann/vault/inner", side: "remote", sudo: true });
    session.storage.up(tab, "remote");
    session.storage.up(tab, "remote");
    expect(lists(transport).at(-1)?.args).toEqual({ path: "/home/ann", side: "remote" });
    expect(session.storage.state.tabs[tab]?.panes.remote.rootFolder).toBeNull();
    // A folder whose name only starts like it is not in it.
    session.storage.list(tab, "remote", "/home/ann/vault", true);
    session.storage.list(tab, "remote", "/home/ann/vault2");
    expect(lists(transport).at(-1)?.args).toEqual({ path: "/home/ann/vault2", side: "remote" });
  });

  it("lists this computer's side when first shown, walking down to its folder", () => {
    const { transport, session, tab } = openShellPane();
    const before = lists(transport).length;
    session.storage.showLocal(tab);
    const first = lists(transport).at(-1);
    if (first === undefined) throw new Error("no list_dir");
    expect(lists(transport)).toHaveLength(before + 1);
    expect(first.args).toEqual({ path: "/", side: "local" });
    const dir = (name: string) => ({ name, kind: "dir" as const, size: 0 });
    transport.emit(
      finished(tab, first.call, {
        tool: "list_dir",
        status: "ok",
        result: { path: "/", entries: [dir("home")], omitted: 0 },
      }),
    );
    expect(lists(transport).at(-1)?.args).toEqual({ path: "/home", side: "local" });
    // Shown again, it is not listed again while it has its listing.
    const second = lists(transport).at(-1);
    if (second === undefined) throw new Error("no list_dir");
    transport.emit(
      finished(tab, second.call, {
        tool: "list_dir",
        status: "ok",
        result: { path: "/home", entries: [{ ...dir("ann"), modified: "2026-01-01T00:00:00Z" }], omitted: 0 },
      }),
    );
    const count = lists(transport).length;
    session.storage.showLocal(tab);
    expect(lists(transport)).toHaveLength(count);
  });

  it("asks before throwing away unsaved edits, and closes at once without them", () => {
    const { transport, session, tab } = openShellPane();
    let closed = 0;
    session.whenDiscarded(tab, () => (closed += 1));
    expect(closed).toBe(1);
    expect(session.discardAsked).toBeNull();

    session.editorChanged(tab, "notes.txt");
    session.whenDiscarded(tab, () => (closed += 1));
    expect(session.discardAsked).toMatchObject({ tab, name: "notes.txt" });
    session.discardAnswered(false);
    expect(closed).toBe(1);
    expect(session.unsavedEdits[tab]).toBe("notes.txt");

    // Closing the tab asks too; "Discard" closes it.
    session.close(tab);
    expect(transport.ops.some((op) => op.type === "close_tab")).toBe(false);
    expect(session.discardAsked?.name).toBe("notes.txt");
    session.discardAnswered(true);
    expect(transport.ops.some((op) => op.type === "close_tab" && op.tab === tab)).toBe(true);
    expect(session.unsavedEdits[tab]).toBeUndefined();
  });
});
