import { describe, expect, it } from "vitest";
import type { Event, ForwardReport } from "../protocol";
import { applyForwardEvent, forwardStatusWords, forwardWords, type ForwardsByTab } from "./forwards";

function report(id: number, status: ForwardReport["status"]): ForwardReport {
  return {
    id,
    spec: { kind: "local", listen_port: 8080, to_host: "localhost", to_port: 80 },
    status,
    open_connections: 1,
    total_connections: 3,
    bytes_sent: 10,
    bytes_received: 20,
  };
}

const state = (tab: string, forward: ForwardReport): Event => ({ type: "forward_state", tab, forward });

describe("a tab's forwards", () => {
  it("keeps the latest report of each, drops closed ones and the closed tab's", () => {
    let forwards: ForwardsByTab = {};
    forwards = applyForwardEvent(forwards, state("t1", report(2, { state: "starting" })));
    forwards = applyForwardEvent(forwards, state("t1", report(1, { state: "listening", address: "127.0.0.1:8080" })));
    forwards = applyForwardEvent(forwards, state("t1", report(2, { state: "waiting" })));
    expect(forwards["t1"]?.map((f) => [f.id, f.status.state])).toEqual([
      [1, "listening"],
      [2, "waiting"],
    ]);
    forwards = applyForwardEvent(forwards, state("t1", report(1, { state: "closed" })));
    expect(forwards["t1"]?.map((f) => f.id)).toEqual([2]);
    forwards = applyForwardEvent(forwards, { type: "tab_closed", tab: "t1" });
    expect(forwards).toEqual({});
  });

  it("says each forward as ssh writes it, and how it is doing", () => {
    const listening = report(1, { state: "listening", address: "127.0.0.1:8080" });
    expect(forwardWords(listening)).toBe("-L 8080 → localhost:80");
    expect(forwardStatusWords(listening)).toBe("listening on 127.0.0.1:8080; 1 open, 10 B sent, 20 B received");
    const socks: ForwardReport = {
      ...listening,
      spec: { kind: "dynamic", bind_address: "::1", listen_port: 1080 },
      status: { state: "failed", error: "port 1080 is in use" },
    };
    expect(forwardWords(socks)).toBe("-D [::1]:1080 (SOCKS)");
    expect(forwardStatusWords(socks)).toBe("failed: port 1080 is in use");
  });
});
