// The file pane of an SSH terminal tab: which tabs have one, where it goes when the shell's
// folder changes ("Follow terminal"), what it says when it cannot follow, and the line "Open
// terminal here" types. The listing itself is a storage pane (storage.ts) on the tab's own files;
// no DOM here, so Vitest checks it directly.

import type { TabView } from "./app";

/** Tabs that get a file pane: SSH terminals (a local terminal has the computer's own file
 * manager, and storage tabs are file panes already). A tab opened in another window has no
 * target here: it is an SSH tab unless the engine said it is local. */
export function hasFilePane(tab: Pick<TabView, "kind" | "target">): boolean {
  return tab.kind === "terminal" && tab.target?.kind !== "local";
}

/** `text` as one POSIX shell word: in single quotes, each `'` closed, escaped and reopened.
 * bash, zsh, dash and fish all read it back as the same text. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** What "Open terminal here" types for `folder`: `--` so a name starting with `-` is no option,
 * and Enter (a carriage return, as the Enter key sends). */
export function cdLine(folder: string): string {
  return `cd -- ${shellQuote(folder)}\r`;
}

/** Why the pane does not follow the shell, or null when it does (or the user turned it off). */
export function notFollowingReason(follow: boolean, cwd: string | null, connected: boolean): string | null {
  if (!follow || !connected || cwd !== null) {
    return null;
  }
  return "Not following: the shell does not report its folder (shell integration is off).";
}

/** The folder the pane goes to now: the shell's new folder while "Follow terminal" is on and
 * the shell moved since the pane last followed; else null (the pane stays where it is). */
export function followTarget(follow: boolean, cwd: string | null, lastFollowed: string | null): string | null {
  if (!follow || cwd === null || cwd === lastFollowed) {
    return null;
  }
  return cwd;
}
