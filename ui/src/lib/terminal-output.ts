// Terminal bytes by tab. Output can arrive before a tab's terminal is on screen (the shell prints
// its prompt while the tab is still being drawn): it waits here, bounded, until a view attaches.

import type { TabId } from "./ids";

export interface TerminalSink {
  write(data: Uint8Array): void;
  /** Forget what is shown: the server is about to replay the tab's recent output. */
  reset(): void;
}

/** Bytes kept per tab while no view is attached; the oldest go first. */
const MAX_PENDING_BYTES = 1 << 20;

export class TerminalOutput {
  private readonly sinks = new Map<TabId, TerminalSink>();
  private readonly pending = new Map<TabId, { chunks: Uint8Array[]; bytes: number }>();

  write(tab: TabId, data: Uint8Array): void {
    const sink = this.sinks.get(tab);
    if (sink !== undefined) {
      sink.write(data);
      return;
    }
    const waiting = this.pending.get(tab) ?? { chunks: [], bytes: 0 };
    waiting.chunks.push(data);
    waiting.bytes += data.length;
    while (waiting.bytes > MAX_PENDING_BYTES && waiting.chunks.length > 1) {
      const dropped = waiting.chunks.shift();
      waiting.bytes -= dropped?.length ?? 0;
    }
    this.pending.set(tab, waiting);
  }

  /** A view shows `tab` from now on; what waited is written to it first. */
  attach(tab: TabId, sink: TerminalSink): () => void {
    this.sinks.set(tab, sink);
    const waiting = this.pending.get(tab);
    this.pending.delete(tab);
    for (const chunk of waiting?.chunks ?? []) {
      sink.write(chunk);
    }
    return () => {
      if (this.sinks.get(tab) === sink) {
        this.sinks.delete(tab);
      }
    };
  }

  /** The link came back: every view forgets its screen, the server replays it. */
  resetAll(): void {
    this.pending.clear();
    for (const sink of this.sinks.values()) {
      sink.reset();
    }
  }

  forget(tab: TabId): void {
    this.pending.delete(tab);
  }
}
