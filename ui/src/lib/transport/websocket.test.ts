import { describe, expect, it } from "vitest";
import type { Incoming } from "./transport";
import { decodeTerminalFrame, encodeTerminalFrame } from "./transport";
import { WebSocketTransport, type SocketLike } from "./websocket";

class FakeSocket implements SocketLike {
  binaryType = "blob";
  readyState = 0;
  sent: (string | Uint8Array)[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  constructor(
    readonly url: string,
    readonly protocols: string[],
  ) {}
  send(data: string | Uint8Array): void {
    this.sent.push(data);
  }
  close(): void {
    this.readyState = 3;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
}

function harness() {
  const sockets: FakeSocket[] = [];
  const timers: { callback: () => void; ms: number }[] = [];
  const transport = new WebSocketTransport({
    url: "ws://127.0.0.1:1/ws",
    protocols: ["kaiport", "kaiport.token.abc"],
    socket: (url, protocols) => {
      const socket = new FakeSocket(url, protocols);
      sockets.push(socket);
      return socket;
    },
    setTimeout: (callback, ms) => {
      timers.push({ callback, ms });
      return timers.length;
    },
    clearTimeout: () => {},
    initialDelayMs: 100,
    maxDelayMs: 400,
  });
  const received: Incoming[] = [];
  transport.subscribe((message) => received.push(message));
  return { transport, sockets, timers, received };
}

describe("the WebSocket transport", () => {
  it("sends ops as JSON, queued until the socket opens", () => {
    const { transport, sockets } = harness();
    transport.send({ type: "close_tab", tab: "t1" });
    expect(sockets[0]?.sent).toEqual([]);
    sockets[0]?.open();
    transport.send({ type: "resize", tab: "t1", cols: 80, rows: 24 });
    expect(sockets[0]?.sent).toEqual([
      '{"type":"close_tab","tab":"t1"}',
      '{"type":"resize","tab":"t1","cols":80,"rows":24}',
    ]);
  });

  it("sends terminal input as a binary frame and receives output as bytes", () => {
    const { transport, sockets, received } = harness();
    const socket = sockets[0];
    socket?.open();
    transport.input("t1", new TextEncoder().encode("ls\r"));
    const frame = socket?.sent[0];
    expect(frame).toBeInstanceOf(Uint8Array);
    expect(decodeTerminalFrame(frame as Uint8Array)).toEqual({
      tab: "t1",
      data: new TextEncoder().encode("ls\r"),
    });
    const output = encodeTerminalFrame("t1", new Uint8Array([104, 105]));
    socket?.onmessage?.({ data: output.buffer });
    socket?.onmessage?.({ data: '{"type":"tab_closed","tab":"t1"}' });
    socket?.onmessage?.({ data: "not json" });
    expect(received.filter((m) => m.kind !== "link")).toEqual([
      { kind: "output", tab: "t1", data: new Uint8Array([104, 105]) },
      { kind: "event", event: { type: "tab_closed", tab: "t1" } },
    ]);
  });

  it("asks for the token's subprotocols on every connection", () => {
    const { sockets, timers } = harness();
    sockets[0]?.drop();
    timers[0]?.callback();
    expect(sockets.map((socket) => socket.protocols)).toEqual([
      ["kaiport", "kaiport.token.abc"],
      ["kaiport", "kaiport.token.abc"],
    ]);
  });

  it("reconnects after a drop, waiting longer each time, and resets the wait once open", () => {
    const { sockets, timers, received } = harness();
    sockets[0]?.open();
    sockets[0]?.drop();
    expect(timers.map((t) => t.ms)).toEqual([100]);
    timers[0]?.callback();
    expect(sockets).toHaveLength(2);
    sockets[1]?.drop();
    timers[1]?.callback();
    sockets[2]?.drop();
    timers[2]?.callback();
    sockets[3]?.drop();
    expect(timers.map((t) => t.ms)).toEqual([100, 200, 400, 400]);
    timers[3]?.callback();
    sockets[4]?.open();
    sockets[4]?.drop();
    expect(timers.at(-1)?.ms).toBe(100);
    const links = received.filter((m) => m.kind === "link").map((m) => m.kind === "link" && m.status);
    expect(links.slice(0, 4)).toEqual(["connecting", "open", "closed", "connecting"]);
  });

  it("drops input while down but keeps ops, and stops for good when closed", () => {
    const { transport, sockets, timers } = harness();
    sockets[0]?.open();
    sockets[0]?.drop();
    transport.input("t1", new Uint8Array([1]));
    transport.send({ type: "cancel_turn", tab: "t1" });
    timers[0]?.callback();
    sockets[1]?.open();
    expect(sockets[1]?.sent).toEqual(['{"type":"cancel_turn","tab":"t1"}']);
    transport.close();
    sockets[1]?.drop();
    expect(timers).toHaveLength(1);
  });

  it("refuses a tab id too long for a frame and reads a short frame as malformed", () => {
    expect(() => encodeTerminalFrame("x".repeat(256), new Uint8Array())).toThrow();
    expect(decodeTerminalFrame(new Uint8Array([5, 97]))).toBeNull();
    expect(decodeTerminalFrame(new Uint8Array([]))).toBeNull();
  });
});
