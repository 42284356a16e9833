// The text a tab's terminal shows (its whole buffer, scrollback included), for the browser tests
// and for people debugging in the console: `kaiport.terminalText(tabId)`. The WebGL renderer
// draws on a canvas, so the text is not in the DOM.

import type { TabId } from "./ids";

const readers = new Map<TabId, () => string>();

export function registerTerminalText(tab: TabId, read: () => string): () => void {
  readers.set(tab, read);
  return () => {
    if (readers.get(tab) === read) {
      readers.delete(tab);
    }
  };
}

export function terminalText(tab: TabId): string | null {
  return readers.get(tab)?.() ?? null;
}
