// Connections this browser made, newest first, so the sidebar can offer them again: SSH ones
// when they are opened, storage ones once they connected (a failed storage attempt is not
// offered again). Kept in the page's local storage: host, port, user, key file and jump hosts,
// or a storage URL, user and local folders, with the tab's title; never a secret.

import type { TabTarget } from "./protocol";

export type SshTarget = Extract<TabTarget, { kind: "ssh" }>;
export type StorageTarget = Extract<TabTarget, { kind: "storage" }>;
/** A storage connection made before, with the title its tab had. */
export type StorageRecent = StorageTarget & { title: string };
export type RecentTarget = SshTarget | StorageRecent;

export const RECENT_KEY = "kaiport.recent-connections";
const MAX_RECENT = 12;

/** The part of `localStorage` used here. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export function recentLabel(target: RecentTarget): string {
  if (target.kind === "storage") {
    return target.title;
  }
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

function isStorageRecent(value: unknown): value is StorageRecent {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const v = value as Record<string, unknown>;
  const strings = (list: unknown) =>
    list === undefined || (Array.isArray(list) && list.every((f) => typeof f === "string"));
  return (
    v.kind === "storage" &&
    typeof v.url === "string" &&
    typeof v.title === "string" &&
    (v.user === undefined || v.user === null || typeof v.user === "string") &&
    strings(v.local_roots) &&
    strings(v.identity_files)
  );
}

export function loadRecent(store: KeyValueStore): RecentTarget[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(store.getItem(RECENT_KEY) ?? "[]");
  } catch {
    return [];
  }
  return Array.isArray(parsed)
    ? parsed.filter((t): t is RecentTarget => isSshTarget(t) || isStorageRecent(t)).slice(0, MAX_RECENT)
    : [];
}

/** Whether `a` and `b` reach the same place as the same user. */
function sameRecent(a: RecentTarget, b: RecentTarget): boolean {
  if (a.kind === "ssh" && b.kind === "ssh") {
    return a.host === b.host && a.port === b.port && a.user === b.user;
  }
  if (a.kind === "storage" && b.kind === "storage") {
    return a.url === b.url && (a.user ?? null) === (b.user ?? null);
  }
  return false;
}

/** `target` goes first; the same connection made earlier is replaced. */
export function rememberRecent(store: KeyValueStore, target: RecentTarget): RecentTarget[] {
  const same = (t: RecentTarget) => sameRecent(t, target);
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
  /** "Keep the session on the server" (tmux or screen there). */
  keepSession?: boolean;
  /** The agent chosen (`identity_agent`); "" is the default one. */
  agent?: string;
  forwardAgent?: boolean;
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
      ...(form.keepSession === true ? { keep_session: true } : {}),
      ...((form.agent ?? "") === "" ? {} : { identity_agent: form.agent }),
      ...(form.forwardAgent === true ? { forward_agent: true } : {}),
    },
  };
}
