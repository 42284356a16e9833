// A tab's port forwards as the engine reports them (`forward_state`), for the tab's "Forwards"
// list, and the "Add forward" form's fields as a forward. Pure: Event in → state out, checked by
// Vitest.

import type { Event, ForwardKind, ForwardReport, ForwardSpec } from "../protocol";

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

export function hostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The forward as `ssh` writes it: `-L 8080 → localhost:80`, `-D 1080 (SOCKS)`. */
export function forwardWords(forward: Pick<ForwardReport, "spec">): string {
  const spec = forward.spec;
  const listen = spec.bind_address ? hostPort(spec.bind_address, spec.listen_port) : String(spec.listen_port);
  const flag = spec.kind === "local" ? "-L" : spec.kind === "remote" ? "-R" : "-D";
  if (spec.kind === "dynamic" || !spec.to_host || spec.to_port === undefined || spec.to_port === null) {
    return `${flag} ${listen} (SOCKS)`;
  }
  return `${flag} ${listen} → ${hostPort(spec.to_host, spec.to_port)}`;
}

/** What opening `spec` on `place`'s connection will do, in words, for an approval card:
 * "Open a port forward on web1: this computer’s 127.0.0.1:8080 → localhost:80 on the server". */
export function forwardHeadline(spec: ForwardSpec, place: string): string {
  const lead = `Open a port forward on ${place}:`;
  const target = spec.to_host != null && spec.to_port != null ? hostPort(spec.to_host, spec.to_port) : "?";
  switch (spec.kind) {
    case "local":
      return `${lead} this computer’s ${hostPort(spec.bind_address ?? "127.0.0.1", spec.listen_port)} → ${target} on the server`;
    case "remote": {
      const where = spec.bind_address ?? "loopback";
      const listen =
        spec.listen_port === 0
          ? `${where} (a port it chooses)`
          : spec.bind_address != null
            ? hostPort(spec.bind_address, spec.listen_port)
            : `loopback port ${spec.listen_port}`;
      return `${lead} the server’s ${listen} → ${target} on this computer`;
    }
    case "dynamic":
      return `${lead} a SOCKS proxy on this computer’s ${hostPort(spec.bind_address ?? "127.0.0.1", spec.listen_port)}, through the server`;
  }
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

/** Who opened the forward, when Pilot did (the user approved its open_forward call): the marker's
 * accessible name and title, naming the call as the approval card and audit log do. */
export function forwardOpener(forward: Pick<ForwardReport, "pilot_call">): string | null {
  const call = forward.pilot_call;
  return call === undefined || call === null ? null : `Opened by Pilot (call ${call})`;
}

/** Whether `address` is loopback (or `localhost`), as the engine decides it: a listener anywhere
 * else is reachable from other computers. */
export function isLoopback(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost" || bare === "::1" || /^(0{1,4}:){7}0{0,3}1$/.test(bare)) {
    return true;
  }
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(bare);
  return v4 !== null && v4.slice(1).every((part) => Number(part) <= 255);
}

/** A warning when the forward's listener on this computer is reachable from other computers
 * (as `kaiport serve` warns of its own address); null when it is not. */
export function forwardExposure(spec: ForwardSpec): string | null {
  if (spec.kind === "remote" || spec.bind_address === undefined || spec.bind_address === null) {
    return null;
  }
  if (isLoopback(spec.bind_address)) {
    return null;
  }
  return `Listens on ${hostPort(spec.bind_address, spec.listen_port)}, reachable from other computers: anyone who can reach it can use this SSH connection.`;
}

/** `[host:]port` or `host:port` split at its last colon, `[v6]` brackets removed. */
function splitHostPort(text: string): { host: string | null; port: string } {
  const bracketed = /^\[([^\]]+)\]:(.*)$/.exec(text);
  if (bracketed !== null) {
    return { host: bracketed[1] ?? "", port: bracketed[2] ?? "" };
  }
  const colon = text.lastIndexOf(":");
  if (colon < 0) {
    return { host: null, port: text };
  }
  return { host: text.slice(0, colon), port: text.slice(colon + 1) };
}

function portNumber(text: string, allowZero: boolean): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port <= 65535 && (port > 0 || allowZero) ? port : null;
}

/** The listening side of a forward of `kind` from `[address:]port`; null when it does not parse. */
function listenSpec(kind: ForwardKind, listen: string): ForwardSpec | null {
  const parts = splitHostPort(listen.trim());
  const port = portNumber(parts.port, kind === "remote");
  if (port === null) return null;
  const spec: ForwardSpec = { kind, listen_port: port };
  if (parts.host !== null && parts.host !== "") {
    spec.bind_address = parts.host;
  }
  return spec;
}

/** The warning for the listener the form's `listen` names, as soon as it is typed (before the
 * target). */
export function listenExposure(kind: ForwardKind, listen: string): string | null {
  const spec = listenSpec(kind, listen);
  return spec === null ? null : forwardExposure(spec);
}

/** The "Add forward" form as a forward: `listen` is `[address:]port` (the address is where the
 * listener binds: this computer's loopback, or the server's, unless given), `target` is
 * `host:port` (none for a SOCKS forward). Or what is wrong. */
export function forwardFromForm(form: {
  kind: ForwardKind;
  listen: string;
  target: string;
}): { spec: ForwardSpec } | { error: string } {
  const spec = listenSpec(form.kind, form.listen);
  if (spec === null) {
    return { error: "Listen must be a port (1 to 65535), optionally after an address: 8080 or 0.0.0.0:8080." };
  }
  if (form.kind === "dynamic") {
    return { spec };
  }
  const target = splitHostPort(form.target.trim());
  const toPort = portNumber(target.port, false);
  if (target.host === null || target.host === "" || /\s/.test(target.host) || toPort === null) {
    return { error: "Target must be host:port, e.g. localhost:80." };
  }
  return { spec: { ...spec, to_host: target.host, to_port: toPort } };
}
