// The WebSocket transport of `kaiport serve`: JSON text frames carry ops and events, binary frames
// carry terminal bytes (see `encodeTerminalFrame`). The link reconnects by itself, waiting a
// little longer after each failure; the server replays the open tabs and recent output on every
// connection, so a reconnect loses nothing the user can see. The page proves it may drive the
// engine by the server's token among the WebSocket's subprotocols (`socketProtocols`, token.ts).

import type { TabId } from "../ids";
import type { Event, Op } from "../protocol";
import { decodeTerminalFrame, encodeTerminalFrame, Subscribers, type Transport } from "./transport";

/** The part of the browser's WebSocket this transport uses (tests hand in a fake). */
export interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  send(data: string | Uint8Array): void;
  close(): void;
}

export type SocketFactory = (url: string, protocols: string[]) => SocketLike;

export interface WebSocketTransportOptions {
  /** Where the engine listens, e.g. `ws://127.0.0.1:4711/ws`. */
  url: string;
  /** The subprotocols to ask for (`socketProtocols(token)`). */
  protocols?: string[];
  /** Default: the browser's WebSocket. */
  socket?: SocketFactory;
  /** Timers (tests use fake ones). */
  setTimeout?: (callback: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
  /** Wait before the first reconnect; doubles after each failure up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Ops kept while the link is down; older ones beyond this are dropped. */
  maxQueued?: number;
}

const OPEN = 1;

/** The URL of `/ws` on the server that served this page. */
export function defaultSocketUrl(location: { protocol: string; host: string }): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

export class WebSocketTransport extends Subscribers implements Transport {
  private readonly options: Required<Omit<WebSocketTransportOptions, "socket">> & {
    socket: SocketFactory;
  };
  private socket: SocketLike | null = null;
  private readonly queue: string[] = [];
  private delayMs: number;
  private timer: unknown = null;
  private closed = false;

  constructor(options: WebSocketTransportOptions) {
    super();
    this.options = {
      socket: options.socket ?? ((url, protocols) => new WebSocket(url, protocols) as unknown as SocketLike),
      setTimeout: options.setTimeout ?? ((callback, ms) => globalThis.setTimeout(callback, ms)),
      clearTimeout:
        options.clearTimeout ??
        ((handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>)),
      initialDelayMs: options.initialDelayMs ?? 250,
      maxDelayMs: options.maxDelayMs ?? 5000,
      maxQueued: options.maxQueued ?? 256,
      url: options.url,
      protocols: options.protocols ?? [],
    };
    this.delayMs = this.options.initialDelayMs;
    this.connect();
  }

  send(op: Op): void {
    const text = JSON.stringify(op);
    if (this.socket !== null && this.socket.readyState === OPEN) {
      this.socket.send(text);
      return;
    }
    this.queue.push(text);
    if (this.queue.length > this.options.maxQueued) {
      this.queue.shift();
    }
  }

  input(tab: TabId, data: Uint8Array): void {
    if (this.socket !== null && this.socket.readyState === OPEN) {
      this.socket.send(encodeTerminalFrame(tab, data));
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) {
      this.options.clearTimeout(this.timer);
      this.timer = null;
    }
    this.socket?.close();
    this.socket = null;
    this.setStatus("closed");
  }

  private connect(): void {
    this.timer = null;
    if (this.closed) {
      return;
    }
    this.setStatus("connecting");
    const socket = this.options.socket(this.options.url, this.options.protocols);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) {
        return;
      }
      this.delayMs = this.options.initialDelayMs;
      this.setStatus("open");
      for (const text of this.queue.splice(0)) {
        socket.send(text);
      }
    };
    socket.onmessage = (message) => {
      if (this.socket === socket) {
        this.receive(message.data);
      }
    };
    socket.onerror = () => {
      // A close event follows; reconnecting starts there.
    };
    socket.onclose = () => {
      if (this.socket !== socket) {
        return;
      }
      this.socket = null;
      if (this.closed) {
        return;
      }
      this.setStatus("closed");
      this.timer = this.options.setTimeout(() => this.connect(), this.delayMs);
      this.delayMs = Math.min(this.delayMs * 2, this.options.maxDelayMs);
    };
  }

  private receive(data: unknown): void {
    if (typeof data === "string") {
      let event: Event;
      try {
        event = JSON.parse(data) as Event;
      } catch {
        return;
      }
      this.emit({ kind: "event", event });
      return;
    }
    if (data instanceof ArrayBuffer) {
      const frame = decodeTerminalFrame(new Uint8Array(data));
      if (frame !== null) {
        this.emit({ kind: "output", tab: frame.tab, data: frame.data });
      }
    }
  }
}
