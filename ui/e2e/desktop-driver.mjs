// The desktop window under Xvfb through WebDriver (tauri-driver + Debian's WebKitWebDriver): the
// helpers of the window's tests (desktop.mjs) and benchmarks (desktop-bench.mjs). Every process
// started here is stopped by its PID.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { freePort, outputTail, removeHome, until as waitUntil } from "./wait.mjs";

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(here, "../..");
export const APP = process.env.KAIPORT_APP_BIN ?? join(ROOT, "target/debug/kaiport-app");
const MODEL_SERVER = process.env.KAIPORT_MODEL_SERVER_BIN ?? join(ROOT, "target/debug/kaiport-model-server");
const SSHD = process.env.KAIPORT_SSHD_BIN ?? join(ROOT, "target/debug/kaiport-sshd");
const TAURI_DRIVER =
  process.env.TAURI_DRIVER ??
  [join(homedir(), ".cache/kaiport-tools/bin/tauri-driver"), "tauri-driver"].find(
    (p) => p === "tauri-driver" || existsSync(p),
  );
const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER ?? "/usr/bin/WebKitWebDriver";
export const OUTPUT = join(here, "../test-output/desktop");
export const TIMEOUT = 30_000;
const KEY_VAR = "KAIPORT_E2E_MODEL_KEY";
const KEY = "e2e-model-key-not-a-real-one";

export function until(what, check, timeout = TIMEOUT) {
  return waitUntil(what, check, timeout, { retryErrors: true });
}

/** A process every test stops by its PID; `output()` is the end of what it (and what it
 * started with its stdout and stderr: the app under tauri-driver) printed. */
export function started(command, args, options) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], ...options });
  const output = outputTail({
    loud: 16 * 1024 * 1024,
    // Something printing without end (a loop that logs): named here with what it printed and
    // what runs, since the test may pass and no error message would show it.
    onLoud: (bytes) =>
      console.log(
        `desktop harness: ${command} ${args.join(" ")} (pid ${child.pid}) printed over ${bytes >> 20} MB; ` +
          `its last lines:\n${output.text().slice(-4000)}\n${processes()}`,
      ),
  });
  child.stdout.on("data", (chunk) => output.add(chunk));
  child.stderr.on("data", (chunk) => output.add(chunk));
  return { child, output: output.text };
}

/** What runs now, with its CPU use: who prints without end shows near the top. */
function processes() {
  try {
    return execFileSync("ps", ["-eo", "pid,ppid,pcpu,etime,args", "--sort=-pcpu"], { encoding: "utf8" })
      .split("\n")
      .slice(0, 15)
      .join("\n");
  } catch (error) {
    return `(ps failed: ${error.message})`;
  }
}

export async function stop(child, signal = "SIGTERM") {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** An X server of its own (Xvfb on a free display), stopped by its PID. */
export async function startXvfb() {
  for (let display = 90; display < 140; display++) {
    if (existsSync(`/tmp/.X11-unix/X${display}`) || existsSync(`/tmp/.X${display}-lock`)) {
      continue;
    }
    const xvfb = started("Xvfb", [`:${display}`, "-screen", "0", "1280x800x24", "-nolisten", "tcp"], {});
    try {
      await until("Xvfb", () => existsSync(`/tmp/.X11-unix/X${display}`), 10_000);
    } catch (error) {
      await stop(xvfb.child);
      throw new Error(`${error.message}\n${xvfb.output()}`, { cause: error });
    }
    return { child: xvfb.child, display: `:${display}` };
  }
  throw new Error("no free X display");
}

/** `body(fixture)` with a `kaiport-sshd` of its own (`fixture`: its JSON line), stopped after. */
export async function withSshd(body) {
  const sshd = started(SSHD, [], {});
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: sshd.child.stdout }).once("line", resolve);
    sshd.child.once("exit", () => reject(new Error(`kaiport-sshd exited\n${sshd.output()}`)));
  });
  try {
    await body(JSON.parse(line));
  } finally {
    sshd.child.stdin.end("\n");
    await new Promise((r) => (sshd.child.exitCode !== null ? r() : sshd.child.once("exit", r)));
  }
}

/** The W3C WebDriver protocol over fetch: just what the tests need. */
export class Driver {
  constructor(url) {
    this.url = url;
    this.session = null;
  }

  async call(method, path, body) {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json().catch(() => ({}));
    if (!response.ok) {
      throw new Error(`WebDriver ${method} ${path}: ${response.status} ${JSON.stringify(json).slice(0, 600)}`);
    }
    return json.value;
  }

  async start(application, args = []) {
    const value = await this.call("POST", "/session", {
      capabilities: { alwaysMatch: { "tauri:options": { application, args } } },
    });
    this.session = value.sessionId;
  }

  s(path) {
    return `/session/${this.session}${path}`;
  }

  async end() {
    if (this.session !== null) {
      await this.call("DELETE", this.s("")).catch(() => {});
      this.session = null;
    }
  }

  /** Runs `script` (a function body; `arguments` are `args`) in the page. */
  async run(script, ...args) {
    return this.call("POST", this.s("/execute/sync"), { script, args });
  }

  /** The element found by XPath, waiting for it to appear and be shown. */
  async find(xpath, what = xpath) {
    return until(what, async () => {
      const found = await this.call("POST", this.s("/elements"), { using: "xpath", value: xpath });
      for (const element of found) {
        const id = Object.values(element)[0];
        if (await this.call("GET", this.s(`/element/${id}/displayed`))) {
          return id;
        }
      }
      return null;
    });
  }

  async click(xpath, what) {
    const id = await this.find(xpath, what);
    await this.call("POST", this.s(`/element/${id}/click`), {});
  }

  /** Types into the element (WebDriver key codes: "\uE007" is Enter). */
  async type(xpath, text, what) {
    const id = await this.find(xpath, what);
    await this.call("POST", this.s(`/element/${id}/value`), { text });
  }

  /** Empties a field and types `text` into it, as Playwright's fill does. */
  async fill(xpath, text, what) {
    const id = await this.find(xpath, what);
    await this.call("POST", this.s(`/element/${id}/clear`), {});
    await this.call("POST", this.s(`/element/${id}/value`), { text });
  }

  /** Types on the keyboard into whatever has the focus (WebDriver key codes: "\uE007" is Enter). */
  async keys(text) {
    const actions = [...text].flatMap((value) => [
      { type: "keyDown", value },
      { type: "keyUp", value },
    ]);
    await this.call("POST", this.s("/actions"), { actions: [{ type: "key", id: "keyboard", actions }] });
    await this.call("DELETE", this.s("/actions"));
  }

  async screenshot(name) {
    // WebKitWebDriver takes the picture after the next repaint, and a page where nothing changes
    // is never repainted: a dot that flickers below visibility keeps it painting meanwhile.
    await this.run(`const dot = document.createElement("div");
      dot.id = "webdriver-repaint";
      dot.style.cssText = "position:fixed;left:0;top:0;width:1px;height:1px;pointer-events:none;opacity:0.01";
      document.body.append(dot);
      window.__webdriverRepaint = setInterval(() => { dot.style.opacity = dot.style.opacity === "0.01" ? "0.02" : "0.01"; }, 30);`);
    const png = await this.call("GET", this.s("/screenshot"));
    await this.run(`clearInterval(window.__webdriverRepaint); document.getElementById("webdriver-repaint")?.remove();`);
    mkdirSync(OUTPUT, { recursive: true });
    const path = join(OUTPUT, name);
    writeFileSync(path, Buffer.from(png, "base64"));
    return path;
  }
}

export const button = (name) => `//button[normalize-space()='${name}' or @aria-label='${name}']`;

/** The id of the selected tab. */
export async function activeTab(driver) {
  return until("a selected tab", () =>
    driver.run(
      `return document.querySelector('[role="tab"][aria-selected="true"]')?.getAttribute("aria-controls")?.replace(/^tab-panel-/, "") ?? null;`,
    ),
  );
}

export async function terminalText(driver, tab) {
  return (await driver.run("return window.kaiport.terminalText(arguments[0]);", tab)) ?? "";
}

/** Types a command into the visible terminal and waits for a line of its output. */
export async function runInTerminal(driver, command, expected) {
  const tab = await activeTab(driver);
  await until("a shell prompt", async () => /[$#] ?$/m.test(await terminalText(driver, tab)));
  await driver.click(`//div[@id='tab-panel-${tab}']//div[contains(@class,'xterm-screen')]`, "the terminal");
  await driver.keys(`${command}\uE007`);
  await until(`${expected} in the terminal`, async () =>
    (await terminalText(driver, tab)).split("\n").some((line) => line.trim() === expected),
  ).catch(async (error) => {
    error.message += `\n--- the terminal shows ---\n${await terminalText(driver, tab).catch(String)}`;
    throw error;
  });
}

/**
 * The app under Xvfb with its own home, a model server on `script` as its Pilot model (none when
 * null), and a WebDriver session on its window: `prepare(home, display)` before it starts (it may
 * return a function that stops what it started there), `body(driver, { home, started, display,
 * env })` (`started`: Date.now() when the session was asked for; `display`: the X display, for
 * input that must come from outside the page; `env`: the app's environment, for starting it
 * again), then everything stops, and only then is `home` removed: a helper still writing there
 * makes the removal fail with ENOTEMPTY.
 */
export async function withApp(script, body, { args = [], prepare = () => {} } = {}) {
  const home = mkdtempSync(join(tmpdir(), "kaiport-desktop-"));
  const stops = [];
  let driverOut = () => "";
  const modelLines = [];
  let stopModel = async () => {};
  try {
    const xvfb = await startXvfb();
    stops.push(() => stop(xvfb.child));
    const stopPrepared = await prepare(home, xvfb.display);
    if (typeof stopPrepared === "function") stops.push(stopPrepared);
    if (script !== null) {
      const scriptPath = join(home, "script.json");
      writeFileSync(scriptPath, JSON.stringify({ api_key: KEY, ...script }));
      const model = started(MODEL_SERVER, [scriptPath], {});
      createInterface({ input: model.child.stdout }).on("line", (line) => modelLines.push(line));
      stopModel = async () => {
        model.child.stdin.end("\n");
        await new Promise((r) => (model.child.exitCode !== null ? r() : model.child.once("exit", r)));
      };
      stops.push(() => stopModel());
      const baseUrl = await until("the model server's address", () =>
        modelLines.map((l) => l.match(/--base-url (\S+)/)?.[1]).find(Boolean),
      );
      // Pilot's model, as a user sets it: the settings file in the config folder.
      writeFileSync(
        join(home, "pilot.toml"),
        `provider = "anthropic"\n[anthropic]\nmodel = "scripted-model"\nbase_url = "${baseUrl}"\napi_key_env = "${KEY_VAR}"\n`,
      );
    }
    const port = await freePort();
    const nativePort = await freePort();
    const env = {
      ...process.env,
      DISPLAY: xvfb.display,
      KAIPORT_HOME: home,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local/share"),
      XDG_RUNTIME_DIR: home,
      SHELL: "/bin/bash",
      PS1: "\\$ ",
      [KEY_VAR]: KEY,
      // No GPU under Xvfb: WebKit draws in software.
      WEBKIT_DISABLE_COMPOSITING_MODE: "1",
      WEBKIT_DISABLE_DMABUF_RENDERER: "1",
      LIBGL_ALWAYS_SOFTWARE: "1",
    };
    delete env.WAYLAND_DISPLAY;
    delete env.DBUS_SESSION_BUS_ADDRESS;
    const tauriDriver = started(
      TAURI_DRIVER,
      ["--port", String(port), "--native-port", String(nativePort), "--native-driver", WEBKIT_DRIVER],
      { env, cwd: home },
    );
    driverOut = tauriDriver.output;
    stops.push(() => stop(tauriDriver.child));
    const driver = new Driver(`http://127.0.0.1:${port}`);
    await until(
      "tauri-driver",
      () =>
        fetch(`${driver.url}/status`).then(
          (r) => r.ok,
          () => false,
        ),
      15_000,
    );
    const startedAt = Date.now();
    await driver.start(APP, args);
    stops.push(() => driver.end());
    await driver.find("//nav[@aria-label='Connections']", "the window's page");
    await body(driver, { home, started: startedAt, display: xvfb.display, env });
    if (script === null) {
      return;
    }
    // The model server says what it saw when it stops.
    await driver.end();
    await stopModel();
    const failures = modelLines.filter((line) => line.startsWith("FAILED"));
    if (failures.length > 0) {
      throw new Error(`the model server's expectations failed:\n${failures.join("\n")}`);
    }
    const asked = modelLines.filter((line) => line.startsWith("{")).length;
    if (asked !== script.steps.length) {
      throw new Error(`the model was asked ${asked} times, not ${script.steps.length}`);
    }
  } catch (error) {
    error.message += `\n--- tauri-driver and app output ---\n${driverOut().slice(-6000)}`;
    throw error;
  } finally {
    for (const stopOne of stops.reverse()) {
      await Promise.resolve()
        .then(stopOne)
        .catch(() => {});
    }
    await removeHome(home);
  }
}
