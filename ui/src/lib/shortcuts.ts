// The page's own keyboard shortcuts that are not a terminal's: what counts as each chord, kept
// apart from App.svelte so the rules are tested alone. Never reads or changes app state.

/** The parts of a key event a chord is read from. */
export interface Chord {
  code: string;
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/** Whether the page runs on Apple's systems, where ⌘ takes Ctrl's place in app shortcuts. */
export function onMac(platform: string = navigator.platform): boolean {
  return /Mac|iPhone|iPad/.test(platform);
}

/** ⌘, on macOS and Ctrl+, elsewhere open Settings, as the desktop menu's item does; with any
 * other modifier the chord is the terminal's. */
export function opensSettings(event: Chord, mac: boolean): boolean {
  const comma = event.code === "Comma" || event.key === ",";
  const command = mac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey;
  return comma && command && !event.altKey && !event.shiftKey;
}
