// Saved connections, the ~/.ssh/config import, the audit log and changed host keys, as a pure
// function of the engine's events (Event in → state out). No DOM, no Svelte: Vitest checks it.

import type { TabId } from "../ids";
import type { AgentInfo, AuditEntry, ConnectionSettings, Event, SavedConnection, SshConfigHost } from "../protocol";

/** A server whose host key is not the one known_hosts holds: its tab must not connect anyway. */
export interface HostKeyChange {
  tab: TabId;
  host: string;
  port: number;
  keyType: string;
  fingerprint: string;
  /** The fingerprint of the key stored on `line` ("" from an engine that does not say). */
  oldFingerprint: string;
  knownHosts: string;
  line: number;
}

export interface LibraryState {
  /** The saved connections, `null` until the engine listed them. */
  saved: SavedConnection[] | null;
  /** The hosts of ~/.ssh/config, once read (for the import dialog). */
  sshConfig: { path: string; hosts: SshConfigHost[] } | null;
  /** The audit log's recent lines, oldest first; `null` until read. */
  audit: { path: string; entries: AuditEntry[] } | null;
  /** Changed host keys seen, one per tab. */
  hostKeyChanges: HostKeyChange[];
  /** The SSH agents found where the engine runs and their keys; `null` until listed. */
  agents: AgentInfo[] | null;
  /** Tabs whose login waits for a security key's touch, with that key. */
  touches: Record<TabId, { keyType: string; fingerprint: string }>;
}

/** At most this many audit lines are kept in the page. */
export const MAX_AUDIT_ENTRIES = 500;

export function initialLibrary(): LibraryState {
  return { saved: null, sshConfig: null, audit: null, hostKeyChanges: [], agents: null, touches: {} };
}

export function applyLibraryEvent(state: LibraryState, event: Event): LibraryState {
  switch (event.type) {
    case "saved_connections":
      return { ...state, saved: event.connections };
    case "ssh_config_hosts":
      return { ...state, sshConfig: { path: event.path, hosts: event.hosts } };
    case "audit_log":
      return { ...state, audit: { path: event.path, entries: event.entries.slice(-MAX_AUDIT_ENTRIES) } };
    case "audit_recorded":
      if (state.audit === null) {
        // Not read yet: the first read brings this line too.
        return state;
      }
      return {
        ...state,
        audit: { ...state.audit, entries: [...state.audit.entries, event.entry].slice(-MAX_AUDIT_ENTRIES) },
      };
    case "host_key_changed": {
      const change: HostKeyChange = {
        tab: event.tab,
        host: event.host,
        port: event.port,
        keyType: event.key_type,
        fingerprint: event.fingerprint,
        oldFingerprint: event.old_fingerprint ?? "",
        knownHosts: event.known_hosts,
        line: event.line,
      };
      return { ...state, hostKeyChanges: [...state.hostKeyChanges.filter((c) => c.tab !== event.tab), change] };
    }
    case "host_key_replaced":
      // The stored key is the server's now: its refusals are settled.
      return {
        ...state,
        hostKeyChanges: state.hostKeyChanges.filter((c) => c.host !== event.host || c.port !== event.port),
      };
    case "agent_keys":
      return { ...state, agents: event.agents };
    case "security_key_touch":
      return { ...state, touches: withTouch(state.touches, event.tab, event.waiting ? event : null) };
    case "tab_closed": {
      const touches = withTouch(state.touches, event.tab, null);
      return state.hostKeyChanges.some((c) => c.tab === event.tab)
        ? { ...state, touches, hostKeyChanges: state.hostKeyChanges.filter((c) => c.tab !== event.tab) }
        : touches === state.touches
          ? state
          : { ...state, touches };
    }
    default:
      return state;
  }
}

/** `touches` with `tab` waiting for `key`'s touch, or no longer (null); the same object when
 * nothing changes. */
function withTouch(
  touches: LibraryState["touches"],
  tab: TabId,
  key: { key_type: string; fingerprint: string } | null,
): LibraryState["touches"] {
  if (key === null) {
    if (!(tab in touches)) return touches;
    const rest = { ...touches };
    delete rest[tab];
    return rest;
  }
  return { ...touches, [tab]: { keyType: key.key_type, fingerprint: key.fingerprint } };
}

/** `settings` without the allowed-commands rule `rule` (that entry alone), or null when they do
 * not have it (the user removed it already). */
export function withoutAllowedRule(settings: ConnectionSettings, rule: string): ConnectionSettings | null {
  const allowed = settings.allowed_commands ?? [];
  if (!allowed.includes(rule)) {
    return null;
  }
  return { ...settings, allowed_commands: allowed.filter((entry) => entry !== rule) };
}

/** How taking an allowed-commands rule back ended: removed from the tab (and its saved
 * connection), already gone from both, or why it could not be. */
export type RuleRemoval = { kind: "removed" } | { kind: "gone" } | { kind: "failed"; message: string };

/** The answer an op of this module waits for: its event, or an `error` outside any tab. */
export function answers(event: Event, awaited: Event["type"]): { ok: true } | { ok: false; message: string } | null {
  if (event.type === "key_file_checked" && awaited === "key_file_checked" && event.problem !== null) {
    return { ok: false, message: event.problem };
  }
  if (event.type === awaited) {
    return { ok: true };
  }
  if (event.type === "error" && (event.tab ?? null) === null) {
    return { ok: false, message: event.message };
  }
  return null;
}

/** How the audit view filters: free text over every column, and one decision or all. */
export type DecisionFilter = "all" | "allowed" | "asked" | "denied";
/** Who made a call: Pilot, the user (in a storage tab), or a view's button. */
export type AuditBy = "Pilot" | "you" | "view button";
export type ByFilter = "all" | AuditBy;

/** Who made the call of `entry`, from what every audit line has: a view's button is its own
 * tool, the user's own calls and actions (a storage tab's transfers, a port forward, a replaced
 * host key, a settings change) have ids starting with `user-` (storage.ts), the rest are
 * Pilot's. Old lines read the same way. */
export function auditBy(entry: Pick<AuditEntry, "tool" | "call">): AuditBy {
  if (entry.tool === "view_button") return "view button";
  return entry.call.startsWith("user-") ? "you" : "Pilot";
}

export interface AuditRow {
  key: string;
  time: string;
  tab: string;
  connection: string;
  tool: string;
  args: string;
  decision: string;
  decidedBy: string;
  by: AuditBy;
  ended: string;
  /** ok, error, denied or cancelled: the row's mark. */
  status: AuditEntry["status"];
  reasons: string;
}

/** `2026-12-03T10:48:36.123Z` as the local `HH:MM:SS` and the date when not today. */
export function auditTime(time: string, now: Date = new Date()): string {
  const at = new Date(time);
  if (Number.isNaN(at.getTime())) {
    return time;
  }
  const pad = (n: number) => String(n).padStart(2, "0");
  const clock = `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  const sameDay = at.toDateString() === now.toDateString();
  return sameDay ? clock : `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${clock}`;
}

function decisionWords(entry: AuditEntry): string {
  switch (entry.decision) {
    case "allow":
      return "allowed";
    case "ask":
      return "asked";
    case "deny":
      return "denied";
  }
}

function decidedByWords(entry: AuditEntry): string {
  switch (entry.decided_by ?? null) {
    case "rule":
      return "rule";
    case "user":
      return "you";
    case "autopilot":
      return "autopilot";
    case "automatic":
      return "automatic";
    default:
      return "—";
  }
}

/** How the call ended, in words: status, the command's own status and exit code, the error. */
export function endedWords(entry: AuditEntry): string {
  const parts: string[] = [entry.status];
  const result = entry.result;
  if (result !== null && result !== undefined && typeof result === "object" && !Array.isArray(result)) {
    const r = result as Record<string, unknown>;
    if (typeof r.status === "string" && r.status !== "completed") {
      parts.push(r.status.replace(/_/g, " "));
    }
    if (typeof r.exit_code === "number") {
      parts.push(`exit ${r.exit_code}`);
    }
  }
  parts.push(`${entry.duration_ms} ms`);
  return parts.join(", ");
}

/** The arguments in one short line: a command as typed, else `name=value` pairs. */
export function argsLine(args: AuditEntry["args"], max = 120): string {
  let text: string;
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    const map = args as Record<string, unknown>;
    text =
      typeof map.command === "string"
        ? map.command
        : Object.entries(map)
            .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
            .join(" ");
  } else {
    text = JSON.stringify(args) ?? "";
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function auditRow(entry: AuditEntry, index: number, now?: Date): AuditRow {
  return {
    key: `${entry.call}-${entry.time}-${index}`,
    time: auditTime(entry.time, now),
    tab: entry.tab,
    connection: entry.connection,
    tool: entry.tool,
    args: argsLine(entry.args),
    decision: decisionWords(entry),
    decidedBy: decidedByWords(entry),
    by: auditBy(entry),
    ended: endedWords(entry),
    status: entry.status,
    reasons:
      (entry.reasons ?? []).join("; ") + (entry.error ? `${entry.reasons?.length ? "; " : ""}${entry.error}` : ""),
  };
}

/** The rows the view shows, newest first. */
export function auditRows(
  entries: AuditEntry[],
  filter: {
    text: string;
    decision: DecisionFilter;
    by?: ByFilter;
    /** The user's own browsing (their list_dir calls), left out unless asked for. */
    browsing?: boolean;
    /** The tab's name as the tab strip shows it, where the tab is open. */
    tabTitle?: (tab: string) => string | null;
  },
  now?: Date,
): AuditRow[] {
  const needle = filter.text.trim().toLowerCase();
  const by = filter.by ?? "all";
  return entries
    .map((entry, index) => auditRow(entry, index, now))
    .map((row) => ({ ...row, connection: filter.tabTitle?.(row.tab) ?? row.connection }))
    .filter((row) => filter.browsing !== false || !(row.by === "you" && row.tool === "list_dir"))
    .filter((row) => by === "all" || row.by === by)
    .filter((row) => filter.decision === "all" || row.decision === filter.decision)
    .filter(
      (row) =>
        needle === "" ||
        [
          row.time,
          row.tab,
          row.connection,
          row.tool,
          row.args,
          row.decision,
          row.decidedBy,
          row.by,
          row.ended,
          row.reasons,
        ]
          .join(" ")
          .toLowerCase()
          .includes(needle),
    )
    .reverse();
}
