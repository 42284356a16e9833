import { describe, expect, it } from "vitest";
import type { FleetGroup, FleetReport } from "../protocol";
import {
  type FleetRunState,
  applyFleetEvent,
  askingHosts,
  groupHeadline,
  groupStatus,
  initialFleetRun,
  reportSummary,
} from "./fleet";

const group = (over: Partial<FleetGroup>): FleetGroup => ({
  status: "done",
  exit_code: 0,
  reason: null,
  output: "",
  hosts: ["a"],
  ...over,
});

describe("fleet run state", () => {
  it("takes the check, progress and report of its own run only", () => {
    let state: FleetRunState = { ...initialFleetRun(), run: "r1", phase: "checking", command: "nginx -v" };
    state = applyFleetEvent(state, { type: "fleet_checked", run: "other", command: "x", hosts: [] });
    expect(state.phase).toBe("checking");
    const hosts = [
      { host: "w1", decision: "allow" as const, reasons: [] },
      { host: "w2", decision: "ask" as const, reasons: ["asks"] },
      { host: "db", decision: "deny" as const, reasons: ["forbidden"] },
    ];
    state = applyFleetEvent(state, { type: "fleet_checked", run: "r1", command: "nginx -v", hosts });
    expect(state.phase).toBe("approval");
    expect(askingHosts(state.checks ?? [])).toEqual(["w2"]);
    state = { ...state, phase: "running", run: "r2" };
    const result = { host: "w1", status: "done" as const, exit_code: 0, reason: null, duration_ms: 12 };
    state = applyFleetEvent(state, { type: "fleet_host_finished", run: "r2", result, done: 1, total: 3 });
    expect([state.done, state.total, state.finished.length]).toEqual([1, 3, 1]);
    const report: FleetReport = {
      command: "nginx -v",
      total: 3,
      done: 1,
      failed: 0,
      refused: 1,
      needs_approval: 1,
      cancelled: 0,
      nonzero_exit: 0,
      groups: [],
      hosts: [],
    };
    state = applyFleetEvent(state, { type: "fleet_finished", run: "r2", report });
    expect(state.phase).toBe("done");
    expect(reportSummary(report)).toBe("3 hosts: 1 done, 1 refused, 1 not approved");
  });

  it("shows a check's error and goes back to editing", () => {
    const state = { ...initialFleetRun(), run: "r1", phase: "checking" as const };
    const next = applyFleetEvent(state, { type: "error", tab: null, message: '"x" is neither' });
    expect([next.phase, next.error]).toEqual(["editing", '"x" is neither']);
  });

  it("heads a group with its count and first output line, else its reason", () => {
    expect(groupHeadline(group({ hosts: ["a", "b"], output: "\nnginx/1.24.0\nmore\n" }))).toBe("2 hosts: nginx/1.24.0");
    expect(groupHeadline(group({ status: "refused", exit_code: null, reason: "`rm` is forbidden" }))).toBe(
      "1 host: `rm` is forbidden",
    );
    expect(groupStatus(group({ exit_code: 127 }))).toBe("exit 127");
    expect(groupStatus(group({ status: "needs_approval", exit_code: null }))).toBe("not approved");
  });
});
