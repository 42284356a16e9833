// The desktop window's side of the page: the commands of src-tauri (generated into ../desktop.ts
// by tauri-specta) as the `DesktopLink` the Tauri transport needs, and the `Platform` the
// components ask for native dialogs and the window's messages. Loaded only inside the window.

import { Channel } from "@tauri-apps/api/core";
import { commands, type PathPurpose } from "../desktop";
import type { Platform } from "../platform";
import { TauriTransport, type ChannelMessage, type DesktopLink } from "./tauri";

export const desktopLink: DesktopLink = {
  async attach(receive) {
    const channel = new Channel<ChannelMessage>();
    channel.onmessage = receive;
    await commands.attach(channel);
  },
  async send(ops) {
    await commands.send(ops);
  },
};

/** The transport and the platform of the desktop window. */
export function desktopShell(): { transport: TauriTransport; platform: Platform } {
  const transport = new TauriTransport(desktopLink);
  const platform: Platform = {
    choosePath: (purpose: PathPurpose) => commands.choosePath({ purpose, start: null }),
    onDesktop: (handler) => transport.onDesktop(handler),
  };
  return { transport, platform };
}
