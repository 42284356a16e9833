// A card that waits for the user comes into view and takes focus. Deferred by two frames: a tab
// that just became visible focuses its terminal in the next frame, and the card must win.

/** Sent (bubbling) from a waiting card whose conversation shows less than the whole card: the
 * phone's half-height sheet grows by `detail` px, as far as it can, before the card scrolls. */
export const NEEDS_ROOM = "kaiport-needs-room";

//
// `focus`, when given, takes the focus instead of the card (a dangerous approval's Deny). Focus
// the user already put inside the card in those two frames stays (a lock-out card's Approve
// clicked at once has moved it to "Go back"). The card's answers (its `[data-answers]` row:
// Approve and Deny, the options) end in sight even when the card is taller than the space.
export function drawAttention(element: HTMLElement, stillWaiting: () => boolean, focus?: HTMLElement): () => void {
  let inner = 0;
  const outer = requestAnimationFrame(() => {
    inner = requestAnimationFrame(() => {
      if (stillWaiting() && element.isConnected && !element.contains(document.activeElement)) {
        const log = element.closest<HTMLElement>('[role="log"]');
        // The log's padding and the gap above the card.
        const short = log === null ? 0 : Math.ceil(element.getBoundingClientRect().height) + 24 - log.clientHeight;
        if (short > 0) {
          // The listener grows the sheet synchronously (flushSync), so the scrolling below
          // measures the new size.
          element.dispatchEvent(new CustomEvent<number>(NEEDS_ROOM, { bubbles: true, detail: short }));
        }
        element.scrollIntoView({ block: "nearest" });
        element.querySelector<HTMLElement>("[data-answers]")?.scrollIntoView({ block: "nearest" });
        (focus?.isConnected ? focus : element).focus({ preventScroll: true });
      }
    });
  });
  return () => {
    cancelAnimationFrame(outer);
    cancelAnimationFrame(inner);
  };
}
