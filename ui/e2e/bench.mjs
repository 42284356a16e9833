// Browser benchmarks for BENCHMARKS.md: what a person at the page feels, measured in the page.
// Not part of the test suite (no timed assertions): it prints figures and the goals beside them.
//
//   First load   initial JS+CSS gzip size; time from the first request (the token URL) to the
//                app mounted and to the engine's hello, fresh browser context each time.
//   Keystroke    key event in the page → the echoed character drawn by xterm.js (its render
//                event), over `kaiport serve` to the loopback sshd fixture. Each key waits a
//                random 0–17 ms (one frame at 60 Hz) first, as a person's keys fall anywhere
//                in the page's frame; a second, shorter run without that pause shows the
//                bench's own rhythm, which locks every key to one point of the frame.
//   Flood        `cat` of a 50 MB file in an SSH tab, Enter → its last line drawn, against
//                `ssh -tt host cat FILE > /dev/null` over an already open connection
//                (ControlMaster), so both sides start with the connection up.
//
//   node e2e/bench.mjs    (KAIPORT_BIN=…/release/kaiport KAIPORT_SSHD_BIN=… for release figures;
//                          BENCH_ONLY=load|keys|flood for one part)

import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  KAIPORT,
  SSHD,
  activeTab,
  fillConnectionForm,
  runInTerminal,
  startWithFirstLine,
  stopAll,
  until,
} from "./run.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const DIST = join(here, "../dist");
const LOADS = 10;
const KEYSTROKES = 300;
const FLOOD_BYTES = 50 * 1024 * 1024;
const FLOOD_RUNS = 5;

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

const ms = (value) => `${value.toFixed(1)} ms`;

/** The gzip size of what index.html loads before the app runs (scripts, styles, preloads). */
function initialBytes() {
  const html = readFileSync(join(DIST, "index.html"), "utf8");
  const assets = [...html.matchAll(/(?:src|href)="\/?([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  let raw = 0;
  let gzip = 0;
  for (const asset of assets) {
    const bytes = readFileSync(join(DIST, asset));
    raw += bytes.length;
    gzip += gzipSync(bytes).length;
  }
  return { assets, raw, gzip };
}

async function firstLoad(browser, served) {
  const mounted = [];
  const ready = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(served.url);
    const marks = await until("the engine's hello", () =>
      page.evaluate(() => {
        const [m] = performance.getEntriesByName("kaiport:mounted");
        const [r] = performance.getEntriesByName("kaiport:engine-ready");
        return m && r ? { mounted: m.startTime, ready: r.startTime } : null;
      }),
    );
    mounted.push(marks.mounted);
    ready.push(marks.ready);
    await context.close();
  }
  return { mounted, ready };
}

/** Opens an SSH tab to the fixture through the form, trusting its host key. */
async function openSsh(page, sshd) {
  const form = await fillConnectionForm(page, { port: sshd.port, user: sshd.user, key: sshd.key });
  await form.getByRole("button", { name: "Connect" }).click();
  await page
    .getByRole("dialog", { name: "Unknown host key" })
    .getByRole("button", { name: "Trust and connect" })
    .click();
  await runInTerminal(page, "echo bench-$((40+2))", "bench-42");
}

/**
 * Arms the page: the next key event starts a clock, and the first frame that draws `pattern`
 * on the cursor's line (or, with `above`, also on the two lines above it) stops it; then
 * `window.__bench` resolves with the milliseconds in between.
 */
async function armTimer(page, tab, pattern, above = false) {
  await page.evaluate(({ tab, pattern, above, arm }) => new Function(`return (${arm})`)()(tab, pattern, above), {
    tab,
    pattern,
    above,
    arm: armPage.toString(),
  });
}

/** In the page: see armTimer. */
function armPage(tab, pattern, above) {
  const wanted = new RegExp(pattern);
  window.__bench = new Promise((resolve) => {
    let start = null;
    const onKey = (event) => {
      if (start === null) {
        // The event's own time: when the browser took the key, before any handler ran.
        start = event.timeStamp;
      }
    };
    window.addEventListener("keydown", onKey, { capture: true });
    const stop = window.kaiport.watchRender(tab, (lines) => {
      const looked = above ? lines : lines.slice(-1);
      if (start !== null && looked.some((line) => wanted.test(line))) {
        const elapsed = performance.now() - start;
        stop?.();
        window.removeEventListener("keydown", onKey, { capture: true });
        resolve(elapsed);
      }
    });
  });
}

/** In the page: the last line of `tab`'s terminal with something on it (where the cursor is), or,
 * with `shown`, whether the rows on screen hold nothing but one line and it ends with `pattern`. */
function lastLine(tab, pattern, shown = false) {
  const text = window.kaiport.terminalText(tab) ?? "";
  const rows = shown ? window.kaiport.terminalSize(tab).rows : Infinity;
  const lines = text
    .split("\n")
    .slice(-rows)
    .filter((line) => line.trim() !== "");
  return (!shown || lines.length === 1) && new RegExp(`${pattern}$`).test((lines.at(-1) ?? "").trimEnd());
}

/** `lastLine` in a page driven by Playwright. */
function shows(page, tab, pattern, shown = false) {
  return page.evaluate(
    ({ tab, pattern, shown, lastLine }) => new Function(`return (${lastLine})`)()(tab, pattern, shown),
    { tab, pattern, shown, lastLine: lastLine.toString() },
  );
}

/** Keys typed in the page, each echoed and timed; `randomPhase` pauses 0–17 ms before each. */
async function keystrokes(page, count, randomPhase) {
  const tab = await activeTab(page);
  const latencies = [];
  let line = "";
  for (let i = 0; i < count; i++) {
    if (line.length === 40) {
      // Keep the line short: clear it (Ctrl-U) before it wraps.
      await page.keyboard.press("Control+KeyU");
      line = "";
      await until("the line cleared", () => shows(page, tab, "[$#]"));
    }
    const key = String.fromCharCode(97 + (i % 26));
    line += key;
    await armTimer(page, tab, `${line.slice(-12)}$`);
    if (randomPhase) {
      await page.waitForTimeout(Math.random() * 17);
    }
    await page.keyboard.press(key);
    latencies.push(await page.evaluate(() => window.__bench));
  }
  await page.keyboard.press("Control+KeyU");
  return latencies;
}

function makeFloodFile(folder) {
  const mark = `flood-end-${process.pid}`;
  const line = `${"0123456789abcdefghijklmnopqrstuvwxyz".repeat(2)} kaiport flood line\n`;
  const body = line.repeat(Math.ceil(FLOOD_BYTES / line.length)).slice(0, FLOOD_BYTES - mark.length - 1);
  const file = join(folder, "flood.txt");
  writeFileSync(file, `${body}${mark}\n`);
  chmodSync(file, 0o644);
  return { file, mark };
}

/**
 * The flood in a browser with no test driver attached. Playwright follows every WebSocket frame
 * through the DevTools protocol (each 1 MB frame crosses to the test process as base64), which a
 * person's browser does not pay. So the tab is opened with Playwright, which then lets go (tabs
 * belong to the server); a plain Chromium loads the page, takes the tab from the replay, and is
 * driven only through Runtime.evaluate and Input events on a raw DevTools connection, with no
 * Network domain enabled.
 */
async function floodInPlainBrowser(url, file, mark) {
  const { ws: WebSocketClient } = createRequire(import.meta.url)("playwright-core/lib/utilsBundle");
  const profile = mkdtempSync(join(tmpdir(), "kaiport-bench-chromium-"));
  const browser = spawn(
    CHROMIUM,
    [
      ...CHROMIUM_ARGS,
      "--headless=new",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "--window-size=1280,760",
      url,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  try {
    const endpoint = await new Promise((resolve, reject) => {
      let text = "";
      browser.stderr.on("data", (chunk) => {
        text += chunk;
        const found = /DevTools listening on (ws:\/\/\S+)/.exec(text);
        if (found) {
          resolve(found[1]);
        }
      });
      browser.on("exit", () => reject(new Error(`chromium exited: ${text}`)));
    });
    const port = new URL(endpoint).port;
    const targets = await until("the page's target", async () => {
      const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
      return list.find((target) => target.type === "page") ?? null;
    });
    const socket = new WebSocketClient(targets.webSocketDebuggerUrl, { perMessageDeflate: false });
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    let next = 0;
    const waiting = new Map();
    socket.on("message", (data) => {
      const message = JSON.parse(String(data));
      const call = waiting.get(message.id);
      if (call) {
        waiting.delete(message.id);
        if (message.error) {
          call.reject(new Error(message.error.message));
        } else {
          call.resolve(message.result);
        }
      }
    });
    const send = (method, params = {}) =>
      new Promise((resolve, reject) => {
        next += 1;
        waiting.set(next, { resolve, reject });
        socket.send(JSON.stringify({ id: next, method, params }));
      });
    const evaluate = async (expression) => {
      const { result, exceptionDetails } = await send("Runtime.evaluate", {
        expression,
        awaitPromise: true,
        returnByValue: true,
      });
      if (exceptionDetails) {
        throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
      }
      return result.value;
    };
    const tab = await until("the replayed SSH tab", () =>
      evaluate(
        `(() => { const panel = document.querySelector('[id^="tab-panel-"]:not([hidden])'); return panel && window.kaiport ? panel.id.replace(/^tab-panel-/, "") : null; })()`,
      ),
    );
    await evaluate(`document.querySelector('#tab-panel-${tab} textarea')?.focus()`);
    const key = async (type, extra) => send("Input.dispatchKeyEvent", { type, ...extra });
    const enter = { key: "Enter", code: "Enter", windowsVirtualKeyCode: 13 };
    const times = [];
    for (let i = 0; i < FLOOD_RUNS; i++) {
      await send("Input.insertText", { text: `cat ${file}` });
      await until("the command typed", () =>
        evaluate(
          `(${lastLine.toString()})(${JSON.stringify(tab)}, ${JSON.stringify(`cat ${file}`.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))})`,
        ),
      );
      await evaluate(`(${armPage.toString()})(${JSON.stringify(tab)}, ${JSON.stringify(mark)}, true)`);
      await key("keyDown", { ...enter, text: "\r" });
      await key("keyUp", enter);
      times.push(await evaluate("window.__bench"));
      await send("Input.insertText", { text: "clear" });
      await key("keyDown", { ...enter, text: "\r" });
      await key("keyUp", enter);
      await until("the screen cleared", () =>
        evaluate(`(${lastLine.toString()})(${JSON.stringify(tab)}, "[$#]", true)`),
      );
    }
    socket.close();
    return times;
  } finally {
    browser.kill("SIGKILL");
  }
}

async function floodInPage(page, file, mark) {
  const tab = await activeTab(page);
  const times = [];
  const arrived = [];
  for (let i = 0; i < FLOOD_RUNS; i++) {
    await page.keyboard.type(`cat ${file}`);
    await armTimer(page, tab, mark, true);
    const before = await page.evaluate(() => ({ ...window.__arrived, now: performance.now() }));
    const profiler = process.env.BENCH_PROFILE && i === 0 ? await page.context().newCDPSession(page) : null;
    if (profiler) {
      await profiler.send("Profiler.enable");
      await profiler.send("Profiler.start");
    }
    await page.keyboard.press("Enter");
    times.push(await page.evaluate(() => window.__bench));
    if (profiler) {
      // Where the page's time went: self time per function, the top 15.
      const { profile } = await profiler.send("Profiler.stop");
      const self = new Map();
      const dt = profile.timeDeltas ?? [];
      const byId = new Map(profile.nodes.map((node) => [node.id, node]));
      (profile.samples ?? []).forEach((id, index) => {
        const frame = byId.get(id).callFrame;
        const key = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop()}:${frame.lineNumber}`;
        self.set(key, (self.get(key) ?? 0) + (dt[index] ?? 0) / 1000);
      });
      for (const [key, msSelf] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
        console.log(`  ${msSelf.toFixed(0).padStart(6)} ms  ${key}`);
      }
    }
    const after = await page.evaluate(() => window.__arrived);
    arrived.push({
      ms: after.last - before.now,
      bytes: after.bytes - before.bytes,
      messages: after.messages - before.messages,
      closes: after.closes.length,
    });
    if (process.env.BENCH_DEBUG) console.log(JSON.stringify(after));
    await page.keyboard.type("clear");
    await page.keyboard.press("Enter");
    await until("the screen cleared", () => shows(page, tab, "[$#]", true));
  }
  return { times, arrived };
}

function floodNative(sshd, file, socketFolder) {
  const socket = join(socketFolder, "ssh.sock");
  const common = [
    "-i",
    sshd.key,
    "-p",
    String(sshd.port),
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "LogLevel=ERROR",
    "-o",
    `ControlPath=${socket}`,
  ];
  const target = `${sshd.user}@127.0.0.1`;
  const master = spawnSync("ssh", [...common, "-o", "ControlMaster=yes", "-o", "ControlPersist=yes", "-fN", target]);
  if (master.status !== 0) {
    throw new Error(`ssh master: ${master.stderr}`);
  }
  const times = [];
  try {
    for (let i = 0; i < FLOOD_RUNS; i++) {
      const started = process.hrtime.bigint();
      const run = spawnSync("ssh", [...common, "-tt", target, `cat ${file}`], {
        stdio: ["ignore", "ignore", "pipe"],
        maxBuffer: 1 << 20,
      });
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (run.status !== 0) {
        throw new Error(`ssh cat: ${run.stderr}`);
      }
      times.push(elapsed);
    }
  } finally {
    spawnSync("ssh", [...common, "-O", "exit", target]);
  }
  return times;
}

async function main() {
  const home = mkdtempSync(join(tmpdir(), "kaiport-bench-"));
  chmodSync(home, 0o755);
  const env = { ...process.env, KAIPORT_HOME: home, HOME: home, SHELL: "/bin/bash" };
  const servedProcess = await startWithFirstLine(KAIPORT, ["serve", "--known-hosts", join(home, "known_hosts")], {
    env,
    cwd: home,
  });
  const url = servedProcess.line.trim();
  const served = { url };
  const sshdProcess = await startWithFirstLine(SSHD, [], { env: process.env });
  const sshd = JSON.parse(sshdProcess.line);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    console.log(`kaiport: ${KAIPORT}`);
    const only = process.env.BENCH_ONLY ?? "";
    const size = initialBytes();
    console.log(
      `first load: ${size.assets.join(", ")}: ${(size.raw / 1024).toFixed(0)} KiB, ` +
        `${(size.gzip / 1024).toFixed(1)} KiB gzip (goal ≤ 400 KB)`,
    );
    const load = only === "" || only === "load" ? await firstLoad(browser, served) : null;
    if (load !== null) {
      console.log(
        `first load (${LOADS} fresh contexts, from the first request): app mounted median ${ms(percentile(load.mounted, 50))}, ` +
          `engine ready median ${ms(percentile(load.ready, 50))}, worst ${ms(Math.max(...load.ready))} (goal ≤ 500 ms)`,
      );
    }

    const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
    // Where a flood's time goes: when its bytes reach the page, apart from when they are drawn.
    await context.addInitScript(() => {
      const Native = window.WebSocket;
      window.__arrived = { bytes: 0, last: 0, messages: 0, closes: [] };
      window.WebSocket = class extends Native {
        constructor(...args) {
          super(...args);
          this.addEventListener("message", (event) => {
            if (typeof event.data !== "string") {
              window.__arrived.bytes += event.data.byteLength ?? event.data.size ?? 0;
              window.__arrived.last = performance.now();
              window.__arrived.messages += 1;
            }
          });
          this.addEventListener("close", (event) => window.__arrived.closes.push(`${event.code} ${event.reason}`));
        }
      };
    });
    const page = await context.newPage();
    await page.goto(url);
    await openSsh(page, sshd);
    if (only === "" || only === "keys") {
      const echo = await keystrokes(page, KEYSTROKES, true);
      console.log(
        `keystroke echo (${KEYSTROKES} keys over kaiport serve to loopback sshd, each at a random point of the frame): ` +
          `median ${ms(percentile(echo, 50))}, p99 ${ms(percentile(echo, 99))}, max ${ms(Math.max(...echo))} (goal: median ≤ 10 ms, p99 ≤ 30 ms)`,
      );
      const locked = await keystrokes(page, KEYSTROKES / 3, false);
      console.log(
        `  the same, ${KEYSTROKES / 3} keys at the bench's own rhythm: median ${ms(percentile(locked, 50))}, ` +
          `p99 ${ms(percentile(locked, 99))}, max ${ms(Math.max(...locked))}`,
      );
    }

    if (only === "" || only === "flood") {
      const { file, mark } = makeFloodFile(home);
      const { times: inPage, arrived } = await floodInPage(page, file, mark);
      console.log(
        `flood: the last byte reached the page after ${arrived.map((run) => `${run.ms.toFixed(0)} ms`).join(", ")} ` +
          `(${(arrived[0].bytes / 1048576).toFixed(1)} MiB of frames each); drawn after ${inPage.map((t) => `${t.toFixed(0)} ms`).join(", ")}`,
      );
      await context.close();
      const plain = await floodInPlainBrowser(url, file, mark);
      const native = floodNative(sshd, file, home);
      const pageMedian = percentile(inPage, 50);
      const plainMedian = percentile(plain, 50);
      const nativeMedian = percentile(native, 50);
      console.log(
        `flood (cat of 50 MB, median of ${FLOOD_RUNS}): ssh -tt to /dev/null ${ms(nativeMedian)}; ` +
          `plain browser ${ms(plainMedian)} (${plain.map((t) => t.toFixed(0)).join(", ")}): ${(plainMedian / nativeMedian).toFixed(2)}× (goal ≤ 2×); ` +
          `under Playwright ${ms(pageMedian)}: ${(pageMedian / nativeMedian).toFixed(2)}×`,
      );
    }
  } finally {
    await stopAll({ browser, sshdProcess, servedProcess, home });
  }
}

await main();
