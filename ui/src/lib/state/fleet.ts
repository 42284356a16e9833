// A fleet run started from the UI ("Run on group…"): what each host's rules say, the one
// approval for the hosts that ask, progress while it runs and the grouped report. A pure
// reducer over engine events (fleet.svelte.ts sends the ops); it never decides what may run.

import type { Event, FleetGroup, FleetHostCheck, FleetHostResult, FleetReport, FleetStatus } from "../protocol";

export type FleetPhase = "editing" | "checking" | "approval" | "running" | "done";

export interface FleetRunState {
  /** The run id of the check or run under way (a new one per Run). */
  run: string | null;
  phase: FleetPhase;
  command: string;
  /** What each host's rules said of `command` (after the check). */
  checks: FleetHostCheck[] | null;
  done: number;
  total: number;
  /** Hosts that ended, in the order they ended. */
  finished: FleetHostResult[];
  report: FleetReport | null;
  /** The engine's complaint (a target that is not a connection or a tag, an empty line). */
  error: string | null;
  /** Cancel was asked; the run ends with its hosts reported cancelled. */
  cancelling: boolean;
}

export function initialFleetRun(): FleetRunState {
  return {
    run: null,
    phase: "editing",
    command: "",
    checks: null,
    done: 0,
    total: 0,
    finished: [],
    report: null,
    error: null,
    cancelling: false,
  };
}

/** The hosts whose rules ask about the line: the ones an approval is for. */
export function askingHosts(checks: FleetHostCheck[]): string[] {
  return checks.filter((c) => c.decision === "ask").map((c) => c.host);
}

/** The state after `event`; events of other runs leave it as it is. */
export function applyFleetEvent(state: FleetRunState, event: Event): FleetRunState {
  switch (event.type) {
    case "fleet_checked":
      if (state.phase !== "checking" || event.run !== state.run) {
        return state;
      }
      return { ...state, checks: event.hosts, phase: "approval" };
    case "fleet_host_finished":
      if (state.phase !== "running" || event.run !== state.run) {
        return state;
      }
      return { ...state, done: event.done, total: event.total, finished: [...state.finished, event.result] };
    case "fleet_finished":
      if (state.phase !== "running" || event.run !== state.run) {
        return state;
      }
      return { ...state, phase: "done", report: event.report, done: event.report.total, total: event.report.total };
    case "error":
      // A fleet op's complaint has no tab; only a check under way is waiting for one.
      if (state.phase !== "checking" || event.tab !== null) {
        return state;
      }
      return { ...state, phase: "editing", error: event.message };
    default:
      return state;
  }
}

const STATUS_WORDS: Record<FleetStatus, string> = {
  done: "done",
  failed: "failed",
  refused: "refused",
  needs_approval: "not approved",
  cancelled: "cancelled",
};

/** A group's outcome in a word or two: "exit 0", "refused", … */
export function groupStatus(group: Pick<FleetGroup, "status" | "exit_code">): string {
  if (group.status === "done") {
    return group.exit_code === null ? "ended by a signal" : `exit ${group.exit_code}`;
  }
  return STATUS_WORDS[group.status];
}

/** Whether a group is bad news (shown in red): anything but a command that exited 0. */
export function groupIsBad(group: Pick<FleetGroup, "status" | "exit_code">): boolean {
  return group.status !== "done" || group.exit_code !== 0;
}

/** A group's one-line heading: "37 hosts: nginx/1.24.0" (its output's first line, else why). */
export function groupHeadline(group: FleetGroup): string {
  const count = `${group.hosts.length} ${group.hosts.length === 1 ? "host" : "hosts"}`;
  const firstLine = group.output.split("\n").find((line) => line.trim() !== "");
  const what = firstLine ?? group.reason ?? (group.status === "done" ? "(no output)" : STATUS_WORDS[group.status]);
  return `${count}: ${what}`;
}

/** The report's counts in words: "5 hosts: 3 done, 1 refused, 1 failed". */
export function reportSummary(report: FleetReport): string {
  const parts = [`${report.done} done`];
  const more: [number, string][] = [
    [report.nonzero_exit, "exited non-zero"],
    [report.refused, "refused"],
    [report.failed, "failed"],
    [report.needs_approval, "not approved"],
    [report.cancelled, "cancelled"],
  ];
  for (const [count, word] of more) {
    if (count > 0) {
      parts.push(`${count} ${word}`);
    }
  }
  return `${report.total} ${report.total === 1 ? "host" : "hosts"}: ${parts.join(", ")}`;
}

/** How long a host took, for people: "840 ms", "2.4 s". */
export function hostDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export interface CheckSection {
  decision: FleetHostCheck["decision"];
  /** What that decision means for this run, in the user's words. */
  label: string;
  hosts: FleetHostCheck[];
}

/** An approval's hosts by what their rules say: ask (the approval is for these), forbid
 * (refused whatever is decided), allow (run anyway); empty sections left out. */
export function checkSections(hosts: FleetHostCheck[]): CheckSection[] {
  const sections: CheckSection[] = [
    { decision: "ask", label: "Ask — approving runs it on", hosts: [] },
    { decision: "deny", label: "Forbid — refused on", hosts: [] },
    { decision: "allow", label: "Allow — runs on", hosts: [] },
  ];
  for (const host of hosts) {
    sections.find((s) => s.decision === host.decision)?.hosts.push(host);
  }
  return sections.filter((s) => s.hosts.length > 0);
}
