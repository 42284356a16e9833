// What a tab's terminal shows, for the browser tests and for people debugging in the console:
// `kaiport.terminalText(tabId)` (its whole buffer, scrollback included),
// `kaiport.terminalSize(tabId)` and `kaiport.terminalSelection(tabId)`. The WebGL renderer draws
// on a canvas, so the text is not in the DOM. `kaiport.watchRender(tabId, callback)` calls back
// after each frame xterm.js draws with the lines around the cursor: the browser benchmarks time
// what the user sees, not what arrived. `kaiport.sleepTerminal(tabId)` puts a hidden tab's
// terminal to sleep now instead of after its quiet time (lib/state/terminal.svelte.ts), for the tests.

import type { TabId } from "./ids";

export interface TerminalReader {
  /** Null while asleep: there is no xterm.js to read until the tab is shown. */
  text(): string | null;
  size(): { cols: number; rows: number };
  selection(): string;
  /** Calls `drawn` with the cursor's line and the two above it after each rendered frame. */
  watchRender(drawn: (lines: string[]) => void): () => void;
  /** Puts the terminal to sleep if it is hidden; resolves with whether it sleeps. */
  sleep(): Promise<boolean>;
}

const readers = new Map<TabId, TerminalReader>();

export function registerTerminal(tab: TabId, reader: TerminalReader): () => void {
  readers.set(tab, reader);
  return () => {
    if (readers.get(tab) === reader) {
      readers.delete(tab);
    }
  };
}

/** Null for no terminal, or one asleep. */
export function terminalText(tab: TabId): string | null {
  return readers.get(tab)?.text() ?? null;
}

export function terminalSize(tab: TabId): { cols: number; rows: number } | null {
  return readers.get(tab)?.size() ?? null;
}

export function terminalSelection(tab: TabId): string | null {
  return readers.get(tab)?.selection() ?? null;
}

export function watchRender(tab: TabId, drawn: (lines: string[]) => void): (() => void) | null {
  return readers.get(tab)?.watchRender(drawn) ?? null;
}

export function sleepTerminal(tab: TabId): Promise<boolean> {
  return readers.get(tab)?.sleep() ?? Promise.resolve(false);
}
