// Browser tests of the phone and tablet screens, registered by run.mjs: Chromium with
// playwright-core's "iPhone 13" and "iPad (gen 7)" descriptors (touch, viewport, user agent)
// against `kaiport serve` built with the phone's feature set (`cargo build -p kaiport-cli
// --no-default-features`, copied to target/debug/kaiport-mobile: no edit_file, show_view, plan,
// local terminal), each test with a serve of its own, the real sshd fixture and, where Pilot
// works, the scripted model server. Also life in the background: the page's visibilitychange
// (document.hidden overridden) sends AppBackground / AppForeground, and the server side frozen
// or the whole engine suspended (SIGSTOP) stands for what iOS does to a phone app.

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { devices } from "playwright-core";
import { modelServerKeptTo } from "./pilot.mjs";
import { fillSftpForm } from "./layout.mjs";
import { animationFrames, inSight, removeHome, roundTrip } from "./wait.mjs";

const PHONE = devices["iPhone 13"];
/** The phone with its whole screen for the page (390 × 844), as the browser gives it without bars. */
const TALL_PHONE = { ...PHONE, viewport: { width: 390, height: 844 } };
const TABLET = devices["iPad (gen 7)"];
/** What a finger needs (docs/ui-contract.md): 44 CSS px each way. */
const TOUCH_TARGET = 44;
/** The tools the phone's build lacks: absent from the model's schemas and from the screen. */
const NOT_ON_A_PHONE = ["edit_file", "show_view", "propose_plan", "update_plan"];

/** Registers the phone and tablet tests with run.mjs's `test`. */
export function mobileTests({ test, until, startWithFirstLine, OUTPUT, ROOT, TIMEOUT }) {
  const MOBILE = process.env.KAIPORT_MOBILE_BIN ?? join(ROOT, "target/debug/kaiport-mobile");
  const MODEL_SERVER = process.env.KAIPORT_MODEL_SERVER_BIN ?? join(ROOT, "target/debug/kaiport-model-server");

  /** A `kaiport serve` of the phone's build in a home of its own (and, given a script, the model
   * server it talks to); `body({ url, home, serve })`; then both stop, and the model server's
   * failed expectations or unused steps fail the test. */
  async function withMobile(script, body, page = null) {
    const home = mkdtempSync(join(tmpdir(), "kaiport-e2e-mobile-"));
    let model;
    let modelOut = "";
    const flags = [];
    const env = { ...process.env, KAIPORT_HOME: home, HOME: home, SHELL: "/bin/bash" };
    if (script !== null) {
      const scriptPath = join(home, "script.json");
      writeFileSync(scriptPath, JSON.stringify(script));
      model = await startWithFirstLine(MODEL_SERVER, [scriptPath], { env: process.env });
      createInterface({ input: model.child.stdout }).on("line", (line) => (modelOut += `${line}\n`));
      const baseUrl = model.line.match(/--base-url (\S+)/)?.[1];
      flags.push(
        "--provider",
        "anthropic",
        "--base-url",
        baseUrl,
        "--model",
        "scripted-model",
        "--api-key-env",
        "KAIPORT_E2E_MOBILE_KEY",
      );
      env.KAIPORT_E2E_MOBILE_KEY = "e2e-mobile-key";
    }
    let serve;
    try {
      serve = await startWithFirstLine(MOBILE, ["serve", "--known-hosts", join(home, "known_hosts"), ...flags], {
        env,
        cwd: home,
      });
      await body({ url: serve.line.trim(), home, serve });
    } catch (error) {
      // While the page still shows what went wrong (run.mjs's shot comes after the stop).
      await page?.screenshot({ path: join(OUTPUT, "failed-mobile-before-stop.png") }).catch(() => {});
      throw error;
    } finally {
      if (serve !== undefined) {
        try {
          process.kill(serve.child.pid, "SIGCONT");
        } catch {
          // Gone already.
        }
        serve.child.kill("SIGINT");
        await new Promise((r) => (serve.child.exitCode !== null ? r() : serve.child.once("exit", r)));
      }
      if (model !== undefined) {
        model.child.stdin.end("\n");
        await new Promise((r) => (model.child.exitCode !== null ? r() : model.child.once("exit", r)));
      }
      await removeHome(home);
    }
    if (script !== null) {
      modelServerKeptTo(script, modelOut);
    }
  }

  /** The id of the tab shown. */
  async function shownTab(page) {
    const id = await page.locator('[id^="tab-panel-"]:not([hidden])').first().getAttribute("id");
    return id.replace(/^tab-panel-/, "");
  }

  async function terminalLines(page) {
    const tab = await shownTab(page);
    return ((await page.evaluate((id) => window.kaiport.terminalText(id), tab)) ?? "").split("\n");
  }

  async function waitForLine(page, expected, timeout = TIMEOUT) {
    await until(
      `${expected} in the terminal`,
      async () => (await terminalLines(page)).some((line) => line.trim() === expected),
      timeout,
    );
  }

  /** Taps the terminal (the keyboard goes there) and types `text` and Enter. */
  async function typeLine(page, text) {
    await page.getByRole("region", { name: "Terminal" }).tap();
    await page.keyboard.type(text);
    await page.keyboard.press("Enter");
  }

  /** "New connection" on the empty screen, an SSH server, its host key trusted, a prompt. */
  async function openSsh(page, url, sshd) {
    await page.goto(url);
    await page.getByRole("button", { name: "New connection" }).tap();
    const form = page.getByRole("dialog", { name: "New connection" });
    await form.getByLabel("Host", { exact: true }).fill("127.0.0.1");
    await form.getByLabel("Port").fill(String(sshd.port));
    await form.getByLabel("User").fill(sshd.user);
    await form.getByLabel("Key file").fill(sshd.key);
    await form.getByRole("button", { name: "Connect" }).tap();
    await page
      .getByRole("dialog", { name: "Unknown host key" })
      .getByRole("button", { name: "Trust and connect" })
      .tap();
    await until("a shell prompt", async () => /[$#] ?$/m.test((await terminalLines(page)).join("\n")));
    await typeLine(page, "echo ready-$((2+3))");
    await waitForLine(page, "ready-5");
  }

  /** Fails unless `locator` is at least a finger's size. */
  async function fingerSized(locator, what) {
    const box = await locator.boundingBox();
    if (box === null || box.width < TOUCH_TARGET - 0.5 || box.height < TOUCH_TARGET - 0.5) {
      throw new Error(`${what} is ${box?.width}×${box?.height} px, less than ${TOUCH_TARGET}`);
    }
  }

  /** The page hides (document.hidden, then visibilitychange), as when a phone app goes to the
   * background, or shows again. */
  async function setHidden(page, hidden) {
    await page.evaluate((value) => {
      Object.defineProperty(document, "hidden", { configurable: true, get: () => value });
      Object.defineProperty(document, "visibilityState", {
        configurable: true,
        get: () => (value ? "hidden" : "visible"),
      });
      document.dispatchEvent(new Event("visibilitychange"));
    }, hidden);
  }

  const terminalSize = async (page) => {
    const tab = await shownTab(page);
    return page.evaluate((id) => window.kaiport.terminalSize(id), tab);
  };

  test(
    "phone: one column, a tab switcher, the extra keys reach the shell and sticky Ctrl+c interrupts a sleep",
    async ({ page, sshd }) => {
      await withMobile(
        null,
        async ({ url }) => {
          await page.goto(url);
          await page.getByRole("button", { name: "New connection" }).waitFor();
          // The phone's build has no local terminal: nothing offers one.
          await page.getByRole("button", { name: "Connections" }).tap();
          const drawer = page.getByRole("navigation", { name: "Connections" });
          await drawer.getByRole("button", { name: "New connection" }).waitFor();
          if ((await page.getByRole("button", { name: "New local terminal" }).count()) !== 0) {
            throw new Error("the phone's build offers a local terminal");
          }
          await fingerSized(drawer.getByRole("button", { name: "New connection" }), "New connection in the drawer");
          await page.screenshot({ path: join(OUTPUT, "phone-connections.png") });
          await page.getByRole("button", { name: "Close connections" }).tap({ position: { x: 370, y: 300 } });
          await drawer.waitFor({ state: "detached" });

          await openSsh(page, url, sshd);
          const header = page.getByRole("button", { name: /^Tabs: / });
          await fingerSized(header, "the tab switcher");
          await fingerSized(page.getByRole("button", { name: "Pilot" }), "Pilot");
          if ((await page.getByRole("tablist").count()) !== 0) {
            throw new Error("a phone shows a tab list");
          }
          // The extra keys, each a finger's size.
          const keys = page.getByRole("toolbar", { name: "Extra keys" });
          for (const name of ["Esc", "Tab", "Ctrl", "Alt", "Left", "Down", "Up", "Right", "|", "~", "/", "-"]) {
            await fingerSized(keys.getByRole("button", { name, exact: true }), `the extra key ${name}`);
          }
          // Up recalls the last command; Tab completes; | and - and / and ~ type themselves.
          await typeLine(page, "echo once-$((1+1))");
          await waitForLine(page, "once-2");
          await keys.getByRole("button", { name: "Up", exact: true }).tap();
          await page.keyboard.press("Enter");
          await until(
            "the recalled command's output twice",
            async () => (await terminalLines(page)).filter((l) => l.trim() === "once-2").length === 2,
          );
          await page.getByRole("region", { name: "Terminal" }).tap();
          await page.keyboard.type("ech");
          await keys.getByRole("button", { name: "Tab", exact: true }).tap();
          await page.keyboard.type(" 'completed ");
          for (const key of ["~", "/", "-"]) {
            await keys.getByRole("button", { name: key, exact: true }).tap();
          }
          await page.keyboard.type("x' ");
          await keys.getByRole("button", { name: "|", exact: true }).tap();
          await page.keyboard.type(" tr x y");
          await page.keyboard.press("Enter");
          await waitForLine(page, "completed ~/-y");

          // Arrows follow the cursor-key mode a program sets (here by hand, for cat -v to show).
          // The marker comes after the mode switch: once it shows, the terminal is in that mode.
          await typeLine(page, "printf '\\033[?1h'; echo app-$((6*7)); cat -v");
          await waitForLine(page, "app-42");
          await keys.getByRole("button", { name: "Up", exact: true }).tap();
          await page.keyboard.press("Enter");
          await waitForLine(page, "^[OA");
          await keys.getByRole("button", { name: "Ctrl", exact: true }).tap();
          await page.keyboard.type("d");
          await typeLine(page, "printf '\\033[?1l'; echo normal-mode");
          await waitForLine(page, "normal-mode");

          // Ctrl is sticky: tapped, it is pressed until the next key, which it turns into Ctrl+key.
          await typeLine(page, "sleep 30; echo slept-through");
          const ctrl = keys.getByRole("button", { name: "Ctrl", exact: true });
          await ctrl.tap();
          if ((await ctrl.getAttribute("aria-pressed")) !== "true") {
            throw new Error("Ctrl does not show it is latched");
          }
          await page.screenshot({ path: join(OUTPUT, "phone-terminal-ctrl.png") });
          const interrupted = Date.now();
          await page.keyboard.type("c");
          await until("Ctrl let go", async () => (await ctrl.getAttribute("aria-pressed")) === "false");
          await typeLine(page, "echo after-$((3+4))");
          await waitForLine(page, "after-7", 10_000);
          if (
            Date.now() - interrupted > 10_000 ||
            (await terminalLines(page)).some((l) => l.includes("slept-through") && !l.includes("echo"))
          ) {
            throw new Error("Ctrl+c did not interrupt the sleep");
          }

          // The switcher lists the open tabs.
          await header.tap();
          const switcher = page.getByRole("dialog", { name: "Open tabs" });
          const current = switcher.getByRole("button", { name: new RegExp(`^${sshd.user}@127\\.0\\.0\\.1`) });
          if ((await current.getAttribute("aria-current")) !== "page") {
            throw new Error("the switcher does not mark the tab shown");
          }
          await fingerSized(current, "a tab in the switcher");
          await page.screenshot({ path: join(OUTPUT, "phone-switcher.png") });
          await switcher.getByRole("button", { name: "Done" }).tap();
          await switcher.waitFor({ state: "detached" });
          await page.screenshot({ path: join(OUTPUT, "phone-terminal.png") });
        },
        page,
      );
    },
    { ...PHONE },
  );

  test(
    "phone: pinching changes the font size and the shell learns the new size; a long-press selects and copies",
    async ({ page, context, sshd }) => {
      await context.grantPermissions(["clipboard-read", "clipboard-write"]);
      await withMobile(
        null,
        async ({ url }) => {
          await openSsh(page, url, sshd);
          const before = await terminalSize(page);
          const cdp = await context.newCDPSession(page);
          const box = await page.locator(".xterm-screen").boundingBox();
          const cx = box.x + box.width / 2;
          const cy = box.y + box.height / 3;
          const touch = (type, spread) =>
            cdp.send("Input.dispatchTouchEvent", {
              type,
              touchPoints:
                type === "touchEnd"
                  ? []
                  : [
                      { x: cx - spread, y: cy, id: 0 },
                      { x: cx + spread, y: cy, id: 1 },
                    ],
            });
          // Fingers apart: bigger letters, fewer columns. A frame between moves, as a finger
          // gives: the terminal takes a pinch's font size once a frame.
          await touch("touchStart", 30);
          for (const spread of [40, 55, 70, 85]) {
            await touch("touchMove", spread);
            await animationFrames(page);
          }
          await touch("touchEnd", 0);
          const bigger = await until("fewer columns", async () => {
            const now = await terminalSize(page);
            return now.cols < before.cols ? now : null;
          });
          await typeLine(page, "echo cols=$(tput cols)");
          await waitForLine(page, `cols=${bigger.cols}`);
          await page.screenshot({ path: join(OUTPUT, "phone-pinched.png") });

          // A long-press on a word selects it and offers Copy.
          await typeLine(page, "echo pressme-$((6*7))");
          await waitForLine(page, "pressme-42");
          // The rows are located from the buffer's length: wait for the prompt after the output
          // and for the buffer to stay the same a moment (a late redraw would move them).
          let lines = [];
          let same = 0;
          await until("the prompt after the output, settled", async () => {
            const now = await terminalLines(page);
            same = now.join("\n") === lines.join("\n") ? same + 1 : 0;
            lines = now;
            const at = now.findIndex((l) => l.trim() === "pressme-42");
            return same >= 3 && at >= 0 && /[$#] ?$/.test(now[at + 1] ?? "");
          });
          const tab = await shownTab(page);
          const row = lines.findIndex((l) => l.trim() === "pressme-42");
          const viewport = await page.evaluate((id) => window.kaiport.terminalSize(id), tab);
          const screen = await page.locator(".xterm-screen").boundingBox();
          const top = Math.max(0, lines.length - viewport.rows);
          const cellW = screen.width / viewport.cols;
          const cellH = screen.height / viewport.rows;
          const px = screen.x + cellW * 2.5;
          const py = screen.y + cellH * (row - top + 0.5);
          // The finger stays down until the press has selected (Copy shows), then lifts.
          await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: px, y: py, id: 0 }] });
          const copy = page.getByRole("button", { name: "Copy", exact: true });
          await copy.waitFor();
          await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
          await until("the word selected", async () => {
            const selected = await page.evaluate((id) => window.kaiport.terminalSelection(id), tab);
            return selected === "pressme-42" || { selected, row, top, rows: viewport.rows, length: lines.length };
          }).then((r) => {
            if (r !== true) throw new Error(`selected ${JSON.stringify(r)}`);
          });
          await fingerSized(copy, "Copy");
          await page.screenshot({ path: join(OUTPUT, "phone-long-press.png") });
          await copy.tap();
          await until(
            "the word on the clipboard",
            async () => (await page.evaluate(() => navigator.clipboard.readText())) === "pressme-42",
          );
        },
        page,
      );
    },
    { ...PHONE },
  );

  test(
    "phone: Pilot's sheet, an approval tapped; no plan switch and no edit tools or approvals",
    async ({ page, sshd }) => {
      const script = {
        api_key: "e2e-mobile-key",
        steps: [
          {
            expect: { tools_include: ["run_command", "write_file", "ask_user"], tools_exclude: NOT_ON_A_PHONE },
            respond: {
              text: "Checking.",
              tool_calls: [{ name: "run_command", arguments: { command: "echo pilot-$((4*5))" } }],
            },
          },
          {
            expect: { last_result_contains: ["pilot-20"] },
            respond: {
              text: "Now an edit.",
              tool_calls: [
                { name: "edit_file", arguments: { path: "/tmp/x", edits: [{ old_text: "a", new_text: "b" }] } },
              ],
            },
          },
          { expect: { last_result_contains: ["edit_file"] }, respond: { text: "That tool is not here." } },
        ],
      };
      await withMobile(
        script,
        async ({ url }) => {
          await openSsh(page, url, sshd);
          await page.getByRole("button", { name: "Pilot" }).tap();
          const panel = page.getByRole("region", { name: "Pilot" }).filter({ visible: true });
          await panel.waitFor();
          await page.getByRole("button", { name: "Close Pilot" }).waitFor();
          // Ask and Autopilot, no Plan: the engine has no propose_plan.
          await panel.getByRole("radio", { name: /^Ask/ }).waitFor();
          await panel.getByRole("radio", { name: /^Autopilot/ }).waitFor();
          if ((await panel.getByRole("radio", { name: /^Plan/ }).count()) !== 0) {
            throw new Error("the phone's build shows the plan mode");
          }
          await panel.getByRole("textbox", { name: "Message Pilot" }).fill("check it");
          await panel.getByRole("button", { name: "Send" }).tap();
          const card = panel.getByRole("article", { name: /^run_command echo pilot/ });
          const approve = card.getByRole("button", { name: "Approve" });
          await approve.waitFor();
          // The half-height sheet shows the card's answers as it arrives, without scrolling.
          await inSight(approve, "Approve", TIMEOUT);
          await inSight(card.getByRole("button", { name: "Deny" }), "Deny", TIMEOUT);
          await fingerSized(approve, "Approve");
          for (const name of ["Deny", "Edit before running", "Always allow this command on this connection"]) {
            await fingerSized(card.getByRole("button", { name }), name);
          }
          await fingerSized(card.getByRole("textbox", { name: "Reason (sent to Pilot)" }), "Reason (sent to Pilot)");
          await page.screenshot({ path: join(OUTPUT, "phone-pilot-approval.png") });
          await approve.tap();
          await card.getByText("ok", { exact: true }).waitFor();
          await panel.getByText("That tool is not here.").waitFor();
          // The model's edit_file was refused as unknown: no diff, no approval for it.
          const edit = panel.getByRole("article", { name: /^edit_file/ });
          await edit.waitFor();
          if (
            (await edit.getByRole("button", { name: "Approve" }).count()) !== 0 ||
            (await panel.getByRole("button", { name: "Approve" }).count()) !== 0
          ) {
            throw new Error("an edit approval was offered on the phone's build");
          }
          await page.screenshot({ path: join(OUTPUT, "phone-pilot.png") });
        },
        page,
      );
    },
    TALL_PHONE,
  );

  // A card that says much (Pilot's reason, a long command, the policy's reasons) is taller than
  // the phone's half sheet: the sheet grows until it is answered, then goes back to half.
  for (const [size, device] of [
    ["phone", TALL_PHONE],
    ["tablet", TABLET],
  ]) {
    test(
      `${size}: a tall approval card arrives with Approve and Deny in sight, without scrolling`,
      async ({ page, sshd }) => {
        const long = `for i in 1 2 3; do echo tall-$((i*7)); done; df -h / /tmp /var /home 2>/dev/null | head -n 3; uptime; echo "${"x".repeat(120)}"`;
        const script = {
          api_key: "e2e-mobile-key",
          steps: [
            {
              respond: {
                text: "A long look around first, so that we know where we stand before changing anything.",
                tool_calls: [
                  {
                    name: "run_command",
                    arguments: {
                      command: long,
                      why: "To see the disks, the load and the folders before anything changes on this server.",
                    },
                  },
                ],
              },
            },
            { expect: { last_result_contains: ["tall-21"] }, respond: { text: "Looked." } },
          ],
        };
        await withMobile(
          script,
          async ({ url }) => {
            await openSsh(page, url, sshd);
            const show = page.getByRole("button", { name: size === "phone" ? "Pilot" : "Show Pilot" });
            await show.tap();
            const panel = page.getByRole("region", { name: "Pilot" }).filter({ visible: true });
            await panel.getByRole("textbox", { name: "Message Pilot" }).fill("look around");
            await panel.getByRole("button", { name: "Send" }).tap();
            const card = panel.getByRole("article", { name: /^run_command for i in/ });
            await inSight(card.getByRole("button", { name: "Approve" }), "Approve", TIMEOUT);
            await inSight(card.getByRole("button", { name: "Deny" }), "Deny", TIMEOUT);
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-tall-approval.png`) });
            await card.getByRole("button", { name: "Approve" }).tap();
            await panel.getByText("Looked.").waitFor();
            if (size === "phone") {
              // Answered, the sheet is half the screen again: the terminal is in sight.
              const sheet = await page.getByRole("complementary", { name: "Pilot panel" }).boundingBox();
              const height = page.viewportSize().height;
              if (sheet === null || sheet.height > height * 0.5 + 1) {
                throw new Error(`the answered sheet stays ${sheet?.height} px of ${height}`);
              }
            }
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-tall-answered.png`) });
          },
          page,
        );
      },
      device,
    );
  }

  test(
    "phone: a storage tab's local side is the documents folder, and a file uploads from it",
    async ({ page, sshd }) => {
      const shared = mkdtempSync(join("/tmp", "kaiport-e2e-mobile-sftp-"));
      chmodSync(shared, 0o777);
      try {
        await withMobile(
          null,
          async ({ url, home }) => {
            const documents = join(home, "Documents");
            mkdirSync(documents, { recursive: true });
            writeFileSync(join(documents, "from-the-phone.txt"), "written on a phone\n");
            await page.goto(url);
            await page.getByRole("button", { name: "New connection" }).tap();
            const form = await fillSftpForm(page, sshd, shared);
            // No choice of local folders: the engine keeps them in its documents folder.
            if ((await form.getByLabel("Local folder").count()) !== 0) {
              throw new Error("the phone's build offers to pick local folders");
            }
            await form.getByText("Documents folder").waitFor();
            await form.getByRole("button", { name: "Connect" }).tap();
            await page
              .getByRole("dialog", { name: "Unknown host key" })
              .getByRole("button", { name: "Trust and connect" })
              .tap();
            // One side at a time on a phone: the documents folder first.
            const local = page.getByRole("region", { name: "Documents" });
            const file = local.getByRole("row", { name: /^from-the-phone\.txt\b/ });
            await file.waitFor();
            await file.tap();
            await local.getByRole("button", { name: "Upload" }).tap();
            await page
              .getByRole("list", { name: "Transfers" })
              .getByRole("listitem", { name: "from-the-phone.txt" })
              .getByText("done")
              .waitFor();
            await page.getByRole("group", { name: "Side shown" }).getByRole("button", { name: "Storage" }).tap();
            await page
              .getByRole("region", { name: /^sftp:/ })
              .getByRole("row", { name: /^from-the-phone\.txt\b/ })
              .waitFor();
            await until("the file on the server", async () => {
              try {
                return readFileSync(join(shared, "from-the-phone.txt"), "utf8") === "written on a phone\n";
              } catch {
                return false;
              }
            });
            await page.screenshot({ path: join(OUTPUT, "phone-storage-documents.png") });
          },
          page,
        );
      } finally {
        rmSync(shared, { recursive: true, force: true });
      }
    },
    { ...PHONE },
  );

  test(
    "tablet: the terminal has the width; Pilot opens over it; no sidebar",
    async ({ page, sshd }) => {
      await withMobile(
        null,
        async ({ url }) => {
          await openSsh(page, url, sshd);
          if (await page.getByRole("navigation", { name: "Connections" }).isVisible()) {
            throw new Error("the tablet shows the sidebar");
          }
          await page.getByRole("tab", { selected: true }).waitFor();
          const terminal = await page.getByRole("region", { name: "Terminal" }).boundingBox();
          const width = page.viewportSize().width;
          // All of it but the rail "Show Pilot" (30 px) and the terminal's padding.
          if (terminal === null || terminal.width < width - 60) {
            throw new Error(`the terminal is ${terminal?.width} px of ${width}`);
          }
          await page.getByRole("button", { name: "Show Pilot" }).tap();
          const pilot = await page.getByRole("region", { name: "Pilot" }).filter({ visible: true }).boundingBox();
          if (pilot === null || pilot.x >= terminal.x + terminal.width - 1) {
            throw new Error(`Pilot is not over the terminal: ${JSON.stringify(pilot)}`);
          }
          await page.screenshot({ path: join(OUTPUT, "tablet-pilot.png") });
          await page.keyboard.press("Escape");
          await page.getByRole("toolbar", { name: "Extra keys" }).waitFor();
          await fingerSized(page.getByRole("button", { name: "Connections" }), "Connections");
          await page.screenshot({ path: join(OUTPUT, "tablet.png") });
          await page.getByRole("button", { name: "Connections" }).tap();
          await page.getByRole("navigation", { name: "Connections" }).waitFor();
          await page.screenshot({ path: join(OUTPUT, "tablet-connections.png") });
          await page.keyboard.press("Escape");
          await page.getByRole("navigation", { name: "Connections" }).waitFor({ state: "detached" });
        },
        page,
      );
    },
    { ...TABLET },
  );

  /** The shell's `stty size` is the grid xterm.js draws (no bar above the terminal on a phone
   * changes its size once the tab is connected, as on a desktop). */
  async function sizesAgree(page) {
    const drawn = await page.evaluate((id) => window.kaiport.terminalSize(id), await shownTab(page));
    await typeLine(page, "stty size");
    await waitForLine(page, `${drawn.rows} ${drawn.cols}`);
  }

  test(
    "phone: a server gone silent in the background is dropped once in the foreground, and comes back by itself at the terminal's size",
    async ({ page, sshd }) => {
      await withMobile(
        null,
        async ({ url }) => {
          await openSsh(page, url, sshd);
          await sizesAgree(page);
          // The sshd process that carries this connection (the shell's parent).
          await typeLine(page, "echo carrier=$PPID");
          const carrierLine = await until("the carrier's pid", async () =>
            (await terminalLines(page)).find((l) => /^carrier=\d+$/.test(l.trim())),
          );
          const carrier = Number(carrierLine.trim().slice("carrier=".length));
          await setHidden(page, true);
          // Frozen: the connection stays open and nothing answers, as after a network change.
          process.kill(carrier, "SIGSTOP");
          try {
            await setHidden(page, false);
            // The check on the way back (the engine gives the server 1.5 s) ends it, and the tab
            // connects again by itself; the wait is only a guard against a hang. Dropped by that
            // check, not before it (nothing could know while in the background): the reason is
            // the check's.
            await page
              .getByRole("status")
              .getByText(/did not answer .* after kaiport came back from the background/)
              .waitFor({ timeout: TIMEOUT });
            await page.screenshot({ path: join(OUTPUT, "phone-dropped.png") });
          } finally {
            try {
              process.kill(carrier, "SIGKILL");
            } catch {
              // Gone already.
            }
          }
          await until("connected again by itself", async () => (await page.getByRole("status").count()) === 0);
          await until("a shell prompt again", async () => /[$#] ?$/m.test((await terminalLines(page)).join("\n")));
          await typeLine(page, "echo back-$((8*8))");
          await waitForLine(page, "back-64");
          await sizesAgree(page);
        },
        page,
      );
    },
    { ...PHONE },
  );

  test(
    "phone: a Pilot turn running while kaiport was suspended ends with a note, and the model reads it",
    async ({ page, sshd }) => {
      const script = {
        api_key: "e2e-mobile-key",
        steps: [
          {
            respond: {
              text: "Waiting for the job.",
              tool_calls: [{ name: "run_command", arguments: { command: "sleep 30", timeout_s: 120 } }],
            },
          },
          {
            expect: { body_contains: ["Note from kaiport", "suspended in the background", "go on"] },
            respond: { text: "I looked again." },
          },
        ],
      };
      await withMobile(
        script,
        async ({ url, serve }) => {
          await openSsh(page, url, sshd);
          await page.getByRole("button", { name: "Pilot" }).tap();
          const panel = page.getByRole("region", { name: "Pilot" }).filter({ visible: true });
          await panel.getByRole("textbox", { name: "Message Pilot" }).fill("wait for the job");
          await panel.getByRole("button", { name: "Send" }).tap();
          const card = panel.getByRole("article", { name: /^run_command sleep 30/ });
          await card.getByRole("button", { name: "Approve" }).tap();
          await card.getByText("running", { exact: true }).waitFor();
          // To the background; the engine's whole process is suspended there, as iOS does.
          await setHidden(page, true);
          // The engine has taken app_background (its heartbeat runs) before it is stopped.
          if (!(await roundTrip(page, TIMEOUT))) {
            throw new Error("the page's link to kaiport is not open");
          }
          process.kill(serve.child.pid, "SIGSTOP");
          // Not a wait for anything: how long the engine stays suspended, longer than the gap
          // that counts as a suspension (SUSPENDED_AFTER, 3 s, crates/core/src/lifecycle.rs).
          await new Promise((r) => setTimeout(r, 4000));
          process.kill(serve.child.pid, "SIGCONT");
          await setHidden(page, false);
          await panel.getByText(/^Interrupted: kaiport was in the background/).waitFor({ timeout: 10_000 });
          await panel.getByText(/may still be running/).waitFor();
          await page.screenshot({ path: join(OUTPUT, "phone-pilot-interrupted.png") });
          await panel.getByRole("textbox", { name: "Message Pilot" }).fill("go on");
          await panel.getByRole("button", { name: "Send" }).tap();
          await panel.getByText("I looked again.").waitFor();
        },
        page,
      );
    },
    { ...PHONE },
  );
}
