// The theme drawn on the page: the user's choice (lib/prefs.ts) or, for "system", the system's,
// followed live. app.css keys its colours on `data-theme` of <html>; the terminals follow with
// `followTheme`. Nothing here is stored: the choice is prefs'.

import { effectiveTheme, prefs } from "./prefs";

type Drawn = "light" | "dark";
const listeners = new Set<(theme: Drawn) => void>();
let drawn: Drawn = "light";

function systemDark(): MediaQueryList | null {
  return typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null;
}

function apply(): void {
  const next = effectiveTheme(prefs.current.theme, systemDark()?.matches ?? false);
  drawn = next;
  document.documentElement.dataset["theme"] = next;
  for (const listener of listeners) {
    listener(next);
  }
}

/** Draws the page in the chosen theme from now on (called once, before the app mounts). */
export function startTheme(): void {
  apply();
  systemDark()?.addEventListener("change", apply);
  prefs.follow(apply);
}

/** The theme drawn now. */
export function drawnTheme(): Drawn {
  return drawn;
}

/** Calls `listener` whenever the drawn theme changes; returns the unsubscribe. */
export function followTheme(listener: (theme: Drawn) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
