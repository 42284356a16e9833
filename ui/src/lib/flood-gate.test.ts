import { describe, expect, it } from "vitest";
import { FloodGate, scan } from "./flood-gate";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytes = (text: string) => encoder.encode(text);

/** A terminal that parses when told to: what it was handed, and its pending parse callbacks. */
class SlowTerminal {
  written: Uint8Array[] = [];
  private pending: (() => void)[] = [];
  write(data: Uint8Array, parsed: () => void): void {
    this.written.push(data);
    this.pending.push(parsed);
  }
  /** Parses everything handed so far (and whatever that lets through), until idle. */
  parseAll(): void {
    while (this.pending.length > 0) {
      this.pending.shift()?.();
    }
  }
  text(): string {
    return this.written.map((chunk) => decoder.decode(chunk)).join("");
  }
}

/** Frames on demand: `frames.next()` runs what was scheduled for the next frame. */
class Frames {
  private queued: (() => void)[] = [];
  schedule = (callback: () => void) => {
    this.queued.push(callback);
  };
  next(): boolean {
    const due = this.queued.splice(0);
    due.forEach((callback) => callback());
    return due.length > 0;
  }
}

/** A gate over a slow terminal, and a way to let time pass until everything is shown. */
function setup(keep: number, frameBytes: number) {
  const term = new SlowTerminal();
  const frames = new Frames();
  const gate = new FloodGate(term, { keepLines: () => keep, frameBytes: () => frameBytes, schedule: frames.schedule });
  const settle = () => {
    do {
      term.parseAll();
    } while (frames.next());
  };
  return { term, frames, gate, settle };
}

const lastLines = (text: string, count: number) => text.split("\r\n").slice(-count - 1);

describe("scan", () => {
  it("counts line feeds and tells plain text from escape sequences", () => {
    expect(scan(bytes("a\r\nb\r\n"))).toEqual({ lines: 2, plain: true });
    expect(scan(bytes("tab\tbell\x07back\b"))).toEqual({ lines: 0, plain: true });
    expect(scan(bytes("\x1b[31mred\r\n")).plain).toBe(false);
    expect(scan(bytes("shift\x0e")).plain).toBe(false);
    // U+009B is a CSI for xterm.js; "©" (C2 A9) is text.
    expect(scan(bytes("\u009b2J")).plain).toBe(false);
    expect(scan(bytes("© 2026")).plain).toBe(true);
    // A chunk that ends inside a C2 character cannot be told: not plain.
    expect(scan(new Uint8Array([0x61, 0xc2])).plain).toBe(false);
  });
});

describe("FloodGate", () => {
  it("hands output straight to an idle terminal, in order", () => {
    const { term, gate } = setup(10, 64);
    gate.push(bytes("$ "));
    gate.push(bytes("l"));
    gate.push(bytes("s"));
    expect(term.text()).toBe("$ ls");
    expect(gate.waitingBytes).toBe(0);
  });

  it("holds output while the terminal is busy, then hands it over a frame's worth at a time", () => {
    const { term, frames, gate, settle } = setup(1000, 8);
    for (const part of ["12345678", "abc", "\x1b[1mdef", "ghi"]) {
      gate.push(bytes(part));
    }
    expect(term.text()).toBe("12345678");
    expect(gate.waitingBytes).toBe(3 + 7 + 3);
    // A frame while the terminal still parses hands nothing over.
    frames.next();
    expect(term.text()).toBe("12345678");
    term.parseAll();
    frames.next();
    // At most 8 bytes per frame, a chunk split where the budget ends.
    expect(term.text()).toBe("12345678abc\x1b[1md");
    settle();
    expect(term.text()).toBe("12345678abc\x1b[1mdefghi");
    expect(gate.skippedBytes).toBe(0);
  });

  it("cuts a plain flood that waits to its last lines, and the terminal ends the same", () => {
    const keep = 50;
    const { term, gate, settle } = setup(keep, 1024);
    let input = "";
    for (let line = 0; line < 20_000; line++) {
      const text = `line ${line} ${"x".repeat(line % 37)}\r\n`;
      input += text;
      gate.push(bytes(text));
    }
    settle();
    const shown = term.text();
    expect(gate.skippedBytes).toBeGreaterThan(input.length * 0.9);
    expect(shown.length).toBeLessThan(input.length / 10);
    // The history the terminal keeps (its last `keep` lines) is the same as without the cut.
    expect(lastLines(shown, keep)).toEqual(lastLines(input, keep));
    // What was handed over starts as the flood does.
    expect(input.startsWith(shown.slice(0, 1024))).toBe(true);
  });

  it("never cuts output with escape sequences, and cuts plain runs only up to them", () => {
    const { term, gate, settle } = setup(5, 16);
    const plain = (from: number) => Array.from({ length: 100 }, (_, i) => `p${from + i}\r\n`).join("");
    const colored = Array.from({ length: 100 }, (_, i) => `\x1b[3${i % 8}mc${i}\r\n`).join("");
    gate.push(bytes("start-of-it, longer than the limit\r\n"));
    gate.push(bytes(plain(0)));
    gate.push(bytes(colored));
    gate.push(bytes(plain(1000)));
    settle();
    const shown = term.text();
    expect(shown).toContain(colored);
    expect(shown).not.toContain("p50\r\n");
    expect(shown).toContain("p95\r\np96\r\np97\r\np98\r\np99\r\n\x1b[30mc0");
    expect(shown.endsWith("p1099\r\n")).toBe(true);
    expect(shown).not.toContain("p1050\r\n");
  });

  it("keeps arbitrary chunking exact: random floods end with the same last lines", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let round = 0; round < 40; round++) {
      const keep = 1 + Math.floor(random() * 30);
      const { term, frames, gate, settle } = setup(keep, 1 + Math.floor(random() * 200));
      let input = "";
      for (let line = 0; line < 2000; line++) {
        input += `r${round}l${line}${"y".repeat(Math.floor(random() * 20))}\r\n`;
      }
      let at = 0;
      while (at < input.length) {
        const size = 1 + Math.floor(random() * 300);
        gate.push(bytes(input.slice(at, at + size)));
        at += size;
        if (random() < 0.1) {
          term.parseAll();
        }
        if (random() < 0.1) {
          frames.next();
        }
      }
      settle();
      expect(lastLines(term.text(), keep)).toEqual(lastLines(input, keep));
    }
  });

  it("forgets what waits on reset, and writes parsed before it no longer hold the gate", () => {
    const { term, gate, settle } = setup(10, 4);
    gate.push(bytes("abcd"));
    gate.push(bytes("efgh"));
    gate.reset();
    gate.push(bytes("new"));
    expect(term.text()).toBe("abcdnew");
    settle();
    expect(term.text()).toBe("abcdnew");
  });

  it("hands over per frame what the terminal parsed in 6 ms the last time, while output flows", () => {
    let clock = 0;
    const term = new SlowTerminal();
    const frames = new Frames();
    const gate = new FloodGate(term, { keepLines: () => 1_000_000, schedule: frames.schedule, now: () => clock });
    const block = () => new Uint8Array(64 * 1024).fill(0x61);
    for (let i = 0; i < 40; i++) {
      gate.push(block());
    }
    const handed = () => term.written.reduce((sum, chunk) => sum + chunk.length, 0);
    const frame = () => {
      const before = handed();
      frames.next();
      return handed() - before;
    };
    term.parseAll();
    expect(frame()).toBe(64 * 1024);
    clock += 24;
    term.parseAll();
    gate.push(block());
    expect(frame()).toBe(16 * 1024);
    clock += 1;
    term.parseAll();
    gate.push(block());
    expect(frame()).toBe(96 * 1024);
    // The output stops: at the next hand-over everything left goes at once.
    clock += 1;
    term.parseAll();
    const left = gate.waitingBytes;
    expect(left).toBeGreaterThan(1024 * 1024);
    expect(frame()).toBe(left);
    expect(gate.waitingBytes).toBe(0);
  });

  it("once a flood stops, cuts what waits to exactly the lines kept", () => {
    const { term, frames, gate } = setup(10, 4);
    const lines = Array.from({ length: 15 }, (_, line) => `l${line}\r\n`);
    gate.push(bytes("x".repeat(64)));
    // 15 lines wait: not past twice the 10 kept, so not cut as they arrive.
    gate.push(bytes(lines.join("")));
    term.parseAll();
    frames.next();
    expect(term.text()).toBe(`${"x".repeat(64)}l0\r\n`);
    // Nothing more came: the next hand-over leaves out all but the last 10, a CR LF standing in.
    term.parseAll();
    frames.next();
    expect(term.text()).toBe(`${"x".repeat(64)}l0\r\n\r\n${lines.slice(5).join("")}`);
    expect(gate.skippedBytes).toBe(lines.slice(1, 5).join("").length);
  });
});

describe("idle (a terminal may sleep only then)", () => {
  it("is false while output waits or is unparsed, true once everything is parsed", () => {
    const { term, gate, settle } = setup(10, 4);
    expect(gate.idle).toBe(true);
    gate.push(bytes("echo\r\n"));
    expect(gate.idle).toBe(false);
    term.parseAll();
    expect(gate.idle).toBe(true);
    gate.push(bytes("a flood bigger than a frame\r\n"));
    gate.push(bytes("and more of it\r\n"));
    expect(gate.idle).toBe(false);
    settle();
    expect(gate.idle).toBe(true);
    expect(term.text()).toBe("echo\r\na flood bigger than a frame\r\nand more of it\r\n");
  });
});
