import { describe, expect, it } from "vitest";
import type { Event, ForwardReport } from "../protocol";
import {
  applyForwardEvent,
  forwardExposure,
  forwardFromForm,
  forwardHeadline,
  forwardOpener,
  forwardStatusWords,
  forwardWords,
  isLoopback,
  listenExposure,
  type ForwardsByTab,
} from "./forwards";

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

  it("names Pilot's call for a forward Pilot opened, and no one for the user's", () => {
    const mine = report(1, { state: "starting" });
    expect(forwardOpener(mine)).toBeNull();
    expect(forwardOpener({ ...mine, pilot_call: "call_7" })).toBe("Opened by Pilot (call call_7)");
  });
});

describe("the Add forward form", () => {
  it("makes a forward of kind, listen and target", () => {
    expect(forwardFromForm({ kind: "local", listen: "8080", target: "localhost:80" })).toEqual({
      spec: { kind: "local", listen_port: 8080, to_host: "localhost", to_port: 80 },
    });
    expect(forwardFromForm({ kind: "remote", listen: "0", target: "[::1]:22" })).toEqual({
      spec: { kind: "remote", listen_port: 0, to_host: "::1", to_port: 22 },
    });
    expect(forwardFromForm({ kind: "dynamic", listen: "[::1]:1080", target: "ignored" })).toEqual({
      spec: { kind: "dynamic", bind_address: "::1", listen_port: 1080 },
    });
  });

  it("says what is wrong", () => {
    expect(forwardFromForm({ kind: "local", listen: "0", target: "h:1" })).toHaveProperty("error");
    expect(forwardFromForm({ kind: "local", listen: "70000", target: "h:1" })).toHaveProperty("error");
    expect(forwardFromForm({ kind: "local", listen: "8080", target: "h" })).toEqual({
      error: "Target must be host:port, e.g. localhost:80.",
    });
    expect(forwardFromForm({ kind: "local", listen: "8080", target: ":80" })).toHaveProperty("error");
  });

  it("warns of a listener on this computer that other computers reach", () => {
    for (const address of ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"]) {
      expect(isLoopback(address)).toBe(true);
    }
    for (const address of ["0.0.0.0", "::", "192.168.1.5", "127.0.0.256", "example.org"]) {
      expect(isLoopback(address)).toBe(false);
    }
    expect(forwardExposure({ kind: "local", listen_port: 8080, to_host: "h", to_port: 80 })).toBeNull();
    expect(forwardExposure({ kind: "dynamic", bind_address: "0.0.0.0", listen_port: 1080 })).toBe(
      "Listens on 0.0.0.0:1080, reachable from other computers: anyone who can reach it can use this SSH connection.",
    );
    expect(listenExposure("local", "0.0.0.0:8080")).toContain("reachable from other computers");
    expect(listenExposure("local", "8080")).toBeNull();
    // A remote forward listens on the server: the server's own rules (GatewayPorts) apply.
    expect(forwardExposure({ kind: "remote", bind_address: "0.0.0.0", listen_port: 9000 })).toBeNull();
  });

  it("says what opening a forward will do, for an approval card", () => {
    const to = { to_host: "db", to_port: 5432 };
    expect(forwardHeadline({ kind: "local", bind_address: "127.0.0.1", listen_port: 15432, ...to }, "web1")).toBe(
      "Open a port forward on web1: this computer’s 127.0.0.1:15432 → db:5432 on the server",
    );
    expect(forwardHeadline({ kind: "remote", listen_port: 9000, to_host: "localhost", to_port: 3000 }, "web1")).toBe(
      "Open a port forward on web1: the server’s loopback port 9000 → localhost:3000 on this computer",
    );
    expect(forwardHeadline({ kind: "remote", listen_port: 0, to_host: "::1", to_port: 3000 }, "web1")).toBe(
      "Open a port forward on web1: the server’s loopback (a port it chooses) → [::1]:3000 on this computer",
    );
    expect(forwardHeadline({ kind: "dynamic", bind_address: "::1", listen_port: 1080 }, "web1")).toBe(
      "Open a port forward on web1: a SOCKS proxy on this computer’s [::1]:1080, through the server",
    );
  });
});
