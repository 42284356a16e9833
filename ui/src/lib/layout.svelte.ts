// The screen the UI is on, as CSS media queries say (docs/ui-contract.md): a phone (< 600 px
// wide), a tablet or narrow window (< 900 px, or < 1100 px in portrait: no sidebar column, Pilot
// over the terminal, storage actions folded into a menu), and whether the main pointer
// is a finger (touch targets of 44 px, the extra-keys row, pinch and long-press in the
// terminal). Sizes and input, never the platform: an iPad with a keyboard and trackpad is a
// tablet with a fine pointer.

/** Phone: one column. */
export const PHONE_QUERY = "(max-width: 599.98px)";
/** Below the desktop layout: the sidebar is a drawer, Pilot an overlay, and the terminal takes
 * the whole width. A tablet held upright (1024 px) is here too: beside a sidebar and Pilot's
 * column its terminal would be 45 columns. */
export const NARROW_QUERY = "(max-width: 899.98px), (orientation: portrait) and (max-width: 1099.98px)";
/** A finger is the main pointer (or the only one). */
export const TOUCH_QUERY = "(pointer: coarse)";

function watched(query: string, set: (matches: boolean) => void): boolean {
  const list = window.matchMedia(query);
  list.addEventListener("change", () => set(list.matches));
  return list.matches;
}

class Layout {
  phone = $state(false);
  narrow = $state(false);
  touch = $state(false);

  constructor() {
    this.phone = watched(PHONE_QUERY, (m) => (this.phone = m));
    this.narrow = watched(NARROW_QUERY, (m) => (this.narrow = m));
    // A laptop with a touch screen keeps a fine main pointer: no extra keys there.
    this.touch = watched(TOUCH_QUERY, (m) => (this.touch = m));
    this.followVisualViewport();
  }

  /** With the on-screen keyboard up, the visible part of the page is shorter than the window:
   * the app takes that height (`--app-height`), so the terminal's last line and the extra-keys
   * row sit right above the keyboard. */
  private followVisualViewport(): void {
    const viewport = window.visualViewport;
    if (viewport === null || viewport === undefined) {
      return;
    }
    const follow = () => {
      document.documentElement.style.setProperty("--app-height", `${Math.round(viewport.height)}px`);
      document.documentElement.style.setProperty("--app-top", `${Math.round(viewport.offsetTop)}px`);
    };
    viewport.addEventListener("resize", follow);
    viewport.addEventListener("scroll", follow);
    follow();
  }
}

/** This page's layout. */
export const layout = new Layout();
