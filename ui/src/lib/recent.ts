// SSH connections this browser made, newest first, so the sidebar can offer them again. Kept in
// the page's local storage: host, port, user, key file and jump hosts only, never a secret.

import type { TabTarget } from "./protocol";

export type SshTarget = Extract<TabTarget, { kind: "ssh" }>;

export const RECENT_KEY = "kaiport.recent-connections";
const MAX_RECENT = 12;

/** The part of `localStorage` used here. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export function recentLabel(target: SshTarget): string {
  const host = target.host.includes(":") ? `[${target.host}]` : target.host;
  return target.port === 22 ? `${target.user}@${host}` : `${target.user}@${host}:${target.port}`;
}

function isSshTarget(value: unknown): value is SshTarget {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const v = value as Record<string, unknown>;
  return (
    v.kind === "ssh" &&
    typeof v.host === "string" &&
    typeof v.user === "string" &&
    typeof v.port === "number" &&
    Number.isInteger(v.port) &&
    (v.identity_files === undefined ||
      (Array.isArray(v.identity_files) && v.identity_files.every((f) => typeof f === "string"))) &&
    (v.jump_hosts === undefined || (Array.isArray(v.jump_hosts) && v.jump_hosts.every((f) => typeof f === "string")))
  );
}

export function loadRecent(store: KeyValueStore): SshTarget[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(store.getItem(RECENT_KEY) ?? "[]");
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? parsed.filter(isSshTarget).slice(0, MAX_RECENT) : [];
}

/** `target` goes first; the same user@host:port made earlier is replaced. */
export function rememberRecent(store: KeyValueStore, target: SshTarget): SshTarget[] {
  const same = (t: SshTarget) => t.host === target.host && t.port === target.port && t.user === target.user;
  const list = [target, ...loadRecent(store).filter((t) => !same(t))].slice(0, MAX_RECENT);
  try {
    store.setItem(RECENT_KEY, JSON.stringify(list));
  } catch {
    // Storage full or refused (private window): the list lives for this page only.
  }
  return list;
}

/** The form's fields as a target, or what is wrong with them. */
export function sshTargetFromForm(form: {
  host: string;
  port: string;
  user: string;
  keyFile: string;
  jumpHosts: string;
}): { target: SshTarget } | { error: string } {
  const host = form.host.trim();
  const user = form.user.trim();
  const portText = form.port.trim() === "" ? "22" : form.port.trim();
  if (host === "") {
    return { error: "Host is empty." };
  }
  if (/\s/.test(host)) {
    return { error: "Host cannot contain spaces." };
  }
  if (user === "") {
    return { error: "User is empty." };
  }
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || !Number.isInteger(port) || port < 1 || port > 65535) {
    return { error: "Port must be a number from 1 to 65535." };
  }
  const keyFile = form.keyFile.trim();
  const jumpHosts = form.jumpHosts
    .split(",")
    .map((hop) => hop.trim())
    .filter((hop) => hop !== "");
  return {
    target: {
      kind: "ssh",
      host,
      port,
      user,
      identity_files: keyFile === "" ? [] : [keyFile],
      jump_hosts: jumpHosts,
    },
  };
}
