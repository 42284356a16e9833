// The extra-keys row's sticky Ctrl and Alt (lib/extra-keys.ts): pressed once, they latch until
// the next key — from the row or typed on the keyboard — takes them.

import { NO_MODIFIERS, type Modifiers } from "../extra-keys";

export class StickyModifiers {
  ctrl = $state(false);
  alt = $state(false);

  toggle(which: "Ctrl" | "Alt"): void {
    if (which === "Ctrl") {
      this.ctrl = !this.ctrl;
    } else {
      this.alt = !this.alt;
    }
  }

  /** Whether one is latched. */
  get any(): boolean {
    return this.ctrl || this.alt;
  }

  /** The latched modifiers for the key being sent; they let go. */
  take(): Modifiers {
    if (!this.any) {
      return NO_MODIFIERS;
    }
    const taken = { ctrl: this.ctrl, alt: this.alt };
    this.ctrl = false;
    this.alt = false;
    return taken;
  }
}
