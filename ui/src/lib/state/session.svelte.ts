// The page's session with the engine: the state (a rune, replaced whole by the reducers in
// app.ts), the transport, and the actions the components call. Components read `session.state`
// and call these methods; none of them talks to the transport directly.

import type { PromptId, TabId } from "../ids";
import type {
  ApprovalDecision,
  ForwardSpec,
  Mode,
  ModelSettings,
  PromptAnswer,
  TabTarget,
  ViewButton,
} from "../protocol";
import { TerminalOutput } from "../terminal-output";
import { TitleScanner } from "../terminal-title";
import type { Transport } from "../transport/transport";
import { BroadcastInput } from "./broadcast.svelte";
import { StorageDesk, type StorageRequest } from "./storage.svelte";
import {
  activate,
  addNotice,
  applyEvent,
  initialState,
  linkChanged,
  noticeDismissed,
  promptAnswered,
  tabClosing,
  tabOpening,
  tabReconnecting,
  tabsReordered,
  terminalTitled,
  type AppState,
} from "./app";
import {
  alwaysAllowUndo,
  applyPilotEvent,
  decided,
  initialPilot,
  isBusy,
  messageSent,
  modeChosen,
  modelChosen,
  questionAnswered,
  secretEntered,
  sendFailed,
  tabPilot,
  viewButtonPressed,
  type CallId,
  type PilotState,
} from "./pilot";
import { applyModelsEvent, initialModels, type ModelsState } from "./pilot-models";
import { applySetupEvent, initialModelSetup, setupAsked, type ModelSetupState } from "./pilot-setup";
import { Library } from "./library.svelte";
import { SnippetRequests } from "./snippets.svelte";

/** A terminal size to open with until the view measures itself. */
const DEFAULT_COLS = 100;
const DEFAULT_ROWS = 30;

/** A fresh tab id: random, so two pages on one server never pick the same. */
export function newTabId(): TabId {
  const bytes = new Uint8Array(6);
  globalThis.crypto.getRandomValues(bytes);
  return `tab-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Said when keys are typed into a terminal tab that is not connected. */
export const NOT_SENT = "What you typed was not sent: this tab is not connected. Type it again once it is.";

export class Session {
  state: AppState = $state.raw(initialState());
  /** Pilot's conversation and cards, per tab. */
  pilot: PilotState = $state.raw(initialPilot());
  /** The models Pilot can use, once the engine said. */
  models: ModelsState = $state.raw(initialModels());
  /** What the engine answered to the "Pilot settings" dialog. */
  modelSetup: ModelSetupState = $state.raw(initialModelSetup());
  /** A tab the user wants to close while Pilot works in it: asked first. */
  closeAsked: TabId | null = $state(null);
  /** The file with unsaved edits in each SSH tab's editor (its name), if any. */
  unsavedEdits: Record<TabId, string> = $state({});
  /** Something that would throw away unsaved edits (closing the editor, its pane or its tab),
   * asked first: "Discard changes to NAME?". */
  discardAsked: { tab: TabId; name: string; then: () => void } | null = $state(null);
  readonly output = new TerminalOutput();
  /** Saved connections, settings, the audit log. */
  readonly library: Library;
  /** The snippet palette's requests. */
  readonly snippets: SnippetRequests;
  /** Broadcast input: one typed line into several terminal tabs. */
  readonly broadcast: BroadcastInput;
  /** The storage tabs' panes and transfers (storage.svelte.ts). */
  readonly storage: StorageDesk;
  private readonly transport: Transport;
  private readonly stop: () => void;
  private everOpen = false;
  /** Keystrokes typed while a tab was still connecting: the engine takes input only once it
   * is connected, so they wait here and go out, in order, when it is. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping that nothing shows
  private readonly typedAhead = new Map<TabId, Uint8Array[]>();
  /** Each terminal tab's title finder (its titles land in `state`). */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping that nothing shows
  private readonly titles = new Map<TabId, TitleScanner>();

  constructor(transport: Transport) {
    this.transport = transport;
    this.library = new Library(transport);
    this.snippets = new SnippetRequests(transport);
    this.broadcast = new BroadcastInput(transport);
    this.storage = new StorageDesk((op) => transport.send(op));
    this.stop = transport.subscribe((message) => {
      switch (message.kind) {
        case "event":
          this.snippets.handle(message.event);
          this.broadcast.handle(message.event);
          if (this.library.answered(message.event)) {
            // Shown in the dialog that asked.
            break;
          }
          if (this.storage.handle(message.event)) {
            // The user's own storage calls: their panes and Transfers, not Pilot's panel.
            break;
          }
          if (message.event.type === "hello") {
            // The first-load benchmark reads this: from here the page can drive the engine.
            performance.mark("kaiport:engine-ready");
          }
          this.state = applyEvent(this.state, message.event);
          this.pilot = applyPilotEvent(this.pilot, message.event);
          this.models = applyModelsEvent(this.models, message.event);
          this.modelSetup = applySetupEvent(this.modelSetup, message.event);
          if (message.event.type === "model_settings_saved" && message.event.problem == null) {
            // What the model picker shows (and a server started with model flags keeps those).
            this.transport.send({ type: "list_models" });
          }
          if (message.event.type === "error" && message.event.tab != null) {
            // A message the engine refused (busy, no such tab) is no longer on its way.
            this.pilot = sendFailed(this.pilot, message.event.tab);
          }
          if (message.event.type === "connection_state") {
            this.connectionChanged(message.event.tab, message.event.state.state === "connected");
          }
          break;
        case "output":
          this.output.write(message.tab, message.data);
          this.readTitle(message.tab, message.data);
          break;
        case "link":
          if (message.status === "open") {
            if (this.everOpen) {
              // The server replays tabs, prompts and recent output on every connection.
              this.output.resetAll();
              this.titles.clear();
              this.pilot = initialPilot();
            }
            this.everOpen = true;
            this.transport.send({ type: "list_models" });
          }
          if (message.status === "closed") {
            this.snippets.linkClosed();
          }
          this.state = linkChanged(this.state, message.status);
          break;
      }
    });
  }

  /** The tab's title from its own bytes (lib/terminal-title.ts). */
  private readTitle(tab: TabId, data: Uint8Array): void {
    let scanner = this.titles.get(tab);
    if (scanner === undefined) {
      scanner = new TitleScanner();
      this.titles.set(tab, scanner);
    }
    const changes = scanner.scan(data);
    if (changes.length > 0) {
      this.state = terminalTitled(this.state, tab, changes);
    }
  }

  dispose(): void {
    this.library.dispose();
    this.stop();
    this.transport.close();
  }

  open(target: TabTarget, title: string): TabId {
    const tab = newTabId();
    this.state = tabOpening(this.state, tab, target, title);
    this.transport.send({
      type: "open_tab",
      tab,
      target,
      cols: DEFAULT_COLS,
      rows: DEFAULT_ROWS,
      settings: null,
      mode: null,
    });
    return tab;
  }

  /** Open a storage tab from the "New connection" form. */
  openStorage(request: StorageRequest): TabId {
    // Where the engine keeps every tab's local side, the pane starts there.
    const documents = this.state.engine?.documents ?? null;
    const target = documents === null ? request.target : { ...request.target, local_roots: [documents] };
    const tab = this.open(target, request.title);
    this.storage.opened(tab, target, request.secret);
    return tab;
  }

  openLocal(): TabId {
    return this.open({ kind: "local" }, "local");
  }

  /** Open the dropped or failed tab `tab` again, in its place. */
  reconnect(tab: TabId): void {
    const view = this.state.tabs.find((t) => t.id === tab);
    if (view === undefined) {
      return;
    }
    // The same tab on a new connection: its place, scrollback and Pilot conversation stay. The
    // engine keeps the size this page last told it.
    this.state = tabReconnecting(this.state, tab);
    this.transport.send({ type: "reconnect_tab", tab });
  }

  /** Open a port forward on the SSH tab `tab` (answered by `forward_state`, or an error). */
  openForward(tab: TabId, forward: ForwardSpec): void {
    this.transport.send({ type: "open_forward", tab, forward });
  }

  /** Close the forward `id` of `tab`. */
  closeForward(tab: TabId, id: number): void {
    this.transport.send({ type: "close_forward", tab, id });
  }

  /** Stop the engine's automatic reconnect of `tab`: it stays dropped, with "Reconnect". */
  cancelReconnect(tab: TabId): void {
    this.transport.send({ type: "cancel_reconnect", tab });
  }

  /** The editor of `tab` has unsaved edits of the file `name` (`null`: none now). */
  editorChanged(tab: TabId, name: string | null): void {
    if (name === null) {
      if (this.unsavedEdits[tab] === undefined) return;
      const rest = { ...this.unsavedEdits };
      delete rest[tab];
      this.unsavedEdits = rest;
    } else if (this.unsavedEdits[tab] !== name) {
      this.unsavedEdits = { ...this.unsavedEdits, [tab]: name };
    }
  }

  /** Runs `then` (which throws away the editor of `tab`) at once when it has no unsaved edits,
   * else once the user chose "Discard". */
  whenDiscarded(tab: TabId, then: () => void): void {
    const name = this.unsavedEdits[tab];
    if (name === undefined) {
      then();
    } else {
      this.discardAsked = { tab, name, then };
    }
  }

  /** The answer to "Discard changes to NAME?". */
  discardAnswered(discard: boolean): void {
    const asked = this.discardAsked;
    this.discardAsked = null;
    if (asked === null || !discard) return;
    this.editorChanged(asked.tab, null);
    asked.then();
  }

  /** Close a tab; with unsaved edits in its editor, or while Pilot works in it, ask first
   * (`force` once the user said yes). */
  close(tab: TabId, force = false): void {
    if (!force && this.unsavedEdits[tab] !== undefined) {
      this.whenDiscarded(tab, () => this.close(tab));
      return;
    }
    if (!force && isBusy(this.pilot, tab)) {
      this.closeAsked = tab;
      return;
    }
    if (this.closeAsked === tab) {
      this.closeAsked = null;
    }
    this.typedAhead.delete(tab);
    this.editorChanged(tab, null);
    this.storage.closed(tab);
    this.state = tabClosing(this.state, tab);
    this.output.forget(tab);
    this.titles.delete(tab);
    this.transport.send({ type: "close_tab", tab });
  }

  /** Move `tab` to `index` in the one order every window shows: here at once, the engine
   * tells every page (`tabs_reordered`). */
  moveTab(tab: TabId, index: number): void {
    const order = this.state.tabs.map((t) => t.id).filter((id) => id !== tab);
    if (order.length === this.state.tabs.length) {
      return;
    }
    order.splice(Math.max(0, Math.min(index, order.length)), 0, tab);
    this.state = tabsReordered(this.state, order);
    this.transport.send({ type: "move_tab", tab, index });
  }

  activate(tab: TabId): void {
    this.state = activate(this.state, tab);
  }

  /** Tells the engine which tab this page shows, for the next start to show it again. */
  shown(tab: TabId): void {
    if (this.state.tabs.some((t) => t.id === tab)) {
      this.transport.send({ type: "show_tab", tab });
    }
  }

  input(tab: TabId, data: Uint8Array): void {
    if (data.includes(13) || data.includes(10)) {
      this.pilot = secretEntered(this.pilot, tab);
    }
    const view = this.state.tabs.find((t) => t.id === tab);
    if (view?.connection.state === "connecting") {
      const waiting = this.typedAhead.get(tab) ?? [];
      waiting.push(data);
      this.typedAhead.set(tab, waiting);
      return;
    }
    if (view !== undefined && view.connection.state !== "connected" && view.kind === "terminal") {
      // Not held for a shell that may come back as a new one (a line typed for the old one
      // could run in another folder): said, so that nobody waits for it. Terminal reports
      // (focus, mouse) start with ESC and are not the user's typing.
      if (data[0] !== 0x1b) {
        this.state = addNotice(this.state, tab, NOT_SENT);
      }
      return;
    }
    this.transport.input(tab, data);
  }

  /** Told of each tab that connected, with the target and title it was opened with. */
  onConnected: ((target: TabTarget, title: string) => void) | null = null;

  private connectionChanged(tab: TabId, connected: boolean): void {
    const waiting = this.typedAhead.get(tab);
    this.typedAhead.delete(tab);
    const view = this.state.tabs.find((t) => t.id === tab);
    if (connected && view?.target != null) {
      this.onConnected?.(view.target, view.title);
    }
    if (connected) {
      for (const data of waiting ?? []) {
        this.transport.input(tab, data);
      }
    }
  }

  resize(tab: TabId, cols: number, rows: number): void {
    this.transport.send({ type: "resize", tab, cols, rows });
  }

  answerPrompt(prompt: PromptId, answer: PromptAnswer): void {
    this.state = promptAnswered(this.state, prompt);
    this.transport.send({ type: "answer_prompt", prompt, answer });
  }

  /** A message to Pilot in `tab`, with the model the user picked there (else the server's). */
  sendMessage(tab: TabId, text: string): void {
    const model = tabPilot(this.pilot, tab).model;
    this.pilot = messageSent(this.pilot, tab, text);
    this.transport.send({ type: "send_message", tab, text, model });
  }

  cancelTurn(tab: TabId): void {
    this.transport.send({ type: "cancel_turn", tab });
  }

  setMode(tab: TabId, mode: Mode): void {
    this.pilot = modeChosen(this.pilot, tab, mode);
    this.transport.send({ type: "set_mode", tab, mode });
  }

  chooseModel(tab: TabId, model: ModelSettings | null): void {
    this.pilot = modelChosen(this.pilot, tab, model);
  }

  /** The provider's model list for the "Pilot settings" dialog (`apiKey`: one just typed). */
  listProviderModels(settings: ModelSettings, apiKey: string | null): void {
    this.modelSetup = setupAsked(this.modelSetup, "list");
    this.transport.send({ type: "list_provider_models", settings, api_key: apiKey });
  }

  /** One tiny request to the model of `settings`. */
  testModel(settings: ModelSettings, apiKey: string | null): void {
    this.modelSetup = setupAsked(this.modelSetup, "test");
    this.transport.send({ type: "test_model", settings, api_key: apiKey });
  }

  /** Save `settings` as Pilot's model (the key, when typed, into the OS keychain). */
  saveModelSettings(settings: ModelSettings, apiKey: string | null): void {
    this.modelSetup = setupAsked(this.modelSetup, "save");
    this.transport.send({ type: "save_model_settings", settings, api_key: apiKey });
  }

  /** Approve or deny a call, a plan or an added plan step; a deny may carry the user's reason
   * for Pilot, an approval of run_command the line as the user edited it. */
  approve(
    tab: TabId,
    call: CallId,
    decision: ApprovalDecision,
    { reason = null, command = null }: { reason?: string | null; command?: string | null } = {},
  ): void {
    this.pilot = decided(this.pilot, tab, call, decision, command !== null);
    const cleaned = reason?.trim() ?? "";
    this.transport.send({
      type: "approve",
      call,
      decision,
      reason: cleaned === "" ? null : cleaned,
      ...(command !== null ? { command } : {}),
    });
  }

  /** "Undo always allow" on a card: its rule leaves the tab's allowed commands and those of the
   * saved connection the tab was opened from, through the ops Connection settings uses. */
  async undoAlwaysAllow(tab: TabId, call: CallId): Promise<void> {
    const rule = this.pilot.tabs[tab]?.calls[call]?.alwaysAllowed?.rule;
    if (rule === undefined) {
      return;
    }
    this.pilot = alwaysAllowUndo(this.pilot, tab, call, { kind: "undoing" });
    const target = this.state.tabs.find((t) => t.id === tab)?.target;
    const profile = target?.kind === "profile" ? target.name : null;
    const ended = await this.library.removeAllowedCommand(tab, profile, rule);
    this.pilot = alwaysAllowUndo(this.pilot, tab, call, ended);
  }

  /** Answer an ask_user question; null is "Don't answer". */
  answerQuestion(tab: TabId, call: CallId, answer: string | null): void {
    this.pilot = questionAnswered(this.pilot, tab, call, answer);
    this.transport.send({ type: "answer_question", call, answer });
  }

  /** A message from the page itself (not the engine), shown like an engine error. */
  notify(message: string): void {
    this.state = addNotice(this.state, null, message);
  }

  /** A view's button the user confirmed in its dialog: the engine types its command into the
   * tab's terminal (or refuses it) and answers with `view_button_finished`. */
  pressViewButton(tab: TabId, call: CallId, button: ViewButton): void {
    this.pilot = viewButtonPressed(this.pilot, tab, call, button);
    this.transport.send({ type: "press_view_button", tab, call, button });
  }

  /**
   * The page left the screen or came back (`document.hidden`). On a phone that is the app going
   * to the background, where iOS suspends it and its connections may die: on the way back the
   * engine checks every connection at once and ends what cannot go on (`Op::AppForeground`).
   * In a desktop window or a browser it is only a hidden tab or a minimised window, and it is
   * harmless there: the engine keeps running meanwhile, so it ends nothing (it ends turns and
   * transfers only when it was itself suspended), and a live connection just answers the check.
   */
  visibilityChanged(hidden: boolean): void {
    this.transport.send({ type: hidden ? "app_background" : "app_foreground" });
  }

  dismissNotice(id: number): void {
    this.state = noticeDismissed(this.state, id);
  }
}
