// The page's session with the engine: the state (a rune, replaced whole by the reducers in
// app.ts), the transport, and the actions the components call. Components read `session.state`
// and call these methods; none of them talks to the transport directly.

import type { PromptId, TabId } from "../ids";
import type { PromptAnswer, TabTarget } from "../protocol";
import { TerminalOutput } from "../terminal-output";
import type { Transport } from "../transport/transport";
import { StorageDesk, type StorageRequest } from "./storage.svelte";
import {
  activate,
  applyEvent,
  initialState,
  linkChanged,
  noticeDismissed,
  promptAnswered,
  tabClosing,
  tabOpening,
  tabReopening,
  type AppState,
} from "./app";

/** A terminal size to open with until the view measures itself. */
const DEFAULT_COLS = 100;
const DEFAULT_ROWS = 30;

/** A fresh tab id: random, so two pages on one server never pick the same. */
export function newTabId(): TabId {
  const bytes = new Uint8Array(6);
  globalThis.crypto.getRandomValues(bytes);
  return `tab-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export class Session {
  state: AppState = $state.raw(initialState());
  readonly output = new TerminalOutput();
  /** The storage tabs' panes and transfers (storage.svelte.ts). */
  readonly storage: StorageDesk;
  private readonly transport: Transport;
  private readonly stop: () => void;
  private everOpen = false;
  /** Keystrokes typed while a tab was still connecting: the engine takes input only once it
   * is connected, so they wait here and go out, in order, when it is. */
  private readonly typedAhead = new Map<TabId, Uint8Array[]>();

  constructor(transport: Transport) {
    this.transport = transport;
    this.storage = new StorageDesk((op) => transport.send(op));
    this.stop = transport.subscribe((message) => {
      switch (message.kind) {
        case "event":
          if (this.storage.handle(message.event)) {
            break;
          }
          if (message.event.type === "hello") {
            // The first-load benchmark reads this: from here the page can drive the engine.
            performance.mark("kaiport:engine-ready");
          }
          this.state = applyEvent(this.state, message.event);
          if (message.event.type === "connection_state") {
            this.connectionChanged(message.event.tab, message.event.state.state === "connected");
          }
          break;
        case "output":
          this.output.write(message.tab, message.data);
          break;
        case "link":
          if (message.status === "open") {
            if (this.everOpen) {
              // The server replays tabs, prompts and recent output on every connection.
              this.output.resetAll();
            }
            this.everOpen = true;
          }
          this.state = linkChanged(this.state, message.status);
          break;
      }
    });
  }

  dispose(): void {
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
    const tab = this.open(request.target, request.title);
    this.storage.opened(tab, request.target, request.secret);
    return tab;
  }

  openLocal(): TabId {
    return this.open({ kind: "local" }, "local");
  }

  /** Open the dropped or failed tab `tab` again, in its place. */
  reconnect(tab: TabId): void {
    const view = this.state.tabs.find((t) => t.id === tab);
    if (view?.target == null) {
      return;
    }
    const fresh = newTabId();
    this.transport.send({ type: "close_tab", tab });
    this.output.forget(tab);
    this.state = tabReopening(this.state, tab, fresh);
    if (view.target.kind === "storage") {
      this.storage.closed(tab);
      this.storage.opened(fresh, view.target, null);
    }
    this.transport.send({
      type: "open_tab",
      tab: fresh,
      target: view.target,
      cols: DEFAULT_COLS,
      rows: DEFAULT_ROWS,
      settings: null,
      mode: null,
    });
  }

  close(tab: TabId): void {
    this.typedAhead.delete(tab);
    this.storage.closed(tab);
    this.state = tabClosing(this.state, tab);
    this.output.forget(tab);
    this.transport.send({ type: "close_tab", tab });
  }

  activate(tab: TabId): void {
    this.state = activate(this.state, tab);
  }

  input(tab: TabId, data: Uint8Array): void {
    const view = this.state.tabs.find((t) => t.id === tab);
    if (view?.connection.state === "connecting") {
      const waiting = this.typedAhead.get(tab) ?? [];
      waiting.push(data);
      this.typedAhead.set(tab, waiting);
      return;
    }
    this.transport.input(tab, data);
  }

  private connectionChanged(tab: TabId, connected: boolean): void {
    const waiting = this.typedAhead.get(tab);
    this.typedAhead.delete(tab);
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

  dismissNotice(id: number): void {
    this.state = noticeDismissed(this.state, id);
  }
}
