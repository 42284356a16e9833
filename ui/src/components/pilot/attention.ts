// A card that waits for the user comes into view and takes focus. Deferred by two frames: a tab
// that just became visible focuses its terminal in the next frame, and the card must win.

//
// `focus`, when given, takes the focus instead of the card (a dangerous approval's Deny). Focus
// the user already put inside the card in those two frames stays (a lock-out card's Approve
// clicked at once has moved it to "Go back").
export function drawAttention(element: HTMLElement, stillWaiting: () => boolean, focus?: HTMLElement): () => void {
  let inner = 0;
  const outer = requestAnimationFrame(() => {
    inner = requestAnimationFrame(() => {
      if (stillWaiting() && element.isConnected && !element.contains(document.activeElement)) {
        element.scrollIntoView({ block: "nearest" });
        (focus?.isConnected ? focus : element).focus({ preventScroll: true });
      }
    });
  });
  return () => {
    cancelAnimationFrame(outer);
    cancelAnimationFrame(inner);
  };
}
