import "./app.css";
import { mount } from "svelte";
import App from "./App.svelte";
import { Session } from "./lib/state/session.svelte";
import { sleepTerminal, terminalSelection, terminalSize, terminalText, watchRender } from "./lib/terminal-text";
import { WebSocketTransport, defaultSocketUrl } from "./lib/transport/websocket";
import { socketProtocols, takeToken, tokenInHash } from "./lib/transport/token";
import { desktopShell } from "./lib/transport/desktop-link";
import { startTheme } from "./lib/theme";

startTheme();
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
  // `kaiport serve`: the token from the address it printed, or the one this tab kept (token.ts).
  const token = takeToken({
    location: window.location,
    storage: tabStorage(),
    replaceAddress: (url) => window.history.replaceState(window.history.state, "", url),
  });
  // The printed address opened again in this tab changes only its fragment: load it anew.
  window.addEventListener("hashchange", () => {
    if (tokenInHash(window.location.hash) !== null) {
      window.location.reload();
    }
  });
  if (token === null) {
    showNoToken(target);
  } else {
    const transport = new WebSocketTransport({
      url: defaultSocketUrl(window.location),
      protocols: socketProtocols(token),
    });
    mount(App, { target, props: { session: new Session(transport) } });
  }
}
performance.mark("kaiport:mounted");

function tabStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** What a page opened without the token says (it cannot reach the engine). */
function showNoToken(into: HTMLElement): void {
  const text = document.createElement("main");
  text.className = "no-token";
  const heading = document.createElement("h1");
  heading.textContent = "kaiport needs its address";
  const line = document.createElement("p");
  line.append(
    "Open the address that ",
    code("kaiport serve"),
    " printed, with the part that starts with ",
    code("#token="),
    ", in this browser.",
  );
  text.append(heading, line);
  into.replaceChildren(text);
}

function code(text: string): HTMLElement {
  const element = document.createElement("code");
  element.textContent = text;
  return element;
}

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
