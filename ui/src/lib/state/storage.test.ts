import { USER_CANCELLED_REASON } from "../people-text";
import { describe, expect, it } from "vitest";
import type { DirEntry, Event, ToolOutcome } from "../protocol";
import {
  applyStorageEvent,
  batchStarted,
  callFailed,
  callStarted,
  cancelRequested,
  confirmationAnswered,
  crumbs,
  finishedCleared,
  folderPlan,
  refusedWords,
  formatBytes,
  formatDuration,
  formatRate,
  initialStorage,
  listRequested,
  nameProblem,
  needsConfirmation,
  nextStepDown,
  parentPath,
  percentDone,
  recentRate,
  resolvePath,
  speed,
  secondsLeft,
  sidesChangedBy,
  sortEntries,
  storageTabOpened,
  followUpStarted,
  toggleSort,
  transferRetried,
  workWords,
  averageRate,
  type StorageState,
  type Transfer,
} from "./storage";

const TAB = "tab-1";

function entry(name: string, kind: DirEntry["kind"], size = 0, modified: string | null = null): DirEntry {
  return { name, kind, size, modified };
}

function opened(localRoots: string[] = ["/home/ann/work"]): StorageState {
  return storageTabOpened(initialStorage(), TAB, {
    kind: "storage",
    url: "ftp://127.0.0.1:2121/",
    user: "ann",
    local_roots: localRoots,
  });
}

function apply(state: StorageState, ...events: Event[]): StorageState {
  return events.reduce((next, event) => applyStorageEvent(next, event, 0), state);
}

function ok(tool: string, result: unknown): ToolOutcome {
  return { tool, status: "ok", result: result as ToolOutcome["result"] };
}

function finished(call: string, outcome: ToolOutcome): Event {
  return { type: "tool_finished", tab: TAB, call, outcome, verdict: "allow", decided_by: "user", duration_ms: 5 };
}

function progress(
  call: string,
  transferred: number,
  total: number,
  rate: number | null,
  eta: number | null,
  done = false,
): Event {
  return { type: "transfer_progress", tab: TAB, call, path: "/up/big.bin", transferred, total, rate, eta_s: eta, done };
}

const upload: Event = {
  type: "tool_requested",
  tab: TAB,
  call: "user-1",
  tool: "upload",
  args: { local_path: "/home/ann/work/big.bin", remote_dir: "/up" },
};

function transfers(state: StorageState): Transfer[] {
  return state.tabs[TAB]?.transfers ?? [];
}

describe("sorting", () => {
  const entries = [
    entry("b10.txt", "file", 300, "2026-01-02T00:00:00Z"),
    entry("B2.txt", "file", 20, "2026-01-03T00:00:00Z"),
    entry("zeta", "dir", 0, "2026-01-01T00:00:00Z"),
    entry("alpha", "dir", 0, "2026-01-05T00:00:00Z"),
    entry("a.log", "file", 1000, null),
  ];
  const names = (list: DirEntry[]) => list.map((e) => e.name);

  it("puts folders first and orders names naturally, ignoring case", () => {
    expect(names(sortEntries(entries, { key: "name", descending: false }))).toEqual([
      "alpha",
      "zeta",
      "a.log",
      "B2.txt",
      "b10.txt",
    ]);
    expect(names(sortEntries(entries, { key: "name", descending: true }))).toEqual([
      "zeta",
      "alpha",
      "b10.txt",
      "B2.txt",
      "a.log",
    ]);
  });

  it("sorts files by size with folders first by name", () => {
    expect(names(sortEntries(entries, { key: "size", descending: true }))).toEqual([
      "alpha",
      "zeta",
      "a.log",
      "b10.txt",
      "B2.txt",
    ]);
    expect(names(sortEntries(entries, { key: "size", descending: false }))).toEqual([
      "alpha",
      "zeta",
      "B2.txt",
      "b10.txt",
      "a.log",
    ]);
  });

  it("sorts by time, entries without one last in both directions", () => {
    expect(names(sortEntries(entries, { key: "modified", descending: true }))).toEqual([
      "alpha",
      "zeta",
      "B2.txt",
      "b10.txt",
      "a.log",
    ]);
    expect(names(sortEntries(entries, { key: "modified", descending: false }))).toEqual([
      "zeta",
      "alpha",
      "b10.txt",
      "B2.txt",
      "a.log",
    ]);
  });

  it("turns a column round on a second click; a new column starts in its natural order", () => {
    expect(toggleSort({ key: "name", descending: false }, "name")).toEqual({ key: "name", descending: true });
    expect(toggleSort({ key: "name", descending: false }, "size")).toEqual({ key: "size", descending: true });
    expect(toggleSort({ key: "size", descending: true }, "modified")).toEqual({ key: "modified", descending: true });
    expect(toggleSort({ key: "modified", descending: true }, "name")).toEqual({ key: "name", descending: false });
  });
});

describe("progress, speed and time left", () => {
  const base = {
    transferred: 0,
    total: 0,
    rate: null,
    etaS: null,
    status: "running",
    recent: [] as { at: number; bytes: number }[],
  } as const;

  it("gives whole percents within 0–100", () => {
    expect(percentDone({ ...base, transferred: 1, total: 3 })).toBe(33);
    expect(percentDone({ ...base, transferred: 3, total: 3 })).toBe(100);
    expect(percentDone({ ...base, transferred: 5, total: 3 })).toBe(100);
    expect(percentDone({ ...base })).toBe(0);
    expect(percentDone({ ...base, status: "done" })).toBe(100);
  });

  it("takes the engine's estimate, else what is left at the speed so far", () => {
    expect(secondsLeft({ ...base, transferred: 10, total: 100, rate: 5, etaS: 7 })).toBe(7);
    expect(secondsLeft({ ...base, transferred: 10, total: 100, rate: 5 })).toBe(18);
    expect(secondsLeft({ ...base, transferred: 10, total: 100, rate: 0 })).toBeNull();
    expect(secondsLeft({ ...base, transferred: 10, total: 100, rate: 5, etaS: 7, status: "done" })).toBeNull();
  });

  it("works out the speed now from the last seconds, and time left from it", () => {
    let state = callStarted(opened(), TAB, "user-1", { kind: "transfer", direction: "upload", what: "upload big.bin" });
    state = applyStorageEvent(state, upload, 0);
    // A burst into buffers first: the engine's average says 40 MB/s.
    state = applyStorageEvent(state, progress("user-1", 10_000_000, 30_000_000, 40_000_000, 0.5), 250);
    expect(speed(transfers(state)[0]!)).toBe(40_000_000);
    state = applyStorageEvent(state, progress("user-1", 11_000_000, 30_000_000, 20_000_000, 1), 1250);
    state = applyStorageEvent(state, progress("user-1", 12_000_000, 30_000_000, 10_000_000, 2), 2250);
    // Then 1 MB a second, which is what it shows, with 18 s left.
    expect(recentRate(transfers(state)[0]!)).toBe(1_000_000);
    expect(secondsLeft(transfers(state)[0]!)).toBe(18);
    // Samples older than the window drop out.
    state = applyStorageEvent(state, progress("user-1", 14_000_000, 30_000_000, 5_000_000, 3), 6000);
    expect(transfers(state)[0]?.recent.map((s) => s.at)).toEqual([2250, 6000]);
    expect(recentRate(transfers(state)[0]!)).toBeCloseTo(533_333, 0);
  });

  it("says sizes, speeds and durations the way people read them", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(12.3 * 1024 * 1024)).toBe("12.3 MB");
    expect(formatBytes(123 * 1024 * 1024)).toBe("123 MB");
    expect(formatBytes(3 * 1024 ** 3)).toBe("3.0 GB");
    expect(formatRate(2 * 1024 * 1024)).toBe("2.0 MB/s");
    expect(formatRate(null)).toBe("—");
    expect(formatDuration(0.2)).toBe("1 s");
    expect(formatDuration(42)).toBe("42 s");
    expect(formatDuration(185)).toBe("3 min 5 s");
    expect(formatDuration(120)).toBe("2 min");
    expect(formatDuration(7800)).toBe("2 h 10 min");
  });
});

describe("paths and names", () => {
  it("walks up and makes the breadcrumb", () => {
    expect(parentPath("/a/b/")).toBe("/a");
    expect(parentPath("/a")).toBe("/");
    expect(parentPath("/")).toBe("/");
    expect(crumbs("/a/b")).toEqual([
      { name: "/", path: "/" },
      { name: "a", path: "/a" },
      { name: "b", path: "/a/b" },
    ]);
  });

  it("works out a typed path from the folder shown", () => {
    expect(resolvePath("/a/b", "/x/y/")).toBe("/x/y");
    expect(resolvePath("/a/b", "c")).toBe("/a/b/c");
    expect(resolvePath("/a/b", "../c/./d")).toBe("/a/c/d");
    expect(resolvePath("/a", "../../..")).toBe("/");
    expect(resolvePath("/a", "  //x//y ")).toBe("/x/y");
  });

  it("refuses what cannot be a name", () => {
    expect(nameProblem("")).not.toBeNull();
    expect(nameProblem("a/b")).not.toBeNull();
    expect(nameProblem("..")).not.toBeNull();
    expect(nameProblem("report 2026.pdf")).toBeNull();
  });
});

describe("the panes", () => {
  it("start in the opened folder, or at / to walk down to it", () => {
    expect(opened().tabs[TAB]?.panes.local).toMatchObject({ path: "/home/ann/work", findOpened: false });
    expect(opened(["~/work"]).tabs[TAB]?.panes.local).toMatchObject({ path: "/", findOpened: true });
    expect(opened().tabs[TAB]?.panes.remote).toMatchObject({ path: "/", findOpened: false });
  });

  it("show a listing when its answer comes, and drop an older one", () => {
    let state = listRequested(opened(), TAB, "remote", "/a", "user-old");
    state = listRequested(state, TAB, "remote", "/b", "user-new");
    state = apply(
      state,
      finished("user-old", ok("list_dir", { path: "/a", entries: [entry("x", "file")], omitted: 0 })),
    );
    expect(state.tabs[TAB]?.panes.remote).toMatchObject({ path: "/b", entries: [], listing: "user-new" });
    state = apply(
      state,
      finished(
        "user-new",
        ok("list_dir", { path: "/b", entries: [entry("y", "dir"), entry("z", "file", 3)], omitted: 2 }),
      ),
    );
    expect(state.tabs[TAB]?.panes.remote).toMatchObject({ path: "/b", listing: null, omitted: 2, error: null });
    expect(state.tabs[TAB]?.panes.remote.entries.map((e) => e.name)).toEqual(["y", "z"]);
  });

  it("keep the folder and say why when a listing fails", () => {
    let state = listRequested(opened(), TAB, "local", "/home/ann/work", "user-1");
    state = apply(
      state,
      finished("user-1", { tool: "list_dir", status: "error", error: "list_dir: permission denied" }),
    );
    expect(state.tabs[TAB]?.panes.local).toMatchObject({ listing: null, error: "list_dir: permission denied" });
  });

  it("walk down the way to the opened folder, and stop inside it", () => {
    let state = opened(["~"]);
    state = listRequested(state, TAB, "local", "/", "user-1");
    state = apply(
      state,
      finished("user-1", ok("list_dir", { path: "/", entries: [entry("home", "dir")], omitted: 0 })),
    );
    expect(nextStepDown(state.tabs[TAB]!)).toBe("/home");
    state = listRequested(state, TAB, "local", "/home", "user-2");
    state = apply(
      state,
      finished(
        "user-2",
        ok("list_dir", { path: "/home", entries: [entry("ann", "dir", 4096, "2026-01-01T00:00:00Z")], omitted: 0 }),
      ),
    );
    // A real folder has a time: this is the opened folder, with one folder in it.
    expect(nextStepDown(state.tabs[TAB]!)).toBeNull();
  });

  it("know which sides a finished change touched, Pilot's too", () => {
    const done = (tool: string, status: ToolOutcome["status"] = "ok") =>
      finished("call_x", { tool, status }) as Extract<Event, { type: "tool_finished" }>;
    expect(sidesChangedBy(done("upload"), {})).toEqual(["remote"]);
    expect(sidesChangedBy(done("download"), {})).toEqual(["local"]);
    expect(sidesChangedBy(done("delete"), { path: "/x", side: "local" })).toEqual(["local"]);
    expect(sidesChangedBy(done("make_dir"), { path: "/x" })).toEqual(["remote"]);
    expect(sidesChangedBy(done("delete", "denied"), { path: "/x" })).toEqual([]);
    expect(sidesChangedBy(done("list_dir"), { path: "/x" })).toEqual([]);
  });
});

describe("transfers", () => {
  it("go from waiting to running with progress to done", () => {
    let state = callStarted(opened(), TAB, "user-1", { kind: "transfer", direction: "upload", what: "upload big.bin" });
    state = apply(state, upload);
    expect(transfers(state)).toEqual([
      expect.objectContaining({
        call: "user-1",
        direction: "upload",
        name: "big.bin",
        destination: "/up",
        status: "waiting",
      }),
    ]);
    state = apply(
      state,
      { type: "tool_running", tab: TAB, call: "user-1" },
      progress("user-1", 4096, 16384, 2048, null),
    );
    expect(transfers(state)[0]).toMatchObject({ status: "running", transferred: 4096, total: 16384, rate: 2048 });
    expect(percentDone(transfers(state)[0]!)).toBe(25);
    expect(secondsLeft(transfers(state)[0]!)).toBe(6);
    state = apply(
      state,
      progress("user-1", 16384, 16384, 4096, 0, true),
      finished("user-1", ok("upload", { message: "uploaded", bytes: 16384 })),
    );
    expect(transfers(state)[0]).toMatchObject({ status: "done", transferred: 16384, workMs: 5 });
    expect(state.tabs[TAB]?.status).toEqual({ text: "Done: upload big.bin.", error: false });
    expect(state.tabs[TAB]?.calls).toEqual({});
  });

  it("say how long the copy worked, not how long it waited for the user, and its average speed", () => {
    const ended = (status: Transfer["status"], workMs: number | null, transferred = 8_000_000) => ({
      status,
      workMs,
      transferred,
    });
    expect(workWords(ended("done", 400))).toBe("took under 1 s");
    expect(workWords(ended("done", 2_600))).toBe("took 3 s");
    expect(workWords(ended("done", 125_000))).toBe("took 2 min 5 s");
    expect(averageRate(ended("done", 2_000))).toBe(4_000_000);
    // Not before it ended, and not for one that stopped before it copied anything.
    expect(workWords(ended("running", null))).toBeNull();
    expect(workWords(ended("cancelled", 3, 0))).toBeNull();
    expect(workWords(ended("failed", 1_500, 100))).toBe("took 2 s");
    expect(averageRate(ended("failed", 1_500, 100))).toBeNull();
  });

  it("are cancelled, then retried in the same row under a new call", () => {
    let state = callStarted(opened(), TAB, "user-1", { kind: "transfer", direction: "upload", what: "upload big.bin" });
    state = apply(
      state,
      upload,
      { type: "tool_running", tab: TAB, call: "user-1" },
      progress("user-1", 100, 1000, 50, 18),
    );
    state = cancelRequested(state, TAB, "user-1");
    expect(transfers(state)[0]).toMatchObject({ cancelling: true, status: "running" });
    state = apply(state, finished("user-1", { tool: "upload", status: "cancelled", error: "cancelled by the user" }));
    expect(transfers(state)[0]).toMatchObject({ status: "cancelled", cancelling: false });
    state = transferRetried(state, TAB, "user-1", "user-2");
    expect(transfers(state)).toEqual([
      expect.objectContaining({ call: "user-2", status: "waiting", transferred: 0, rate: null, error: null }),
    ]);
    expect(state.tabs[TAB]?.calls).toEqual({
      "user-2": { kind: "transfer", direction: "upload", what: "upload big.bin" },
    });
    // The engine's events for the new call land in that row.
    state = apply(
      state,
      { ...upload, call: "user-2" } as Event,
      { type: "tool_running", tab: TAB, call: "user-2" },
      progress("user-2", 1000, 1000, 500, 0, true),
      finished("user-2", ok("upload", { message: "uploaded" })),
    );
    expect(transfers(state)).toEqual([expect.objectContaining({ call: "user-2", status: "done" })]);
  });

  it("say why they failed, and ended ones can be cleared", () => {
    let state = apply(opened(), upload, {
      ...upload,
      call: "call_pilot",
      args: { local_path: "/home/ann/work/b", remote_dir: "/" },
    } as Event);
    state = apply(
      state,
      finished("user-1", { tool: "upload", status: "error", error: "upload: the server went away" }),
    );
    expect(transfers(state)[0]).toMatchObject({ status: "failed", error: "upload: the server went away" });
    // Pilot's transfer is shown as well, and stays while it runs.
    expect(transfers(state)[1]).toMatchObject({ call: "call_pilot", status: "waiting" });
    state = finishedCleared(state, TAB);
    expect(transfers(state).map((t) => t.call)).toEqual(["call_pilot"]);
  });

  it("of a plan get a row with their first progress", () => {
    const state = apply(opened(), progress("call_plan", 10, 100, 5, null));
    expect(transfers(state)).toEqual([
      expect.objectContaining({
        call: "call_plan",
        direction: null,
        name: "big.bin",
        destination: "/up",
        status: "running",
      }),
    ]);
  });
});

describe("copying a folder", () => {
  const gather = {
    kind: "gather",
    direction: "upload",
    folder: "/home/ann/work/photos",
    destination: "/up",
    what: "upload folder photos",
  } as const;
  const found = (matches: { path: string; kind: DirEntry["kind"] }[], truncated = false): ToolOutcome =>
    ok("find_files", { matches: matches.map((m) => ({ ...m, size: 1 })), truncated, entries_scanned: matches.length });

  it("makes the folder, its folders (parents first), then copies every file into its place", () => {
    const plan = folderPlan(
      gather,
      found([
        { path: "/home/ann/work/photos/2026/b.jpg", kind: "file" },
        { path: "/home/ann/work/photos/a.jpg", kind: "file" },
        { path: "/home/ann/work/photos/2026", kind: "dir" },
        { path: "/home/ann/work/photos/link", kind: "symlink" },
      ]),
    );
    expect(plan).toEqual({
      ops: [
        { op: "make_dir", path: "/up/photos", side: "remote" },
        { op: "make_dir", path: "/up/photos/2026", side: "remote" },
        { op: "upload", local_path: "/home/ann/work/photos/2026/b.jpg", remote_dir: "/up/photos/2026" },
        { op: "upload", local_path: "/home/ann/work/photos/a.jpg", remote_dir: "/up/photos" },
      ],
      leftOut: 1,
      bytes: 2,
      refused: [],
    });
    expect(
      folderPlan(
        { ...gather, direction: "download", folder: "/srv/logs", destination: "/home/ann" },
        found([{ path: "/srv/logs/x.log", kind: "file" }]),
      ),
    ).toEqual({
      ops: [
        { op: "make_dir", path: "/home/ann/logs", side: "local" },
        { op: "download", remote_path: "/srv/logs/x.log", local_dir: "/home/ann/logs" },
      ],
      leftOut: 0,
      bytes: 1,
      refused: [],
    });
  });

  it("copies nothing the server listed under a name that is another place, and names it", () => {
    const download = { ...gather, direction: "download", folder: "/drop/hostile", destination: "/home/ann" } as const;
    const outcome = ok("find_files", {
      matches: [
        { path: "/drop/hostile/good.txt", kind: "file", size: 5 },
        { path: "/drop/hostile/../escape.txt", kind: "file", size: 7 },
        { path: "/drop/hostile/./x", kind: "file", size: 1 },
        { path: "/drop/other/y", kind: "file", size: 1 },
        { path: "/drop/hostile//z", kind: "file", size: 1 },
      ],
      truncated: false,
      entries_scanned: 7,
      refused: [
        { folder: "/drop/hostile", name: "..", reason: "`.` or `..` as a name, which would be another folder" },
        { folder: "/drop/hostile", name: "a/../../b", reason: "a name holding `/`, which would be another path" },
      ],
    });
    const plan = folderPlan(download, outcome);
    if ("error" in plan) throw new Error(plan.error);
    expect(plan.ops).toEqual([
      { op: "make_dir", path: "/home/ann/hostile", side: "local" },
      { op: "download", remote_path: "/drop/hostile/good.txt", local_dir: "/home/ann/hostile" },
    ]);
    expect(plan.bytes).toBe(5);
    // The server's refusals first, then the paths outside (in the order of the walk's sort).
    expect(plan.refused.slice(0, 2)).toEqual([
      '".." in /drop/hostile (`.` or `..` as a name, which would be another folder)',
      '"a/../../b" in /drop/hostile (a name holding `/`, which would be another path)',
    ]);
    expect([...plan.refused.slice(2)].sort()).toEqual(
      [
        '"/drop/hostile/../escape.txt" (not a path inside /drop/hostile)',
        '"/drop/hostile//z" (not a path inside /drop/hostile)',
        '"/drop/hostile/./x" (not a path inside /drop/hostile)',
        '"/drop/other/y" (not a path inside /drop/hostile)',
      ].sort(),
    );
    expect(refusedWords(plan.refused)).toBe(
      '6 entries the server listed were not copied: ".." in /drop/hostile (`.` or `..` as a name, which would be another folder) and 5 more',
    );
    expect(refusedWords([])).toBeNull();
  });

  it("ends a copy that left refused entries behind, or had a step dropped, as failed, never done", () => {
    const allDone = ok("execute_plan", {
      dropped: [],
      outcomes: [
        { index: 0, status: "done", message: "created" },
        { index: 1, status: "done", message: "downloaded" },
      ],
    });
    let state = callStarted(opened(), TAB, "user-7", {
      kind: "transfer",
      direction: "download",
      what: "download folder hostile",
      folder: { name: "hostile", destination: "/home/ann", bytes: 5 },
      refused: '1 entry the server listed was not copied: ".." in /drop/hostile',
    });
    state = apply(
      state,
      { type: "tool_requested", tab: TAB, call: "user-7", tool: "execute_plan", args: { ops: [] } },
      finished("user-7", allDone),
    );
    expect(transfers(state)[0]).toMatchObject({ status: "failed", error: expect.stringContaining('".."') });
    expect(state.tabs[TAB]?.status).toEqual({
      text: 'Failed: download folder hostile: 1 entry the server listed was not copied: ".." in /drop/hostile',
      error: true,
    });
    // A step the engine dropped (a path with `..`) is not "done" either.
    state = callStarted(opened(), TAB, "user-8", {
      kind: "transfer",
      direction: "download",
      what: "download folder logs",
      folder: { name: "logs", destination: "/home/ann", bytes: 5 },
    });
    state = apply(
      state,
      { type: "tool_requested", tab: TAB, call: "user-8", tool: "execute_plan", args: { ops: [] } },
      finished(
        "user-8",
        ok("execute_plan", {
          dropped: [{ index: 2, reason: "download: `..` is not allowed in local paths" }],
          outcomes: [{ index: 0, status: "done", message: "created" }],
        }),
      ),
    );
    expect(transfers(state)[0]).toMatchObject({ status: "failed" });
    expect(state.tabs[TAB]?.status).toEqual({
      text: "Failed: download folder logs: a step was not run: download: `..` is not allowed in local paths",
      error: true,
    });
  });

  it("refuses what is too big for one plan, and says why a look failed", () => {
    expect(folderPlan(gather, found([], true))).toHaveProperty("error");
    const many = Array.from({ length: 200 }, (_, i) => ({
      path: `/home/ann/work/photos/${i}.jpg`,
      kind: "file" as const,
    }));
    expect(folderPlan(gather, found(many))).toHaveProperty("error");
    expect(folderPlan(gather, { tool: "find_files", status: "error", error: "find_files: no such folder" })).toEqual({
      error: "find_files: no such folder",
    });
  });

  it("shows the folder's row from the start, the file it is at, and a failed step as a failure", () => {
    let state = callStarted(opened(), TAB, "user-9", {
      kind: "transfer",
      direction: "upload",
      what: "upload folder photos",
      folder: { name: "photos", destination: "/up", bytes: 30 },
    });
    state = apply(state, { type: "tool_requested", tab: TAB, call: "user-9", tool: "execute_plan", args: { ops: [] } });
    expect(transfers(state)).toEqual([
      expect.objectContaining({ call: "user-9", name: "photos/", destination: "/up", direction: "upload" }),
    ]);
    state = apply(state, progress("user-9", 5, 10, 5, 1));
    expect(transfers(state)[0]).toMatchObject({
      name: "photos/",
      current: "big.bin",
      status: "running",
      transferred: 5,
      total: 30,
    });
    state = apply(state, progress("user-9", 10, 10, 5, 0, true));
    // The next file: the first one's 10 bytes count as done.
    state = apply(state, { ...progress("user-9", 4, 20, 5, 3), path: "/up/photos/next.bin" } as Event);
    expect(transfers(state)[0]).toMatchObject({ current: "next.bin", transferred: 14, total: 30, etaS: null });
    expect(percentDone(transfers(state)[0]!)).toBe(46);
    state = apply(
      state,
      finished(
        "user-9",
        ok("execute_plan", {
          dropped: [],
          outcomes: [
            { index: 0, status: "done", message: "created" },
            { index: 1, status: "failed", message: "upload: the server is full" },
            { index: 2, status: "skipped", message: "skipped: an earlier operation failed" },
          ],
        }),
      ),
    );
    expect(transfers(state)[0]).toMatchObject({
      status: "failed",
      error: "upload: the server is full (1 more not done)",
    });
    expect(state.tabs[TAB]?.status).toEqual({
      text: "Failed: upload folder photos: upload: the server is full (1 more not done)",
      error: true,
    });
  });
});

describe("confirmations", () => {
  const ask = (tool: string, dangerous: boolean, call = "user-1"): Extract<Event, { type: "approval_requested" }> => ({
    type: "approval_requested",
    tab: TAB,
    call,
    tool,
    reasons: [`${tool} asks`],
    risk: dangerous ? "dangerous" : "routine",
    preview: { kind: "operations", lines: ["delete /x (3 files)"] },
  });

  it("are asked for deletes and dangerous changes, not for plain work the user started", () => {
    expect(needsConfirmation(ask("delete", true))).toBe(true);
    expect(needsConfirmation(ask("upload", true))).toBe(true);
    expect(needsConfirmation(ask("make_dir", false))).toBe(false);
    expect(needsConfirmation(ask("upload", false))).toBe(false);
    expect(needsConfirmation(ask("rename", false))).toBe(false);
  });

  it("wait for the user for this page's calls only, and go when answered or finished", () => {
    let state = callStarted(opened(), TAB, "user-1", {
      kind: "change",
      tool: "delete",
      side: "remote",
      what: "delete /x",
    });
    state = apply(state, ask("delete", true), ask("delete", true, "call_pilot"));
    expect(state.tabs[TAB]?.confirmations).toEqual([
      { call: "user-1", tool: "delete", reasons: ["delete asks"], dangerous: true, lines: ["delete /x (3 files)"] },
    ]);
    expect(confirmationAnswered(state, TAB, "user-1").tabs[TAB]?.confirmations).toEqual([]);
    state = apply(state, finished("user-1", { tool: "delete", status: "denied", error: "the user denied it" }));
    expect(state.tabs[TAB]?.confirmations).toEqual([]);
    expect(state.tabs[TAB]?.status).toEqual({ text: "Not done: delete /x (denied).", error: true });
  });

  it("say the user's own Cancel of a confirmation as Cancelled, not as a refusal in red", () => {
    let state = callStarted(opened(), TAB, "user-1", {
      kind: "change",
      tool: "delete",
      side: "remote",
      what: "delete /x",
    });
    state = apply(state, ask("delete", true));
    const error = `the user denied this call: ${USER_CANCELLED_REASON}`;
    state = apply(state, finished("user-1", { tool: "delete", status: "denied", error }));
    expect(state.tabs[TAB]?.status).toEqual({ text: "Cancelled: delete /x.", error: false });
  });
});

describe("several calls started together", () => {
  /** Uploads of `names` started as one action (a drop of several files), calls user-1, user-2, … */
  function uploadsOf(names: string[]): StorageState {
    let state = opened();
    const calls = names.map((name, i) => {
      const call = `user-${i + 1}`;
      state = callStarted(state, TAB, call, { kind: "transfer", direction: "upload", what: `upload ${name}` });
      return call;
    });
    return batchStarted(state, TAB, calls, `upload ${names.length} files`);
  }
  const uploaded = (call: string) => finished(call, ok("upload", { message: "uploaded" }));
  const failedUpload = (call: string, error: string) => finished(call, { tool: "upload", status: "error", error });
  const status = (state: StorageState) => state.tabs[TAB]?.status;

  it("sum up in one line when all are done", () => {
    let state = apply(uploadsOf(["a.txt", "b.txt", "c.txt"]), uploaded("user-2"));
    expect(status(state)).toEqual({ text: "Done: upload b.txt.", error: false });
    state = apply(state, uploaded("user-1"), uploaded("user-3"));
    expect(status(state)).toEqual({ text: "Done: upload 3 files.", error: false });
  });

  it("keep a failure on the status line while later files finish, and name it in the summary", () => {
    let state = apply(uploadsOf(["a.txt", "b.txt", "c.txt"]), failedUpload("user-1", "upload: permission denied"));
    expect(status(state)).toEqual({ text: "Failed: upload a.txt: upload: permission denied", error: true });
    // A later file's "Done" does not hide it.
    state = apply(state, uploaded("user-2"));
    expect(status(state)).toEqual({ text: "Failed: upload a.txt: upload: permission denied", error: true });
    state = apply(state, uploaded("user-3"));
    expect(status(state)).toEqual({
      text: "Done 2 of 3: upload 3 files. Failed: upload a.txt: upload: permission denied.",
      error: true,
    });
  });

  it("count further failures, denials and cancellations", () => {
    const state = apply(
      uploadsOf(["a", "b", "c", "d"]),
      finished("user-4", { tool: "upload", status: "cancelled", error: "cancelled by the user" }),
      finished("user-2", { tool: "upload", status: "denied", error: "the user denied it" }),
      failedUpload("user-3", "upload: the server is full"),
      uploaded("user-1"),
    );
    // The first in the user's order is named, wherever it finished.
    expect(status(state)).toEqual({
      text: "Done 1 of 4: upload 4 files; 1 cancelled. Not done: upload b (denied) (and 1 more not done).",
      error: true,
    });
  });

  it("say when some were only cancelled", () => {
    const cancelled = (call: string) =>
      finished(call, { tool: "upload", status: "cancelled", error: "cancelled by the user" });
    expect(status(apply(uploadsOf(["a", "b"]), cancelled("user-1"), uploaded("user-2")))).toEqual({
      text: "Done 1 of 2: upload 2 files; 1 cancelled.",
      error: false,
    });
    expect(status(apply(uploadsOf(["a", "b"]), cancelled("user-1"), cancelled("user-2")))).toEqual({
      text: "Cancelled: upload 2 files.",
      error: false,
    });
  });

  it("sum up again after a failed one is retried: its success replaces its own failure, not another's", () => {
    let state = apply(
      uploadsOf(["a", "b", "c"]),
      // Rows in Transfers, to retry from.
      ...["user-1", "user-2", "user-3"].map((call) => ({ ...upload, call }) as Event),
      failedUpload("user-1", "upload: the server went away"),
      failedUpload("user-2", "upload: the server went away"),
      uploaded("user-3"),
    );
    expect(status(state)?.text).toBe(
      "Done 1 of 3: upload 3 files. Failed: upload a: upload: the server went away (and 1 more not done).",
    );
    state = transferRetried(state, TAB, "user-1", "user-5");
    state = apply(state, uploaded("user-5"));
    expect(status(state)).toEqual({
      text: "Done 2 of 3: upload 3 files. Failed: upload b: upload: the server went away.",
      error: true,
    });
    state = transferRetried(state, TAB, "user-2", "user-6");
    state = apply(state, uploaded("user-6"));
    expect(status(state)).toEqual({ text: "Done: upload 3 files.", error: false });
  });

  it("count a folder by the plan that copies it, and a folder that gave no plan as failed", () => {
    let state = opened();
    state = callStarted(state, TAB, "user-1", {
      kind: "gather",
      direction: "upload",
      folder: "/w/photos",
      destination: "/up",
      what: "upload folder photos",
    });
    state = callStarted(state, TAB, "user-2", {
      kind: "gather",
      direction: "upload",
      folder: "/w/empty",
      destination: "/up",
      what: "upload folder empty",
    });
    state = callStarted(state, TAB, "user-3", { kind: "transfer", direction: "upload", what: "upload a.txt" });
    state = batchStarted(state, TAB, ["user-1", "user-2", "user-3"], "upload 3 items");
    state = apply(state, finished("user-1", ok("find_files", { matches: [] })), uploaded("user-3"));
    // The listing ended, the plan goes on: the batch is not over.
    state = followUpStarted(state, TAB, "user-1", "user-4", {
      kind: "transfer",
      direction: "upload",
      what: "upload folder photos",
    });
    expect(status(state)).toEqual({ text: "Done: upload a.txt.", error: false });
    state = callFailed(state, TAB, "user-2", "Failed: upload folder empty: nothing in it to copy");
    expect(status(state)?.error).toBe(true);
    state = apply(
      state,
      finished("user-4", ok("execute_plan", { outcomes: [{ index: 0, status: "done", message: "created" }] })),
    );
    expect(status(state)).toEqual({
      text: "Done 2 of 3: upload 3 items. Failed: upload folder empty: nothing in it to copy.",
      error: true,
    });
  });

  it("say again at the end what was left out", () => {
    let state = opened();
    state = callStarted(state, TAB, "user-1", { kind: "transfer", direction: "upload", what: "upload a.txt" });
    state = batchStarted(state, TAB, ["user-1"], "upload a.txt", "Only files and folders are copied; left out: link.");
    state = apply(state, uploaded("user-1"));
    expect(status(state)).toEqual({
      text: "Done: upload a.txt. Only files and folders are copied; left out: link.",
      error: true,
    });
  });

  it("are let go when the next action starts, and one call alone is no batch", () => {
    let state = apply(uploadsOf(["a", "b"]), uploaded("user-1"));
    state = callStarted(state, TAB, "user-9", {
      kind: "change",
      tool: "make_dir",
      side: "remote",
      what: "new folder /x",
    });
    // Not over yet: it stays for its last call.
    expect(state.tabs[TAB]?.batches).toHaveLength(1);
    state = apply(state, uploaded("user-2"), finished("user-9", ok("make_dir", { message: "created" })));
    expect(status(state)).toEqual({ text: "Done: new folder /x.", error: false });
    state = callStarted(state, TAB, "user-10", { kind: "transfer", direction: "upload", what: "upload c" });
    expect(state.tabs[TAB]?.batches).toEqual([]);
    expect(batchStarted(state, TAB, ["user-10"], "upload c").tabs[TAB]?.batches).toEqual([]);
  });
});

describe("tabs", () => {
  it("go with their state when closed", () => {
    const state = apply(opened(), { type: "tab_closed", tab: TAB });
    expect(state.tabs).toEqual({});
  });
});
