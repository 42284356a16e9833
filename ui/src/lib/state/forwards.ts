// A tab's port forwards as the engine reports them (`forward_state`), for the tab's "Forwards"
// list. Pure: Event in → state out, checked by Vitest.

import type { Event, ForwardReport } from "../protocol";

/** Each tab's open forwards, by tab id, in the engine's order (by id). */
export type ForwardsByTab = Record<string, ForwardReport[]>;

export function applyForwardEvent(state: ForwardsByTab, event: Event): ForwardsByTab {
  switch (event.type) {
    case "forward_state": {
      const others = (state[event.tab] ?? []).filter((f) => f.id !== event.forward.id);
      const list = event.forward.status.state === "closed" ? others : [...others, event.forward];
      return { ...state, [event.tab]: list.sort((a, b) => a.id - b.id) };
    }
    case "tab_closed": {
      if (!(event.tab in state)) {
        return state;
      }
      const rest = { ...state };
      delete rest[event.tab];
      return rest;
    }
    default:
      return state;
  }
}

function hostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The forward as `ssh` writes it: `-L 8080 → localhost:80`, `-D 1080 (SOCKS)`. */
export function forwardWords(forward: ForwardReport): string {
  const spec = forward.spec;
  const listen = spec.bind_address ? hostPort(spec.bind_address, spec.listen_port) : String(spec.listen_port);
  const flag = spec.kind === "local" ? "-L" : spec.kind === "remote" ? "-R" : "-D";
  if (spec.kind === "dynamic" || !spec.to_host || spec.to_port === undefined || spec.to_port === null) {
    return `${flag} ${listen} (SOCKS)`;
  }
  return `${flag} ${listen} → ${hostPort(spec.to_host, spec.to_port)}`;
}

/** How the forward is doing, in words. */
export function forwardStatusWords(forward: ForwardReport): string {
  const status = forward.status;
  switch (status.state) {
    case "starting":
      return "starting";
    case "listening":
      return `listening on ${status.address}; ${forward.open_connections} open, ${forward.bytes_sent} B sent, ${forward.bytes_received} B received`;
    case "waiting":
      return "waiting for the connection to come back";
    case "failed":
      return `failed: ${status.error}`;
    case "closed":
      return "closed";
  }
}
