// The desktop window for real: the built `kaiport-app` under Xvfb, driven through WebDriver by
// tauri-driver with Debian's WebKitWebDriver (webkit2gtk-driver). It opens a local terminal tab,
// types a command and sees its output, runs a scripted Pilot turn (tests/'s model server) with one
// approval, opens New connection through the native File menu's shortcut (typed with xdotool),
// and saves screenshots under ui/test-output/desktop/. Prints "N passed, N failed" last.
//
//   node e2e/desktop.mjs      (after `npm run tauri build -- --debug --bundles deb` and
//                              `cargo build -p kaiport-tests --bins`)
//   KAIPORT_APP_BIN, KAIPORT_MODEL_SERVER_BIN, TAURI_DRIVER, WEBKIT_DRIVER to use other builds.
//   DESKTOP_ONLY='<substring>' runs only matching tests.

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { activeTab, button, runInTerminal, terminalText, withApp } from "./desktop-driver.mjs";

const tests = [];

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

test("the window: a local terminal runs a command, and Pilot's run_command is approved in its card", async () => {
  const marker = mkdtempSync(join(tmpdir(), "kaiport-desktop-run-"));
  const command = `echo desktop-$((6*7)) | tee ${marker}/ran.txt`;
  await withApp(
    {
      steps: [
        {
          expect: { tools_include: ["run_command"] },
          respond: { text: "I'll run it in your terminal.", tool_calls: [{ name: "run_command", arguments: { command } }] },
        },
        { expect: { last_result_contains: ["desktop-42"] }, respond: { text: "It printed **desktop-42**." } },
      ],
    },
    async (driver) => {
      // The window's page talks to the engine: a local terminal tab, a command and its output.
      await driver.click(`//nav[@aria-label='Connections']${button("New local terminal")}`, "New local terminal");
      await runInTerminal(driver, "echo window-$((6*7))", "window-42");
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
  });
});

const only = process.env.DESKTOP_ONLY;
let passed = 0;
let failed = 0;
for (const { name, body } of tests) {
  if (only !== undefined && !name.includes(only)) {
    continue;
  }
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
