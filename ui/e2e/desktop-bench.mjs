// Benchmarks of the desktop window (BENCHMARKS.md), under Xvfb through WebDriver like the tests:
//
// - start: from the app's process start (the kernel's start time of `kaiport-app`) to an
//   interactive local terminal tab (its shell prompt drawn), with the page's own marks between;
// - memory: PSS of the whole process tree (the app, WebKit's web and network processes, and any
//   other child) with one idle SSH tab, and with 10 SSH tabs that each printed 10,000 lines:
//   just after, and once the hidden ones are asleep (lib/state/terminal.svelte.ts).
//
//   node e2e/desktop-bench.mjs   (KAIPORT_APP_BIN=target/release/kaiport-app for the release build;
//                                 the sshd fixture: cargo build -p kaiport-tests --bins)
//   BENCH_RUNS=5 for more start runs.

import { copyFileSync, chmodSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { APP, terminalText, until, withApp, withSshd } from "./desktop-driver.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TICKS = 100; // USER_HZ on Linux

/** Pids of the running app (by its executable). */
function appPids() {
  const exe = realpathSync(APP);
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/exe`) === exe;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return -1;
  }
}

/** `pid` and every process below it. */
function tree(pid) {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
  const found = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const other of all) {
      if (!found.has(other) && found.has(parentOf(other))) {
        found.add(other);
        grew = true;
      }
    }
  }
  return [...found];
}

function pssKb(pid) {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    return Number(rollup.match(/^Pss:\s+(\d+) kB/m)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function name(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "?";
  }
}

/** PSS of the app's whole process tree, in MB, with the parts. */
function treePss() {
  const [app] = appPids();
  if (app === undefined) {
    throw new Error("the app is not running");
  }
  const parts = tree(app).map((pid) => ({ pid, name: name(pid), mb: pssKb(pid) / 1024 }));
  return { total: parts.reduce((sum, p) => sum + p.mb, 0), parts };
}

/** The app's start as a Unix time in ms (the kernel's record, 10 ms resolution). */
function processStartMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const startTicks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  const btime = Number(readFileSync("/proc/stat", "utf8").match(/^btime (\d+)/m)[1]);
  return btime * 1000 + (startTicks * 1000) / TICKS;
}

/** One cold start: app process start → page mounted → engine's hello → local shell prompt. */
async function startRun() {
  let result;
  await withApp(null, async (driver) => {
    // In the page: click "New local terminal" the moment it can be, wait for the prompt drawn.
    const page = await driver.call("POST", driver.s("/execute/async"), {
      script: `const done = arguments[arguments.length - 1];
        const origin = performance.timeOrigin;
        const mark = (name) => { const m = performance.getEntriesByName(name)[0]; return m ? origin + m.startTime : null; };
        const clickWhenReady = () => {
          const button = [...document.querySelectorAll('nav[aria-label="Connections"] button')].find((b) => b.textContent.trim() === "New local terminal");
          if (button && mark("kaiport:engine-ready") !== null) { const clicked = Date.now(); button.click(); waitPrompt(clicked); }
          else requestAnimationFrame(clickWhenReady);
        };
        const waitPrompt = (clicked) => {
          const tab = document.querySelector('[role="tab"][aria-selected="true"]')?.getAttribute("aria-controls")?.replace(/^tab-panel-/, "");
          const text = tab ? window.kaiport.terminalText(tab) : null;
          if (text && /[$#] ?$/m.test(text)) done({ mounted: mark("kaiport:mounted"), ready: mark("kaiport:engine-ready"), clicked, prompt: Date.now() });
          else requestAnimationFrame(() => waitPrompt(clicked));
        };
        clickWhenReady();`,
      args: [],
    });
    const [pid] = appPids();
    const start = processStartMs(pid);
    result = {
      mounted: page.mounted - start,
      ready: page.ready - start,
      prompt: page.prompt - start,
    };
  });
  return result;
}

/** The app with `count` SSH tabs (links given at start), each printing `lines` lines. */
async function memoryRun(fixture, count, lines) {
  let measured;
  const links = Array.from({ length: count }, () => `ssh://${fixture.user}@127.0.0.1:${fixture.port}`);
  await withApp(
    null,
    async (driver) => {
      // Each tab asks about the server's key until the first is trusted.
      const trust = "//dialog[@open]//button[normalize-space()='Trust and connect']";
      await until(
        "the SSH tabs at their prompts",
        async () => {
          const open = await driver.call("POST", driver.s("/elements"), { using: "xpath", value: trust });
          if (open.length > 0) {
            await driver.call("POST", driver.s(`/element/${Object.values(open[0])[0]}/click`), {});
          }
          const tabs = await driver.run(
            `return [...document.querySelectorAll('[role="tab"]')].map((t) => t.getAttribute("aria-controls").replace(/^tab-panel-/, ""));`,
          );
          if (tabs.length < count) return false;
          for (const tab of tabs) {
            if (!/[$#] ?$/m.test((await terminalText(driver, tab)) ?? "")) return false;
          }
          return open.length === 0 && tabs;
        },
        60_000,
      ).catch(async (error) => {
        await driver.screenshot(`bench-${count}-failed.png`);
        throw error;
      });
      const tabs = await driver.run(
        `return [...document.querySelectorAll('[role="tab"]')].map((t) => t.getAttribute("aria-controls").replace(/^tab-panel-/, ""));`,
      );
      if (lines > 0) {
        for (const tab of tabs) {
          await driver.run("document.getElementById(`tab-button-${arguments[0]}`).click();", tab);
          await driver.click(`//div[@id='tab-panel-${tab}']//div[contains(@class,'xterm-screen')]`, "the terminal");
          await driver.keys(`seq 1 ${lines}\uE007`);
          await until(
            `${lines} in tab ${tab}`,
            async () => ((await terminalText(driver, tab)) ?? "").split("\n").some((l) => l.trim() === String(lines)),
            60_000,
          );
        }
      }
      // Idle: let the page and WebKit settle.
      await new Promise((r) => setTimeout(r, 5000));
      measured = treePss();
      await driver.screenshot(`bench-${count}-ssh-tabs.png`);
      if (lines > 0) {
        // The hidden tabs go to sleep after their quiet time (SLEEP_AFTER_MS, lib/state/terminal.ts,
        // 30 s); then JavaScriptCore collects their xterm.js buffers in its own time.
        await until(
          "the hidden terminals asleep",
          async () => {
            const awake = await driver.run(
              `return arguments[0].filter((tab) => window.kaiport.terminalText(tab) !== null).length;`,
              tabs,
            );
            return awake === 1;
          },
          90_000,
        );
        await new Promise((r) => setTimeout(r, Number(process.env.BENCH_SETTLE_MS ?? 15_000)));
        measured.asleep = treePss();
      }
    },
    {
      args: links,
      prepare: (home) => {
        mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 });
        copyFileSync(fixture.key, join(home, ".ssh/id_ed25519"));
        chmodSync(join(home, ".ssh/id_ed25519"), 0o600);
      },
    },
  );
  return measured;
}

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`app: ${APP}; load average before: ${load()}`);
const starts = [];
for (let run = 0; run < (process.env.BENCH_SKIP_START ? 0 : RUNS); run++) {
  const r = await startRun();
  starts.push(r);
  console.log(
    `start ${run + 1}: page mounted ${r.mounted.toFixed(0)} ms, engine ready ${r.ready.toFixed(0)} ms, local shell prompt ${r.prompt.toFixed(0)} ms (load ${load()})`,
  );
}
const prompts = starts.map((r) => r.prompt).sort((a, b) => a - b);
if (prompts.length > 0)
  console.log(
    `start to an interactive local terminal: median ${prompts[Math.floor(prompts.length / 2)].toFixed(0)} ms (goal ≤ 1500 ms)`,
  );
await withSshd(async (fixture) => {
  if (!process.env.BENCH_SKIP_ONE) {
    // The floor: the window and its page with no tab, what every figure below starts from.
    const none = await memoryRun(fixture, 0, 0);
    console.log(
      `PSS, no tab: ${none.total.toFixed(1)} MB: ${none.parts.map((p) => `${p.name} ${p.mb.toFixed(1)}`).join(", ")} (load ${load()})`,
    );
    const one = await memoryRun(fixture, 1, 0);
    console.log(
      `PSS, 1 idle SSH tab: ${one.total.toFixed(1)} MB (goal ≤ 200 MB): ${one.parts.map((p) => `${p.name} ${p.mb.toFixed(1)}`).join(", ")} (load ${load()})`,
    );
  }
  const ten = await memoryRun(fixture, 10, 10_000);
  console.log(
    `PSS, 10 SSH tabs × 10,000 lines, just printed: ${ten.total.toFixed(1)} MB: ${ten.parts.map((p) => `${p.name} ${p.mb.toFixed(1)}`).join(", ")} (load ${load()})`,
  );
  const { asleep } = ten;
  console.log(
    `PSS, 10 SSH tabs × 10,000 lines, idle (the 9 hidden asleep): ${asleep.total.toFixed(1)} MB (goal ≤ 350 MB): ${asleep.parts.map((p) => `${p.name} ${p.mb.toFixed(1)}`).join(", ")} (load ${load()})`,
  );
});
