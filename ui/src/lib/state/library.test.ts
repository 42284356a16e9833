import { describe, expect, it } from "vitest";
import type { AuditEntry, Event, SavedConnection } from "../protocol";
import {
  answers,
  applyLibraryEvent,
  auditRows,
  endedWords,
  initialLibrary,
  MAX_AUDIT_ENTRIES,
  withoutAllowedRule,
  type LibraryState,
} from "./library";
import { formFromSettings, settingsFromForm } from "./settings-form";

function apply(state: LibraryState, ...events: Event[]): LibraryState {
  return events.reduce(applyLibraryEvent, state);
}

const web1: SavedConnection = {
  name: "web1",
  kind: "ssh",
  address: "ssh://deploy@10.0.0.5:22",
  target: { kind: "ssh", host: "10.0.0.5", port: 22, user: "deploy", identity_files: [], jump_hosts: [] },
  settings: { forbidden_commands: ["rm"] },
  tags: [],
};

function entry(tool: string, more: Partial<AuditEntry> = {}): AuditEntry {
  return {
    time: "2026-12-03T10:00:00.000Z",
    tab: "tab-1",
    connection: "web1",
    tool,
    call: `c-${tool}`,
    args: { command: "df -h" },
    decision: "allow",
    decided_by: "rule",
    status: "ok",
    duration_ms: 12,
    ...more,
  };
}

describe("the saved connections reducer", () => {
  it("keeps the engine's list, replaced whole on every change", () => {
    let state = apply(initialLibrary(), { type: "saved_connections", connections: [web1] });
    expect(state.saved).toEqual([web1]);
    state = apply(state, { type: "saved_connections", connections: [] });
    expect(state.saved).toEqual([]);
  });

  it("keeps the hosts of ~/.ssh/config for the import dialog", () => {
    const state = apply(initialLibrary(), {
      type: "ssh_config_hosts",
      path: "/home/u/.ssh/config",
      hosts: [{ name: "db", address: "ssh://pg@db:22", already_saved: true, tags: [] }],
    });
    expect(state.sshConfig?.hosts[0]?.already_saved).toBe(true);
  });

  it("remembers a changed host key per tab until the tab closes", () => {
    const changed: Event = {
      type: "host_key_changed",
      tab: "t1",
      host: "127.0.0.1",
      port: 2222,
      key_type: "ED25519",
      fingerprint: "SHA256:new",
      old_fingerprint: "SHA256:old",
      known_hosts: "/h/known_hosts",
      line: 3,
    };
    let state = apply(initialLibrary(), changed, changed);
    expect(state.hostKeyChanges).toEqual([
      {
        tab: "t1",
        host: "127.0.0.1",
        port: 2222,
        keyType: "ED25519",
        fingerprint: "SHA256:new",
        oldFingerprint: "SHA256:old",
        knownHosts: "/h/known_hosts",
        line: 3,
      },
    ]);
    state = apply(state, { type: "tab_closed", tab: "t1" });
    expect(state.hostKeyChanges).toEqual([]);
  });

  it("keeps the agents' keys and which tabs wait for a security key's touch", () => {
    const agents: Event = {
      type: "agent_keys",
      agents: [
        {
          name: "SSH_AUTH_SOCK",
          source: "/tmp/agent.sock",
          keys: [
            {
              key_type: "ED25519-SK",
              comment: "yubikey",
              fingerprint: "SHA256:abc",
              certificate: false,
              security_key: true,
            },
          ],
        },
      ],
    };
    const touch = (tab: string, waiting: boolean): Event => ({
      type: "security_key_touch",
      tab,
      key_type: "ED25519-SK",
      fingerprint: "SHA256:abc",
      waiting,
    });
    let state = apply(initialLibrary(), agents, touch("t1", true), touch("t2", true));
    expect(state.agents?.[0]?.keys[0]?.comment).toBe("yubikey");
    expect(state.touches).toEqual({
      t1: { keyType: "ED25519-SK", fingerprint: "SHA256:abc" },
      t2: { keyType: "ED25519-SK", fingerprint: "SHA256:abc" },
    });
    state = apply(state, touch("t1", false), { type: "tab_closed", tab: "t2" });
    expect(state.touches).toEqual({});
    expect(apply(state, { type: "tab_closed", tab: "t9" })).toBe(state);
  });

  it("tells a request's answer from an error outside any tab, and ignores the rest", () => {
    expect(answers({ type: "saved_connections", connections: [] }, "saved_connections")).toEqual({ ok: true });
    expect(answers({ type: "error", message: "a connection named web1 exists already" }, "saved_connections")).toEqual({
      ok: false,
      message: "a connection named web1 exists already",
    });
    expect(answers({ type: "error", tab: "t1", message: "tab trouble" }, "saved_connections")).toBeNull();
    expect(answers({ type: "tab_closed", tab: "t1" }, "saved_connections")).toBeNull();
    // A key file the engine cannot read is the form's error; one it can is fine.
    const checked = (problem: string | null): Event => ({ type: "key_file_checked", path: "~/k", problem });
    expect(answers(checked(null), "key_file_checked")).toEqual({ ok: true });
    expect(answers(checked("key file not found: /h/k"), "key_file_checked")).toEqual({
      ok: false,
      message: "key file not found: /h/k",
    });
  });
});

describe("the audit log", () => {
  it("adds recorded calls only once the log was read, and keeps the newest", () => {
    let state = apply(initialLibrary(), { type: "audit_recorded", entry: entry("early") });
    expect(state.audit).toBeNull();
    state = apply(state, { type: "audit_log", path: "/d/ai-audit.jsonl", entries: [entry("read_screen")] });
    state = apply(state, { type: "audit_recorded", entry: entry("run_command") });
    expect(state.audit?.entries.map((e) => e.tool)).toEqual(["read_screen", "run_command"]);
    for (let i = 0; i < MAX_AUDIT_ENTRIES + 5; i++) {
      state = apply(state, { type: "audit_recorded", entry: entry(`t${i}`) });
    }
    expect(state.audit?.entries.length).toBe(MAX_AUDIT_ENTRIES);
    expect(state.audit?.entries.at(-1)?.tool).toBe(`t${MAX_AUDIT_ENTRIES + 4}`);
  });

  it("shows rows newest first, filtered by decision and by text", () => {
    const now = new Date("2026-12-03T12:00:00.000Z");
    const entries = [
      entry("run_command", { args: { command: "echo hi" } }),
      entry("run_command", {
        call: "c2",
        args: { command: "rm -rf /srv" },
        decision: "deny",
        status: "denied",
        reasons: ["forbidden command: rm"],
        error: "forbidden",
      }),
      entry("edit_file", { call: "c3", args: { path: "/etc/x", edits: [] }, decision: "ask", decided_by: "user" }),
    ];
    const all = auditRows(entries, { text: "", decision: "all" }, now);
    expect(all.map((r) => r.tool)).toEqual(["edit_file", "run_command", "run_command"]);
    expect(all[0]?.decidedBy).toBe("you");
    expect(all[0]?.args).toBe("path=/etc/x edits=[]");
    const denied = auditRows(entries, { text: "", decision: "denied" }, now);
    expect(denied).toHaveLength(1);
    expect(denied[0]?.args).toBe("rm -rf /srv");
    expect(denied[0]?.reasons).toBe("forbidden command: rm; forbidden");
    expect(auditRows(entries, { text: "ECHO", decision: "all" }, now).map((r) => r.args)).toEqual(["echo hi"]);
    expect(auditRows(entries, { text: "forbidden", decision: "allowed" }, now)).toEqual([]);
  });

  it("says who made each call, filters by it, groups the user's browsing out, names tabs as the strip does", () => {
    const entries = [
      entry("run_command", { call: "call_1" }),
      entry("list_dir", { call: "user-aa", tab: "tab-2", connection: "ftp://h" }),
      entry("upload", { call: "user-bb", tab: "tab-2", connection: "ftp://h" }),
      entry("view_button", { call: "v1" }),
    ];
    const titles = (tab: string) => (tab === "tab-2" ? "backups" : null);
    const shown = auditRows(entries, { text: "", decision: "all", tabTitle: titles, browsing: false });
    expect(shown.map((r) => [r.tool, r.by, r.connection])).toEqual([
      ["view_button", "view button", "web1"],
      ["upload", "you", "backups"],
      ["run_command", "Pilot", "web1"],
    ]);
    expect(auditRows(entries, { text: "", decision: "all", browsing: true, by: "you" }).map((r) => r.tool)).toEqual([
      "upload",
      "list_dir",
    ]);
    expect(auditRows(entries, { text: "", decision: "all", by: "Pilot" }).map((r) => r.tool)).toEqual(["run_command"]);
  });

  it("says how a call ended: status, the command's own status and exit code, duration", () => {
    expect(endedWords(entry("run_command", { result: { status: "completed", exit_code: 2 } }))).toBe(
      "ok, exit 2, 12 ms",
    );
    expect(endedWords(entry("run_command", { result: { status: "timed_out" } }))).toBe("ok, timed out, 12 ms");
    expect(endedWords(entry("x", { status: "cancelled", duration_ms: 0 }))).toBe("cancelled, 0 ms");
  });
});

describe("the Connection settings form", () => {
  it("round-trips settings, with defaults for what the engine left out", () => {
    const form = formFromSettings({ forbidden_commands: ["rm", "systemctl restart"], send_file_contents: true });
    expect(form.forbidden).toBe("rm\nsystemctl restart");
    expect(form.commandTimeoutS).toBe("60");
    const result = settingsFromForm({ ...form, allowed: " df \n\n uptime", outputLimitLines: "500" });
    expect(result).toEqual({
      settings: {
        forbidden_commands: ["rm", "systemctl restart"],
        allowed_commands: ["df", "uptime"],
        extra_dangerous_commands: [],
        send_file_contents: true,
        file_limit_kb: 64,
        command_timeout_s: 60,
        output_limit_kb: 16,
        output_limit_lines: 500,
        shell_integration: "inject",
        sensitivity: "internal",
        backup_total_kb: 524288,
        backup_max_age_days: 30,
        backup_file_limit_kb: 65536,
      },
    });
  });

  it("names each wrong field and what it takes", () => {
    const form = formFromSettings({});
    const result = settingsFromForm({
      ...form,
      commandTimeoutS: "601",
      fileLimitKb: "ten",
      forbidden: "rm",
      allowed: "rm\nls",
    });
    expect(result).toEqual({
      errors: {
        commandTimeoutS: "Command timeout (s) must be a whole number from 1 to 600.",
        fileLimitKb: "Per-file limit (KB) must be a whole number from 1 to 2048.",
        allowed: "rm cannot be both forbidden and allowed (forbidden wins); remove it from one list.",
      },
    });
  });
});

describe("taking an allowed-commands rule back", () => {
  it("removes that entry alone, and says when it is gone already", () => {
    const settings = { forbidden_commands: ["rm"], allowed_commands: ["df", "df -h", "uptime"] };
    expect(withoutAllowedRule(settings, "df")).toEqual({
      forbidden_commands: ["rm"],
      allowed_commands: ["df -h", "uptime"],
    });
    expect(withoutAllowedRule({ allowed_commands: ["df -h"] }, "df")).toBeNull();
    expect(withoutAllowedRule({}, "df")).toBeNull();
  });
});
