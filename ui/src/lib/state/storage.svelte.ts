// The storage tabs of the page: their state (a rune, replaced whole by the reducer in
// storage.ts) and the actions the storage components call. Each action is a tool call through
// the engine (`run_tool`), answered by the engine's tool events; approvals of those calls are
// confirmed by the user where the engine's account says so (`needsConfirmation`).

import { USER_CANCELLED_REASON } from "../people-text";
import type { TabId } from "../ids";
import type {
  DeleteParams,
  DownloadParams,
  Event,
  ExecutePlanParams,
  FindFilesParams,
  ListDirParams,
  MakeDirParams,
  Op,
  ReadFileParams,
  RenameParams,
  Side,
  TabTarget,
  TabView,
  ToolOutcome,
  UploadParams,
  Value,
  WriteFileParams,
} from "../protocol";
import {
  USER_CALL_PREFIX,
  applyStorageEvent,
  baseName,
  batchStarted,
  callFailed,
  callStarted,
  followUpStarted,
  folderPlan,
  refusedWords,
  isUserCall,
  cancelRequested,
  confirmationAnswered,
  finishedCleared,
  initialStorage,
  joinPath,
  listRequested,
  localSideShown,
  rootFolderFor,
  folderRestored,
  needsConfirmation,
  nextStepDown,
  parentPath,
  selectionChanged,
  shellPaneOpened,
  sidesChangedBy,
  sortChanged,
  stepDownEnded,
  storageTabClosed,
  storageTabOpened,
  transferRetried,
  type CallId,
  type SortKey,
  type StorageState,
  type UserCall,
} from "./storage";

/** A tool's parameters as the JSON `run_tool` carries (they are plain JSON by construction). */
type ToolCall =
  | { tool: "list_dir"; args: ListDirParams }
  | { tool: "find_files"; args: FindFilesParams }
  | { tool: "execute_plan"; args: ExecutePlanParams }
  | { tool: "make_dir"; args: MakeDirParams }
  | { tool: "rename"; args: RenameParams }
  | { tool: "delete"; args: DeleteParams }
  | { tool: "upload"; args: UploadParams }
  | { tool: "download"; args: DownloadParams }
  | { tool: "read_file"; args: ReadFileParams }
  | { tool: "write_file"; args: WriteFileParams };

function asValue(args: ToolCall["args"]): Value {
  return JSON.parse(JSON.stringify(args)) as Value;
}

function newCallId(): CallId {
  const bytes = new Uint8Array(6);
  globalThis.crypto.getRandomValues(bytes);
  return `${USER_CALL_PREFIX}${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export class StorageDesk {
  state: StorageState = $state.raw(initialStorage());
  private readonly send: (op: Op) => void;
  /** Secrets typed into the "New connection" form, by tab, until the engine asks for them
   * (a password prompt of that tab) or the tab connects or fails. Never shown or stored. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- never shown
  private readonly secrets = new Map<TabId, string>();
  /** What each call of a storage tab was asked to do (Pilot's too), to know what a finished
   * call changed. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping that nothing shows
  private readonly requested = new Map<CallId, unknown>();
  /** Targets of storage tabs opened here, for where the local pane starts. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping that nothing shows
  private readonly targets = new Map<TabId, TabTarget>();
  /** Each storage tab's folders as last told to the engine, which reopens the tab at them after
   * a restart (`remember_tab_view`, `tabs_restored`). */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping that nothing shows
  private readonly views = new Map<TabId, TabView>();

  /** Calls whose outcome a caller awaits (the file editor's reads and saves). */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping that nothing shows
  private readonly awaited = new Map<CallId, (outcome: ToolOutcome) => void>();

  constructor(send: (op: Op) => void) {
    this.send = send;
  }

  /** A storage tab was opened from this page on `target`, with the secret typed for it. */
  opened(tab: TabId, target: TabTarget, secret: string | null): void {
    this.targets.set(tab, target);
    if (secret !== null && secret !== "") {
      this.secrets.set(tab, secret);
    }
    this.state = storageTabOpened(this.state, tab, target);
  }

  /** A terminal tab's file pane was opened: its tab's files, from `path` (shell-pane.ts). */
  openShellPane(tab: TabId, path: string): void {
    if (this.state.tabs[tab] !== undefined) return;
    this.state = shellPaneOpened(this.state, tab, path);
    this.list(tab, "remote", path);
  }

  /** A terminal tab's file pane shows this computer's side: listed the first time. */
  showLocal(tab: TabId): void {
    const local = this.state.tabs[tab]?.panes.local;
    if (local === undefined || local.entries.length > 0 || local.listing !== null) return;
    this.state = localSideShown(this.state, tab);
    this.list(tab, "local", "/");
  }

  closed(tab: TabId): void {
    this.secrets.delete(tab);
    this.targets.delete(tab);
    this.views.delete(tab);
    this.state = storageTabClosed(this.state, tab);
  }

  /** One engine event. Returns true when it was handled here and nothing else should see it:
   * a password prompt answered with the secret from the form, and the tool events of calls a
   * storage tab made for the user (`user-…`, from this page or another): they are the user's
   * own actions, shown in the panes and Transfers, not Pilot's work for its panel. They are in
   * the audit log like every call. */
  handle(event: Event): boolean {
    switch (event.type) {
      case "prompt_requested": {
        const tab = event.tab ?? null;
        const secret = tab === null ? undefined : this.secrets.get(tab);
        if (tab === null || secret === undefined || event.prompt.kind !== "password") {
          return false;
        }
        this.secrets.delete(tab);
        this.send({ type: "answer_prompt", prompt: event.prompt_id, answer: { kind: "secret", value: secret } });
        return true;
      }
      case "tabs_restored":
        // Storage tabs of the last run reopen at the folders they showed; the listing follows
        // when each is connected (or now, when it already is).
        for (const [tab, view] of Object.entries(event.views)) {
          this.views.set(tab, view);
          const shown = this.state.tabs[tab];
          if (shown === undefined || shown.shell === true) continue;
          const sides: [Side, string | null | undefined][] = [
            ["remote", view.folder],
            ["local", view.local_folder],
          ];
          for (const [side, path] of sides) {
            if (path === null || path === undefined || !path.startsWith("/")) continue;
            if (shown.panes[side].listing === null && shown.panes[side].entries.length === 0) {
              this.state = folderRestored(this.state, tab, side, path);
            } else {
              this.list(tab, side, path);
            }
          }
        }
        return false;
      case "tab_opened":
        if (event.kind === "storage") {
          this.state = storageTabOpened(this.state, event.tab, this.targets.get(event.tab) ?? null);
        }
        return false;
      case "connection_state":
        if (event.state.state !== "connecting") {
          this.secrets.delete(event.tab);
        }
        if (event.state.state === "connected" && this.state.tabs[event.tab] !== undefined) {
          if (this.state.tabs[event.tab]?.shell !== true) {
            this.refresh(event.tab, "local");
          }
          this.refresh(event.tab, "remote");
        }
        return false;
      case "tool_requested":
        if (this.state.tabs[event.tab] !== undefined) {
          this.requested.set(event.call, event.args);
        }
        break;
      case "approval_requested": {
        const view = this.state.tabs[event.tab];
        if (view?.calls[event.call] !== undefined && !needsConfirmation(event)) {
          // The user's click that started it was the decision.
          this.send({ type: "approve", call: event.call, decision: "approve", reason: null, automatic: false });
        }
        break;
      }
      case "tool_finished": {
        this.awaited.get(event.call)?.(event.outcome);
        this.awaited.delete(event.call);
        const asked = this.state.tabs[event.tab]?.calls[event.call];
        const args = this.requested.get(event.call);
        this.requested.delete(event.call);
        this.state = applyStorageEvent(this.state, event);
        const view = this.state.tabs[event.tab];
        if (view === undefined) {
          return isUserCall(event.call);
        }
        for (const side of sidesChangedBy(event, args)) {
          this.refresh(event.tab, side);
        }
        if (asked?.kind === "gather") {
          this.copyFolder(event.tab, asked, event);
        }
        const down = nextStepDown(view);
        if (down !== null) {
          this.list(event.tab, "local", down);
        } else if (view.panes.local.findOpened && view.panes.local.listing === null) {
          this.state = stepDownEnded(this.state, event.tab);
        }
        return isUserCall(event.call);
      }
      default:
        break;
    }
    this.state = applyStorageEvent(this.state, event);
    return "call" in event && typeof event.call === "string" && isUserCall(event.call);
  }

  /** Sends a tool call of the page's; `after`: the call whose work it carries on. */
  private run(tab: TabId, { tool, args }: ToolCall, what: UserCall, after: CallId | null = null): CallId {
    const call = newCallId();
    this.state =
      after === null ? callStarted(this.state, tab, call, what) : followUpStarted(this.state, tab, after, call, what);
    this.send({ type: "run_tool", tab, call, tool, args: asValue(args) });
    return call;
  }

  /** Reads a text file of the server for the editor (as root with `sudo`), through the
   * pipeline like every call of the user's; resolves with the call's outcome. */
  readFile(tab: TabId, path: string, sudo: boolean): Promise<ToolOutcome> {
    const args: ReadFileParams = sudo ? { path, sudo } : { path };
    return this.awaitCall(tab, { tool: "read_file", args }, `open ${path}${sudo ? " as root" : ""}`);
  }

  /** Saves the editor's text over the file it read (write_file: the policy, backup and audit
   * of every change); resolves with the call's outcome. */
  writeFile(tab: TabId, path: string, content: string, sudo: boolean): Promise<ToolOutcome> {
    const args: WriteFileParams = sudo ? { path, content, sudo } : { path, content };
    return this.awaitCall(tab, { tool: "write_file", args }, `save ${path}${sudo ? " as root" : ""}`);
  }

  private awaitCall(
    tab: TabId,
    call: Extract<ToolCall, { tool: "read_file" | "write_file" }>,
    what: string,
  ): Promise<ToolOutcome> {
    return new Promise((resolve) => {
      const id = this.run(tab, call, { kind: "change", tool: call.tool, side: "remote", what });
      this.awaited.set(id, resolve);
    });
  }

  /** Lists `path`; through sudo when `asRoot` (the pane's "Open as root") or when it is in the
   * folder the user opened as root. */
  list(tab: TabId, side: Side, path: string, asRoot = false): void {
    const call = newCallId();
    const pane = this.state.tabs[tab]?.panes[side];
    const root = asRoot ? path : rootFolderFor(pane?.rootFolder ?? null, path);
    this.state = listRequested(this.state, tab, side, path, call, root);
    const args: ListDirParams = root === null ? { path, side } : { path, side, sudo: true };
    this.send({ type: "run_tool", tab, call, tool: "list_dir", args: asValue(args) });
    this.remember(tab);
  }

  /** Tells the engine the folders a storage tab shows, when they changed. */
  private remember(tab: TabId): void {
    const view = this.state.tabs[tab];
    if (view === undefined || view.shell === true) return;
    const before = this.views.get(tab);
    const local = view.panes.local;
    const next: TabView = {
      pilot_open: before?.pilot_open ?? false,
      folder: view.panes.remote.path,
      local_folder: local.findOpened ? (before?.local_folder ?? null) : local.path,
    };
    if (before?.folder === next.folder && before?.local_folder === next.local_folder) return;
    this.views.set(tab, next);
    this.send({ type: "remember_tab_view", tab, view: next });
  }

  refresh(tab: TabId, side: Side): void {
    const pane = this.state.tabs[tab]?.panes[side];
    if (pane !== undefined) {
      this.list(tab, side, pane.path);
    }
  }

  up(tab: TabId, side: Side): void {
    const pane = this.state.tabs[tab]?.panes[side];
    if (pane !== undefined && pane.path !== "/") {
      this.list(tab, side, parentPath(pane.path));
    }
  }

  sortBy(tab: TabId, side: Side, key: SortKey): void {
    this.state = sortChanged(this.state, tab, side, key);
  }

  select(tab: TabId, side: Side, names: string[]): void {
    this.state = selectionChanged(this.state, tab, side, names);
  }

  makeDir(tab: TabId, side: Side, name: string): void {
    const pane = this.state.tabs[tab]?.panes[side];
    if (pane === undefined) return;
    const path = joinPath(pane.path, name);
    this.run(
      tab,
      { tool: "make_dir", args: { path, side } },
      { kind: "change", tool: "make_dir", side, what: `new folder ${path}` },
    );
  }

  rename(tab: TabId, side: Side, from: string, to: string): void {
    const pane = this.state.tabs[tab]?.panes[side];
    if (pane === undefined || from === to) return;
    const [source, target] = [joinPath(pane.path, from), joinPath(pane.path, to)];
    this.run(
      tab,
      { tool: "rename", args: { from: source, to: target, side } },
      { kind: "change", tool: "rename", side, what: `rename ${source} to ${to}` },
    );
  }

  delete(tab: TabId, side: Side, names: string[]): void {
    const pane = this.state.tabs[tab]?.panes[side];
    if (pane === undefined) return;
    const calls = names.map((name) => {
      const entry = pane.entries.find((e) => e.name === name);
      const path = joinPath(pane.path, name);
      // A folder goes with what is in it: the engine's confirmation says how much that is.
      const args: DeleteParams = { path, side, recursive: entry?.kind === "dir" };
      return this.run(tab, { tool: "delete", args }, { kind: "change", tool: "delete", side, what: `delete ${path}` });
    });
    this.state = batchStarted(this.state, tab, calls, `delete ${calls.length} items`);
  }

  /** Copies the named files and folders of one pane into the folder shown in the other (or `into`,
   * a folder of the other side they were dropped on). Links and special files are not copied; the
   * status line says so, then and in the summary when the copies end. */
  transfer(tab: TabId, from: Side, names: string[], into: string | null = null): void {
    const view = this.state.tabs[tab];
    if (view === undefined) return;
    const source = view.panes[from];
    const destination = into ?? view.panes[from === "local" ? "remote" : "local"].path;
    const skipped: string[] = [];
    const calls: CallId[] = [];
    let folders = 0;
    /** What the one call says of itself, when there is one. */
    let whatOne: string | null = null;
    const direction = from === "local" ? "upload" : "download";
    for (const name of names) {
      const entry = source.entries.find((e) => e.name === name);
      const path = joinPath(source.path, name);
      if (entry?.kind === "dir") {
        // What is in it first (names and sizes only), then one plan that copies it all.
        folders += 1;
        whatOne = `${direction} folder ${name}`;
        calls.push(
          this.run(
            tab,
            { tool: "find_files", args: { path, side: from, limit: 1000 } },
            { kind: "gather", direction, folder: path, destination, what: whatOne },
          ),
        );
        continue;
      }
      if (entry !== undefined && entry.kind !== "file") {
        skipped.push(name);
        continue;
      }
      whatOne = `${direction} ${name}`;
      const call: ToolCall =
        from === "local"
          ? { tool: "upload", args: { local_path: path, remote_dir: destination } }
          : { tool: "download", args: { remote_path: path, local_dir: destination } };
      calls.push(this.run(tab, call, { kind: "transfer", direction, what: whatOne }));
    }
    const leftOut = skipped.length > 0 ? `Only files and folders are copied; left out: ${skipped.join(", ")}.` : null;
    const what =
      calls.length === 1 && whatOne !== null
        ? whatOne
        : `${direction} ${calls.length} ${folders > 0 ? "items" : "files"}`;
    this.state = batchStarted(this.state, tab, calls, what, leftOut);
    const after = this.state.tabs[tab];
    if (leftOut !== null && after !== undefined) {
      this.state = { tabs: { ...this.state.tabs, [tab]: { ...after, status: { text: leftOut, error: true } } } };
    }
  }

  /** Uploads files of this computer given by full path (dropped from the OS onto the storage
   * side) into the folder the storage side shows, each through the usual approval path. */
  uploadPaths(tab: TabId, paths: string[]): void {
    const view = this.state.tabs[tab];
    if (view === undefined) return;
    const destination = view.panes.remote.path;
    const calls = paths.map((path) =>
      this.run(
        tab,
        { tool: "upload", args: { local_path: path, remote_dir: destination } },
        { kind: "transfer", direction: "upload", what: `upload ${baseName(path)}` },
      ),
    );
    this.state = batchStarted(this.state, tab, calls, `upload ${calls.length} files`);
  }

  /** The folder `gather` looked through is copied by one plan (one approval, one row). */
  private copyFolder(
    tab: TabId,
    gather: Extract<UserCall, { kind: "gather" }>,
    event: Extract<Event, { type: "tool_finished" }>,
  ): void {
    const name = baseName(gather.folder);
    const plan = folderPlan(gather, event.outcome);
    const view = this.state.tabs[tab];
    if (view === undefined) return;
    if ("error" in plan) {
      this.state = callFailed(this.state, tab, event.call, `Failed: ${gather.what}: ${plan.error}`);
      return;
    }
    const refused = refusedWords(plan.refused);
    this.run(
      tab,
      { tool: "execute_plan", args: { ops: plan.ops } },
      {
        kind: "transfer",
        direction: gather.direction,
        what: gather.what,
        folder: { name, destination: gather.destination, bytes: plan.bytes },
        ...(refused === null ? {} : { refused }),
      },
      event.call,
    );
    if (plan.leftOut > 0) {
      const after = this.state.tabs[tab];
      if (after !== undefined) {
        const text = `${plan.leftOut} links or special files in ${name} are left out.`;
        this.state = { tabs: { ...this.state.tabs, [tab]: { ...after, status: { text, error: false } } } };
      }
    }
  }

  cancel(tab: TabId, call: CallId): void {
    this.state = cancelRequested(this.state, tab, call);
    this.send({ type: "cancel", tab, call });
  }

  retry(tab: TabId, call: CallId): void {
    const fresh = newCallId();
    this.state = transferRetried(this.state, tab, call, fresh);
    this.send({ type: "retry_transfer", tab, call, new_call: fresh });
  }

  clearFinished(tab: TabId): void {
    this.state = finishedCleared(this.state, tab);
  }

  /** The user's answer to a confirmation of one of this page's calls. */
  confirm(tab: TabId, call: CallId, approve: boolean): void {
    this.state = confirmationAnswered(this.state, tab, call);
    this.send({
      type: "approve",
      call,
      decision: approve ? "approve" : "deny",
      reason: approve ? null : USER_CANCELLED_REASON,
      automatic: false,
    });
  }
}

/** A storage tab to open, as the "New connection" form made it. */
export interface StorageRequest {
  target: Extract<TabTarget, { kind: "storage" }>;
  title: string;
  /** Typed in a masked field; empty: from the keychain, or the engine asks. */
  secret: string;
}
