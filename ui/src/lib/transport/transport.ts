// The one way the UI talks to the engine. The browser (`kaiport serve`) uses the WebSocket
// implementation (websocket.ts), the desktop window the Tauri one (tauri.ts), behind this same
// interface, without a component changing.

import type { TabId } from "../ids";
import type { Event, Op } from "../protocol";

/** Whether the link to the engine is up. */
export type LinkStatus = "connecting" | "open" | "closed";

/** What the engine sends: events, and terminal output as raw bytes (never JSON number arrays). */
export type Incoming =
  | { kind: "event"; event: Event }
  | { kind: "output"; tab: TabId; data: Uint8Array }
  | { kind: "link"; status: LinkStatus };

export interface Transport {
  /** Send one op. Ops sent while the link is down wait and go out, in order, once it is up. */
  send(op: Op): void;
  /** Terminal input for a tab, as bytes (a binary frame on the WebSocket). Dropped while down. */
  input(tab: TabId, data: Uint8Array): void;
  /** Receive everything the engine sends. Returns the function that stops it. */
  subscribe(handler: (message: Incoming) => void): () => void;
  /** Close the link for good (no reconnecting). */
  close(): void;
}

/**
 * What every transport does alike: it keeps its subscribers, tells each the link's status first,
 * and hands every message to all of them.
 */
export abstract class Subscribers {
  private readonly handlers = new Set<(message: Incoming) => void>();
  protected status: LinkStatus = "connecting";

  subscribe(handler: (message: Incoming) => void): () => void {
    this.handlers.add(handler);
    handler({ kind: "link", status: this.status });
    return () => {
      this.handlers.delete(handler);
    };
  }

  protected setStatus(status: LinkStatus): void {
    if (this.status === status) {
      return;
    }
    this.status = status;
    this.emit({ kind: "link", status });
  }

  protected emit(message: Incoming): void {
    for (const handler of this.handlers) {
      handler(message);
    }
  }
}

/**
 * Binary frames carry terminal bytes both ways: one byte with the length of the tab id, the tab
 * id in UTF-8, then the bytes.
 */
export function encodeTerminalFrame(tab: TabId, data: Uint8Array): Uint8Array {
  const id = new TextEncoder().encode(tab);
  if (id.length > 255) {
    throw new Error(`tab id longer than 255 bytes: ${tab.slice(0, 40)}…`);
  }
  const frame = new Uint8Array(1 + id.length + data.length);
  frame[0] = id.length;
  frame.set(id, 1);
  frame.set(data, 1 + id.length);
  return frame;
}

/** The tab and bytes of a binary frame, or null when it is malformed. */
export function decodeTerminalFrame(frame: Uint8Array): { tab: TabId; data: Uint8Array } | null {
  const length = frame[0];
  if (length === undefined || frame.length < 1 + length) {
    return null;
  }
  const tab = new TextDecoder("utf-8", { fatal: false }).decode(frame.subarray(1, 1 + length));
  return { tab, data: frame.subarray(1 + length) };
}
