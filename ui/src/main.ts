import "./app.css";
import { mount } from "svelte";
import App from "./App.svelte";
import { Session } from "./lib/state/session.svelte";
import { sleepTerminal, terminalSelection, terminalSize, terminalText, watchRender } from "./lib/terminal-text";
import { WebSocketTransport, defaultSocketUrl } from "./lib/transport/websocket";
import { desktopShell } from "./lib/transport/desktop-link";

const target = document.getElementById("app");
if (target === null) {
  throw new Error("index.html has no #app element");
}
// Inside the desktop window (Tauri) the engine is over its IPC; in a browser, over the WebSocket
// of `kaiport serve`. Nothing else differs.
if ("__TAURI_INTERNALS__" in window) {
  const { transport, platform } = desktopShell();
  mount(App, { target, props: { session: new Session(transport), platform } });
} else {
  const session = new Session(new WebSocketTransport({ url: defaultSocketUrl(window.location) }));
  mount(App, { target, props: { session } });
}
performance.mark("kaiport:mounted");

declare global {
  interface Window {
    kaiport: {
      terminalText: typeof terminalText;
      terminalSize: typeof terminalSize;
      terminalSelection: typeof terminalSelection;
      watchRender: typeof watchRender;
      sleepTerminal: typeof sleepTerminal;
    };
  }
}
window.kaiport = { terminalText, terminalSize, terminalSelection, watchRender, sleepTerminal };
