// Storage tabs as a pure function of what happened: the two panes ("This computer" and the
// storage), the transfers, and the approvals of what the user started here. Engine events in, a
// new state out; no DOM and no Svelte, so Vitest checks it directly. `storage.svelte.ts` holds
// it in a rune and sends the ops.
//
// Everything the user does in a storage tab is a tool call (`Op::RunTool`) through the engine's
// pipeline, as if Pilot had asked: listing, making folders, renaming, deleting, uploading and
// downloading get the same policy, approvals and audit lines as Pilot's calls.

import { forPeople, isUsersOwnCancel } from "../people-text";
import { forwardWords } from "./forwards";
import type {
  ApprovalPreview,
  DirEntry,
  Event,
  ExecutePlanResult,
  FindFilesResult,
  PlanOp,
  ListDirResult,
  Op,
  Side,
  TabTarget,
  ToolOutcome,
} from "../protocol";
import type { TabId } from "../ids";

export type CallId = Extract<Op, { type: "run_tool" }>["call"];

/** Calls this page starts are named so, which tells them apart from Pilot's in any view. */
export const USER_CALL_PREFIX = "user-";

export function isUserCall(call: CallId): boolean {
  return call.startsWith(USER_CALL_PREFIX);
}

export type SortKey = "name" | "size" | "modified";

export interface SortOrder {
  key: SortKey;
  descending: boolean;
}

export interface Pane {
  side: Side;
  /** The folder shown (absolute; remote paths start with `/`). */
  path: string;
  entries: DirEntry[];
  /** Entries the engine left out (it lists at most the protocol's `MAX_USER_LIST_ENTRIES` for the user). */
  omitted: number;
  /** The list_dir call whose answer is awaited, if any. */
  listing: CallId | null;
  /** The local side starts at `/` when the page does not know where the opened folder is: it
   * walks down the way the engine shows to it (fs/confined.rs). */
  findOpened: boolean;
  error: string | null;
  /** The last listing failed because only root may open the folder (an SSH tab's pane then
   * offers "Open as root"). */
  denied: boolean;
  /** The folder the user opened as root: it and the folders in it are listed through sudo. */
  rootFolder: string | null;
  sort: SortOrder;
  /** Names of the selected entries. */
  selected: string[];
}

export type TransferStatus = "waiting" | "running" | "done" | "failed" | "cancelled" | "denied";

export type Direction = "upload" | "download";

export interface Transfer {
  call: CallId;
  /** Null for transfers of a plan (execute_plan), which may go either way. */
  direction: Direction | null;
  /** The file being copied (its name) and the folder it goes to. */
  name: string;
  destination: string;
  transferred: number;
  total: number;
  /** Bytes per second so far (the engine's average); null when not known yet. */
  rate: number | null;
  etaS: number | null;
  /** When progress came (ms) and how far it was, over the last seconds: the speed now. */
  recent: { at: number; bytes: number }[];
  status: TransferStatus;
  /** The user asked to cancel and the engine has not answered yet. */
  cancelling: boolean;
  /** A folder's copy (one plan): the file it is at now, and the bytes of the files done before
   * it (its progress counts the whole folder against `total`, the sizes of all its files). */
  current: string | null;
  folder: { path: string | null; fileBytes: number; doneBytes: number } | null;
  error: string | null;
  /** Once it ended: how long the copy worked, in ms (the engine's count, without the time its
   * confirmation waited for the user). */
  workMs: number | null;
}

/** What a call of this page is for. */
export type UserCall =
  | { kind: "list"; side: Side; path: string }
  | {
      kind: "change";
      tool: "make_dir" | "rename" | "delete" | "read_file" | "write_file";
      side: Side;
      what: string;
    }
  | {
      kind: "transfer";
      direction: Direction | null;
      what: string;
      folder?: { name: string; destination: string; bytes: number };
      /** A folder copy: what the server listed that was not copied (`folderPlan`'s `refused`),
       * in words; the copy then ends as failed, however its steps went. */
      refused?: string;
    }
  /** find_files over a folder to copy: the plan that copies it follows (`folderPlan`). */
  | { kind: "gather"; direction: Direction; folder: string; destination: string; what: string };

/** An approval of this page's call that waits for the user's confirmation. */
export interface Confirmation {
  call: CallId;
  tool: string;
  reasons: string[];
  dangerous: boolean;
  lines: string[];
}

export interface StatusLine {
  text: string;
  error: boolean;
}

/**
 * Calls the user started together (several files copied, dropped or deleted at once). They share
 * one status line, so that a later file's "Done" never hides an earlier one's failure: while some
 * are still going it shows the first failure (or the call that just ended), and once all have
 * ended it sums them up.
 */
export interface Batch {
  /** What they do together, as in "upload 3 files". */
  what: string;
  /** In the order the user gave them; a retried call takes its old one's place. */
  calls: CallId[];
  /** How each call that has ended ended: its own status line, and whether it did its work. */
  ended: Record<CallId, { line: StatusLine; done: boolean }>;
  /** What the user chose that was not started (links and special files), said again at the end. */
  leftOut: string | null;
}

export interface StorageTab {
  panes: Record<Side, Pane>;
  transfers: Transfer[];
  calls: Record<CallId, UserCall>;
  /** Oldest first; the first is the one shown. */
  confirmations: Confirmation[];
  /** How the last action of this page ended. */
  status: StatusLine | null;
  /** The batches of the last action of several calls (kept after they end, for retries). */
  batches: Batch[];
  /** The file pane of a terminal tab (shell-pane.ts): the tab's own files, and this
   * computer's side (the engine's home folder for it) once the user shows it, to copy to and
   * from. */
  shell?: true;
}

export interface StorageState {
  tabs: Record<TabId, StorageTab>;
}

export function initialStorage(): StorageState {
  return { tabs: {} };
}

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

export function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

/** The folder `path` is in (`/` for `/` itself). */
export function parentPath(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  const cut = trimmed.lastIndexOf("/");
  return cut <= 0 ? "/" : trimmed.slice(0, cut);
}

export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || "/";
}

/** The breadcrumb of `path`: `/`, then each folder down to it. */
export function crumbs(path: string): { name: string; path: string }[] {
  const parts = path.split("/").filter((part) => part !== "");
  const out = [{ name: "/", path: "/" }];
  let at = "";
  for (const part of parts) {
    at = `${at}/${part}`;
    out.push({ name: part, path: at });
  }
  return out;
}

/** A path typed by the user, from the folder `current`: absolute as given, else relative to
 * it; `.` and `..` are worked out here (the engine refuses `..` on the local side). */
export function resolvePath(current: string, typed: string): string {
  const text = typed.trim();
  const parts = text.startsWith("/") ? [] : current.split("/").filter((part) => part !== "");
  for (const part of text.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      parts.pop();
    } else {
      parts.push(part);
    }
  }
  return `/${parts.join("/")}`;
}

/** Why `name` cannot be a file or folder name, or null when it can. */
export function nameProblem(name: string): string | null {
  if (name.trim() === "") {
    return "Give a name.";
  }
  if (name.includes("/")) {
    return "A name cannot contain “/”.";
  }
  if (name === "." || name === "..") {
    return "“.” and “..” are not names.";
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Sorting and numbers
// ---------------------------------------------------------------------------------------------

const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

function compareNames(a: DirEntry, b: DirEntry): number {
  return byName.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

function modifiedTime(entry: DirEntry): number | null {
  if (entry.modified == null) {
    return null;
  }
  const time = Date.parse(entry.modified);
  return Number.isNaN(time) ? null : time;
}

/** Folders first (as every file manager does), then by the key; ties by name. Entries without a
 * modification time go last whichever the direction. */
export function sortEntries(entries: readonly DirEntry[], order: SortOrder): DirEntry[] {
  const sign = order.descending ? -1 : 1;
  const compare = (a: DirEntry, b: DirEntry): number => {
    const folders = Number(b.kind === "dir") - Number(a.kind === "dir");
    if (folders !== 0) {
      return folders;
    }
    switch (order.key) {
      case "name":
        return sign * compareNames(a, b);
      case "size":
        // Folders have no size of their own: by name among themselves.
        if (a.kind === "dir") {
          return compareNames(a, b);
        }
        return sign * (a.size - b.size) || compareNames(a, b);
      case "modified": {
        const [ta, tb] = [modifiedTime(a), modifiedTime(b)];
        if (ta === null || tb === null) {
          return ta === tb ? compareNames(a, b) : ta === null ? 1 : -1;
        }
        return sign * (ta - tb) || compareNames(a, b);
      }
      default: {
        const unknown: never = order.key;
        void unknown;
        return 0;
      }
    }
  };
  return [...entries].sort(compare);
}

/** A header clicked: the same column turns round; another starts with its natural order
 * (names A–Z, the biggest and the newest first). */
export function toggleSort(order: SortOrder, key: SortKey): SortOrder {
  if (order.key === key) {
    return { key, descending: !order.descending };
  }
  return { key, descending: key !== "name" };
}

/** Whole percent done, 0–100. */
export function percentDone(transfer: Pick<Transfer, "transferred" | "total" | "status">): number {
  if (transfer.total <= 0) {
    return transfer.status === "done" ? 100 : 0;
  }
  return Math.max(0, Math.min(100, Math.floor((transfer.transferred * 100) / transfer.total)));
}

/** How far back the speed now looks. */
const SPEED_WINDOW_MS = 4000;
/** The shortest stretch of time a speed is worked out over. */
const SPEED_MIN_SPAN_MS = 500;

/** Bytes per second over the last seconds, or null before there is a long enough stretch. The
 * engine's own figure is the average since the start, which the first burst into buffers
 * inflates; what people want to see is how fast it goes now. */
export function recentRate(transfer: Pick<Transfer, "recent">): number | null {
  const first = transfer.recent[0];
  const last = transfer.recent[transfer.recent.length - 1];
  if (first === undefined || last === undefined || last.at - first.at < SPEED_MIN_SPAN_MS) {
    return null;
  }
  return Math.max(0, ((last.bytes - first.bytes) * 1000) / (last.at - first.at));
}

/** The speed to show: now, else the engine's average. */
export function speed(transfer: Pick<Transfer, "recent" | "rate">): number | null {
  return recentRate(transfer) ?? transfer.rate;
}

/** Seconds left at the speed now; before that is known, the engine's estimate. */
export function secondsLeft(
  transfer: Pick<Transfer, "transferred" | "total" | "rate" | "etaS" | "status" | "recent">,
): number | null {
  if (transfer.status !== "running") {
    return null;
  }
  const now = recentRate(transfer);
  if (now !== null && now > 0 && transfer.total > 0) {
    return Math.max(0, (transfer.total - transfer.transferred) / now);
  }
  if (transfer.etaS !== null && Number.isFinite(transfer.etaS)) {
    return Math.max(0, transfer.etaS);
  }
  if (transfer.rate === null || !(transfer.rate > 0) || transfer.total <= 0) {
    return null;
  }
  return Math.max(0, (transfer.total - transfer.transferred) / transfer.rate);
}

const UNITS = ["KB", "MB", "GB", "TB"];

/** 512 B, 1.5 KB, 12.3 MB, 123 MB (1 KB = 1024 bytes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) {
    return `${Math.round(bytes)} B`;
  }
  let value = bytes;
  let unit = "B";
  for (const next of UNITS) {
    if (value < 1024) {
      break;
    }
    value /= 1024;
    unit = next;
  }
  return `${value < 100 ? value.toFixed(1) : Math.round(value)} ${unit}`;
}

export function formatRate(rate: number | null): string {
  return rate === null || !Number.isFinite(rate) ? "—" : `${formatBytes(rate)}/s`;
}

/** 0 s, 42 s, 3 min 5 s, 2 h 10 min. */
export function formatDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  if (whole < 60) {
    return `${whole} s`;
  }
  if (whole < 3600) {
    const minutes = Math.floor(whole / 60);
    const rest = whole % 60;
    return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
  }
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
}

/** How long an ended copy worked, for people: "took 3 s", "took under 1 s"; null before it
 * ended, and for one that stopped before it copied anything. */
export function workWords(transfer: Pick<Transfer, "status" | "workMs" | "transferred">): string | null {
  const worked =
    transfer.status === "done" ||
    ((transfer.status === "failed" || transfer.status === "cancelled") && transfer.transferred > 0);
  if (transfer.workMs === null || !worked) {
    return null;
  }
  return transfer.workMs < 1000 ? "took under 1 s" : `took ${formatDuration(Math.round(transfer.workMs / 1000))}`;
}

/** A done copy's average speed over its work (bytes per second), or null. */
export function averageRate(transfer: Pick<Transfer, "status" | "workMs" | "transferred">): number | null {
  return transfer.status === "done" && transfer.workMs !== null && transfer.workMs > 0 && transfer.transferred > 0
    ? (transfer.transferred * 1000) / transfer.workMs
    : null;
}

/** `2026-12-03 10:48` in the local time zone, or an empty string. */
export function formatModified(modified: string | null | undefined): string {
  if (modified == null) {
    return "";
  }
  const at = new Date(modified);
  if (Number.isNaN(at.getTime())) {
    return "";
  }
  const two = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
}

// ---------------------------------------------------------------------------------------------
// The state
// ---------------------------------------------------------------------------------------------

function pane(side: Side, path: string, findOpened: boolean): Pane {
  return {
    side,
    path,
    entries: [],
    omitted: 0,
    listing: null,
    findOpened,
    error: null,
    denied: false,
    rootFolder: null,
    sort: { key: "name", descending: false },
    selected: [],
  };
}

/** Where the local pane starts for `target`: its first folder when the page knows it as an
 * absolute path, else `/` and the way down to it. */
function localStart(target: TabTarget | null): { path: string; findOpened: boolean } {
  const first = target?.kind === "storage" ? target.local_roots?.[0] : undefined;
  if (first !== undefined && first.startsWith("/")) {
    return { path: first.length > 1 ? first.replace(/\/+$/, "") : first, findOpened: false };
  }
  return { path: "/", findOpened: true };
}

/** A storage tab appeared (opened here, by another page, or before a reload). */
export function storageTabOpened(state: StorageState, tab: TabId, target: TabTarget | null): StorageState {
  if (state.tabs[tab] !== undefined) {
    return state;
  }
  const local = localStart(target);
  const view: StorageTab = {
    panes: { local: pane("local", local.path, local.findOpened), remote: pane("remote", "/", false) },
    transfers: [],
    calls: {},
    confirmations: [],
    status: null,
    batches: [],
  };
  return { tabs: { ...state.tabs, [tab]: view } };
}

/** A terminal tab's file pane shows this computer's side for the first time: listed from `/`,
 * it walks down to the folder the engine opened for it (fs/confined.rs). */
export function localSideShown(state: StorageState, tab: TabId): StorageState {
  return update(state, tab, (view) =>
    updatePane(view, "local", (p) => ({ ...p, path: "/", findOpened: true, entries: [], error: null })),
  );
}

/** A terminal tab's file pane was opened, showing `path` (the shell's folder, else `/`). */
export function shellPaneOpened(state: StorageState, tab: TabId, path: string): StorageState {
  if (state.tabs[tab] !== undefined) {
    return state;
  }
  const view: StorageTab = {
    panes: { local: pane("local", "/", false), remote: pane("remote", path, false) },
    transfers: [],
    calls: {},
    confirmations: [],
    status: null,
    batches: [],
    shell: true,
  };
  return { tabs: { ...state.tabs, [tab]: view } };
}

export function storageTabClosed(state: StorageState, tab: TabId): StorageState {
  if (state.tabs[tab] === undefined) {
    return state;
  }
  const tabs = { ...state.tabs };
  delete tabs[tab];
  return { tabs };
}

function update(state: StorageState, tab: TabId, change: (view: StorageTab) => StorageTab): StorageState {
  const view = state.tabs[tab];
  return view === undefined ? state : { tabs: { ...state.tabs, [tab]: change(view) } };
}

function updatePane(view: StorageTab, side: Side, change: (pane: Pane) => Pane): StorageTab {
  return { ...view, panes: { ...view.panes, [side]: change(view.panes[side]) } };
}

/** A tab of the last run reopens showing `path` on `side` (listed once it is connected). */
export function folderRestored(state: StorageState, tab: TabId, side: Side, path: string): StorageState {
  return update(state, tab, (view) =>
    updatePane(view, side, (p) => ({ ...p, path, findOpened: false, entries: [], selected: [], error: null })),
  );
}

/** The folder opened as root that `path` is in (`root` itself or below it), else null. */
export function rootFolderFor(root: string | null, path: string): string | null {
  if (root === null) return null;
  return path === root || path.startsWith(root === "/" ? "/" : `${root}/`) ? root : null;
}

/** A list_dir of `path` was sent as `call` (through sudo when `rootFolder`, the folder opened
 * as root it is in, is given). */
export function listRequested(
  state: StorageState,
  tab: TabId,
  side: Side,
  path: string,
  call: CallId,
  rootFolder: string | null = null,
): StorageState {
  return update(state, tab, (view) => ({
    ...updatePane(view, side, (p) => ({
      ...p,
      listing: call,
      // A new folder: its listing replaces the old one; the same folder keeps showing meanwhile.
      ...(p.path === path ? {} : { path, entries: [], omitted: 0, selected: [] }),
      error: null,
      denied: false,
      rootFolder,
    })),
    calls: { ...view.calls, [call]: { kind: "list", side, path } },
  }));
}

/** A change or transfer was sent as `call`: a new action, so batches that have ended are let go. */
export function callStarted(state: StorageState, tab: TabId, call: CallId, what: UserCall): StorageState {
  return update(state, tab, (view) => ({
    ...view,
    calls: { ...view.calls, [call]: what },
    status: null,
    batches: view.batches.filter((b) => !batchEnded(b)),
  }));
}

/** `calls`, already started, are one action of the user's (`what`: "upload 3 files"); `leftOut`
 * says what of it was not started. One call alone needs no batch unless something was left out. */
export function batchStarted(
  state: StorageState,
  tab: TabId,
  calls: CallId[],
  what: string,
  leftOut: string | null = null,
): StorageState {
  if (calls.length === 0 || (calls.length === 1 && leftOut === null)) {
    return state;
  }
  return update(state, tab, (view) => ({ ...view, batches: [...view.batches, { what, calls, ended: {}, leftOut }] }));
}

/** Call `old` of a batch goes on as `fresh` (a retry, or a folder's plan after its listing). */
function batchCallReplaced(view: StorageTab, old: CallId, fresh: CallId): StorageTab {
  return {
    ...view,
    batches: view.batches.map((b) => {
      if (!b.calls.includes(old)) {
        return b;
      }
      const ended = { ...b.ended };
      delete ended[old];
      return { ...b, calls: b.calls.map((c) => (c === old ? fresh : c)), ended };
    }),
  };
}

/** The page sent `fresh` to carry on what `old` began (a folder's plan after its listing): the same
 * action, so the status line stays and `fresh` takes `old`'s place in its batch. */
export function followUpStarted(
  state: StorageState,
  tab: TabId,
  old: CallId,
  fresh: CallId,
  what: UserCall,
): StorageState {
  return update(state, tab, (view) => ({
    ...batchCallReplaced(view, old, fresh),
    calls: { ...view.calls, [fresh]: what },
  }));
}

function batchEnded(batch: Batch): boolean {
  return batch.calls.every((c) => batch.ended[c] !== undefined);
}

/** The status line of a batch that has ended, in one line for all its calls. */
function batchSummary(batch: Batch): StatusLine {
  const ends = batch.calls.flatMap((c) => batch.ended[c] ?? []);
  const count = ends.length;
  const done = ends.filter((e) => e.done).length;
  const failures = ends.filter((e) => e.line.error);
  const cancelled = count - done - failures.length;
  const leftOut = batch.leftOut === null ? "" : ` ${batch.leftOut}`;
  if (done === count) {
    return { text: `Done: ${batch.what}.${leftOut}`, error: batch.leftOut !== null };
  }
  const cancelledNote = cancelled > 0 ? `; ${cancelled} cancelled` : "";
  const [first] = failures;
  if (first === undefined) {
    const text = done === 0 ? `Cancelled: ${batch.what}.` : `Done ${done} of ${count}: ${batch.what}${cancelledNote}.`;
    return { text: `${text}${leftOut}`, error: batch.leftOut !== null };
  }
  const more = failures.length > 1 ? ` (and ${failures.length - 1} more not done)` : "";
  return {
    text: `Done ${done} of ${count}: ${batch.what}${cancelledNote}. ${first.line.text.replace(/\.$/, "")}${more}.${leftOut}`,
    error: true,
  };
}

/** `call` ended as `line` says (`done`: it did its work): the tab's status line, for it alone or for
 * its batch. */
function callEnded(view: StorageTab, call: CallId, line: StatusLine, done: boolean): StorageTab {
  const batch = view.batches.find((b) => b.calls.includes(call));
  if (batch === undefined) {
    return { ...view, status: line };
  }
  const after: Batch = { ...batch, ended: { ...batch.ended, [call]: { line, done } } };
  const firstFailure = after.calls.map((c) => after.ended[c]).find((e) => e?.line.error === true);
  return {
    ...view,
    batches: view.batches.map((b) => (b === batch ? after : b)),
    status: batchEnded(after) ? batchSummary(after) : (firstFailure?.line ?? line),
  };
}

/** A call of the page ended before it was sent on (a folder whose listing gave no plan). */
export function callFailed(state: StorageState, tab: TabId, call: CallId, text: string): StorageState {
  return update(state, tab, (view) => callEnded(view, call, { text, error: true }, false));
}

export function sortChanged(state: StorageState, tab: TabId, side: Side, key: SortKey): StorageState {
  return update(state, tab, (view) => updatePane(view, side, (p) => ({ ...p, sort: toggleSort(p.sort, key) })));
}

export function selectionChanged(state: StorageState, tab: TabId, side: Side, names: string[]): StorageState {
  return update(state, tab, (view) => updatePane(view, side, (p) => ({ ...p, selected: names })));
}

export function cancelRequested(state: StorageState, tab: TabId, call: CallId): StorageState {
  return update(state, tab, (view) => ({
    ...view,
    transfers: view.transfers.map((t) => (t.call === call ? { ...t, cancelling: true } : t)),
  }));
}

/** The user retried transfer `old` as `fresh`: it starts again in the same row. */
export function transferRetried(state: StorageState, tab: TabId, old: CallId, fresh: CallId): StorageState {
  return update(state, tab, (view) => {
    const row = view.transfers.find((t) => t.call === old);
    if (row === undefined) {
      return view;
    }
    const calls = { ...view.calls };
    const before = calls[old];
    delete calls[old];
    calls[fresh] =
      before?.kind === "transfer"
        ? before
        : { kind: "transfer", direction: row.direction, what: `${row.direction ?? "copy"} ${row.name}` };
    return {
      ...batchCallReplaced(view, old, fresh),
      calls,
      transfers: view.transfers.map((t) =>
        t.call === old
          ? {
              ...t,
              call: fresh,
              status: "waiting",
              transferred: 0,
              rate: null,
              etaS: null,
              recent: [],
              error: null,
              cancelling: false,
              current: null,
              folder: t.folder === null ? null : { path: null, fileBytes: 0, doneBytes: 0 },
              workMs: null,
            }
          : t,
      ),
    };
  });
}

/** Rows of transfers that ended (done, failed, cancelled, denied) go. */
export function finishedCleared(state: StorageState, tab: TabId): StorageState {
  return update(state, tab, (view) => ({
    ...view,
    transfers: view.transfers.filter((t) => t.status === "waiting" || t.status === "running"),
  }));
}

export function confirmationAnswered(state: StorageState, tab: TabId, call: CallId): StorageState {
  return update(state, tab, (view) => ({
    ...view,
    confirmations: view.confirmations.filter((c) => c.call !== call),
  }));
}

/** The file a transfer tool call copies and where it goes, from its arguments. */
function transferOf(tool: string, args: unknown): { direction: Direction; name: string; destination: string } | null {
  if (typeof args !== "object" || args === null) {
    return null;
  }
  const fields = args as Record<string, unknown>;
  if (tool === "upload" && typeof fields.local_path === "string" && typeof fields.remote_dir === "string") {
    return { direction: "upload", name: baseName(fields.local_path), destination: fields.remote_dir };
  }
  if (tool === "download" && typeof fields.remote_path === "string" && typeof fields.local_dir === "string") {
    return { direction: "download", name: baseName(fields.remote_path), destination: fields.local_dir };
  }
  return null;
}

function newTransfer(call: CallId, direction: Direction | null, name: string, destination: string): Transfer {
  return {
    call,
    direction,
    name,
    destination,
    transferred: 0,
    total: 0,
    rate: null,
    etaS: null,
    recent: [],
    status: "waiting",
    cancelling: false,
    current: null,
    folder: null,
    error: null,
    workMs: null,
  };
}

/** The first failed operation of a finished plan, or the steps the engine dropped from it (its
 * status is ok all the same), in words. */
function failedPlanOp(outcome: ToolOutcome): string | null {
  const result = outcome.result as Partial<ExecutePlanResult> | null | undefined;
  if (result == null || !Array.isArray(result.outcomes)) {
    return null;
  }
  const failed = result.outcomes.find((op) => op.status === "failed");
  if (failed === undefined) {
    const dropped = Array.isArray(result.dropped) ? result.dropped : [];
    const [first] = dropped;
    if (first === undefined) {
      return null;
    }
    const more = dropped.length > 1 ? ` (${dropped.length - 1} more steps not run)` : "";
    return `a step was not run: ${first.reason}${more}`;
  }
  const skipped = result.outcomes.filter((op) => op.status === "skipped").length;
  return skipped > 0 ? `${failed.message} (${skipped} more not done)` : failed.message;
}

/** What of a folder copy was refused before it started (`UserCall.refused`), for calls that
 * have it. */
function refusedPart(what: UserCall | undefined): string | null {
  return what?.kind === "transfer" ? (what.refused ?? null) : null;
}

/** What the user reads of an outcome that did not succeed (see `people-text`). */
function outcomeMessage(outcome: ToolOutcome): string {
  return forPeople(outcome.error ?? outcome.status);
}

function listResult(outcome: ToolOutcome): ListDirResult | null {
  const result = outcome.result as Partial<ListDirResult> | null | undefined;
  if (result == null || typeof result.path !== "string" || !Array.isArray(result.entries)) {
    return null;
  }
  return {
    path: result.path,
    entries: result.entries,
    omitted: typeof result.omitted === "number" ? result.omitted : 0,
  };
}

function previewLines(preview: ApprovalPreview | null | undefined): string[] {
  switch (preview?.kind) {
    case undefined:
      return [];
    case "operations":
      return preview.lines;
    case "command":
      return [preview.command];
    case "text":
      return preview.text.split("\n");
    case "diff":
      return [preview.path];
    case "fleet":
      return [preview.command, ...preview.hosts.map((h) => `${h.host}: ${h.decision}`)];
    case "forward":
      return [forwardWords({ spec: preview.forward })];
    default: {
      const unknown: never = preview;
      void unknown;
      return [];
    }
  }
}

function finished(view: StorageTab, call: CallId, outcome: ToolOutcome, workMs: number): StorageTab {
  const what = view.calls[call];
  const failedPart = (): string | null => failedPlanOp(outcome) ?? refusedPart(what);
  const calls = { ...view.calls };
  delete calls[call];
  let next: StorageTab = {
    ...view,
    calls,
    confirmations: view.confirmations.filter((c) => c.call !== call),
    transfers: view.transfers.map((ran) => {
      if (ran.call !== call) {
        return ran;
      }
      const t = { ...ran, workMs };
      switch (outcome.status) {
        case "ok": {
          const failed = failedPart();
          if (failed !== null) {
            return { ...t, status: "failed", error: failed, cancelling: false, current: null };
          }
          return {
            ...t,
            status: "done",
            transferred: Math.max(t.transferred, t.total),
            etaS: null,
            cancelling: false,
            current: null,
          };
        }
        case "error":
          return { ...t, status: "failed", error: outcomeMessage(outcome), cancelling: false };
        case "cancelled":
          return { ...t, status: "cancelled", cancelling: false };
        case "denied":
          // The user's own Cancel of the confirmation is a cancel to them, not a refusal.
          if (isUsersOwnCancel(outcome.error)) {
            return { ...t, status: "cancelled", cancelling: false };
          }
          return { ...t, status: "denied", error: outcomeMessage(outcome), cancelling: false };
        default: {
          const unknown: never = outcome.status;
          void unknown;
          return t;
        }
      }
    }),
  };
  if (what?.kind === "list") {
    next = updatePane(next, what.side, (p) => {
      if (p.listing !== call) {
        // An older listing: a newer one is on its way.
        return p;
      }
      const result = outcome.status === "ok" ? listResult(outcome) : null;
      if (result === null) {
        const error = outcomeMessage(outcome);
        // The engine's words when the login may not open the folder (tools/files/walk.rs).
        const denied = /only root may open/.test(outcome.error ?? "");
        return { ...p, listing: null, findOpened: false, error, denied };
      }
      const names = new Set(result.entries.map((e) => e.name));
      return {
        ...p,
        listing: null,
        path: result.path,
        entries: result.entries,
        omitted: result.omitted,
        error: null,
        selected: p.selected.filter((name) => names.has(name)),
      };
    });
  } else if (what !== undefined) {
    const subject = what.what;
    const failed = outcome.status === "ok" ? failedPart() : null;
    switch (outcome.status) {
      case "ok":
        if (what.kind === "gather") {
          // The plan that copies it is on its way.
          break;
        }
        next =
          failed === null
            ? callEnded(next, call, { text: `Done: ${subject}.`, error: false }, true)
            : callEnded(next, call, { text: `Failed: ${subject}: ${failed}`, error: true }, false);
        break;
      case "error":
        next = callEnded(next, call, { text: `Failed: ${subject}: ${outcomeMessage(outcome)}`, error: true }, false);
        break;
      case "denied":
        next = isUsersOwnCancel(outcome.error)
          ? callEnded(next, call, { text: `Cancelled: ${subject}.`, error: false }, false)
          : callEnded(next, call, { text: `Not done: ${subject} (denied).`, error: true }, false);
        break;
      case "cancelled":
        next = callEnded(next, call, { text: `Cancelled: ${subject}.`, error: false }, false);
        break;
      default: {
        const unknown: never = outcome.status;
        void unknown;
      }
    }
  }
  return next;
}

/** One engine event applied to the storage tabs; `now` (ms) is when it arrived. */
export function applyStorageEvent(state: StorageState, event: Event, now: number = Date.now()): StorageState {
  switch (event.type) {
    case "tab_closed":
      return storageTabClosed(state, event.tab);
    case "tool_requested": {
      const transfer = transferOf(event.tool, event.args);
      if (transfer === null && event.tool !== "execute_plan") {
        return state;
      }
      return update(state, event.tab, (view) => {
        const asked = view.calls[event.call];
        if (
          transfer === null &&
          asked?.kind === "transfer" &&
          asked.folder !== undefined &&
          !view.transfers.some((t) => t.call === event.call)
        ) {
          // A folder the user copies: its row shows from the start.
          const row: Transfer = {
            ...newTransfer(event.call, asked.direction, `${asked.folder.name}/`, asked.folder.destination),
            total: asked.folder.bytes,
            folder: { path: null, fileBytes: 0, doneBytes: 0 },
          };
          return { ...view, transfers: [...view.transfers, row] };
        }
        if (view.transfers.some((t) => t.call === event.call) || transfer === null) {
          // execute_plan gets its row with its first progress: most plans move no data.
          return view;
        }
        return {
          ...view,
          transfers: [
            ...view.transfers,
            newTransfer(event.call, transfer.direction, transfer.name, transfer.destination),
          ],
        };
      });
    }
    case "approval_requested":
      return update(state, event.tab, (view) => {
        if (view.calls[event.call] === undefined || !needsConfirmation(event)) {
          return view;
        }
        if (view.confirmations.some((c) => c.call === event.call)) {
          return view;
        }
        const confirmation: Confirmation = {
          call: event.call,
          tool: event.tool,
          reasons: event.reasons,
          dangerous: event.risk !== "routine",
          lines: previewLines(event.preview),
        };
        return { ...view, confirmations: [...view.confirmations, confirmation] };
      });
    case "tool_running":
      return update(state, event.tab, (view) => ({
        ...view,
        transfers: view.transfers.map((t) =>
          t.call === event.call && t.status === "waiting" ? { ...t, status: "running" } : t,
        ),
      }));
    case "transfer_progress":
      return update(state, event.tab, (view) => {
        const known = view.transfers.some((t) => t.call === event.call);
        const transfers = known
          ? view.transfers
          : [...view.transfers, newTransfer(event.call, null, baseName(event.path), parentPath(event.path))];
        return {
          ...view,
          transfers: transfers.map((t) => {
            if (t.call !== event.call) {
              return t;
            }
            // A folder: the files before this one count as done.
            const folder =
              t.folder === null
                ? null
                : t.folder.path === event.path
                  ? { ...t.folder, fileBytes: event.total }
                  : { path: event.path, fileBytes: event.total, doneBytes: t.folder.doneBytes + t.folder.fileBytes };
            const transferred = (folder?.doneBytes ?? 0) + event.transferred;
            return {
              ...t,
              // A plan moves several files under one call: the row shows the current one.
              name: t.direction === null ? baseName(event.path) : t.name,
              current: folder === null ? null : baseName(event.path),
              folder,
              status: t.status === "waiting" ? "running" : t.status,
              transferred,
              total: folder === null ? event.total : Math.max(t.total, transferred),
              rate: event.rate,
              // The engine's estimate is for the file; a folder's comes from the speed now.
              etaS: folder !== null ? null : event.done ? 0 : (event.eta_s ?? null),
              recent: [
                ...t.recent.filter((sample) => now - sample.at <= SPEED_WINDOW_MS),
                { at: now, bytes: transferred },
              ],
            };
          }),
        };
      });
    case "tool_finished":
      return update(state, event.tab, (view) =>
        view.calls[event.call] === undefined && !view.transfers.some((t) => t.call === event.call)
          ? view
          : finished(view, event.call, event.outcome, event.duration_ms),
      );
    case "hello":
    case "tab_opened":
    case "tabs_reordered":
    case "tabs_restored":
    case "key_file_checked":
    case "agent_keys":
    case "security_key_touch":
    case "connection_state":
    case "terminal_output":
    case "mode_changed":
    case "host_facts":
    case "terminal_cwd":
    case "settings_changed":
    case "question_asked":
    case "prompt_requested":
    case "plan_proposed":
    case "plan_updated":
    case "error":
    case "turn_started":
    case "assistant_text":
    case "model_retrying":
    case "turn_finished":
    case "context_usage":
    case "models":
    case "model_settings_saved": // the "Pilot settings" dialog's answers: pilot-setup.ts
    case "model_tested":
    case "provider_models":
    case "saved_connections":
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
    case "snippets": // the snippet palette: snippets.svelte.ts
    case "snippet_expanded":
    case "broadcast_judged": // broadcast input: broadcast.ts
    case "view_shown":
    case "view_button_finished":
      return state;
    default: {
      const unknown: never = event;
      void unknown;
      return state;
    }
  }
}

/** The most operations one execute_plan takes (the engine's MAX_PLAN_OPS). */
export const MAX_PLAN_OPS = 200;

/** The path of `path` below `folder` (`a/b`), or null when it is not below it or a step of it
 * is not a name (`..`, `.`, empty): joined to the copy's folder it would be another place. */
function pathBelow(folder: string, path: string): string | null {
  const base = folder.replace(/\/+$/, "");
  if (!path.startsWith(`${base}/`)) {
    return null;
  }
  const relative = path.slice(base.length + 1);
  const steps = relative.split("/");
  return steps.some((step) => step === "" || step === "." || step === ".." || step.includes("\0")) ? null : relative;
}

/** The plan that copies the folder `gather` found (its find_files result) into the other side:
 * the folder itself, the folders in it, then every file; links and others are left out and
 * counted. What the server listed under a name that is another place (find_files' `refused`, a
 * path not inside the folder) is not copied and is named in `refused`. An error in words when it
 * cannot be one plan. */
export function folderPlan(
  gather: Extract<UserCall, { kind: "gather" }>,
  outcome: ToolOutcome,
): { ops: PlanOp[]; leftOut: number; bytes: number; refused: string[] } | { error: string } {
  const result = outcome.result as Partial<FindFilesResult> | null | undefined;
  if (outcome.status !== "ok" || result == null || !Array.isArray(result.matches)) {
    return { error: outcomeMessage(outcome) };
  }
  const name = baseName(gather.folder);
  if (result.truncated === true) {
    return { error: `${name} holds too many files and folders to copy at once; copy its folders one by one.` };
  }
  const top = joinPath(gather.destination, name);
  const otherSide: Side = gather.direction === "upload" ? "remote" : "local";
  const ops: PlanOp[] = [{ op: "make_dir", path: top, side: otherSide }];
  const files: PlanOp[] = [];
  const refused: string[] = (Array.isArray(result.refused) ? result.refused : []).map(
    (entry) => `${JSON.stringify(entry.name)} in ${entry.folder} (${entry.reason})`,
  );
  let leftOut = 0;
  let bytes = 0;
  // Parents before children, so each folder exists before what goes into it.
  const matches = [...result.matches].sort((a, b) => a.path.localeCompare(b.path));
  for (const found of matches) {
    const relative = pathBelow(gather.folder, found.path);
    if (relative === null) {
      refused.push(`${JSON.stringify(found.path)} (not a path inside ${gather.folder})`);
      continue;
    }
    const into = (below: string): string => (below === "" ? top : joinPath(top, below));
    if (found.kind === "dir") {
      ops.push({ op: "make_dir", path: into(relative), side: otherSide });
    } else if (found.kind === "file") {
      bytes += found.size;
      const folder = into(relative.includes("/") ? parentPath(relative) : "");
      files.push(
        gather.direction === "upload"
          ? { op: "upload", local_path: found.path, remote_dir: folder }
          : { op: "download", remote_path: found.path, local_dir: folder },
      );
    } else {
      leftOut += 1;
    }
  }
  const all = [...ops, ...files];
  if (all.length > MAX_PLAN_OPS) {
    return {
      error: `${name} needs ${all.length} steps to copy, more than ${MAX_PLAN_OPS} at once; copy its folders one by one.`,
    };
  }
  return { ops: all, leftOut, bytes, refused };
}

/** A folder copy's refused entries (`folderPlan`'s `refused`) in one sentence. */
export function refusedWords(refused: string[]): string | null {
  const [first] = refused;
  if (first === undefined) {
    return null;
  }
  const more = refused.length > 1 ? ` and ${refused.length - 1} more` : "";
  const count =
    refused.length === 1 ? "1 entry the server listed was" : `${refused.length} entries the server listed were`;
  return `${count} not copied: ${first}${more}`;
}

/** Whether an approval of a call the user started here is put to the user once more. The
 * action that started it was the decision for plain work (a new folder, a rename to a free
 * name typed in its dialog, a copy to a free name); a delete, and whatever the policy marks
 * dangerous (replacing or destroying data), is confirmed with the engine's own account of it. */
export function needsConfirmation(event: Extract<Event, { type: "approval_requested" }>): boolean {
  return event.risk !== "routine" || event.tool === "delete";
}

/** The list_dir to send after a listing arrived, when the local pane still walks down the way
 * to the opened folder: the way down is one folder without a time (fs/confined.rs). */
export function nextStepDown(view: StorageTab): string | null {
  const local = view.panes.local;
  if (!local.findOpened || local.listing !== null || local.error !== null) {
    return null;
  }
  const only = local.entries.length === 1 ? local.entries[0] : undefined;
  if (only === undefined || only.kind !== "dir" || only.modified != null) {
    return null;
  }
  return joinPath(local.path, only.name);
}

/** The local pane found its folder: it stops walking down. */
export function stepDownEnded(state: StorageState, tab: TabId): StorageState {
  return update(state, tab, (view) =>
    updatePane(view, "local", (p) => (p.findOpened ? { ...p, findOpened: false } : p)),
  );
}

/** The sides whose listing a finished call changed (any call of the tab, Pilot's too). */
export function sidesChangedBy(event: Extract<Event, { type: "tool_finished" }>, args: unknown): Side[] {
  if (event.outcome.status !== "ok" && event.outcome.status !== "error") {
    return [];
  }
  const side = (): Side[] => {
    const value = typeof args === "object" && args !== null ? (args as Record<string, unknown>).side : undefined;
    return [value === "local" ? "local" : "remote"];
  };
  switch (event.outcome.tool) {
    case "upload":
      return ["remote"];
    case "download":
      return ["local"];
    case "make_dir":
    case "rename":
    case "delete":
    case "write_file":
    case "edit_file":
      return side();
    case "execute_plan":
      return ["local", "remote"];
    default:
      return [];
  }
}
