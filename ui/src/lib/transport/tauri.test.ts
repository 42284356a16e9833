import { describe, expect, it } from "vitest";
import type { Op } from "../protocol";
import type { DesktopMessage } from "../desktop";
import { encodeTerminalFrame, type Incoming } from "./transport";
import { TauriTransport, type ChannelMessage, type DesktopLink } from "./tauri";

/** A fake window: `attach` resolves when told, `send` records batches and resolves when told. */
function fakeLink() {
  let receive: ((message: ChannelMessage) => void) | null = null;
  let attached: () => void = () => {};
  const batches: Op[][] = [];
  const pending: (() => void)[] = [];
  const link: DesktopLink = {
    attach(handler) {
      receive = handler;
      return new Promise((resolve) => (attached = resolve));
    },
    send(ops) {
      batches.push(ops);
      return new Promise((resolve) => pending.push(resolve));
    },
  };
  return {
    link,
    batches,
    attach: () => attached(),
    deliver: (message: ChannelMessage) => receive?.(message),
    finishSend: () => pending.shift()?.(),
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("TauriTransport", () => {
  it("holds ops until attached, then sends them in order, one batch at a time", async () => {
    const fake = fakeLink();
    const transport = new TauriTransport(fake.link);
    const statuses: string[] = [];
    transport.subscribe((m) => m.kind === "link" && statuses.push(m.status));
    transport.send({ type: "list_models" });
    expect(fake.batches).toEqual([]);
    fake.attach();
    await tick();
    expect(statuses).toEqual(["connecting", "open"]);
    expect(fake.batches).toEqual([[{ type: "list_models" }]]);
    // While that batch is on its way, the next ops wait and go out together after it.
    transport.send({ type: "close_tab", tab: "a" });
    transport.input("b", new Uint8Array([...new TextEncoder().encode("ls\r"), 0xe9, 0xff]));
    expect(fake.batches.length).toBe(1);
    fake.finishSend();
    await tick();
    expect(fake.batches[1]).toEqual([
      { type: "close_tab", tab: "a" },
      // Bytes that are not UTF-8 (Latin-1 é, 0xff) arrive as they were typed.
      { type: "terminal_input", tab: "b", data: [108, 115, 13, 0xe9, 0xff] },
    ]);
  });

  it("tells events, terminal bytes and the window's own messages apart", async () => {
    const fake = fakeLink();
    const transport = new TauriTransport(fake.link);
    const received: Incoming[] = [];
    const desktop: DesktopMessage[] = [];
    transport.subscribe((m) => received.push(m));
    transport.onDesktop((m) => desktop.push(m));
    fake.attach();
    await tick();
    fake.deliver({ type: "tab_closed", tab: "t" });
    const frame = encodeTerminalFrame("t", new Uint8Array([104, 105]));
    fake.deliver(frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.byteLength) as ArrayBuffer);
    fake.deliver({ desktop: "menu", action: "new_local_terminal" });
    expect(received.slice(2)).toEqual([
      { kind: "event", event: { type: "tab_closed", tab: "t" } },
      { kind: "output", tab: "t", data: new Uint8Array([104, 105]) },
    ]);
    expect(desktop).toEqual([{ desktop: "menu", action: "new_local_terminal" }]);
  });

  it("a relink drops the link for a moment so the page takes the replay again", async () => {
    const fake = fakeLink();
    const transport = new TauriTransport(fake.link);
    const statuses: string[] = [];
    transport.subscribe((m) => m.kind === "link" && statuses.push(m.status));
    fake.attach();
    await tick();
    fake.deliver({ desktop: "relink" });
    expect(statuses).toEqual(["connecting", "open", "closed", "open"]);
  });
});
