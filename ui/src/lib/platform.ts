// What the shell around the page offers beyond the engine (spacedrive's "platform object"): the
// browser (`kaiport serve`) offers nothing more; the desktop window offers native file dialogs
// and sends its menus, links, dropped files and notification clicks. Components ask this object
// and never import a shell's API.

import type { DesktopMessage, PathPurpose } from "./desktop";

export type { DesktopMessage, PathPurpose };

export interface Platform {
  /** A native dialog for a file or folder (null when cancelled); absent where there is none. */
  choosePath?: (purpose: PathPurpose) => Promise<string | null>;
  /** The window's menus, links, dropped files and tabs to show. Returns the function that stops. */
  onDesktop(handler: (message: DesktopMessage) => void): () => void;
}

/** The browser's: nothing beyond the page. */
export const browserPlatform: Platform = {
  onDesktop: () => () => {},
};
