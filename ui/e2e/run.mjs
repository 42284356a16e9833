// Browser end-to-end tests: Debian's Chromium driven by playwright-core against the real
// `kaiport serve` (debug build) and the real sshd fixture (`kaiport-sshd`), all on 127.0.0.1.
// Each test saves a screenshot under ui/test-output/e2e/. Prints "N passed, N failed" last.
//
//   node e2e/run.mjs            (after `cargo build -p kaiport-cli -p kaiport-tests`)
//   KAIPORT_BIN=… KAIPORT_SSHD_BIN=… CHROMIUM=… to use other builds.

import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { pilotTests } from "./pilot.mjs";
import { register as registerConnections } from "./connections.mjs";
import { fleetTests } from "./fleet.mjs";
import { storageTests } from "./storage.mjs";
import { shellFilesTests } from "./shell-files.mjs";
import { viewTests } from "./views.mjs";
import { mobileTests } from "./mobile.mjs";
import { layoutTests, settingsTests } from "./layout.mjs";
import { snippetTests } from "./snippets.mjs";
import { broadcastTests } from "./broadcast.mjs";
import {
  armFrame,
  freePort as closedPort,
  outputTail,
  keepTrafficOnLoopback,
  openLocalOnPhone,
  removeHome,
  roundTrip,
  SIZES,
  until as waitUntil,
  watchLinks,
} from "./wait.mjs";

const here = dirname(fileURLToPath(import.meta.url));
keepTrafficOnLoopback();
const root = resolve(here, "../..");
export const KAIPORT = process.env.KAIPORT_BIN ?? join(root, "target/debug/kaiport");
export const SSHD = process.env.KAIPORT_SSHD_BIN ?? join(root, "target/debug/kaiport-sshd");
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const OUTPUT = join(here, "../test-output/e2e");
export const TIMEOUT = 20_000;
/** Headless Chromium that talks to nothing but the page it is given. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Starts a program and resolves with it and its first line of stdout. */
export function startWithFirstLine(command, args, options) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], ...options });
  const output = outputTail();
  const stderr = output.text;
  child.stderr.on("data", (chunk) => output.add(chunk));
  return new Promise((resolvePromise, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`${command}: no output in time\n${stderr()}`)), TIMEOUT);
    lines.once("line", (line) => {
      clearTimeout(timer);
      // A program that dies under a test says so, with what it wrote: a page whose link stays
      // lost shows only "trying again".
      child.once("exit", (code, signal) => {
        if (child.killed) {
          // Stopped by the test.
        } else if (code !== 0 && code !== null) {
          console.error(`${command} ${args[0] ?? ""} exited with ${code}:\n${stderr().slice(-4000)}`);
        } else if (signal !== null && !["SIGINT", "SIGTERM", "SIGKILL"].includes(signal)) {
          console.error(`${command} ${args[0] ?? ""} died of ${signal}:\n${stderr().slice(-4000)}`);
        }
      });
      resolvePromise({ child, line, stderr });
    });
    child.once("exit", (code) => reject(new Error(`${command} exited (${code})\n${stderr()}`)));
  });
}

/** Waits until `check()` returns something truthy. */
export function until(what, check, timeout = TIMEOUT) {
  return waitUntil(what, check, timeout);
}

/** The id of the tab shown (its panel is the one not hidden: a tab list's selected tab on wide
 * screens, the switcher's current one on a phone). */
export async function activeTab(page) {
  const panel = page.locator('[id^="tab-panel-"]:not([hidden])');
  await panel.first().waitFor({ state: "attached" });
  const id = await panel.first().getAttribute("id");
  return id.replace(/^tab-panel-/, "");
}

export async function terminalText(page, tab) {
  return page.evaluate((id) => window.kaiport.terminalText(id), tab);
}

/** Types a command into the visible terminal and waits for a line of its output (with `prefix`:
 * a line that starts with it). */
export async function runInTerminal(page, command, expected, { prefix = false } = {}) {
  const tab = await activeTab(page);
  // The shell is ready when its prompt shows (bash's `$`/`#`, zsh's `%`, fish's `>`).
  await until("a shell prompt", async () => /[$#%>] ?$/m.test((await terminalText(page, tab)) ?? ""));
  await page.getByRole("region", { name: "Terminal" }).click();
  await page.keyboard.type(command);
  await page.keyboard.press("Enter");
  await until(`${expected} in the terminal`, async () =>
    ((await terminalText(page, tab)) ?? "")
      .split("\n")
      .some((line) => (prefix ? line.startsWith(`${expected} `) : line.trim() === expected)),
  );
}

/** Ends the visible SSH tab's session on the server's side (its shell kills its sshd process):
 * the tab drops, says it reconnects, and is connected again when its status line is gone.
 * (What is typed while it reconnects is not kept: type after this returns.) */
export async function dropSession(page, what) {
  await page.getByRole("region", { name: "Terminal" }).click();
  await page.keyboard.type("kill -9 $PPID");
  await page.keyboard.press("Enter");
  await page
    .getByRole("status")
    .getByText(/^Reconnecting/)
    .waitFor();
  await until(`${what}: connected again`, async () => (await page.getByRole("status").count()) === 0);
}

/** Opens "New connection" and fills in an SSH server on 127.0.0.1; returns the dialog. */
export async function fillConnectionForm(page, { port, user, key }) {
  await page.getByRole("button", { name: "New connection" }).first().click();
  const form = page.getByRole("dialog", { name: "New connection" });
  await form.getByLabel("Host", { exact: true }).fill("127.0.0.1");
  await form.getByLabel("Port").fill(String(port));
  await form.getByLabel("User").fill(user);
  if (key !== undefined) {
    await form.getByLabel("Key file").fill(key);
  }
  return form;
}

/** Tabs belong to the server, not the page: each test leaves none behind for the next. */
async function closeAllTabs(page) {
  const close = page.getByRole("button", { name: /^Close tab / });
  // On a phone the tabs are closed in the tab switcher.
  const switcher = page.getByRole("button", { name: /^Tabs: (?!none open)/ });
  let closed = 0;
  const deadline = Date.now() + TIMEOUT;
  for (;;) {
    try {
      if ((await close.count()) > 0) {
        await close.first().click({ timeout: 2_000 });
        closed++;
      } else if (await switcher.isVisible()) {
        await switcher.click({ timeout: 2_000 });
        await page.getByRole("dialog", { name: "Open tabs" }).waitFor({ timeout: 2_000 });
      } else {
        break;
      }
    } catch (error) {
      // A resize's media query lands a frame after the resize: the phone's switcher can be
      // replaced by the desktop's tab strip under the click. Look again.
      if (Date.now() > deadline) {
        throw error;
      }
    }
  }
  // The close ops are handled before the test closes the page.
  if (closed > 0) {
    await roundTrip(page, TIMEOUT);
  }
}

const tests = [];
function test(name, body, contextOptions = {}) {
  tests.push({ name, body, contextOptions });
}

test("the token leaves the address bar, and no cookie carries it", async ({ page, context, served }) => {
  await page.goto(served.url);
  await page.getByRole("navigation", { name: "Connections" }).waitFor();
  if (page.url() !== `http://127.0.0.1:${served.port}/`) {
    throw new Error(`the token is still in the address: ${page.url()}`);
  }
  // A cookie would go to every port of this host.
  const cookies = await context.cookies();
  if (cookies.length > 0) {
    throw new Error(`cookies: ${JSON.stringify(cookies)}`);
  }
  // The tab keeps it for a reload (sessionStorage, which no other origin reads).
  const kept = await page.evaluate(() => sessionStorage.getItem("kaiport.token"));
  if (kept !== served.token) {
    throw new Error("the tab did not keep the token");
  }
  await page.screenshot({ path: join(OUTPUT, "empty.png") });
});

test("a page without the token says where to find it and opens no WebSocket", async ({ page, served }) => {
  const sockets = [];
  page.on("websocket", (ws) => sockets.push(ws.url()));
  const response = await page.goto(`http://127.0.0.1:${served.port}/`);
  if (response?.status() !== 200) {
    throw new Error(`status ${response?.status()}`);
  }
  await page.getByRole("heading", { name: "kaiport needs its address" }).waitFor();
  await page.getByText("#token=").waitFor();
  if (sockets.length > 0 || (await page.getByRole("navigation", { name: "Connections" }).count()) > 0) {
    throw new Error(`a page without the token went on: ${JSON.stringify(sockets)}`);
  }
  await page.screenshot({ path: join(OUTPUT, "no-token.png") });
});

test("the printed URL opens in a second tab too, and again in a tab already open", async ({
  page,
  context,
  served,
}) => {
  await page.goto(served.url);
  await page.getByRole("navigation", { name: "Connections" }).waitFor();
  const second = await context.newPage();
  const third = await context.newPage();
  try {
    await second.goto(served.url);
    await second.getByRole("navigation", { name: "Connections" }).waitFor();
    await second.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
    // A tab opened without the fragment has no token (each tab keeps its own).
    await third.goto(`http://127.0.0.1:${served.port}/`);
    await third.getByRole("heading", { name: "kaiport needs its address" }).waitFor();
    // The printed URL in that same tab changes only the fragment: it takes effect at once.
    await third.goto(served.url);
    await third.getByRole("navigation", { name: "Connections" }).waitFor();
    await third.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
    if (third.url() !== `http://127.0.0.1:${served.port}/`) {
      throw new Error(`the token is still in the address: ${third.url()}`);
    }
  } finally {
    await second.close();
    await third.close();
  }
});

test("--open starts the browser on a private page that leads to the UI", async ({ page }) => {
  // xdg-open here writes down its command line; the page it is given is opened in Chromium.
  const own = mkdtempSync(join(tmpdir(), "kaiport-e2e-open-"));
  const bin = join(own, "bin");
  const runtime = join(own, "run");
  mkdirSync(bin);
  mkdirSync(runtime, { mode: 0o700 });
  const argv = join(own, "argv");
  writeFileSync(
    join(bin, "xdg-open"),
    `#!/bin/sh\nprintf '%s\\n' "$@" > '${argv}.part' && mv '${argv}.part' '${argv}'\n`,
  );
  chmodSync(join(bin, "xdg-open"), 0o755);
  const env = { ...process.env, KAIPORT_HOME: own, HOME: own, PATH: `${bin}:/usr/bin:/bin`, XDG_RUNTIME_DIR: runtime };
  const serve = await startWithFirstLine(KAIPORT, ["serve", "--open"], { env, cwd: own });
  try {
    const url = new URL(serve.line.trim());
    const token = new URLSearchParams(url.hash.replace(/^#/, "")).get("token");
    await until("the browser started", async () => existsSync(argv));
    const args = readFileSync(argv, "utf8");
    if (args.includes(token)) {
      throw new Error(`the token is on the browser's command line: ${args}`);
    }
    const opener = args.trim();
    if ((statSync(opener).mode & 0o777) !== 0o600) {
      throw new Error(`${opener} can be read by others`);
    }
    await page.goto(pathToFileURL(opener).href);
    await page.waitForURL(`http://127.0.0.1:${url.port}/`);
    await page.getByRole("navigation", { name: "Connections" }).waitFor();
    await page.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
  } finally {
    serve.child.kill("SIGINT");
    await new Promise((r) => (serve.child.exitCode !== null ? r() : serve.child.once("exit", r)));
    await removeHome(own);
  }
});

test("a part of the page that cannot be fetched (the server stopped) is no error in it", async ({ page, served }) => {
  // The parts load in the background after the engine's hello; kaiport serve may be gone by
  // then. The markdown renderer's load failed unhandled, an error in the page.
  let refused = 0;
  await page.route(/\/assets\/markdown-[^/]+\.js$/, async (route) => {
    refused++;
    await route.abort("connectionrefused");
  });
  await page.goto(served.url);
  await page.getByRole("navigation", { name: "Connections" }).waitFor();
  await until("the markdown renderer was asked for", async () => refused > 0);
  // The rest of the page works on.
  await page
    .getByRole("navigation", { name: "Connections" })
    .getByRole("button", { name: "New local terminal" })
    .click();
  await runInTerminal(page, "echo still-$((5*5))", "still-25");
});

test("a local terminal: type echo and see it", async ({ page, served }) => {
  await page.goto(served.url);
  await page
    .getByRole("navigation", { name: "Connections" })
    .getByRole("button", { name: "New local terminal" })
    .click();
  await page.getByRole("tab", { name: /local/, selected: true }).waitFor();
  await runInTerminal(page, "echo hello-$((6*7))", "hello-42");
  // Connected: the tab says nothing more than its name (and the shell's folder).
  const shown = page.getByRole("tab", { selected: true });
  await until(
    "the tab connected",
    async () =>
      (await shown.locator(".title").textContent()) === "local" && (await shown.locator(".state").count()) === 0,
  );
  await page.screenshot({ path: join(OUTPUT, "local-terminal.png") });
});

test("a terminal tab's title adds the shell's folder, or the program's own title while it runs", async ({
  page,
  served,
}) => {
  await page.goto(served.url);
  await page
    .getByRole("navigation", { name: "Connections" })
    .getByRole("button", { name: "New local terminal" })
    .click();
  const shown = page.getByRole("tab", { selected: true });
  const detail = shown.locator(".detail");
  const says = async (what) => (await detail.count()) === 1 && (await detail.textContent()) === what;
  await runInTerminal(page, "cd /usr/share && echo in-$((2*3))", "in-6");
  await until("the folder in the tab", () => says("share"));
  // A program that titles the terminal names the tab while it runs (cat waits for input).
  await runInTerminal(page, "printf '\\033]2;kaiport-test@host: editing notes\\007'; echo titled; cat", "titled");
  await until("the program's title in the tab", () => says("editing notes"));
  if ((await shown.locator(".title").textContent()) !== "local") {
    throw new Error("the tab's name changed");
  }
  await page.screenshot({ path: join(OUTPUT, "tab-title-program.png") });
  // Back at the prompt, the folder again.
  await page.keyboard.press("Control+C");
  await until("the folder in the tab again", () => says("share"));
  // The All tabs menu says the same.
  await page.getByRole("button", { name: "All tabs" }).click();
  await page.getByRole("menuitemradio", { name: "local share" }).waitFor();
  await page.keyboard.press("Escape");
});

test("Ctrl+Shift+T opens a local tab and Ctrl+Shift+W closes it", async ({ page, served }) => {
  await page.goto(served.url);
  await page.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
  // Tabs are the server's: count only the ones this test opens.
  const ids = () => page.getByRole("tab").evaluateAll((tabs) => tabs.map((tab) => tab.id));
  const before = new Set(await ids());
  const opened = async () => (await ids()).filter((id) => !before.has(id));
  await page.keyboard.press("Control+Shift+T");
  await page.keyboard.press("Control+Shift+T");
  await until("two new tabs", async () => (await opened()).length === 2);
  await runInTerminal(page, "echo second-$((1+1))", "second-2");
  await page.keyboard.press("Control+Shift+W");
  await until("one of them closed", async () => (await opened()).length === 1);
});

/** A `kaiport serve` of a test's own, with `home` as its home (so its tabs file is the only one
 * there): `start()` resolves with it and its address, `stop(serve)` ends it as Ctrl+C does. */
function ownServe(home, extraEnv = {}) {
  const env = { ...process.env, KAIPORT_HOME: home, HOME: home, SHELL: "/bin/bash", ...extraEnv };
  return {
    start: async () => {
      const serve = await startWithFirstLine(KAIPORT, ["serve"], { env, cwd: home });
      return { serve, url: serve.line.trim() };
    },
    stop: async (serve) => {
      serve.child.kill("SIGINT");
      await new Promise((r) => (serve.child.exitCode !== null ? r() : serve.child.once("exit", r)));
    },
  };
}

test("kaiport serve started again opens the same tabs, in their order, showing the same one", async ({ page }) => {
  // A server of this test's own: its tabs file is the only one in its home.
  const own = mkdtempSync(join(tmpdir(), "kaiport-e2e-restore-"));
  const { start, stop } = ownServe(own, { PS1: "\\$ " });
  const strip = () =>
    page.getByRole("tab").evaluateAll((tabs) =>
      tabs.map((tab) => ({
        id: tab.id,
        title: tab.textContent.trim(),
        selected: tab.getAttribute("aria-selected") === "true",
      })),
    );
  let first = await start();
  try {
    await page.goto(first.url);
    const open = page
      .getByRole("navigation", { name: "Connections" })
      .getByRole("button", { name: "New local terminal" });
    for (let n = 1; n <= 3; n++) {
      await open.click();
      await until(`tab ${n} connected`, async () => (await strip()).filter((t) => /^local/.test(t.title)).length === n);
    }
    await until("every tab connected", async () => (await strip()).every((t) => !/connecting/.test(t.title)));
    // The middle one is shown when the server stops.
    const before = await strip();
    await page.locator(`#${before[1].id}`).click();
    await until("the middle tab shown", async () => (await strip())[1].selected);
    await roundTrip(page, TIMEOUT);
    const shown = await strip();
    await stop(first.serve);
    first = await start();
    await page.goto(first.url);
    await until("three tabs again", async () => (await strip()).length === 3);
    await until("the tabs connected again", async () => (await strip()).every((t) => !/connecting/.test(t.title)));
    await until("the same tabs, in order, the same one shown", async () => {
      const now = await strip();
      return JSON.stringify(now) === JSON.stringify(shown);
    });
    await page.screenshot({ path: join(OUTPUT, "restored-tabs.png") });
  } finally {
    await stop(first.serve);
    await removeHome(own);
  }
});

test("a kept session's command runs on through a kaiport serve restart, in the same tab", async ({ page, sshd }) => {
  const own = mkdtempSync(join(tmpdir(), "kaiport-e2e-restore-kept-"));
  const { start, stop } = ownServe(own);
  const hostKey = page.getByRole("dialog", { name: "Unknown host key" });
  const lines = async () => ((await terminalText(page, await activeTab(page))) ?? "").split("\n");
  let first = await start();
  try {
    await page.goto(first.url);
    const form = await fillConnectionForm(page, { port: sshd.port, user: sshd.user, key: sshd.key });
    await form.getByLabel("Keep the session on the server").check();
    await form.getByRole("button", { name: "Connect" }).click();
    await until("the shell's prompt", async () => {
      if (await hostKey.isVisible()) await hostKey.getByRole("button", { name: "Trust and connect" }).click();
      return (await activeTab(page)) !== null && /[$#] ?$/m.test((await lines()).join("\n"));
    });
    await runInTerminal(page, "echo in-${TMUX:+tmux}", "in-tmux");
    // Still running when kaiport serve stops; its word is not on the typed line.
    const typed = "sleep 4; echo fin''ished-kept";
    await page.keyboard.type(typed);
    await page.keyboard.press("Enter");
    await until("the command line echoed", async () => (await lines()).some((line) => line.trimEnd().endsWith(typed)));
    await stop(first.serve);
    first = await start();
    await page.goto(first.url);
    await until("the command's word in the same tab", async () =>
      (await lines()).some((line) => line.trim() === "finished-kept"),
    );
    const text = (await lines()).join("\n");
    if (text.includes("A new shell will start here")) {
      throw new Error(`a new shell was started instead of the kept one:\n${text}`);
    }
    await page.screenshot({ path: join(OUTPUT, "restored-kept-session.png") });
    await runInTerminal(page, "echo again-$((6 * 7))", "again-42");
    // The shell's own end ends the session on the server.
    await page.keyboard.type("exit");
    await page.keyboard.press("Enter");
  } finally {
    await stop(first.serve);
    await removeHome(own);
  }
});

test("a storage tab reopens at the folders it showed when kaiport serve stopped", async ({ page, sshd }) => {
  const own = mkdtempSync(join(tmpdir(), "kaiport-e2e-restore-storage-"));
  const shared = mkdtempSync(join(tmpdir(), "kaiport-e2e-restore-sftp-"));
  const local = join(own, "here");
  mkdirSync(join(local, "inbox"), { recursive: true });
  writeFileSync(join(local, "inbox", "local-note.txt"), "here\n");
  mkdirSync(join(shared, "logs", "2026"), { recursive: true });
  writeFileSync(join(shared, "logs", "2026", "deep-file.txt"), "deep\n");
  for (const dir of [shared, join(shared, "logs"), join(shared, "logs", "2026")]) chmodSync(dir, 0o755);
  chmodSync(join(shared, "logs", "2026", "deep-file.txt"), 0o644);
  const { start, stop } = ownServe(own);
  const remote = page.getByRole("region", { name: new RegExp(`^sftp://${sshd.user}@127\\.0\\.0\\.1:${sshd.port}/`) });
  const computer = page.getByRole("region", { name: "This computer" });
  const listed = (pane, name) => pane.getByRole("row", { name: new RegExp(`^${name.replace(/[.]/g, "\\.")}\\b`) });
  const into = async (pane, name) => {
    await listed(pane, name).click();
    await page.keyboard.press("Enter");
  };
  const hostKey = page.getByRole("dialog", { name: "Unknown host key" });
  let first = await start();
  try {
    await page.goto(first.url);
    await page.getByRole("button", { name: "New connection" }).first().click();
    const form = page.getByRole("dialog", { name: "New connection" });
    await form.getByLabel("Kind").selectOption({ label: "SFTP (files)" });
    await form.getByLabel("Host", { exact: true }).fill("127.0.0.1");
    await form.getByLabel("Port").fill(String(sshd.port));
    await form.getByLabel("User").fill(sshd.user);
    await form.getByLabel("Folder", { exact: true }).fill(shared);
    await form.getByLabel("Key file").fill(sshd.key);
    await form.getByLabel("Local folder").fill(local);
    await form.getByRole("button", { name: "Connect" }).click();
    await until("the server's folder listed", async () => {
      if (await hostKey.isVisible()) await hostKey.getByRole("button", { name: "Trust and connect" }).click();
      return listed(remote, "logs").isVisible();
    });
    await into(remote, "logs");
    await listed(remote, "2026").waitFor();
    await into(remote, "2026");
    await listed(remote, "deep-file.txt").waitFor();
    await listed(computer, "inbox").waitFor();
    await into(computer, "inbox");
    await listed(computer, "local-note.txt").waitFor();
    await roundTrip(page, TIMEOUT);
    await stop(first.serve);
    first = await start();
    await page.goto(first.url);
    await until("both folders shown again", async () => {
      if (await hostKey.isVisible()) await hostKey.getByRole("button", { name: "Trust and connect" }).click();
      return (
        (await listed(remote, "deep-file.txt").isVisible()) && (await listed(computer, "local-note.txt").isVisible())
      );
    });
    await page.screenshot({ path: join(OUTPUT, "restored-storage-folders.png") });
  } finally {
    await stop(first.serve);
    await removeHome(own);
    rmSync(shared, { recursive: true, force: true });
  }
});

test("a hidden terminal sleeps as a snapshot and wakes as it was, with what it printed meanwhile", async ({
  page,
  served,
}) => {
  await page.goto(served.url);
  const newLocal = page
    .getByRole("navigation", { name: "Connections" })
    .getByRole("button", { name: "New local terminal" });
  await newLocal.click();
  await page.getByRole("tab", { name: /local/, selected: true }).waitFor();
  const first = await activeTab(page);
  await runInTerminal(
    page,
    "for i in $(seq 1 3000); do printf '\\033[3%dmline %d\\033[0m\\n' $((i % 7 + 1)) $i; done; echo printed-$((1000*3))",
    "printed-3000",
  );
  // A line the tab prints while it sleeps: once the other tab has made the file it waits for.
  const go = join(served.home, "print-meanwhile");
  await page.keyboard.type(`until [ -e ${go} ]; do sleep 0.1; done; echo meanwhile-$((6*7))`);
  await page.keyboard.press("Enter");
  await until("the command echoed", async () =>
    ((await terminalText(page, first)) ?? "").includes("echo meanwhile-$((6*7))"),
  );
  await newLocal.click();
  await until("the second tab shown", async () => (await activeTab(page)) !== first);
  const lines = (text) => text.replace(/\n+$/, "").split("\n");
  const before = lines(await terminalText(page, first));
  if (!(await page.evaluate((id) => window.kaiport.sleepTerminal(id), first))) {
    throw new Error("the hidden terminal did not go to sleep");
  }
  if ((await terminalText(page, first)) !== null) {
    throw new Error("a sleeping terminal still has an xterm.js to read");
  }
  if ((await page.locator(`#tab-panel-${first} .xterm`).count()) !== 0) {
    throw new Error("a sleeping terminal's xterm.js is still in the page");
  }
  const meanwhile = await armFrame(page, "meanwhile-42", TIMEOUT);
  await runInTerminal(page, `touch ${go}; echo other-$((2+3))`, "other-5");
  // The line has reached the page, and the page has handed it to the sleeping terminal.
  await meanwhile();
  if ((await terminalText(page, first)) !== null) {
    throw new Error("the terminal woke before it was shown");
  }
  await page.getByRole("tab", { name: /local/ }).first().click();
  await until("the first tab shown", async () => (await activeTab(page)) === first);
  await until("what it printed while asleep", async () =>
    ((await terminalText(page, first)) ?? "").includes("meanwhile-42"),
  );
  const after = lines(await terminalText(page, first));
  const changed = before.findIndex((line, at) => line !== after[at]);
  if (changed !== -1) {
    throw new Error(
      `woken, line ${changed} differs: ${JSON.stringify(before[changed])} before, ${JSON.stringify(after[changed])} after`,
    );
  }
  if ((await page.locator(`#tab-panel-${first} .xterm-rows span[class*="xterm-fg-"]`).count()) === 0) {
    throw new Error("the colours did not come back with the snapshot");
  }
  await runInTerminal(page, "echo awake-$((2*2))", "awake-4");
  await page.screenshot({ path: join(OUTPUT, "terminal-woken.png") });
  // A scroll region (apt's progress bar keeps one) is not in a snapshot: such a tab stays awake
  // until it is gone.
  const hideFirst = async () => {
    await page.getByRole("tab", { name: /local/ }).nth(1).click();
    await until("the second tab shown", async () => (await activeTab(page)) !== first);
  };
  const showFirst = async () => {
    await page.getByRole("tab", { name: /local/ }).first().click();
    await until("the first tab shown", async () => (await activeTab(page)) === first);
  };
  await runInTerminal(page, "printf '\\033[1;10r\\033[H\\033[2J'; echo region-$((1+1))", "region-2");
  await hideFirst();
  if (await page.evaluate((id) => window.kaiport.sleepTerminal(id), first)) {
    throw new Error("a terminal with a scroll region went to sleep");
  }
  await showFirst();
  await runInTerminal(page, "printf '\\033[r\\033[H\\033[2J'; echo whole-$((1+2))", "whole-3");
  await hideFirst();
  if (!(await page.evaluate((id) => window.kaiport.sleepTerminal(id), first))) {
    throw new Error("with its scroll region gone the terminal did not go to sleep");
  }
});

test("Ctrl+Shift+V pastes into the terminal and Ctrl+Shift+C copies its selection", async ({
  page,
  context,
  served,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(served.url);
  await page
    .getByRole("navigation", { name: "Connections" })
    .getByRole("button", { name: "New local terminal" })
    .click();
  await runInTerminal(page, "echo ready", "ready");
  await page.evaluate(() => navigator.clipboard.writeText("echo pasted-$((3*3))"));
  await page.keyboard.press("Control+Shift+V");
  await page.keyboard.press("Enter");
  const tab = await activeTab(page);
  await until("the pasted command's output", async () =>
    ((await terminalText(page, tab)) ?? "").split("\n").some((line) => line.trim() === "pasted-9"),
  );
  // Select the word "ready" on the first output line by double-clicking it, then copy.
  const lines = ((await terminalText(page, tab)) ?? "").split("\n");
  const row = lines.findIndex((line) => line.trim() === "ready");
  const screen = page.locator(".xterm-screen");
  const box = await screen.boundingBox();
  const size = await page.evaluate((id) => window.kaiport.terminalSize(id), tab);
  const cellWidth = box.width / size.cols;
  const cellHeight = box.height / size.rows;
  await screen.dblclick({ position: { x: cellWidth * 2 + 1, y: cellHeight * (row + 0.5) } });
  await page.keyboard.press("Control+Shift+C");
  await until(
    "the selection on the clipboard",
    async () => (await page.evaluate(() => navigator.clipboard.readText())) === "ready",
  );
});

test("Ctrl+Shift+= and Ctrl+Shift+- zoom the terminal, and the shell learns its new size", async ({ page, served }) => {
  await page.goto(served.url);
  await page
    .getByRole("navigation", { name: "Connections" })
    .getByRole("button", { name: "New local terminal" })
    .click();
  await runInTerminal(page, "echo zoom", "zoom");
  const tab = await activeTab(page);
  const size = () => page.evaluate((id) => window.kaiport.terminalSize(id), tab);
  const normal = await size();
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press("Control+Shift+Equal");
  }
  const bigger = await until("fewer columns", async () => {
    const now = await size();
    return now.cols < normal.cols ? now : null;
  });
  // The shell sees the new size (the resize went to the engine).
  await runInTerminal(page, "echo cols=$(tput cols)", `cols=${bigger.cols}`);
  await page.screenshot({ path: join(OUTPUT, "zoomed.png") });
  await page.keyboard.press("Control+Shift+Digit0");
  await until("the normal size again", async () => (await size()).cols === normal.cols);
  await page.keyboard.press("Control+Shift+Minus");
  await until("more columns", async () => (await size()).cols > normal.cols);
});

test("Ctrl+Shift+F searches the terminal", async ({ page, context, served }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(served.url);
  await page
    .getByRole("navigation", { name: "Connections" })
    .getByRole("button", { name: "New local terminal" })
    .click();
  await runInTerminal(page, "echo needle-$((20+3))", "needle-23");
  await page.keyboard.press("Control+Shift+F");
  const search = page.getByRole("textbox", { name: "Search terminal" });
  await search.fill("needle-23");
  await search.press("Enter");
  const tab = await activeTab(page);
  await until(
    "the match selected",
    async () => (await page.evaluate((id) => window.kaiport.terminalSelection(id), tab)) === "needle-23",
  );
  // It says which match of how many.
  const standing = page.getByRole("search").getByRole("status");
  await until("1 of 1", async () => (await standing.textContent())?.trim() === "1 of 1");
  await page.screenshot({ path: join(OUTPUT, "search.png") });
  // Escape closes the search and gives the terminal its keys back; copying gives the match.
  await search.press("Escape");
  await search.waitFor({ state: "detached" });
  await until("the terminal focused", async () =>
    page.evaluate(() => document.activeElement?.classList.contains("xterm-helper-textarea") ?? false),
  );
  await page.keyboard.press("Control+Shift+C");
  await until(
    "the match on the clipboard",
    async () => (await page.evaluate(() => navigator.clipboard.readText())) === "needle-23",
  );
  // A search that finds nothing says so.
  await page.keyboard.press("Control+Shift+F");
  await search.fill("haystack-only");
  await search.press("Enter");
  await until("No matches", async () => (await standing.textContent())?.trim() === "No matches");
  await page.screenshot({ path: join(OUTPUT, "search-none.png") });
});

// Where a keyboard is (a desktop, a tablet with one): choosing a tab gives its terminal the keys,
// and a search says which match of how many.
for (const [size, device] of SIZES.filter(([name]) => name !== "phone")) {
  test(
    `${size}: choosing a tab focuses its terminal; a search says "3 of 12"`,
    async ({ page, served }) => {
      await page.goto(served.url);
      await page.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
      const drawer = page.getByRole("button", { name: "Connections" });
      const openLocal = async () => {
        if (await drawer.isVisible()) await drawer.click();
        await page
          .getByRole("navigation", { name: "Connections" })
          .getByRole("button", { name: "New local terminal" })
          .click();
      };
      await openLocal();
      // Twelve lines that match; the command line itself does not.
      await runInTerminal(page, "for i in $(seq 12); do echo x$((40+2))y; done; echo done-$((1+1))", "done-2");
      const first = await activeTab(page);
      await openLocal();
      await runInTerminal(page, "echo second-$((2+2))", "second-4");
      // Choosing the first tab gives its terminal the keys: typing goes to its shell.
      await page.locator(`#tab-button-${first}`).click();
      await until("the first tab's terminal focused", async () =>
        page.evaluate(
          (id) =>
            document.activeElement?.classList.contains("xterm-helper-textarea") === true &&
            document.getElementById(`tab-panel-${id}`)?.contains(document.activeElement) === true,
          first,
        ),
      );
      await page.keyboard.type("echo typed-$((3+4))");
      await page.keyboard.press("Enter");
      await until("typed into the first tab", async () =>
        ((await terminalText(page, first)) ?? "").split("\n").some((line) => line.trim() === "typed-7"),
      );
      // Search: Enter moves on, Shift+Enter and Previous go back; the count is said in words.
      await page.keyboard.press("Control+Shift+F");
      const search = page.getByRole("textbox", { name: "Search terminal" });
      await search.fill("x42y");
      const standing = page.getByRole("search").getByRole("status");
      const says = async () => (await standing.textContent())?.trim();
      for (let i = 0; i < 12 && (await says()) !== "3 of 12"; i++) {
        await search.press("Enter");
        await until("N of 12", async () => /^\d+ of 12$/.test((await says()) ?? ""));
      }
      if ((await says()) !== "3 of 12") {
        throw new Error(`the search says ${await says()}`);
      }
      await page.screenshot({ path: join(OUTPUT, `${size}-search-3-of-12.png`) });
      await search.press("Shift+Enter");
      await until("2 of 12", async () => (await says()) === "2 of 12");
      await page.getByRole("search").getByRole("button", { name: "Previous" }).click();
      await until("1 of 12", async () => (await says()) === "1 of 12");
      await search.fill("x43y");
      await search.press("Enter");
      await until("No matches", async () => (await says()) === "No matches");
    },
    device,
  );
}

// A button that does nothing now looks it everywhere: faded, and no pointing hand.
for (const [size, device] of SIZES) {
  test(
    `${size}: disabled buttons look disabled`,
    async ({ page, served }) => {
      await page.goto(served.url);
      await page.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
      const drawer = page.getByRole("button", { name: "Connections" });
      if (await drawer.isVisible()) await drawer.click();
      await page
        .getByRole("navigation", { name: "Connections" })
        .getByRole("button", { name: "New local terminal" })
        .click();
      await runInTerminal(page, "echo ready-$((3+3))", "ready-6");
      const show = page.getByRole("button", { name: /^(Pilot|Show Pilot)$/ });
      if (await show.isVisible()) await show.click();
      const pilot = page.getByRole("region", { name: "Pilot" }).filter({ visible: true });
      const look = (button) =>
        button.evaluate((el) => {
          const style = getComputedStyle(el);
          return { disabled: el.disabled, opacity: Number(style.opacity), cursor: style.cursor };
        });
      const lookDisabled = async (button, name) => {
        const seen = await look(button);
        if (!seen.disabled || seen.opacity > 0.5 || seen.cursor === "pointer") {
          throw new Error(`${name} does not look disabled: ${JSON.stringify(seen)}`);
        }
      };
      const lookEnabled = async (button, name) => {
        const seen = await look(button);
        if (seen.disabled || seen.opacity < 1 || seen.cursor !== "pointer") {
          throw new Error(`${name} does not look enabled: ${JSON.stringify(seen)}`);
        }
      };
      const send = pilot.getByRole("button", { name: "Send" });
      const stop = pilot.getByRole("button", { name: "Stop" });
      // A touch screen (tablet or phone) names no keyboard shortcut in the message box.
      const box = pilot.getByRole("textbox", { name: "Message Pilot" });
      const hint = (await box.getAttribute("placeholder")) ?? "";
      if (device.hasTouch === true && /Ctrl/.test(hint)) {
        throw new Error(`the message box on a touch screen says ${hint}`);
      }
      await lookDisabled(send, "Send with nothing to send");
      await lookDisabled(stop, "Stop with no turn");
      await pilot.getByRole("textbox", { name: "Message Pilot" }).fill("hello");
      await lookEnabled(send, "Send with a message");
      await page.screenshot({ path: join(OUTPUT, `${size}-disabled-buttons.png`) });
    },
    device,
  );
}

test(
  "on a phone the connections are a drawer and the tabs a switcher",
  async ({ page, served }) => {
    await page.goto(served.url);
    // Choosing closes the drawer.
    await openLocalOnPhone(page);
    await runInTerminal(page, "echo phone", "phone");
    await page.getByRole("button", { name: /^Tabs: local, 1 open$/ }).waitFor();
    if ((await page.getByRole("tablist").count()) !== 0) {
      throw new Error("a phone shows the tab list instead of the switcher");
    }
    await page.getByRole("button", { name: "Connections" }).click();
    await page.getByRole("navigation", { name: "Connections" }).getByRole("button", { name: "New connection" }).click();
    await page.getByRole("dialog", { name: "New connection" }).waitFor();
    await page.screenshot({ path: join(OUTPUT, "phone-new-connection.png") });
    await page.keyboard.press("Escape");
    await page.screenshot({ path: join(OUTPUT, "phone-terminal.png") });
  },
  { viewport: { width: 390, height: 760 }, hasTouch: true, isMobile: true },
);

test(
  "dark mode follows the system",
  async ({ page, served }) => {
    await page.goto(served.url);
    await page
      .getByRole("navigation", { name: "Connections" })
      .getByRole("button", { name: "New local terminal" })
      .click();
    await runInTerminal(page, "printf '\\033[32mgreen\\033[0m %s\\n' dark-$((2*3))", "green dark-6");
    const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    if (background !== "rgb(22, 24, 29)") {
      throw new Error(`the page is not dark: ${background}`);
    }
    await page.screenshot({ path: join(OUTPUT, "dark-terminal.png") });
  },
  { colorScheme: "dark" },
);

test("New connection to a port nobody listens on: the tab says it failed and offers Reconnect", async ({
  page,
  served,
}) => {
  const port = await closedPort();
  await page.goto(served.url);
  const dialog = await fillConnectionForm(page, { port, user: "nobody" });
  await dialog.getByRole("button", { name: "Connect" }).click();
  await page
    .getByRole("tab", { name: new RegExp(`nobody@127\\.0\\.0\\.1:${port}.*failed`) })
    .waitFor({ timeout: TIMEOUT });
  await page.getByRole("button", { name: `Connect to nobody@127.0.0.1:${port}` }).waitFor();
  await page.screenshot({ path: join(OUTPUT, "connection-failed.png") });
  // Reconnect connects the same tab again, in its place: it fails again, and says so.
  const before = await activeTab(page);
  const states = [];
  page.on("websocket", (ws) =>
    ws.on("framereceived", (frame) => {
      const text = typeof frame.payload === "string" ? frame.payload : "";
      if (text.includes('"connection_state"') && text.includes(`"${before}"`)) {
        states.push(text);
      }
    }),
  );
  await page.reload();
  await page.getByRole("tab", { name: /failed/, selected: true }).waitFor({ timeout: TIMEOUT });
  states.length = 0;
  await page.getByRole("button", { name: "Reconnect" }).click();
  await until("the tab to fail again", async () => states.some((frame) => frame.includes('"failed"')));
  await page.getByRole("tab", { name: /failed/, selected: true }).waitFor({ timeout: TIMEOUT });
  if ((await activeTab(page)) !== before) {
    throw new Error("Reconnect made another tab");
  }
  if ((await page.getByRole("tab").count()) !== 1) {
    throw new Error("Reconnect added a tab instead of replacing it");
  }
});

// The strip at a desktop's width and a tablet's (a phone has a tab switcher instead).
for (const [size, device] of SIZES.filter(([name]) => name !== "phone")) {
  test(
    `${size}: tab titles are short and told apart, and a new tab in a full strip scrolls into view`,
    async ({ page, served }) => {
      await page.goto(served.url);
      await page.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
      const drawer = page.getByRole("button", { name: "Connections" });
      const open = page
        .getByRole("navigation", { name: "Connections" })
        .getByRole("button", { name: "New local terminal" });
      for (let i = 0; i < 9; i++) {
        // On a tablet the drawer closes after each choice.
        if (await drawer.isVisible()) await drawer.click();
        await open.click();
      }
      const tabs = page.getByRole("tablist", { name: "Open tabs" }).getByRole("tab");
      await until("nine tabs", async () => (await tabs.count()) === 9);
      const names = await tabs.evaluateAll((all) => all.map((tab) => tab.querySelector(".title")?.textContent));
      if (names[0] !== "local" || names[1] !== "local (2)" || names[8] !== "local (9)") {
        throw new Error(`titles: ${JSON.stringify(names)}`);
      }
      const strip = await page.getByRole("tablist", { name: "Open tabs" }).boundingBox();
      const last = page.getByRole("tab", { name: /^local \(9\)/ });
      await until("the new tab in view", async () => {
        const box = await last.boundingBox();
        return box !== null && strip !== null && box.x >= strip.x && box.x + box.width <= strip.x + strip.width + 1;
      });
      await page.screenshot({ path: join(OUTPUT, `${size}-tabs-many.png`) });
      await tabs.first().click();
      await until("the first tab in view again", async () => {
        const box = await tabs.first().boundingBox();
        return box !== null && strip !== null && box.x >= strip.x - 1;
      });
      for (let i = 0; i < 9; i++) {
        await page
          .getByRole("button", { name: /^Close tab / })
          .first()
          .click();
      }
      await until("no tabs", async () => (await tabs.count()) === 0);
    },
    device,
  );
}

test("a reload shows the open tab and what it printed", async ({ page, served }) => {
  await page.goto(served.url);
  await page
    .getByRole("navigation", { name: "Connections" })
    .getByRole("button", { name: "New local terminal" })
    .click();
  await runInTerminal(page, "echo before-reload-$((5*5))", "before-reload-25");
  const tab = await activeTab(page);
  await page.reload();
  await page.getByRole("tab", { name: /local/, selected: true }).waitFor();
  if ((await activeTab(page)) !== tab) {
    throw new Error("the reloaded page shows another tab");
  }
  await until("the output again", async () => ((await terminalText(page, tab)) ?? "").includes("before-reload-25"));
  await runInTerminal(page, "echo after-reload-$((5+5))", "after-reload-10");
  await page.screenshot({ path: join(OUTPUT, "after-reload.png") });
});

test("SSH through the form: the unknown host key is trusted in the dialog, then echo", async ({
  page,
  served,
  sshd,
}) => {
  await page.goto(served.url);
  const form = await fillConnectionForm(page, { port: sshd.port, user: sshd.user, key: sshd.key });
  await page.screenshot({ path: join(OUTPUT, "new-connection.png") });
  await form.getByRole("button", { name: "Connect" }).click();
  const prompt = page.getByRole("dialog", { name: "Unknown host key" });
  await prompt.waitFor({ timeout: TIMEOUT });
  const text = await prompt.textContent();
  if (!/SHA256:/.test(text ?? "") || !/ed25519|ecdsa|rsa/i.test(text ?? "")) {
    throw new Error(`the dialog shows no key type or fingerprint: ${text}`);
  }
  await page.screenshot({ path: join(OUTPUT, "host-key.png") });
  await prompt.getByRole("button", { name: "Trust and connect" }).click();
  await runInTerminal(page, "echo ssh-$((40+2))", "ssh-42");
  await page.screenshot({ path: join(OUTPUT, "ssh-terminal.png") });
});

// Where the terminal is wide (a desktop) and where it takes a tablet's whole width.
for (const [size, device] of SIZES.filter(([name]) => name !== "phone")) {
  test(
    `${size}: the shell gets the size the terminal draws, on connect and after Reconnect, saved or not, local too`,
    async ({ page, served, sshd }) => {
      await page.goto(served.url);
      await page.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
      /** The connections, in a drawer on a tablet. */
      const sidebar = page.getByRole("navigation", { name: "Connections" });
      async function openSidebar() {
        const drawer = page.getByRole("button", { name: "Connections" });
        if (await drawer.isVisible()) await drawer.click();
        await sidebar.waitFor();
      }
      const hostKey = page.getByRole("dialog", { name: "Unknown host key" });
      let sizeCalls = 0;
      /** The shell's `stty size` is the grid xterm.js draws in the tab shown (once its prompt is there). */
      async function sizesAgree(what) {
        const tab = await activeTab(page);
        await until(`${what}: a shell prompt`, async () => {
          if (await hostKey.isVisible()) {
            await hostKey.getByRole("button", { name: "Trust and connect" }).click();
          }
          return /[$#] ?$/m.test((await terminalText(page, tab)) ?? "");
        });
        const size = () => page.evaluate((id) => window.kaiport.terminalSize(id), tab);
        // The scrollback keeps the lines of earlier calls: each call's marker is its own.
        const call = ++sizeCalls;
        // The pane may still be settling (a notice above it going away after a reconnect): a
        // grid that changed while `stty` ran is asked again, one that stayed must agree.
        for (let attempt = 1; ; attempt++) {
          const before = await size();
          const marker = `size-${call}-${attempt}-$((6*7))`;
          const answer = `size-${call}-${attempt}-42`;
          await runInTerminal(page, `echo ${marker} $(stty size)`, answer, { prefix: true });
          const line = ((await terminalText(page, tab)) ?? "").split("\n").find((l) => l.startsWith(`${answer} `));
          const after = await size();
          const told = line?.split(" ").slice(1).join(" ");
          if (told === `${after.rows} ${after.cols}`) {
            return after;
          }
          if (before.rows === after.rows && before.cols === after.cols) {
            throw new Error(`${what}: the shell says ${told}, the terminal draws ${after.rows} ${after.cols}`);
          }
          if (attempt === 5) {
            throw new Error(`${what}: the terminal's grid kept changing (${JSON.stringify(after)})`);
          }
        }
      }
      /** Ends the shell's SSH session on the server's side, so the tab drops and connects again by
       * itself: the same tab, in its place, with what it showed before. */
      async function dropAndReconnect(what) {
        const before = await activeTab(page);
        const marker = `before-drop-${Date.now()}`;
        await runInTerminal(page, `echo ${marker}`, marker);
        await dropSession(page, what);
        if ((await activeTab(page)) !== before) {
          throw new Error(`${what}: reconnecting made another tab`);
        }
        const text = (await terminalText(page, before)) ?? "";
        if (!text.includes(marker)) {
          throw new Error(`${what}: the scrollback from before the drop is gone`);
        }
      }
      await openSidebar();
      const form = await fillConnectionForm(page, { port: sshd.port, user: sshd.user, key: sshd.key });
      await form.getByRole("button", { name: "Connect" }).click();
      const drawn = await sizesAgree("an ad-hoc connection");
      // Not the size the tab was asked for with (100 x 30): the page's own grid.
      if (drawn.cols === 100 && drawn.rows === 30) {
        throw new Error("the terminal draws 100 x 30, the size every tab is asked for with: the test proves nothing");
      }
      await dropAndReconnect("the ad-hoc connection");
      await sizesAgree("the ad-hoc connection after Reconnect");
      // The drop was told in the tab's own status line; nothing of it stays after reconnecting.
      const alerts = await page.getByRole("alert").allTextContents();
      if (alerts.length > 0) {
        throw new Error(`notices stay after Reconnect: ${JSON.stringify(alerts)}`);
      }
      await page.screenshot({ path: join(OUTPUT, `${size}-size-after-reconnect.png`) });
      await page
        .getByRole("button", { name: /^Close tab / })
        .first()
        .click();

      // A local terminal, at connect.
      await openSidebar();
      await sidebar.getByRole("button", { name: "New local terminal" }).click();
      await sizesAgree("a local terminal");
      await page
        .getByRole("button", { name: /^Close tab / })
        .first()
        .click();

      await openSidebar();
      const saved = await fillConnectionForm(page, { port: sshd.port, user: sshd.user, key: sshd.key });
      await saved.getByLabel("Name").fill("e2e-size");
      await saved.getByRole("button", { name: "Save" }).click();
      await saved.waitFor({ state: "hidden" });
      try {
        await openSidebar();
        await sidebar.getByRole("button", { name: "Open e2e-size (SSH)" }).click();
        await page.getByRole("tab", { name: /e2e-size/, selected: true }).waitFor();
        await sizesAgree("a saved connection");
        await dropAndReconnect("the saved connection");
        await sizesAgree("the saved connection after Reconnect");
      } finally {
        // The saved connection goes again, passed or failed: later tests count the saved ones.
        await page.keyboard.press("Escape");
        await openSidebar();
        await sidebar.getByRole("button", { name: "Delete e2e-size" }).click();
        await sidebar.getByRole("group", { name: "Delete e2e-size?" }).getByRole("button", { name: "Delete" }).click();
        await sidebar.getByRole("button", { name: "Open e2e-size (SSH)" }).waitFor({ state: "detached" });
        // The drawer (a tablet's) closes again.
        await page.keyboard.press("Escape");
      }
    },
    device,
  );
}

test("a key's passphrase is asked in a masked field and never comes back to the page", async ({
  page,
  served,
  sshd,
}) => {
  const received = [];
  page.on("websocket", (ws) =>
    ws.on("framereceived", (frame) =>
      received.push(typeof frame.payload === "string" ? frame.payload : frame.payload.toString("latin1")),
    ),
  );
  await page.goto(served.url);
  const form = await fillConnectionForm(page, { port: sshd.port, user: sshd.user, key: sshd.encrypted_key });
  await form.getByRole("button", { name: "Connect" }).click();
  // The host key may be known already (an earlier test trusted it on this server).
  const hostKey = page.getByRole("dialog", { name: "Unknown host key" });
  const passphrase = page.getByRole("dialog", { name: "Passphrase" });
  await until("the passphrase dialog", async () => {
    if (await hostKey.isVisible()) {
      await hostKey.getByRole("button", { name: "Trust and connect" }).click();
    }
    return passphrase.isVisible();
  });
  const field = passphrase.getByLabel("Passphrase");
  if ((await field.getAttribute("type")) !== "password") {
    throw new Error("the passphrase field is not masked");
  }
  await field.fill(sshd.passphrase);
  await page.screenshot({ path: join(OUTPUT, "passphrase.png") });
  await passphrase.getByRole("button", { name: "Log in" }).click();
  await runInTerminal(page, "echo key-$((7*6))", "key-42");
  const leaked = received.filter((frame) => frame.includes(sshd.passphrase));
  if (leaked.length > 0) {
    throw new Error(`the passphrase came back to the page: ${leaked[0].slice(0, 200)}`);
  }
});

pilotTests(test, {
  startWithFirstLine,
  until,
  runInTerminal,
  dropSession,
  activeTab,
  terminalText,
  OUTPUT,
  KAIPORT,
  SSHD,
  ROOT: root,
  TIMEOUT,
});
viewTests(test, { startWithFirstLine, until, runInTerminal, activeTab, OUTPUT, KAIPORT, ROOT: root, TIMEOUT });
registerConnections({ test, until, runInTerminal, activeTab, startWithFirstLine, OUTPUT, SSHD, KAIPORT, TIMEOUT });
storageTests({ test, until, closedPort, OUTPUT, TIMEOUT });
shellFilesTests({
  test,
  until,
  runInTerminal,
  activeTab,
  terminalText,
  fillConnectionForm,
  startWithFirstLine,
  OUTPUT,
  SSHD,
});
fleetTests({ test, until, startWithFirstLine, OUTPUT, SSHD });
mobileTests({ test, until, startWithFirstLine, OUTPUT, ROOT: root, TIMEOUT, CHROMIUM_ARGS });
layoutTests({ test, until, activeTab, terminalText, fillConnectionForm, startWithFirstLine, KAIPORT, OUTPUT });
settingsTests({ test, until, activeTab, terminalText, OUTPUT });
snippetTests({ test, until, runInTerminal, activeTab, terminalText, fillConnectionForm, OUTPUT });
broadcastTests({ test, until, startWithFirstLine, activeTab, terminalText, runInTerminal, OUTPUT, SSHD });

/** Closes the browser, stops sshd and `kaiport serve` (Ctrl-C) and removes the test's home. */
export async function stopAll({ browser, sshdProcess, servedProcess, home }) {
  await browser.close();
  sshdProcess.child.stdin.end("\n");
  servedProcess.child.kill("SIGINT");
  await new Promise((r) => servedProcess.child.once("exit", r));
  await new Promise((r) => (sshdProcess.child.exitCode !== null ? r() : sshdProcess.child.once("exit", r)));
  await removeHome(home);
}

// A dropped SSH tab says so in its own status line only: the other tab shows nothing of it.
for (const [size, device] of SIZES) {
  test(
    `${size}: a dropped SSH tab's notice stays in that tab; another tab shows nothing of it`,
    async ({ page, served }) => {
      const own = await startWithFirstLine(SSHD, [], { env: process.env });
      const server = JSON.parse(own.line);
      const drawer = page.getByRole("button", { name: "Connections" });
      const sidebar = page.getByRole("navigation", { name: "Connections" });
      const switcherButton = page.getByRole("button", { name: /^Tabs: / });
      /** Shows the tab whose title starts with `title`: from the strip, or the phone's switcher. */
      async function show(title) {
        if (await switcherButton.isVisible()) {
          await switcherButton.click();
          const switcher = page.getByRole("dialog", { name: "Open tabs" });
          await switcher.getByRole("button", { name: new RegExp(`^${title}`) }).click();
          await switcher.waitFor({ state: "detached" });
        } else {
          await page.getByRole("tab", { name: new RegExp(`^${title}`) }).click();
        }
      }
      /** What the page shows about connections: alerts, and status lines that are not Pilot's. */
      const told = () =>
        page
          .locator('[role="alert"], [role="status"]')
          .filter({ visible: true })
          .filter({ hasText: /lost|Reconnect|dropped|failed/i })
          .allTextContents();
      try {
        await page.goto(served.url);
        await page.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
        if (await drawer.isVisible()) await drawer.click();
        const form = await fillConnectionForm(page, { port: server.port, user: server.user, key: server.key });
        await form.getByRole("button", { name: "Connect" }).click();
        await page
          .getByRole("dialog", { name: "Unknown host key" })
          .getByRole("button", { name: "Trust and connect" })
          .click();
        await runInTerminal(page, "echo ssh-$((5+5))", "ssh-10");
        // An ad-hoc tab is titled user@host, with the port as it is not 22.
        if (!(await switcherButton.isVisible())) {
          const title = await page.getByRole("tab", { selected: true }).locator(".title").textContent();
          if (title !== `${server.user}@127.0.0.1:${server.port}`) {
            throw new Error(`the ad-hoc tab is titled ${title}`);
          }
        }
        if (await drawer.isVisible()) await drawer.click();
        await sidebar.getByRole("button", { name: "New local terminal" }).click();
        await runInTerminal(page, "echo local-$((6+6))", "local-12");
        // The server goes away while the local tab is shown.
        own.child.stdin.write("stop\n");
        await show(`${server.user}@127`);
        const status = page.getByRole("status");
        await status.getByText(/^Reconnecting in \d+ s…$/).waitFor();
        await status.getByRole("button", { name: "Cancel reconnecting" }).click();
        await status.getByRole("button", { name: "Reconnect", exact: true }).waitFor();
        // Why, in words for a person (the library's "network error: …" only in brackets).
        const why = (await status.textContent()) ?? "";
        if (/network error/i.test(why) || !/The (connection closed|server dropped)/.test(why)) {
          throw new Error(`the dropped tab says: ${why}`);
        }
        await page.screenshot({ path: join(OUTPUT, `${size}-notice-dropped-tab.png`) });
        await show("local");
        await runInTerminal(page, "echo still-$((7+7))", "still-14");
        const shown = await told();
        if (shown.length > 0) {
          throw new Error(`the local tab shows the SSH tab's trouble: ${JSON.stringify(shown)}`);
        }
        await page.screenshot({ path: join(OUTPUT, `${size}-notice-other-tab.png`) });
      } finally {
        own.child.stdin.end();
      }
    },
    device,
  );
}

test("a reconnected tab keeps its place, in this window and in a second one", async ({
  page,
  context,
  served,
  sshd,
}) => {
  await page.goto(served.url);
  const sidebar = page.getByRole("navigation", { name: "Connections" });
  const order = (p) =>
    p
      .getByRole("tablist", { name: "Open tabs" })
      .getByRole("tab")
      .evaluateAll((all) => all.map((t) => t.id));
  await sidebar.getByRole("button", { name: "New local terminal" }).click();
  await runInTerminal(page, "echo first-$((1+1))", "first-2");
  const form = await fillConnectionForm(page, { port: sshd.port, user: sshd.user, key: sshd.key });
  await form.getByRole("button", { name: "Connect" }).click();
  const hostKey = page.getByRole("dialog", { name: "Unknown host key" });
  await until("the SSH shell", async () => {
    if (await hostKey.isVisible()) await hostKey.getByRole("button", { name: "Trust and connect" }).click();
    return /[$#] ?$/m.test((await terminalText(page, await activeTab(page))) ?? "");
  });
  const ssh = await activeTab(page);
  await sidebar.getByRole("button", { name: "New local terminal" }).click();
  await runInTerminal(page, "echo third-$((1+2))", "third-3");
  const second = await context.newPage();
  try {
    await second.goto(served.url);
    await until("three tabs in the second window", async () => (await order(second)).length === 3);
    const before = await order(page);
    if (JSON.stringify(await order(second)) !== JSON.stringify(before) || before[1] !== `tab-button-${ssh}`) {
      throw new Error(`the windows' orders differ: ${JSON.stringify([before, await order(second)])}`);
    }
    await page.locator(`#tab-button-${ssh}`).click();
    await dropSession(page, "the middle tab");
    await runInTerminal(page, "echo back-$((2+2))", "back-4");
    for (const [name, p] of [
      ["this window", page],
      ["the second window", second],
    ]) {
      const now = await order(p);
      if (JSON.stringify(now) !== JSON.stringify(before)) {
        throw new Error(`${name}: the reconnected tab moved: ${JSON.stringify(now)} (was ${JSON.stringify(before)})`);
      }
    }
    await second.screenshot({ path: join(OUTPUT, "reconnect-second-window.png") });
  } finally {
    await second.close();
  }
});

test("a lost connection shows Reconnecting in N s with Cancel; Cancel leaves it dropped with Reconnect", async ({
  page,
  served,
}) => {
  // A server of its own, stopped halfway: every attempt then fails and the waits grow.
  const own = await startWithFirstLine(SSHD, [], { env: process.env });
  const server = JSON.parse(own.line);
  try {
    await page.goto(served.url);
    const form = await fillConnectionForm(page, { port: server.port, user: server.user, key: server.key });
    await form.getByRole("button", { name: "Connect" }).click();
    const hostKey = page.getByRole("dialog", { name: "Unknown host key" });
    await hostKey.getByRole("button", { name: "Trust and connect" }).click();
    await runInTerminal(page, "echo kept-$((40+2))", "kept-42");
    const tab = await activeTab(page);
    own.child.stdin.write("stop\n");
    const status = page.getByRole("status");
    await status.getByText(/^Reconnecting in \d+ s…$/).waitFor();
    await status.getByText(/attempt 2/).waitFor();
    await page.getByRole("tab", { name: /reconnecting/, selected: true }).waitFor();
    await page.screenshot({ path: join(OUTPUT, "reconnecting.png") });
    await status.getByRole("button", { name: "Cancel reconnecting" }).click();
    await status.getByRole("button", { name: "Reconnect", exact: true }).waitFor();
    await page.getByRole("tab", { name: /dropped/, selected: true }).waitFor();
    if ((await status.getByText(/^Reconnecting/).count()) !== 0) {
      throw new Error("the countdown stays after Cancel");
    }
    if (!((await terminalText(page, tab)) ?? "").includes("kept-42")) {
      throw new Error("the scrollback from before the drop is gone");
    }
    await page.screenshot({ path: join(OUTPUT, "reconnect-cancelled.png") });
  } finally {
    own.child.stdin.end();
  }
});

async function main() {
  rmSync(OUTPUT, { recursive: true, force: true });
  mkdirSync(OUTPUT, { recursive: true });
  const home = mkdtempSync(join(tmpdir(), "kaiport-e2e-"));
  const env = { ...process.env, KAIPORT_HOME: home, HOME: home, SHELL: "/bin/bash", PS1: "\\$ " };
  const servedProcess = await startWithFirstLine(KAIPORT, ["serve", "--known-hosts", join(home, "known_hosts")], {
    env,
    cwd: home,
  });
  const url = servedProcess.line.trim();
  const parsed = new URL(url);
  const token = new URLSearchParams(parsed.hash.replace(/^#/, "")).get("token") ?? "";
  const served = { url, port: Number(parsed.port), token, home };
  const sshdProcess = await startWithFirstLine(SSHD, [], { env: process.env });
  const sshd = JSON.parse(sshdProcess.line);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  let passed = 0;
  let failed = 0;
  try {
    // E2E_ONLY=part-of-a-name runs just the matching tests (while working on one).
    const only = process.env.E2E_ONLY;
    // Several parts separated by `|` run every test matching one of them.
    const chosen = tests.filter((t) => !only || only.split("|").some((part) => t.name.includes(part)));
    if (chosen.length === 0) {
      throw new Error(`E2E_ONLY=${JSON.stringify(only)} matches no test`);
    }
    for (const { name, body, contextOptions } of chosen) {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 760 },
        colorScheme: "light",
        ...contextOptions,
      });
      await watchLinks(context);
      const page = await context.newPage();
      page.setDefaultTimeout(TIMEOUT);
      if (process.env.E2E_DEBUG)
        page.on("websocket", (ws) =>
          ws.on("framesent", (f) => console.log("sent", typeof f.payload === "string" ? f.payload : f.payload.length)),
        );
      const errors = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      const started = Date.now();
      try {
        await body({ page, context, browser, served, sshd, home });
        if (errors.length > 0) {
          throw new Error(`errors in the page: ${errors.join("; ")}`);
        }
        await closeAllTabs(page);
        passed++;
        console.log(`ok   ${name} (${Date.now() - started} ms)`);
      } catch (error) {
        failed++;
        console.log(
          `FAIL ${name}\n     ${String(error?.stack ?? error)
            .split("\n")
            .join("\n     ")}`,
        );
        const slug = name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-")
          .slice(0, 60);
        await page.screenshot({ path: join(OUTPUT, `failed-${slug}.png`) }).catch(() => {});
      } finally {
        await context.close();
      }
    }
  } finally {
    await stopAll({ browser, sshdProcess, servedProcess, home });
  }
  console.log(`screenshots: ${OUTPUT}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

// Run when started as a program; `bench.mjs` imports the helpers above.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
