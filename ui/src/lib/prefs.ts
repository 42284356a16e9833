// The user's own settings for this screen (the "Settings" page): theme, the terminal's font
// family and size. Kept in the page's localStorage beside its other UI preferences (Pilot's
// width, Recent), one JSON value, read leniently: what is missing or wrong falls back to the
// default. It must never hold a secret; nothing here goes to the engine.

import { DEFAULT_FONT_SIZE, MAX_FONT_SIZE, MIN_FONT_SIZE } from "./state/terminal";

export type Theme = "system" | "light" | "dark";

export interface Prefs {
  theme: Theme;
  /** A CSS font-family list for the terminal. */
  fontFamily: string;
  /** The terminal's font size in px: new tabs start at it, zoom's reset returns to it. */
  fontSize: number;
}

export const DEFAULT_FONT_FAMILY = 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace';
export const DEFAULT_PREFS: Prefs = { theme: "system", fontFamily: DEFAULT_FONT_FAMILY, fontSize: DEFAULT_FONT_SIZE };
const KEY = "kaiport.settings";
/** Longer than any font list a person types; keeps a broken value from growing the page. */
const MAX_FAMILY = 200;

/** `raw` (what was stored, or a change) made valid: unknown keys dropped, the rest defaulted. */
export function parsePrefs(raw: unknown): Prefs {
  const value = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  const theme: Theme =
    value["theme"] === "light" || value["theme"] === "dark" || value["theme"] === "system" ? value["theme"] : "system";
  const family = typeof value["fontFamily"] === "string" ? value["fontFamily"].trim() : "";
  // A font list is names, quotes, commas and spaces; anything else (a `;` or a brace) is not one.
  const fontFamily =
    family !== "" && family.length <= MAX_FAMILY && /^[\p{L}\p{N} ,"'_.-]+$/u.test(family)
      ? family
      : DEFAULT_FONT_FAMILY;
  const size = Number(value["fontSize"]);
  const fontSize = Number.isFinite(size)
    ? Math.min(MAX_FONT_SIZE, Math.max(MIN_FONT_SIZE, Math.round(size)))
    : DEFAULT_FONT_SIZE;
  return { theme, fontFamily, fontSize };
}

/** The theme drawn: the system's unless the user chose one. */
export function effectiveTheme(theme: Theme, systemDark: boolean): "light" | "dark" {
  return theme === "system" ? (systemDark ? "dark" : "light") : theme;
}

/** The part of `localStorage` used here. */
export interface PrefsStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The settings, where they are kept, and who follows them (open terminals, the theme). */
export class PrefsStore {
  readonly #storage: PrefsStorage | null;
  readonly #listeners = new Set<(prefs: Prefs) => void>();
  #current: Prefs;

  constructor(storage: PrefsStorage | null) {
    this.#storage = storage;
    let stored: unknown = null;
    try {
      stored = JSON.parse(storage?.getItem(KEY) ?? "null");
    } catch {
      // Not JSON: the defaults.
    }
    this.#current = parsePrefs(stored);
  }

  get current(): Prefs {
    return this.#current;
  }

  /** Changes some settings, keeps them and tells every follower at once. */
  set(change: Partial<Prefs>): void {
    const next = parsePrefs({ ...this.#current, ...change });
    if (JSON.stringify(next) === JSON.stringify(this.#current)) {
      return;
    }
    this.#current = next;
    try {
      this.#storage?.setItem(KEY, JSON.stringify(next));
    } catch {
      // A private window may refuse: the settings then last for this page.
    }
    for (const listener of this.#listeners) {
      listener(next);
    }
  }

  /** Calls `listener` on every change; returns the unsubscribe. */
  follow(listener: (prefs: Prefs) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }
}

function pageStorage(): PrefsStorage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** This page's settings. */
export const prefs = new PrefsStore(typeof window === "undefined" ? null : pageStorage());
