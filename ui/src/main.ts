import "./app.css";
import { mount } from "svelte";
import App from "./App.svelte";
import { Session } from "./lib/state/session.svelte";
import { terminalSelection, terminalSize, terminalText, watchRender } from "./lib/terminal-text";
import { WebSocketTransport, defaultSocketUrl } from "./lib/transport/websocket";

const target = document.getElementById("app");
if (target === null) {
  throw new Error("index.html has no #app element");
}
const session = new Session(new WebSocketTransport({ url: defaultSocketUrl(window.location) }));
mount(App, { target, props: { session } });
performance.mark("kaiport:mounted");

declare global {
  interface Window {
    kaiport: {
      terminalText: typeof terminalText;
      terminalSize: typeof terminalSize;
      terminalSelection: typeof terminalSelection;
      watchRender: typeof watchRender;
    };
  }
}
window.kaiport = { terminalText, terminalSize, terminalSelection, watchRender };
