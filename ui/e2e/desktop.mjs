// The desktop window for real: the built `kaiport-app` under Xvfb, driven through WebDriver by
// tauri-driver with Debian's WebKitWebDriver (webkit2gtk-driver). It opens a local terminal tab,
// types a command and sees its output, runs a scripted Pilot turn (tests/'s model server) with one
// approval, and saves screenshots under ui/test-output/desktop/. Prints "N passed, N failed" last.
//
//   node e2e/desktop.mjs      (after `npm run tauri build -- --debug --bundles deb` and
//                              `cargo build -p kaiport-tests --bins`)
//   KAIPORT_APP_BIN, KAIPORT_MODEL_SERVER_BIN, TAURI_DRIVER, WEBKIT_DRIVER to use other builds.
//   DESKTOP_ONLY='<substring>' runs only matching tests.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { activeTab, button, runInTerminal, terminalText, withApp } from "./desktop-driver.mjs";

const tests = [];
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
