// The desktop window for real: the built `kaiport-app` under Xvfb, driven through WebDriver by
// tauri-driver with Debian's WebKitWebDriver (webkit2gtk-driver). It opens a local terminal tab,
// types a command and sees its output, runs a scripted Pilot turn (tests/'s model server) with one
// approval, opens New connection through the native File menu's shortcut (typed with xdotool),
// fills the key file in through GTK's file chooser, sees the notification of Pilot's wait on the
// session bus while another window is in front (and focusing the window brings that tab back),
// takes files dropped from outside on an FTP tab's server side and on an SSH tab's file pane
// (drop-files.py plays the file manager's side of XDND) and uploads them, asks before closing while Pilot works, opens ssh:// and
// sftp:// links given at the start or handed over by a second start (one instance), and starts
// again where the window was left, at its size.
// Screenshots go to ui/test-output/desktop/. Prints "N passed, N failed" last.
//
//   node e2e/desktop.mjs      (after `npm run tauri build -- --debug --bundles deb` and
//                              `cargo build -p kaiport-tests --bins`)
//   KAIPORT_APP_BIN, KAIPORT_MODEL_SERVER_BIN, TAURI_DRIVER, WEBKIT_DRIVER to use other builds.
//   DESKTOP_ONLY='<substring>' runs only matching tests.

import { execFile } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  APP,
  activeTab,
  button,
  runInTerminal,
  started,
  stop,
  terminalText,
  until,
  withApp,
  withSshd,
} from "./desktop-driver.mjs";
import { FTP_PASSWORD, FTP_USER, startFtp } from "./storage.mjs";
import { freePort, keepTrafficOnLoopback, processesOf } from "./wait.mjs";

const CLOSE_WINDOW = fileURLToPath(new URL("./close-window.py", import.meta.url));
const DROP_FILES = fileURLToPath(new URL("./drop-files.py", import.meta.url));
/** Debian's Python, where Debian's python3-xlib is (drop-files.py); `python3` may be another. */
const SYSTEM_PYTHON = "/usr/bin/python3";

keepTrafficOnLoopback();
const tests = [];

/** The environments (lists of NAME=value) of the processes named `comm` of the app in `home`. */
function environments(home, comm) {
  const found = [];
  for (const pid of processesOf(home)) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === comm)
        found.push(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0"));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** A command's stdout; its stderr in the error when it fails. */
function run(command, args, options) {
  return new Promise((resolve, reject) =>
    execFile(command, args, { timeout: 15_000, ...options }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(" ")}: ${error.message}\n${stderr}`)) : resolve(stdout.trim()),
    ),
  );
}
function test(name, body) {
  tests.push({ name, body });
}

/** A session bus where the app looks for one ($XDG_RUNTIME_DIR/bus; the app's XDG_RUNTIME_DIR
 * is its home): the bus daemon, and the bus's address. */
async function startSessionBus(home) {
  const address = `unix:path=${join(home, "bus")}`;
  const bus = started("dbus-daemon", ["--session", "--nofork", "--nopidfile", `--address=${address}`], {});
  await until("the session bus", () => existsSync(join(home, "bus")), 10_000);
  return { child: bus.child, address };
}

/** The app's windows named `name` that are shown, by X window id. */
async function shownWindows(env, name) {
  return (await run("xdotool", ["search", "--onlyvisible", "--name", name], { env }).catch(() => ""))
    .split("\n")
    .filter(Boolean);
}

test("the window: a local terminal runs a command, and Pilot's run_command is approved in its card", async () => {
  const marker = mkdtempSync(join(tmpdir(), "kaiport-desktop-run-"));
  const command = `echo desktop-$((6*7)) | tee ${marker}/ran.txt`;
  await withApp(
    {
      steps: [
        {
          expect: { tools_include: ["run_command"] },
          respond: {
            text: "I'll run it in your terminal.",
            tool_calls: [{ name: "run_command", arguments: { command } }],
          },
        },
        { expect: { last_result_contains: ["desktop-42"] }, respond: { text: "It printed **desktop-42**." } },
      ],
    },
    async (driver, { home }) => {
      // The window's page talks to the engine: a local terminal tab, a command and its output.
      await driver.click(`//nav[@aria-label='Connections']${button("New local terminal")}`, "New local terminal");
      await runInTerminal(driver, "echo window-$((6*7))", "window-42");
      // The pace the app sets for JavaScriptCore's collections (main.rs) reaches its web process
      // and not the user's shell.
      const paced = "JSC_percentCPUPerMBForFullTimer=0.003";
      const webProcesses = environments(home, "WebKitWebProces");
      if (webProcesses.length === 0 || !webProcesses.every((env) => env.includes(paced))) {
        throw new Error(`no web process of this window has ${paced}`);
      }
      await runInTerminal(driver, 'echo "jsc-[${JSC_percentCPUPerMBForFullTimer-none}]"', "jsc-[none]");
      const shot = await driver.screenshot("terminal.png");
      // Terminal output arrived as bytes: the text is exact, nothing like "104,105".
      const tab = await activeTab(driver);
      if (/\d+,\d+,\d+/.test(await terminalText(driver, tab))) {
        throw new Error("terminal output looks like JSON numbers");
      }
      // Pilot: a message, the approval card, Approve, the result.
      await driver.type("//textarea[@aria-label='Message Pilot']", "run the check", "Message Pilot");
      await driver.click(button("Send"), "Send");
      const card = "//article[starts-with(@aria-label, 'run_command echo desktop')]";
      await driver.find(`${card}${button("Approve")}`, "the approval card");
      await driver.screenshot("pilot-approval.png");
      await driver.click(`${card}${button("Approve")}`, "Approve");
      await driver.find(`${card}//*[normalize-space()='ok']`, "the card's ok");
      await driver.find("//*[contains(normalize-space(), 'It printed')]", "Pilot's answer");
      await driver.screenshot("pilot-done.png");
      if (readFileSync(join(marker, "ran.txt"), "utf8").trim() !== "desktop-42") {
        throw new Error("the approved command did not run");
      }
      console.log(`  screenshots: ${dirname(shot)}`);
    },
  );
  rmSync(marker, { recursive: true, force: true });
});

test("the menus: a menu shortcut typed at the window reaches the page through the native menu", async () => {
  await withApp(null, async (driver, { display }) => {
    // Keys typed as a person types them (XTEST), not through WebDriver: GTK sees them first and
    // gives Ctrl+Shift+N to the File menu's New Connection…, which the page has no key for of
    // its own. So the dialog opening shows the menu's path: accelerator, menu event, page.
    const xdotool = (...args) => run("xdotool", args, { env: { ...process.env, DISPLAY: display } });
    const [window] = (await xdotool("search", "--sync", "--onlyvisible", "--name", "^kaiport$")).split("\n");
    await xdotool("windowfocus", "--sync", window);
    await xdotool("key", "--clearmodifiers", "ctrl+shift+n");
    await driver.find("//dialog[@open]//h2[normalize-space()='New connection']", "the New connection dialog");
    await driver.screenshot("menu-new-connection.png");
    // Edit › Settings… (Ctrl+,; ⌘, in the app menu on macOS) opens the app's Settings.
    await xdotool("key", "--clearmodifiers", "Escape");
    await until("the New connection dialog closed", () =>
      driver.run(`return document.querySelector("dialog[open]") === null || null;`),
    );
    await xdotool("key", "--clearmodifiers", "ctrl+comma");
    await driver.find("//dialog[@open]//h2[normalize-space()='Settings']", "the Settings dialog");
    await driver.screenshot("menu-settings.png");
  });
});

test("the native file dialog: Browse… beside the key file fills in the file chosen there", async () => {
  await withApp(
    null,
    async (driver, { home, display }) => {
      const env = { ...process.env, DISPLAY: display };
      const xdotool = (...args) => run("xdotool", args, { env });
      const key = join(home, ".ssh", "id_desktop_test");
      await driver.click(`//nav[@aria-label='Connections']${button("New connection")}`, "New connection");
      await driver.click(`//dialog[@open]${button("Browse…")}`, "Browse…");
      // GTK's file chooser, a window of its own: typed into as a person would (Ctrl+L, the path).
      const [chooser] = (
        await xdotool("search", "--sync", "--onlyvisible", "--name", "^Choose a private key file$")
      ).split("\n");
      await xdotool("windowfocus", "--sync", chooser);
      await xdotool("key", "ctrl+l");
      await xdotool("type", "--delay", "20", key);
      await xdotool("key", "Return");
      const value = () => driver.run(`return document.getElementById("nc-key").value;`);
      await until("the chosen file in the Key file field", async () => (await value()) === key, 10_000);
      await driver.screenshot("file-dialog-key.png");
    },
    {
      prepare: (home) => {
        mkdirSync(join(home, ".ssh"), { recursive: true });
        writeFileSync(join(home, ".ssh", "id_desktop_test"), "not a real key\n");
      },
    },
  );
});

test("a notification when Pilot waits while the window is in the background; focusing the window brings that tab forward", async () => {
  const helpers = [];
  const stopHelpers = async () => {
    for (const child of helpers.splice(0).reverse()) {
      await stop(child);
    }
  };
  let monitor = null;
  try {
    await withApp(
      {
        steps: [
          {
            respond: {
              text: "Running it.",
              tool_calls: [{ name: "run_command", arguments: { command: "echo noticed" } }],
            },
          },
        ],
      },
      async (driver, { display }) => {
        await driver.click(`//nav[@aria-label='Connections']${button("New local terminal")}`, "New local terminal");
        await runInTerminal(driver, "echo first-$((6*7))", "first-42");
        const first = await activeTab(driver);
        // The window in the background, another app's window in front of it (xmessage, given
        // the focus): Pilot's wait is told through the desktop's notification service, seen here
        // on the session bus.
        const env = { ...process.env, DISPLAY: display };
        const other = started("xmessage", ["-name", "other-app", "-geometry", "200x60+900+600", "another app"], {
          env,
        });
        helpers.push(other.child);
        const [front] = (
          await run("xdotool", ["search", "--sync", "--onlyvisible", "--classname", "^other-app$"], { env })
        ).split("\n");
        await run("xdotool", ["windowfocus", "--sync", front], { env });
        await driver.type("//textarea[@aria-label='Message Pilot']", "run it", "Message Pilot");
        await driver.click(button("Send"), "Send");
        await driver.find(
          `//article[starts-with(@aria-label, 'run_command echo noticed')]${button("Approve")}`,
          "the approval card",
        );
        await until(
          "the notification",
          () => monitor.output().includes("Pilot waits for your approval: run_command"),
          10_000,
        ).catch((error) => {
          error.message += `\n--- dbus-monitor ---\n${monitor.output().slice(-3000)}`;
          throw error;
        });
        // Another tab comes forward meanwhile; focusing the window brings the waiting one back.
        await driver.click(`//nav[@aria-label='Connections']${button("New local terminal")}`, "New local terminal");
        await until("the second tab", async () => (await activeTab(driver)) !== first, 10_000);
        const [window] = (await run("xdotool", ["search", "--onlyvisible", "--name", "^kaiport$"], { env })).split(
          "\n",
        );
        await run("xdotool", ["windowfocus", "--sync", window], { env });
        await until("the waiting tab in front", async () => (await activeTab(driver)) === first, 10_000);
      },
      {
        // A session bus where the app looks for one ($XDG_RUNTIME_DIR/bus), Debian's dunst as
        // the notification service on it, and a watch on the bus.
        prepare: async (home, display) => {
          const { child: bus, address } = await startSessionBus(home);
          helpers.push(bus);
          const env = { ...process.env, DISPLAY: display, DBUS_SESSION_BUS_ADDRESS: address, HOME: home };
          const dunst = started("dunst", [], { env });
          helpers.push(dunst.child);
          const owner = () =>
            run("dbus-send", [
              "--bus=" + address,
              "--print-reply",
              "--dest=org.freedesktop.DBus",
              "/org/freedesktop/DBus",
              "org.freedesktop.DBus.NameHasOwner",
              "string:org.freedesktop.Notifications",
            ]);
          await until("dunst on the bus", async () => (await owner()).includes("boolean true"), 10_000);
          monitor = started(
            "dbus-monitor",
            ["--address", address, "interface='org.freedesktop.Notifications',member='Notify'"],
            {},
          );
          helpers.push(monitor.child);
          await until(
            "dbus-monitor",
            () => monitor.output().includes("NameAcquired") || monitor.output().length > 0,
            10_000,
          );
          // Stopped before the app's home is removed: dunst and the bus live in it.
          return stopHelpers;
        },
      },
    );
  } finally {
    await stopHelpers();
  }
});

/** Drops the files at `paths` on the middle of the file pane side `side` (`remote`, `local`), at
 * its place on the screen: the window's place, the native menu bar above the page, and the
 * pane's middle in the page. */
async function dropFiles(driver, env, side, paths) {
  const xdotool = (...args) => run("xdotool", args, { env });
  const [window] = (await xdotool("search", "--onlyvisible", "--name", "^kaiport$")).split("\n");
  const geometry = Object.fromEntries(
    (await xdotool("getwindowgeometry", "--shell", window)).split("\n").map((line) => line.split("=")),
  );
  const at = await driver.run(
    `const pane = document.querySelector("[data-storage-side='" + arguments[0] + "']").getBoundingClientRect();
    return { x: pane.x + pane.width / 2, y: pane.y + pane.height / 2, height: window.innerHeight };`,
    side,
  );
  const x = Math.round(Number(geometry.X) + at.x);
  const y = Math.round(Number(geometry.Y) + Number(geometry.HEIGHT) - at.height + at.y);
  await run(SYSTEM_PYTHON, [DROP_FILES, window, String(x), String(y), ...paths], { env });
}

/** Puts the fixture's key where ssh looks for one in the app's `home`. */
function keyAtHome(fixture, home) {
  mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 });
  copyFileSync(fixture.key, join(home, ".ssh/id_ed25519"));
  chmodSync(join(home, ".ssh/id_ed25519"), 0o600);
}

test("files dropped from the file manager on a storage tab's server side are uploaded there", async () => {
  const ftp = await startFtp(15_000, freePort);
  try {
    await withApp(null, async (driver, { display }) => {
      const env = { ...process.env, DISPLAY: display };
      const content = `dropped from the file manager ${Date.now()}\n`;
      writeFileSync(join(ftp.local, "dropped notes.txt"), content);
      writeFileSync(join(ftp.local, "second.txt"), "second\n");
      // An FTP tab through the form, as a person opens one.
      await driver.click(`//nav[@aria-label='Connections']${button("New connection")}`, "New connection");
      await driver.run(`const kind = document.getElementById("nc-kind");
        kind.value = "ftp";
        kind.dispatchEvent(new Event("change", { bubbles: true }));`);
      const field = (label) => `//dialog[@open]//input[@id=//dialog[@open]//label[normalize-space()='${label}']/@for]`;
      await driver.fill(field("Host"), "127.0.0.1", "Host");
      await driver.fill(field("Port"), String(ftp.port), "Port");
      await driver.fill(field("User"), FTP_USER, "User");
      await driver.fill(field("Password"), FTP_PASSWORD, "Password");
      await driver.fill(field("Local folder"), ftp.local, "Local folder");
      await driver.click(`//dialog[@open]${button("Connect")}`, "Connect");
      const remote = "//*[@data-storage-side='remote']";
      await driver.find(
        `${remote}//*[contains(normalize-space(), 'This folder is empty')]`,
        "the server's empty folder",
      );
      const dropOn = (side, files) =>
        dropFiles(
          driver,
          env,
          side,
          files.map((name) => join(ftp.local, name)),
        );
      await dropOn("remote", ["dropped notes.txt", "second.txt"]);
      // Through the same path as Upload: a row in Transfers for each, and the files on the server.
      for (const name of ["dropped notes.txt", "second.txt"]) {
        await driver.find(
          `//ul[@aria-label='Transfers']/li[.//*[normalize-space()='${name}']]//*[normalize-space()='done']`,
          `${name} done in Transfers`,
        );
      }
      // One drop, one line for it all.
      await driver.find("//*[@role='status'][normalize-space()='Done: upload 2 files.']", "the drop's status line");
      await until(
        "the dropped file on the server",
        async () =>
          existsSync(join(ftp.data, "dropped notes.txt")) &&
          readFileSync(join(ftp.data, "dropped notes.txt"), "utf8") === content,
        10_000,
      );
      if (readFileSync(join(ftp.data, "second.txt"), "utf8") !== "second\n") {
        throw new Error("the second dropped file differs on the server");
      }
      await driver.find(
        `${remote}//tr[.//*[normalize-space()='dropped notes.txt']]`,
        "the dropped file listed on the server's side",
      );
      await driver.screenshot("drop-files-uploaded.png");
      // Dropped anywhere else, nothing is sent, and the page says where files go.
      await dropOn("local", ["second.txt"]);
      await driver.find(
        "//*[contains(normalize-space(), 'Drop files on the storage side of a storage tab')]",
        "where dropped files go",
      );
      const rows = await driver.run(
        `return document.querySelectorAll("ul[aria-label='Transfers'] > li[aria-labelledby]").length;`,
      );
      if (rows !== 2) {
        throw new Error(`a drop on this computer's side started a transfer: ${rows} rows in Transfers`);
      }
      await driver.screenshot("drop-files-elsewhere.png");
    });
  } finally {
    await ftp.stop();
  }
});

test('closing the window: asked first while Pilot works, "Keep open" keeps it, and with nothing running it closes', async () => {
  const command = "echo closing-$((6*7))";
  await withApp(
    {
      steps: [
        { respond: { text: "Running it.", tool_calls: [{ name: "run_command", arguments: { command } }] } },
        { expect: { last_result_contains: ["closing-42"] }, respond: { text: "Done." } },
      ],
    },
    async (driver, { home, display }) => {
      const env = { ...process.env, DISPLAY: display };
      const xdotool = (...args) => run("xdotool", args, { env });
      const closeWindow = (id) => run("python3", [CLOSE_WINDOW, id], { env });
      const visible = async (name) =>
        (await xdotool("search", "--onlyvisible", "--name", name).catch(() => "")).split("\n").filter(Boolean);
      await driver.click(`//nav[@aria-label='Connections']${button("New local terminal")}`, "New local terminal");
      await runInTerminal(driver, "echo ready-$((6*7))", "ready-42");
      // A turn under way: Pilot waits for the approval of its command.
      await driver.type("//textarea[@aria-label='Message Pilot']", "run it", "Message Pilot");
      await driver.click(button("Send"), "Send");
      const card = "//article[starts-with(@aria-label, 'run_command echo closing')]";
      await driver.find(`${card}${button("Approve")}`, "the approval card");
      const [window] = await visible("^kaiport$");
      await closeWindow(window);
      // The native question, a window of its own; Escape answers "Keep open".
      const [question] = (await xdotool("search", "--sync", "--onlyvisible", "--name", "^Close kaiport\\?$")).split(
        "\n",
      );
      await xdotool("windowfocus", "--sync", question);
      await xdotool("key", "Escape");
      await until("the question to go away", async () => (await visible("^Close kaiport\\?$")).length === 0, 10_000);
      // Still open, and still working: the turn goes on to its end.
      await driver.click(`${card}${button("Approve")}`, "Approve");
      await driver.find("//*[contains(normalize-space(), 'Done.')]", "Pilot's answer");
      // Nothing under way now: the window closes without asking, and the app ends.
      await closeWindow(window);
      await until("the window to close", async () => (await visible("^kaiport$")).length === 0, 10_000);
      if ((await visible("^Close kaiport\\?$")).length > 0) {
        throw new Error("asked before closing with nothing under way");
      }
      const audit = readFileSync(join(home, "ai-audit.jsonl"), "utf8");
      if (!audit.includes("echo closing")) {
        throw new Error(`the audit log lacks the approved command:\n${audit}`);
      }
    },
  );
});

test("ssh:// and sftp:// links: one given at the start opens a tab (its host key asked as always); a second start hands its link to the window and ends", async () => {
  // The SFTP link's folder, with a file to see in the storage tab.
  const folder = mkdtempSync(join(tmpdir(), "kaiport-desktop-link-"));
  chmodSync(folder, 0o755);
  writeFileSync(join(folder, "linked-file.txt"), "opened from a link\n");
  try {
    await withSshd(async (fixture) => {
      let bus = null;
      await withApp(
        null,
        async (driver, { env }) => {
          await driver.click(
            "//dialog[@open]//button[normalize-space()='Trust and connect']",
            "the unknown host key question",
          );
          await runInTerminal(driver, "echo linked-$((6*7))", "linked-42");
          const first = await activeTab(driver);
          // Started again with another link: it hands the link over (one instance) and ends.
          const again = started(APP, [`sftp://${fixture.user}@127.0.0.1:${fixture.port}${folder}`], { env });
          const exited = await until(
            "the second start to end",
            () => (again.child.exitCode ?? again.child.signalCode) !== null && { code: again.child.exitCode },
            15_000,
          ).catch(async (error) => {
            await stop(again.child);
            error.message += `\n${again.output()}`;
            throw error;
          });
          if (exited.code !== 0) {
            throw new Error(`the second start ended with ${exited.code}:\n${again.output()}`);
          }
          await driver.find("//*[normalize-space()='linked-file.txt']", "the SFTP link's folder in a storage tab");
          if ((await activeTab(driver)) === first) {
            throw new Error("the SFTP link opened no tab of its own");
          }
          if ((await shownWindows(env, "^kaiport$")).length !== 1) {
            throw new Error("a second window is shown");
          }
          await driver.screenshot("links.png");
        },
        {
          args: [`ssh://${fixture.user}@127.0.0.1:${fixture.port}`],
          // The fixture's key where ssh looks for one, and a session bus for the one-instance
          // hand-over.
          prepare: async (home) => {
            keyAtHome(fixture, home);
            bus = await startSessionBus(home);
            return () => stop(bus.child);
          },
        },
      );
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("the window's size and place are remembered from one start to the next", async () => {
  await withApp(null, async (driver, { home, env }) => {
    const xdotool = (...args) => run("xdotool", args, { env });
    const geometry = async (window) =>
      (await xdotool("getwindowgeometry", window)).split("\n").slice(1).join("; ").replace(/\s+/g, " ");
    const [window] = await shownWindows(env, "^kaiport$");
    await xdotool("windowsize", "--sync", window, "900", "650");
    await xdotool("windowmove", "--sync", window, "70", "40");
    const placed = await geometry(window);
    if (!placed.includes("Position: 70,40") || !placed.includes("Geometry: 900x650")) {
      throw new Error(`the window was not moved and resized: ${placed}`);
    }
    // Closed as a window manager closes it: the app ends and writes where the window was.
    const state = join(home, ".config", "dev.kaiport.desktop", ".window-state.json");
    await run("python3", [CLOSE_WINDOW, window], { env });
    await until("the window to close", async () => (await shownWindows(env, "^kaiport$")).length === 0, 10_000);
    await until("the window's state written", () => existsSync(state), 10_000);
    await driver.end();
    await driver.start(APP);
    await driver.find("//nav[@aria-label='Connections']", "the window's page, started again");
    const [again] = await shownWindows(env, "^kaiport$");
    const restored = await geometry(again);
    if (restored !== placed) {
      throw new Error(`started again at ${restored}, not ${placed}:\n${readFileSync(state, "utf8")}`);
    }
  });
});

const only = process.env.DESKTOP_ONLY;
const chosen = tests.filter(({ name }) => only === undefined || name.includes(only));
if (chosen.length === 0) {
  console.log(`desktop: DESKTOP_ONLY=${JSON.stringify(only)} matches no test`);
  process.exit(1);
}
let passed = 0;
let failed = 0;
for (const { name, body } of chosen) {
  const started = Date.now();
  try {
    await body();
    passed++;
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}\n${error.stack ?? error}`);
  }
}
console.log(`desktop: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
