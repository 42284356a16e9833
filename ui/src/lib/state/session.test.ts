import { describe, expect, it } from "vitest";
import type { ConnectionState, Op } from "../protocol";
import type { Incoming, Transport } from "../transport/transport";
import { NOT_SENT, Session } from "./session.svelte";

class FakeTransport implements Transport {
  ops: Op[] = [];
  inputs: [string, string][] = [];
  handler: ((message: Incoming) => void) | null = null;
  send(op: Op): void {
    this.ops.push(op);
  }
  input(tab: string, data: Uint8Array): void {
    this.inputs.push([tab, new TextDecoder().decode(data)]);
  }
  subscribe(handler: (message: Incoming) => void): () => void {
    this.handler = handler;
    return () => {};
  }
  close(): void {}
}

describe("the session", () => {
  it("keeps keystrokes typed while a tab connects and sends them, in order, once connected", () => {
    const transport = new FakeTransport();
    const session = new Session(transport);
    const tab = session.openLocal();
    expect(transport.ops[0]).toMatchObject({ type: "open_tab", tab, target: { kind: "local" } });
    session.input(tab, new TextEncoder().encode("ec"));
    session.input(tab, new TextEncoder().encode("ho\r"));
    expect(transport.inputs).toEqual([]);
    transport.handler?.({
      kind: "event",
      event: { type: "connection_state", tab, state: { state: "connected" } },
    });
    expect(transport.inputs).toEqual([
      [tab, "ec"],
      [tab, "ho\r"],
    ]);
    session.input(tab, new TextEncoder().encode("x"));
    expect(transport.inputs.at(-1)).toEqual([tab, "x"]);
  });

  it("drops what was typed ahead when connecting fails", () => {
    const transport = new FakeTransport();
    const session = new Session(transport);
    const tab = session.openLocal();
    session.input(tab, new TextEncoder().encode("secret-ish"));
    transport.handler?.({
      kind: "event",
      event: { type: "connection_state", tab, state: { state: "failed", error: "refused" } },
    });
    expect(transport.inputs).toEqual([]);
  });

  it("says keys typed into a terminal tab that reconnects were not sent, and sends none", () => {
    const transport = new FakeTransport();
    const session = new Session(transport);
    const tab = session.openLocal();
    const state = (state: ConnectionState) =>
      transport.handler?.({ kind: "event", event: { type: "connection_state", tab, state } });
    state({ state: "connected" });
    state({ state: "reconnecting", attempt: 1, in_ms: 1000, reason: "the server went away" });
    session.input(tab, new TextEncoder().encode("\x1b[I"));
    expect(session.state.notices).toEqual([]);
    session.input(tab, new TextEncoder().encode("rm -rf build\r"));
    expect(transport.inputs).toEqual([]);
    expect(session.state.notices.map((n) => [n.tab, n.message])).toEqual([[tab, NOT_SENT]]);
    // Back: the notice goes, and typing reaches the shell again.
    state({ state: "connected" });
    expect(session.state.notices).toEqual([]);
    session.input(tab, new TextEncoder().encode("ls\r"));
    expect(transport.inputs).toEqual([[tab, "ls\r"]]);
  });

  it("answers a prompt once and forgets it", () => {
    const transport = new FakeTransport();
    const session = new Session(transport);
    transport.handler?.({
      kind: "event",
      event: {
        type: "prompt_requested",
        tab: null,
        prompt_id: "p1",
        prompt: { kind: "password", user: "u", host: "h" },
      },
    });
    expect(session.state.prompts).toHaveLength(1);
    session.answerPrompt("p1", { kind: "secret", value: "pw" });
    expect(session.state.prompts).toEqual([]);
    expect(transport.ops).toEqual([{ type: "answer_prompt", prompt: "p1", answer: { kind: "secret", value: "pw" } }]);
  });
});
