// Broadcast input: the receiving tabs and the lines typed once for all of them, sent as
// `BroadcastLine`; the state (lib/state/broadcast.ts) follows the engine's answers. The engine
// judges each line by every tab's own rules; this passes on only whether the user chose to send a
// line to the tabs that allow it after another refused it.

import type { TabId } from "../ids";
import type { Event } from "../protocol";
import type { Transport } from "../transport/transport";
import { applyBroadcastEvent, heldTabs, initialBroadcast, type BroadcastState } from "./broadcast";

let lines = 0;

function newLineId(): string {
  lines += 1;
  return `bc-${Date.now().toString(36)}-${lines}`;
}

export class BroadcastInput {
  state: BroadcastState = $state.raw(initialBroadcast());
  private readonly transport: Transport;

  constructor(transport: Transport) {
    this.transport = transport;
  }

  handle(event: Event): void {
    this.state = applyBroadcastEvent(this.state, event);
  }

  get active(): boolean {
    return this.state.tabs.length > 0;
  }

  start(tabs: TabId[]): void {
    this.state = { ...initialBroadcast(), tabs };
  }

  /** Stop (Esc): nothing more is typed into the tabs. */
  stop(): void {
    this.state = initialBroadcast();
  }

  /** Type `line` and Enter into every receiving tab, each judging it by its own rules. */
  send(line: string): void {
    this.sendTo(this.state.tabs, line, false);
  }

  /** The last line, to the tabs it was held from because another tab refused it. */
  sendToOthers(): void {
    const last = this.state.last;
    const held = heldTabs(last);
    if (last !== null && held.length > 0) this.sendTo(held, last.line, true);
  }

  private sendTo(tabs: TabId[], line: string, skipRefused: boolean): void {
    if (tabs.length === 0 || this.state.pending !== null) return;
    const broadcast = newLineId();
    this.state = { ...this.state, pending: broadcast };
    this.transport.send({ type: "broadcast_line", broadcast, tabs, line, skip_refused: skipRefused });
  }
}
