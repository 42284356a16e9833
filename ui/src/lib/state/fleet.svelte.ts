// One "Run on group…" dialog's fleet run: sends FleetCheck, FleetRun and FleetCancel and keeps
// the state (lib/state/fleet.ts) from the engine's answers. The engine judges every host by its
// own rules; this only passes on which asking hosts the user approved.

import type { Transport } from "../transport/transport";
import { applyFleetEvent, askingHosts, initialFleetRun, type FleetRunState } from "./fleet";

let runs = 0;

function newRunId(): string {
  runs += 1;
  return `ui-${Date.now().toString(36)}-${runs}`;
}

export class FleetRun {
  state: FleetRunState = $state.raw(initialFleetRun());
  /** Saved connections and tags to run on (the dialog's chosen ones may change between runs). */
  targets: string[];
  private readonly transport: Transport;
  private readonly stop: () => void;

  constructor(transport: Transport, targets: string[]) {
    this.transport = transport;
    this.targets = targets;
    this.stop = transport.subscribe((message) => {
      if (message.kind === "event") {
        this.state = applyFleetEvent(this.state, message.event);
      }
    });
  }

  dispose(): void {
    this.stop();
  }

  /** Ask what each host's rules say of `command` on `targets` (the approval card shows it); the
   * run that follows goes to the same targets. */
  check(command: string, targets: string[] = this.targets): void {
    const run = newRunId();
    this.targets = [...targets];
    this.state = { ...initialFleetRun(), run, phase: "checking", command };
    this.transport.send({ type: "fleet_check", run, targets: this.targets, command, mode: null });
  }

  /** Run the checked command; `approve`: the user approved it for the hosts whose rules ask. */
  run(approve: boolean): void {
    const checks = this.state.checks ?? [];
    const approved = approve ? askingHosts(checks) : [];
    const run = newRunId();
    const command = this.state.command;
    this.state = { ...this.state, run, phase: "running", done: 0, total: checks.length, finished: [] };
    this.transport.send({
      type: "fleet_run",
      run,
      targets: this.targets,
      command,
      mode: null,
      approved,
      automatic: false,
      concurrency: null,
    });
  }

  /** Back to the command field (the approval was declined, or to run another line). */
  edit(): void {
    this.state = { ...initialFleetRun(), command: this.state.command };
  }

  cancel(): void {
    const run = this.state.run;
    if (this.state.phase === "running" && run !== null) {
      this.state = { ...this.state, cancelling: true };
      this.transport.send({ type: "fleet_cancel", run });
    }
  }
}
