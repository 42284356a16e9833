// Gestures in the terminal, as plain functions (Vitest checks them without a DOM): pinching
// scales the font size; a long-press selects the word under the finger.

/** The font size for a pinch that started at `fontSize` with the fingers `startDistance` apart
 * and is now `distance` apart: scaled by the ratio, whole points, within [min, max]. */
export function pinchedFontSize(
  fontSize: number,
  startDistance: number,
  distance: number,
  min: number,
  max: number,
): number {
  if (startDistance <= 0 || distance <= 0) {
    return fontSize;
  }
  return Math.min(max, Math.max(min, Math.round(fontSize * (distance / startDistance))));
}

/** The word (a run of anything but spaces) of `line` at column `col`, or null on a space. */
export function wordAt(line: string, col: number): { start: number; length: number } | null {
  const isWord = (c: string | undefined) => c !== undefined && c.trim() !== "";
  if (!isWord(line[col])) {
    return null;
  }
  let start = col;
  while (start > 0 && isWord(line[start - 1])) {
    start--;
  }
  let end = col;
  while (isWord(line[end + 1])) {
    end++;
  }
  return { start, length: end - start + 1 };
}
