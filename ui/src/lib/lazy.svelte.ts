// Parts of the page the first screen does not show: xterm.js with the terminal, the storage
// panes (and an SSH tab's file pane), the markdown renderer and the dialogs opened from menus. They load on first use, and
// all of them as soon as the engine has said hello, so the first screen (the sidebar and the
// empty tab area) is up without them and a tab opened later does not wait. Every loader is
// memoized: asking twice loads once.

import type { renderMarkdown as RenderMarkdown } from "./markdown";

export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

export const terminalView = once(() => import("../components/terminal/TerminalView.svelte"));
export const storageTab = once(() => import("../components/storage/StorageTab.svelte"));
export const filesPanel = once(() => import("../components/terminal/FilesPanel.svelte"));
export const auditLogView = once(() => import("../components/audit/AuditLogView.svelte"));
export const connectionSettings = once(() => import("../components/connections/ConnectionSettingsDialog.svelte"));
export const importSshConfig = once(() => import("../components/connections/ImportSshConfigDialog.svelte"));
export const snippetPalette = once(() => import("../components/snippets/SnippetPalette.svelte"));
export const fleetRunDialog = once(() => import("../components/connections/FleetRunDialog.svelte"));
/** The file editor with CodeMirror: not preloaded (it is the largest part and most sessions
 * open no file); it loads on the first file opened. */
export const fileEditor = once(() => import("../components/terminal/FileEditor.svelte"));
export const broadcastDialog = once(() => import("../components/broadcast/BroadcastDialog.svelte"));
export const broadcastBanner = once(() => import("../components/broadcast/BroadcastBanner.svelte"));
const markdownModule = once(() => import("./markdown"));

/** The markdown renderer once loaded (until then, Markdown.svelte shows the text as it is). */
export const markdown = $state<{ render: typeof RenderMarkdown | null }>({ render: null });

/** Loads with `load` and hands the part to `use`. A failed load (the server stopped, the
 * network went) is no error in the page: what needs the part asks again on its next use. */
export function loadInto<T>(load: () => Promise<T>, use: (part: T) => void): Promise<void> {
  return load().then(use, () => {});
}

/** What the page says where a part of it could not be loaded. */
export function loadFailedText(what: string, error: unknown): string {
  return `Could not load ${what}: ${error instanceof Error ? error.message : String(error)}. Reload the page to try again.`;
}

export function loadMarkdown(): void {
  void loadInto(markdownModule, (module) => {
    markdown.render = module.renderMarkdown;
  });
}

/** Everything above, in the background. A failed load is tried again on first use. */
export function preloadAll(): void {
  const loads: Array<() => Promise<unknown>> = [
    terminalView,
    storageTab,
    filesPanel,
    auditLogView,
    connectionSettings,
    importSshConfig,
    snippetPalette,
    fleetRunDialog,
    broadcastDialog,
    broadcastBanner,
  ];
  for (const load of loads) {
    load().catch(() => {});
  }
  loadMarkdown();
}
