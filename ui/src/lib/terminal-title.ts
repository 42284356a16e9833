// The title a terminal's programs give it (OSC 0 and OSC 2), read from the tab's bytes as they
// arrive, so that a tab in the background (whose screen may be asleep) is titled too. It only
// reads: the bytes go on to the screen unchanged. The text came from the server: it is cleaned
// of control and direction characters and kept short, and is shown as text only.

/** What the bytes said: a new title, or that the shell is at its prompt again (kaiport's
 * shell-integration mark, OSC 133;A), so whatever a finished program set is over. */
export type TitleChange = { title: string } | { prompt: true };

/** Longest OSC payload looked at; a longer one is skipped (titles are short). */
const MAX_PAYLOAD = 512;
/** Longest title kept, in characters. */
const MAX_TITLE = 48;

const ESC = 0x1b;
const BEL = 0x07;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;

type Phase = "text" | "escape" | "osc" | "osc-escape";

const decoder = new TextDecoder();

/** Incremental finder of OSC 0/2 titles and prompt marks; feed every chunk of a tab, in order. */
export class TitleScanner {
  #phase: Phase = "text";
  #payload: number[] = [];
  #tooLong = false;

  scan(data: Uint8Array): TitleChange[] {
    const changes: TitleChange[] = [];
    let i = 0;
    while (i < data.length) {
      if (this.#phase === "text") {
        // Most output has no escape at all: skip to the next one.
        const next = data.indexOf(ESC, i);
        if (next < 0) break;
        this.#phase = "escape";
        i = next + 1;
        continue;
      }
      const byte = data[i] ?? 0;
      i++;
      switch (this.#phase) {
        case "escape":
          this.#afterEscape(byte);
          break;
        case "osc":
          if (byte === BEL) {
            this.#finish(changes);
          } else if (byte === ESC) {
            this.#phase = "osc-escape";
          } else if (byte === 0x18 || byte === 0x1a) {
            // CAN and SUB cancel the sequence.
            this.#phase = "text";
          } else if (this.#payload.length < MAX_PAYLOAD) {
            this.#payload.push(byte);
          } else {
            this.#tooLong = true;
          }
          break;
        case "osc-escape":
          if (byte === BACKSLASH) {
            this.#finish(changes);
          } else {
            // An escape inside the sequence ends it (and may start another).
            this.#afterEscape(byte);
          }
          break;
      }
    }
    return changes;
  }

  /** The byte after an ESC: `]` starts an OSC; anything else is not one. */
  #afterEscape(byte: number): void {
    if (byte === CLOSE_BRACKET) {
      this.#phase = "osc";
      this.#payload = [];
      this.#tooLong = false;
    } else {
      this.#phase = byte === ESC ? "escape" : "text";
    }
  }

  #finish(changes: TitleChange[]): void {
    this.#phase = "text";
    if (this.#tooLong) return;
    const payload = decoder.decode(new Uint8Array(this.#payload));
    const separator = payload.indexOf(";");
    const command = separator < 0 ? payload : payload.slice(0, separator);
    const rest = separator < 0 ? "" : payload.slice(separator + 1);
    if (command === "0" || command === "2") {
      changes.push({ title: rest });
    } else if (command === "133" && (rest === "A" || rest.startsWith("A;"))) {
      changes.push({ prompt: true });
    }
  }
}

/** A title as the tab shows it: printable, without the `user@host:` that shells put first
 * (the tab says which server already), at most MAX_TITLE characters; null when nothing is left. */
export function cleanTitle(raw: string): string | null {
  // C0, DEL, C1 and the bidirectional controls, which could make the text read otherwise.
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const printable = raw.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "");
  const title = printable.replace(/^[^\s@:]+@[^\s:]+:\s*/, "").trim();
  if (title === "") return null;
  const chars = Array.from(title);
  return chars.length > MAX_TITLE ? `${chars.slice(0, MAX_TITLE - 1).join("")}…` : title;
}

/** The last folder of `cwd` ("/srv/www" → "www"; "/" stays "/"). */
export function folderName(cwd: string): string {
  const parts = cwd.split("/").filter((p) => p !== "");
  return parts[parts.length - 1] ?? "/";
}
