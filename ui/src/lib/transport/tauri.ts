// The desktop window's transport: the same `Transport` as the WebSocket one, over Tauri's IPC.
// One channel (the `attach` command) brings the engine's events as JSON, terminal output as
// ArrayBuffers (`[tab id length][tab id][bytes]`, see `decodeTerminalFrame`) and the window's own
// messages (menus, links, dropped files); ops go out with the `send` command in batches, one batch
// at a time, so they reach the engine in the order they were sent.

import type { TabId } from "../ids";
import type { Event, Op } from "../protocol";
import type { DesktopMessage } from "../desktop";
import { decodeTerminalFrame, Subscribers, type Transport } from "./transport";

/** What arrives on the page's channel. */
export type ChannelMessage = Event | ArrayBuffer | DesktopMessage;

/** The two commands this transport uses (the real ones are in `../desktop`; tests fake them). */
export interface DesktopLink {
  /** Opens the page's channel; every message arrives at `receive`, in order. */
  attach(receive: (message: ChannelMessage) => void): Promise<void>;
  /** Hands ops to the engine, in order; resolves once they are handed over. */
  send(ops: Op[]): Promise<void>;
}

export function isDesktopMessage(message: object): message is DesktopMessage {
  return "desktop" in message;
}

export class TauriTransport extends Subscribers implements Transport {
  private readonly link: DesktopLink;
  private readonly desktopHandlers = new Set<(message: DesktopMessage) => void>();
  private queue: Op[] = [];
  private sending = false;
  private closed = false;

  constructor(link: DesktopLink) {
    super();
    this.link = link;
    void this.start();
  }

  send(op: Op): void {
    if (this.closed) {
      return;
    }
    this.queue.push(op);
    void this.flush();
  }

  input(tab: TabId, data: Uint8Array): void {
    if (this.status !== "open") {
      return;
    }
    // The bytes as they are: xterm's mouse reports and a terminal in another locale are not UTF-8.
    this.send({ type: "terminal_input", tab, data: Array.from(data) });
  }

  /** The window's own messages (menus, links, dropped files, a tab to show). */
  onDesktop(handler: (message: DesktopMessage) => void): () => void {
    this.desktopHandlers.add(handler);
    return () => {
      this.desktopHandlers.delete(handler);
    };
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.setStatus("closed");
  }

  private async start(): Promise<void> {
    try {
      await this.link.attach((message) => this.receive(message));
    } catch (error) {
      console.error("kaiport: the window's channel could not be opened", error);
      this.setStatus("closed");
      return;
    }
    if (this.closed) {
      return;
    }
    this.setStatus("open");
    void this.flush();
  }

  private async flush(): Promise<void> {
    if (this.sending || this.status !== "open" || this.queue.length === 0) {
      return;
    }
    this.sending = true;
    const batch = this.queue;
    this.queue = [];
    try {
      await this.link.send(batch);
    } catch (error) {
      console.error("kaiport: ops could not be handed to the engine", error);
    } finally {
      this.sending = false;
    }
    void this.flush();
  }

  private receive(message: ChannelMessage): void {
    if (this.closed) {
      return;
    }
    if (message instanceof ArrayBuffer) {
      const frame = decodeTerminalFrame(new Uint8Array(message));
      if (frame !== null) {
        this.emit({ kind: "output", tab: frame.tab, data: frame.data });
      }
      return;
    }
    if (isDesktopMessage(message)) {
      if (message.desktop === "relink") {
        // The window fell behind: what the page shows is dropped, the replay follows.
        this.setStatus("closed");
        this.setStatus("open");
        return;
      }
      for (const handler of this.desktopHandlers) {
        handler(message);
      }
      return;
    }
    this.emit({ kind: "event", event: message });
  }
}
