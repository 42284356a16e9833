// Terminal bytes into xterm.js at the pace it parses them. A flood (`cat` of a big log, `yes`)
// arrives far faster than a page can parse it; xterm.js would queue it all (and throw past 50 MB),
// keep the page too busy to read its socket (the server then drops the page as fallen behind),
// and draw the whole flood line by line long after the command ended. Instead output goes
// straight to xterm.js only while little is unparsed there; otherwise it waits here and is
// handed over once per frame, `frameBytes()` at a time, leaving the page time to take in what
// arrives. A run of plain text (no escape sequence, nothing that changes more than the line it
// is on) waiting here is cut to its last `keepLines()` lines. With `keepLines` ≥ scrollback + rows, what the cut leaves out would have
// scrolled out of the terminal's history anyway, so the screen and the history end up as they
// would have without it — the engine's mirror skips the same way (terminal/fast_forward.rs).
// Output with escape sequences is never cut: its effect does not stay on one line.

export interface TerminalWriter {
  /** Hands bytes to the terminal; `parsed` runs once it has taken them in. */
  write(data: Uint8Array, parsed: () => void): void;
}

export interface FloodGateOptions {
  /** Lines a cut keeps: the terminal's scrollback plus its rows, at least. */
  keepLines: () => number;
  /** Bytes handed to the terminal per frame while output waits (and the most left unparsed
   * there for output to go straight in). Default: what the terminal parsed in `FRAME_MS` last
   * time (measured), between 16 KiB and 1 MiB. */
  frameBytes?: () => number;
  /** A clock in milliseconds (performance.now in a page). */
  now?: () => number;
  /** Parsing time per hand-over the measured budget aims at (default `FRAME_MS`). */
  parseMs?: number;
  /** Runs the callback at the next frame (requestAnimationFrame in a page). */
  schedule: (callback: () => void) => void;
}

interface Waiting {
  data: Uint8Array;
  /** `\n` bytes in `data`. */
  lines: number;
  plain: boolean;
}

const LF = 0x0a;
/** Parsing time per hand-over the gate aims at, by default: the rest of a 16 ms frame draws and
 * reads the link. */
const FRAME_MS = 6;
const MIN_FRAME_BYTES = 16 * 1024;
const MAX_FRAME_BYTES = 1024 * 1024;
const CRLF = new Uint8Array([0x0d, 0x0a]);

/**
 * Line feeds in `data` and whether it is plain: no ESC, no SO/SI (a character set shift outlives
 * its line), and no C1 control (U+0080–U+009F, which xterm.js takes as ESC + a letter: CSI, OSC…).
 */
export function scan(data: Uint8Array): { lines: number; plain: boolean } {
  let lines = 0;
  let plain = true;
  for (let i = 0; i < data.length; i++) {
    const byte = data[i] as number;
    if (byte === LF) {
      lines++;
    } else if (byte === 0x1b || byte === 0x0e || byte === 0x0f) {
      plain = false;
    } else if (byte === 0xc2) {
      // A chunk may end inside the character: then the next byte is unknown, so not plain.
      const next = data[i + 1];
      if (next === undefined || (next >= 0x80 && next <= 0x9f)) {
        plain = false;
      }
    }
  }
  return { lines, plain };
}

function countLineFeeds(data: Uint8Array): number {
  let lines = 0;
  for (let at = data.indexOf(LF); at !== -1; at = data.indexOf(LF, at + 1)) {
    lines++;
  }
  return lines;
}

/** The offset just past the `count`-th line feed of `data` (count ≥ 1), or null. */
function afterLineFeeds(data: Uint8Array, count: number): number | null {
  let at = -1;
  for (let seen = 0; seen < count; seen++) {
    at = data.indexOf(LF, at + 1);
    if (at === -1) {
      return null;
    }
  }
  return at + 1;
}

export class FloodGate {
  private readonly writer: TerminalWriter;
  private readonly keepLines: () => number;
  private readonly frameBytes: () => number;
  private readonly schedule: (callback: () => void) => void;
  private scheduled = false;
  /** Output came in since the last hand-over (the flood goes on). */
  private arrived = false;
  private readonly now: () => number;
  private readonly parseMs: number;
  private measuredFrameBytes = 64 * 1024;
  /** The frame's hand-over being timed: when it started and its bytes. */
  private timing: { start: number; bytes: number } | null = null;
  private inFlight = 0;
  private readonly waiting: Waiting[] = [];
  /** Where the plain run at the end of `waiting` starts, and its line feeds. */
  private runStart = 0;
  private runLines = 0;
  /** Bytes left out by cuts since this gate began (for tests and benchmarks). */
  skippedBytes = 0;
  /** Bumped by `reset`: parse callbacks of writes before it no longer count. */
  private generation = 0;

  constructor(writer: TerminalWriter, options: FloodGateOptions) {
    this.writer = writer;
    this.keepLines = options.keepLines;
    this.frameBytes = options.frameBytes ?? (() => this.measuredFrameBytes);
    this.schedule = options.schedule;
    this.now = options.now ?? (() => performance.now());
    this.parseMs = options.parseMs ?? FRAME_MS;
  }

  push(data: Uint8Array): void {
    if (data.length === 0) {
      return;
    }
    if (this.waiting.length === 0 && this.inFlight < this.frameBytes()) {
      // The usual case (an echo, a prompt): straight to the terminal, no delay.
      this.send(data);
      return;
    }
    const { lines, plain } = scan(data);
    this.waiting.push({ data, lines, plain });
    this.arrived = true;
    this.wake();
    if (!plain) {
      this.runStart = this.waiting.length;
      this.runLines = 0;
      return;
    }
    this.runLines += lines;
    // Cut only when the run is well past what is kept, so a long flood is cut now and then
    // rather than on every chunk.
    const keep = Math.max(1, this.keepLines());
    if (this.runLines > keep * 2) {
      this.cut(keep);
    }
  }

  /** The terminal was reset (its screen is about to be replayed): nothing waiting is shown. */
  reset(): void {
    this.waiting.length = 0;
    this.runStart = 0;
    this.runLines = 0;
    this.inFlight = 0;
    this.generation++;
  }

  /** Nothing waits here and everything handed over is parsed. */
  get idle(): boolean {
    return this.waiting.length === 0 && this.inFlight === 0;
  }

  /** Bytes waiting here (not yet handed to the terminal). */
  get waitingBytes(): number {
    return this.waiting.reduce((sum, chunk) => sum + chunk.data.length, 0);
  }

  private send(data: Uint8Array): void {
    const generation = this.generation;
    this.inFlight += data.length;
    this.writer.write(data, () => {
      if (generation !== this.generation) {
        return;
      }
      this.inFlight -= data.length;
      if (this.inFlight === 0 && this.timing !== null) {
        const elapsed = this.now() - this.timing.start;
        if (elapsed > 0) {
          const fits = (this.timing.bytes / elapsed) * this.parseMs;
          this.measuredFrameBytes = Math.round(Math.min(MAX_FRAME_BYTES, Math.max(MIN_FRAME_BYTES, fits)));
        }
        this.timing = null;
      }
      this.wake();
    });
  }

  private wake(): void {
    if (!this.scheduled && this.waiting.length > 0) {
      this.scheduled = true;
      this.schedule(() => this.frame());
    }
  }

  /** Once per frame while output waits: the next `frameBytes()` of it, once the terminal has
   * parsed what it was handed. */
  private frame(): void {
    this.scheduled = false;
    if (this.inFlight > 0) {
      // Still parsing: its callback wakes the gate again.
      return;
    }
    let budget = this.frameBytes();
    if (!this.arrived) {
      // Nothing came in since the last hand-over: the flood is over, and the page has time to
      // spare. What the history keeps goes over at once.
      const keep = Math.max(1, this.keepLines());
      if (this.runLines > keep) {
        this.cut(keep);
      }
      budget = Number.POSITIVE_INFINITY;
    }
    this.arrived = false;
    this.timing = { start: this.now(), bytes: Math.min(budget, this.waitingBytes) };
    while (budget > 0 && this.waiting.length > 0) {
      const next = this.waiting[0] as Waiting;
      if (next.data.length > budget) {
        // Part of it: a terminal takes a chunk cut anywhere (it keeps a split character or
        // escape sequence for the next write).
        const part = next.data.subarray(0, budget);
        const partLines = countLineFeeds(part);
        next.data = next.data.subarray(budget);
        next.lines -= partLines;
        if (this.runStart === 0) {
          this.runLines -= partLines;
        }
        this.send(part);
        return;
      }
      this.waiting.shift();
      if (this.runStart > 0) {
        this.runStart--;
      } else {
        // The run's first chunk leaves for the terminal: it is no longer the run's to cut.
        this.runLines -= next.lines;
      }
      budget -= next.data.length;
      this.send(next.data);
    }
  }

  /** Leaves out the front of the plain run at the end of `waiting`, keeping its last `keep`
   * lines: everything up to and including its surplus line feeds goes, so what is kept starts a
   * line; the left-out text ended with a line feed, and a CR LF stands in for it. */
  private cut(keep: number): void {
    let surplus = this.runLines - keep;
    let dropped = 0;
    while (surplus > 0) {
      const chunk = this.waiting[this.runStart];
      if (chunk === undefined) {
        break;
      }
      if (chunk.lines < surplus) {
        this.waiting.splice(this.runStart, 1);
        surplus -= chunk.lines;
        this.runLines -= chunk.lines;
        dropped += chunk.data.length;
        continue;
      }
      const start = afterLineFeeds(chunk.data, surplus) ?? chunk.data.length;
      dropped += start;
      chunk.data = chunk.data.subarray(start);
      chunk.lines -= surplus;
      this.runLines -= surplus;
      surplus = 0;
      if (chunk.data.length === 0) {
        this.waiting.splice(this.runStart, 1);
      }
    }
    if (dropped > 0) {
      this.skippedBytes += dropped;
      this.waiting.splice(this.runStart, 0, { data: CRLF, lines: 1, plain: true });
      this.runLines += 1;
    }
  }
}
