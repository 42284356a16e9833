// The extra-keys row of a touch screen (docs/ui-contract.md): the keys a phone keyboard
// hides, as the bytes a terminal expects. Ctrl and Alt are sticky: pressed once, they apply to
// the next key, from the row or typed on the keyboard, and then let go.
//
// Pure functions over plain values, so Vitest checks the bytes without a DOM.

/** A key of the row that sends something (Ctrl and Alt only latch). */
export type ExtraKey = "Esc" | "Tab" | "Up" | "Down" | "Left" | "Right" | "|" | "~" | "/" | "-";

/** The row, in order: what each button shows, its accessible name, and what it does. */
export const EXTRA_KEYS: readonly { label: string; name: string; key: ExtraKey | "Ctrl" | "Alt" }[] = [
  { label: "Esc", name: "Esc", key: "Esc" },
  { label: "Tab", name: "Tab", key: "Tab" },
  { label: "Ctrl", name: "Ctrl", key: "Ctrl" },
  { label: "Alt", name: "Alt", key: "Alt" },
  { label: "←", name: "Left", key: "Left" },
  { label: "↓", name: "Down", key: "Down" },
  { label: "↑", name: "Up", key: "Up" },
  { label: "→", name: "Right", key: "Right" },
  { label: "|", name: "|", key: "|" },
  { label: "~", name: "~", key: "~" },
  { label: "/", name: "/", key: "/" },
  { label: "-", name: "-", key: "-" },
];

/** The latched modifiers. */
export interface Modifiers {
  ctrl: boolean;
  alt: boolean;
}

export const NO_MODIFIERS: Modifiers = { ctrl: false, alt: false };

const ESC = "\x1b";
const ARROW_LETTER: Record<"Up" | "Down" | "Right" | "Left", string> = { Up: "A", Down: "B", Right: "C", Left: "D" };

/**
 * The bytes of an extra key. Arrows follow the terminal's cursor-key mode (`ESC O A` in
 * application mode, which full-screen programs switch on, else `ESC [ A`); with a modifier they
 * are xterm's `ESC [ 1 ; m A` in either mode.
 */
export function extraKeyData(key: ExtraKey, modifiers: Modifiers, applicationCursor: boolean): string {
  switch (key) {
    case "Up":
    case "Down":
    case "Left":
    case "Right": {
      const letter = ARROW_LETTER[key];
      const code = 1 + (modifiers.alt ? 2 : 0) + (modifiers.ctrl ? 4 : 0);
      if (code > 1) {
        return `${ESC}[1;${code}${letter}`;
      }
      return applicationCursor ? `${ESC}O${letter}` : `${ESC}[${letter}`;
    }
    case "Esc":
      return modifiers.alt ? ESC + ESC : ESC;
    case "Tab":
      return modified("\t", modifiers);
    case "|":
    case "~":
    case "/":
    case "-":
      return modified(key, modifiers);
    default: {
      const unknown: never = key;
      return unknown;
    }
  }
}

/**
 * What typed `data` becomes with the latched modifiers: Ctrl turns one character into its
 * control code (`c` → ETX, which interrupts), Alt puts ESC before it (as xterm's
 * meta-sends-escape). Longer input (a paste, a word from the keyboard's suggestions) goes as it
 * is, but for Alt on its first character.
 */
export function modified(data: string, modifiers: Modifiers): string {
  if (data === "" || (!modifiers.ctrl && !modifiers.alt)) {
    return data;
  }
  let out = data;
  if (modifiers.ctrl && [...data].length === 1) {
    out = controlCode(data) ?? data;
  }
  return modifiers.alt ? ESC + out : out;
}

/** Ctrl with one character, as a terminal sends it; null when Ctrl does nothing to it. */
export function controlCode(char: string): string | null {
  const c = char.length === 1 ? char : "";
  if (/^[a-zA-Z]$/.test(c)) {
    return String.fromCharCode(c.toUpperCase().charCodeAt(0) - 64);
  }
  switch (c) {
    case "@":
    case " ":
    case "2":
      return "\x00";
    case "[":
    case "3":
      return ESC;
    case "\\":
    case "4":
    case "|":
      return "\x1c";
    case "]":
    case "5":
      return "\x1d";
    case "^":
    case "6":
    case "~":
      return "\x1e";
    case "_":
    case "7":
    case "-":
    case "/":
      return "\x1f";
    case "?":
    case "8":
      return "\x7f";
    default:
      return null;
  }
}
