// Browser tests of the Pilot panel and its cards: each test starts the scripted model server
// (`kaiport-model-server SCRIPT.json`, from tests/) with its own script and a `kaiport serve` of
// its own that talks to it (`--provider anthropic --base-url … --api-key-env …`), then drives
// the page. Checks what happened on the machine (files written or not) outside the browser, and
// that the model server saw every step it expected.

import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { animationFrames, freePort, inSight, removeHome, SIZES } from "./wait.mjs";

const KEY_VAR = "KAIPORT_E2E_MODEL_KEY";
const KEY = "e2e-model-key-not-a-real-one";

/** Fails unless the model server (its output `modelOut`) saw every step of `script` and each
 * step's expectations held. */
export function modelServerKeptTo(script, modelOut) {
  const failures = modelOut.split("\n").filter((line) => line.startsWith("FAILED"));
  if (failures.length > 0) {
    throw new Error(`the model server's expectations failed:\n${failures.join("\n")}`);
  }
  // Requests with a wrong key (a test of the setup dialog) are refused before any step.
  const requests = modelOut
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .filter((line) => JSON.parse(line).auth_ok !== false).length;
  if (requests !== script.steps.length) {
    throw new Error(`the model was asked ${requests} times, not ${script.steps.length}`);
  }
}

/**
 * What Pilot's browser tests share (here and in views.mjs): a scripted model server with its own
 * `kaiport serve`, a local or SSH tab, sending a message, the visible panel. `h` carries
 * run.mjs's helpers and paths.
 */
export function pilotKit(h) {
  const { startWithFirstLine, until, runInTerminal, KAIPORT, ROOT } = h;
  const MODEL_SERVER = process.env.KAIPORT_MODEL_SERVER_BIN ?? join(ROOT, "target/debug/kaiport-model-server");

  /** A model server on `script` and a kaiport serve using it; `body(served)`; then both stop and
   * the model server's failed expectations (and unused steps) fail the test. */
  async function withPilot(script, body, { modelFlags = true } = {}) {
    const home = mkdtempSync(join(tmpdir(), "kaiport-e2e-pilot-"));
    const scriptPath = join(home, "script.json");
    writeFileSync(scriptPath, JSON.stringify({ api_key: KEY, ...script }));
    const model = await startWithFirstLine(MODEL_SERVER, [scriptPath], { env: process.env });
    let modelOut = "";
    const rest = createInterface({ input: model.child.stdout });
    rest.on("line", (line) => (modelOut += `${line}\n`));
    /** Lets the model's answers held for `gate` (`after_gate`) go out, once the server says so. */
    async function openGate(gate) {
      model.child.stdin.write(`open ${gate}\n`);
      await until(`the gate ${gate} open`, async () => modelOut.split("\n").includes(`opened ${gate}`));
    }
    const baseUrl = model.line.match(/--base-url (\S+)/)?.[1];
    const env = { ...process.env, KAIPORT_HOME: home, HOME: home, SHELL: "/bin/bash", PS1: "\\$ ", [KEY_VAR]: KEY };
    // Without the model flags, Pilot is set up in the page as a new user would.
    const flags = modelFlags
      ? ["--provider", "anthropic", "--base-url", baseUrl, "--model", "scripted-model", "--api-key-env", KEY_VAR]
      : [];
    let serve;
    try {
      serve = await startWithFirstLine(KAIPORT, ["serve", "--known-hosts", join(home, "known_hosts"), ...flags], {
        env,
        cwd: home,
      });
      const url = serve.line.trim();
      await body({ url, home, baseUrl, openGate });
    } finally {
      if (serve !== undefined) {
        serve.child.kill("SIGINT");
        await new Promise((r) => (serve.child.exitCode !== null ? r() : serve.child.once("exit", r)));
      }
      model.child.stdin.end("\n");
      await new Promise((r) => (model.child.exitCode !== null ? r() : model.child.once("exit", r)));
      await removeHome(home);
    }
    modelServerKeptTo(script, modelOut);
    return modelOut;
  }

  async function openLocal(page, url) {
    await page.goto(url);
    await page.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
    // On a phone or tablet the connections are a drawer.
    const drawer = page.getByRole("button", { name: "Connections" });
    if (await drawer.isVisible()) {
      await drawer.click();
    }
    await page
      .getByRole("navigation", { name: "Connections" })
      .getByRole("button", { name: "New local terminal" })
      .click();
    await runInTerminal(page, "echo ready-$((1+1))", "ready-2");
  }

  async function message(page, text) {
    const box = page.getByRole("textbox", { name: "Message Pilot" });
    await box.fill(text);
    await page.getByRole("button", { name: "Send" }).click();
  }

  /** Opens Pilot where it is not always shown (a tablet's overlay, a phone's sheet). */
  async function showPilot(page) {
    const show = page.getByRole("button", { name: /^(Pilot|Show Pilot)$/ });
    if (await show.isVisible()) {
      await show.click();
    }
  }

  /** Opens the shown tab's "Connection settings": from the tab's tools, or on a phone from the
   * tab switcher; Pilot is put away first where it lies over the tab. Returns the dialog. */
  async function openConnectionSettings(page) {
    for (const name of ["Close Pilot", "Hide Pilot"]) {
      const button = page.getByRole("button", { name });
      const over = await page.evaluate(() => matchMedia("(pointer: coarse)").matches);
      if (over && (await button.isVisible())) await button.click();
    }
    const direct = page.getByRole("button", { name: "Connection settings", exact: true });
    if (await direct.isVisible()) {
      await direct.click();
    } else {
      await page.getByRole("button", { name: /^Tabs: / }).click();
      await page
        .getByRole("dialog", { name: "Open tabs" })
        .getByRole("button", { name: /^Connection settings for / })
        .click();
    }
    const dialog = page.getByRole("dialog", { name: "Connection settings" });
    await dialog.waitFor();
    return dialog;
  }

  /** The visible Pilot panel. */
  const panel = (page) => page.getByRole("region", { name: "Pilot" }).filter({ visible: true });

  async function turnDone(page) {
    await until("the turn to end", async () => await panel(page).getByRole("button", { name: "Stop" }).isDisabled());
  }

  /** An SSH tab to the sshd fixture, through "New connection", its host key trusted; with
   * `name`, saved under that name first and opened from the sidebar, as a user would. */
  async function openSsh(page, url, sshd, { name } = {}) {
    await page.goto(url);
    await page.getByRole("button", { name: "New connection" }).first().click();
    const form = page.getByRole("dialog", { name: "New connection" });
    await form.getByLabel("Host", { exact: true }).fill("127.0.0.1");
    await form.getByLabel("Port").fill(String(sshd.port));
    await form.getByLabel("User").fill(sshd.user);
    await form.getByLabel("Key file").fill(sshd.key);
    if (name === undefined) {
      await form.getByRole("button", { name: "Connect" }).click();
    } else {
      await form.getByLabel("Name").fill(name);
      await form.getByRole("button", { name: "Save" }).click();
      await form.waitFor({ state: "hidden" });
      // On a phone or tablet the connections are a drawer.
      const drawer = page.getByRole("button", { name: "Connections" });
      if (await drawer.isVisible()) {
        await drawer.click();
      }
      await page
        .getByRole("navigation", { name: "Connections" })
        .getByRole("button", { name: `Open ${name} (SSH)` })
        .click();
    }
    await page
      .getByRole("dialog", { name: "Unknown host key" })
      .getByRole("button", { name: "Trust and connect" })
      .click();
    await runInTerminal(page, "echo ssh-$((2+3))", "ssh-5");
  }

  return { withPilot, openLocal, openSsh, message, panel, turnDone, showPilot, openConnectionSettings };
}

/**
 * Registers the Pilot tests with run.mjs's `test`. `h` carries run.mjs's helpers and paths.
 */
export function pilotTests(test, h) {
  const { until, activeTab, runInTerminal, dropSession, startWithFirstLine, terminalText, OUTPUT, SSHD, TIMEOUT } = h;
  const { withPilot, openLocal, openSsh, message, panel, turnDone, showPilot, openConnectionSettings } = pilotKit(h);

  /** A model script that reads `file` (holding `marker`), reads it again once the marker came
   * back, then takes `last` as its answer to the second read. */
  function readTwice(file, marker, last) {
    const read = { tool_calls: [{ name: "read_file", arguments: { path: file } }] };
    return [{ respond: read }, { expect: { last_result_contains: [marker] }, respond: read }, last];
  }

  /** A directory the sshd fixture's user owns (files Pilot changes over SSH). */
  function userDir(user) {
    const dir = mkdtempSync(join("/tmp", "kaiport-e2e-files-"));
    chmodSync(dir, 0o755);
    execFileSync("chown", [user, dir]);
    return dir;
  }

  for (const [size, device] of SIZES) {
    test(
      `${size}: Pilot set up in the app: the provider's models listed, Test answered, Save keeps the key in the keychain, then a turn`,
      async ({ page }) => {
        const frames = [];
        page.on("websocket", (ws) =>
          ws.on("framereceived", (f) =>
            frames.push(typeof f.payload === "string" ? f.payload : f.payload.toString("latin1")),
          ),
        );
        await withPilot(
          {
            models: ["scripted-model", "scripted-model-mini"],
            steps: [
              { respond: { text: "OK" } },
              { expect: { body_contains: ["hello"] }, respond: { text: "Hello from the model you set up." } },
            ],
          },
          async ({ url, home, baseUrl }) => {
            await openLocal(page, url);
            await showPilot(page);
            await panel(page).getByText("Pilot has no model yet").waitFor();
            await panel(page).getByRole("button", { name: "Set up Pilot" }).click();
            const dialog = page.getByRole("dialog", { name: "Pilot settings" });
            await dialog.getByLabel("Provider").selectOption("anthropic");
            await dialog.getByLabel("Base URL").fill(baseUrl);
            // A wrong key: the provider's refusal, in words, for the model list and for Test.
            // The key is masked as it is typed.
            if ((await dialog.getByLabel("API key").getAttribute("type")) !== "password") {
              throw new Error("the API key field shows the key");
            }
            await dialog.getByLabel("API key").fill("sk-wrong-key-e2e-0000");
            await dialog.getByLabel("Model").focus();
            await dialog.getByText(/refused the API key \(HTTP 401\)/).waitFor();
            await dialog.getByLabel("Model").fill("scripted-model");
            await dialog.getByRole("button", { name: "Test" }).click();
            const refused = dialog.getByRole("status").filter({ hasText: "refused the API key" });
            await refused.waitFor();
            if ((await refused.textContent()).includes("sk-wrong")) {
              throw new Error("the refusal shows the key");
            }
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-setup-refused.png`) });
            // The whole dialog is on the screen, its buttons included, however long the error.
            const width = page.viewportSize().width;
            for (const box of [
              await dialog.boundingBox(),
              await dialog.getByRole("button", { name: "Save" }).boundingBox(),
            ]) {
              if (box === null || box.x < 0 || box.x + box.width > width) {
                throw new Error(`the dialog goes past the screen's ${width} px: ${JSON.stringify(box)}`);
              }
            }
            await dialog.getByLabel("API key").fill(KEY);
            // Leaving the key field asks the provider for its models, with the key just typed.
            await dialog.getByLabel("Model").focus();
            await dialog.getByText("2 models from the provider").waitFor();
            const offered = await dialog
              .locator("#ps-models option")
              .evaluateAll((options) => options.map((o) => o.value));
            if (offered.join(",") !== "scripted-model,scripted-model-mini") {
              throw new Error(`the Model field offers ${offered}`);
            }
            await dialog.getByLabel("Model").fill("scripted-model");
            await dialog.getByRole("button", { name: "Test" }).click();
            await dialog.getByRole("status").filter({ hasText: "scripted-model answered: OK" }).waitFor();
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-setup-tested.png`) });
            await dialog.getByRole("button", { name: "Save" }).click();
            await dialog
              .getByRole("status")
              .filter({ hasText: "Saved. Pilot uses scripted-model from now on." })
              .waitFor();
            // Behind the dialog the panel has the model already (the README's picture of this step).
            await panel(page).getByText("Pilot has no model yet").waitFor({ state: "hidden" });
            await until(
              "the model in the panel",
              async () =>
                (await panel(page).getByRole("combobox", { name: "Model" }).inputValue()) === "scripted-model",
            );
            await dialog.getByText("2 models from the provider").waitFor();
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-setup-saved.png`) });
            if ((await dialog.getByLabel("API key").inputValue()) !== "") {
              throw new Error("the key stays in the field after Save");
            }
            const file = readFileSync(join(home, "pilot.toml"), "utf8");
            if (!/provider = "anthropic"/.test(file) || !/model = "scripted-model"/.test(file) || file.includes(KEY)) {
              throw new Error(`pilot.toml after Save:\n${file}`);
            }
            await dialog.getByRole("button", { name: "Close" }).click();
            await panel(page).getByText("API key saved in the keychain").waitFor();
            if (await panel(page).getByRole("button", { name: "Set up Pilot" }).isVisible()) {
              throw new Error("Set up Pilot is still offered after Save");
            }
            await message(page, "hello");
            await panel(page).getByText("Hello from the model you set up.").waitFor();
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-setup-turn.png`) });
            const leaked = frames.filter((frame) => frame.includes(KEY));
            if (leaked.length > 0) {
              throw new Error(`the API key came back to the page: ${leaked[0].slice(0, 200)}`);
            }
          },
          { modelFlags: false },
        );
      },
      device,
    );
  }

  test("Pilot: a run_command asks, is approved in its card and shows its exit code", async ({ page }) => {
    const dir = mkdtempSync(join(tmpdir(), "kaiport-e2e-run-"));
    const command = `echo e2e-$((6*7)) | tee ${dir}/ran.txt; (exit 3)`;
    await withPilot(
      {
        steps: [
          {
            expect: { tools_include: ["run_command", "ask_user"] },
            respond: {
              text: "I'll **run** it in your terminal.",
              tool_calls: [{ name: "run_command", arguments: { command } }],
            },
          },
          {
            expect: { last_result_contains: ["e2e-42", "exit code 3"] },
            respond: {
              text: "It printed `e2e-42` and exited with **3**. Now a long one.",
              tool_calls: [{ name: "run_command", arguments: { command: "seq 1 30000" } }],
            },
          },
          { expect: { last_result_contains: ["left out"] }, respond: { text: "That was long.", chunk_delay_ms: 20 } },
        ],
      },
      async ({ url }) => {
        await openLocal(page, url);
        // The model picker shows the server's model and that the key comes from the variable.
        await until(
          "the model",
          async () => (await panel(page).getByRole("combobox", { name: "Model" }).inputValue()) === "scripted-model",
        );
        await panel(page).getByText(`API key from $${KEY_VAR}`).waitFor();
        await message(page, "run the check");
        const card = panel(page).getByRole("article", { name: /^run_command echo e2e/ });
        await card.getByRole("button", { name: "Approve" }).waitFor();
        await inSight(card.getByRole("button", { name: "Approve" }), "Approve", TIMEOUT);
        await inSight(card.getByRole("button", { name: "Deny" }), "Deny", TIMEOUT);
        // The waiting card took focus; it says what will happen and shows the command.
        await until("the card focused", () => card.evaluate((el) => el === document.activeElement));
        await card.getByText("Run in this computer’s terminal").waitFor();
        await card.getByLabel("Command").getByText(command).waitFor();
        await page.screenshot({ path: join(OUTPUT, "pilot-approval.png") });
        await card.getByRole("button", { name: "Approve" }).click();
        await card.getByText("ok", { exact: true }).waitFor({ timeout: TIMEOUT });
        await panel(page).getByText("exited with").waitFor();
        // Then a command with a long output, approved too, by keyboard: the card that waits has
        // the focus, and after the answer the focus goes on to the message box, not the page.
        const long = panel(page).getByRole("article", { name: "run_command seq 1 30000" });
        await long.getByRole("button", { name: "Approve" }).waitFor();
        await until("the waiting card focused", async () =>
          page.evaluate(() => document.activeElement?.getAttribute("aria-label") === "run_command seq 1 30000"),
        );
        await page.keyboard.press("Tab");
        await page.keyboard.press("Enter");
        await until("the message box focused", async () =>
          page.evaluate(() => document.activeElement?.getAttribute("aria-label") === "Message Pilot"),
        );
        await turnDone(page);
        await card.getByRole("button", { expanded: false }).click();
        const facts = await card
          .locator("dl")
          .evaluate((dl) =>
            Object.fromEntries(
              [...dl.querySelectorAll("dt")].map((dt) => [
                dt.textContent.trim(),
                dt.nextElementSibling?.textContent.trim(),
              ]),
            ),
          );
        if (
          facts["Exit code"] !== "3" ||
          facts["Detection"] !== "shell integration" ||
          facts["Decided"] !== "allowed by you"
        ) {
          throw new Error(`the expanded card says ${JSON.stringify(facts)}`);
        }
        if (!/e2e-42/.test((await card.getByLabel("Output").textContent()) ?? "")) {
          throw new Error("the expanded card shows no output");
        }
        if (readFileSync(join(dir, "ran.txt"), "utf8").trim() !== "e2e-42") {
          throw new Error("the command did not run");
        }
        // The collapsed card says the command failed with its exit code.
        await card.getByText("exit 3", { exact: true }).waitFor();
        await page.screenshot({ path: join(OUTPUT, "pilot-run-command.png") });
        // A long output: the card shows the engine's "left out" marker, visible.
        await panel(page).getByText("That was long.").waitFor();
        await long.getByRole("button", { expanded: false }).click();
        const marker = long.getByLabel("Output").locator("mark.leftout");
        await marker.scrollIntoViewIfNeeded();
        if (!(await marker.isVisible()) || !/left out/.test(await marker.textContent())) {
          throw new Error("the left-out marker is not visible");
        }
        await long
          .locator("dl")
          .getByText(/lines \(\d+ bytes\) left out/)
          .waitFor();
        await page.screenshot({ path: join(OUTPUT, "pilot-left-out.png") });
      },
    );
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [size, device] of SIZES.filter(([size]) => size !== "tablet")) {
    test(
      `${size}: Pilot: open_forward says in words what it opens; approved, it is in the Forwards list, marked as Pilot's`,
      async ({ page, sshd }) => {
        const target = createServer((_, response) => response.end("through Pilot's forward"));
        await new Promise((listening) => target.listen(0, "127.0.0.1", listening));
        const to = target.address().port;
        const port = await freePort();
        const forward = `-L ${port}:127.0.0.1:${to}`;
        try {
          await withPilot(
            {
              steps: [
                {
                  expect: { tools_include: ["open_forward"] },
                  respond: {
                    text: "I'll forward the status page to you.",
                    tool_calls: [
                      { name: "open_forward", arguments: { forward, why: "To read the status page in your browser." } },
                    ],
                  },
                },
                {
                  expect: { last_result_contains: ["listening", `127.0.0.1:${port}`] },
                  respond: { text: "The forward is open." },
                },
              ],
            },
            async ({ url }) => {
              await openSsh(page, url, sshd, { name: "web1" });
              await showPilot(page);
              await message(page, "let me see the status page");
              const card = panel(page).getByRole("article", { name: `open_forward ${forward}` });
              await card.getByRole("button", { name: "Approve" }).waitFor();
              await card
                .getByText(
                  `Open a port forward on web1: this computer’s 127.0.0.1:${port} → 127.0.0.1:${to} on the server`,
                  {
                    exact: true,
                  },
                )
                .waitFor();
              await card.getByText("Pilot: “To read the status page in your browser.”").waitFor();
              await card.getByLabel("Forward").getByText(`-L 127.0.0.1:${port} → 127.0.0.1:${to}`).waitFor();
              await inSight(card.getByRole("button", { name: "Approve" }), "Approve", TIMEOUT);
              await page.screenshot({ path: join(OUTPUT, `${size}-pilot-open-forward-card.png`) });
              // Nothing listens before the user approves.
              if (
                await fetch(`http://127.0.0.1:${port}/`).then(
                  () => true,
                  () => false,
                )
              ) {
                throw new Error("the forward listens before it was approved");
              }
              await card.getByRole("button", { name: "Approve" }).click();
              await card.getByText("ok", { exact: true }).waitFor();
              await panel(page).getByText("The forward is open.").waitFor();
              await turnDone(page);
              // Pilot is put away where it lies over the tab, to see the tab's Forwards list.
              const over = await page.evaluate(() => matchMedia("(pointer: coarse)").matches);
              for (const name of ["Close Pilot", "Hide Pilot"]) {
                const button = page.getByRole("button", { name });
                if (over && (await button.isVisible())) await button.click();
              }
              const forwards = page.getByRole("region", { name: "Forwards" });
              await forwards.getByText(`listening on 127.0.0.1:${port}`).waitFor();
              await forwards.getByRole("button", { name: `Close -L ${port} → 127.0.0.1:${to}` }).waitFor();
              // Marked as Pilot's, naming the call (as the audit log does).
              const marker = forwards.getByRole("note", { name: /^Opened by Pilot \(call \S+-\d+-\d+-\d+\)$/ });
              await marker.getByText("Pilot", { exact: true }).waitFor();
              if ((await marker.getAttribute("title")) !== (await marker.getAttribute("aria-label"))) {
                throw new Error("the Pilot marker's title is not its accessible name");
              }
              await inSight(marker, "the Pilot marker", TIMEOUT);
              const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
              if (body !== "through Pilot's forward") {
                throw new Error(`the forward answered: ${body}`);
              }
              await inSight(forwards, "the Forwards list", TIMEOUT);
              await page.screenshot({ path: join(OUTPUT, `${size}-pilot-open-forward-listed.png`) });
            },
          );
        } finally {
          target.close();
        }
      },
      device,
    );
  }

  test("Pilot: a denied command does not run and its card says denied", async ({ page }) => {
    const dir = mkdtempSync(join(tmpdir(), "kaiport-e2e-deny-"));
    const target = join(dir, "must-not-exist");
    await withPilot(
      {
        steps: [
          { respond: { tool_calls: [{ name: "run_command", arguments: { command: `touch ${target}` } }] } },
          { expect: { last_result_contains: ["denied"] }, respond: { text: "Understood, I left it alone." } },
        ],
      },
      async ({ url }) => {
        await openLocal(page, url);
        await message(page, "make the file");
        const card = panel(page).getByRole("article", { name: /^run_command touch/ });
        await card.getByRole("button", { name: "Deny" }).waitFor();
        // A reload keeps the conversation and the card still waiting (the server replays them).
        await page.reload();
        await panel(page).getByText("make the file").waitFor();
        await card.getByRole("button", { name: "Deny" }).click();
        await card.getByText("you denied it", { exact: true }).waitFor();
        await turnDone(page);
        await panel(page).getByText("left it alone").waitFor();
        await card.getByRole("button", { expanded: false }).click();
        await card.getByText("denied by you").waitFor();
        await page.screenshot({ path: join(OUTPUT, "pilot-denied.png") });
        if (existsSync(target)) {
          throw new Error("the denied command ran");
        }
      },
    );
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [size, device] of SIZES) {
    test(
      `${size}: Pilot: approval cards in words: Always allow, its Undo, the rule in Connection settings, Edit before running, a deny reason`,
      async ({ page, sshd }) => {
        const dir = userDir(sshd.user);
        const target = join(dir, "must-not-exist");
        const check = "df -P /";
        await withPilot(
          {
            steps: [
              {
                respond: {
                  text: "Let me look at the disk.",
                  tool_calls: [
                    { name: "run_command", arguments: { command: check, why: "To see how full the disk is." } },
                  ],
                },
              },
              {
                expect: { last_result_contains: ["Filesystem"] },
                respond: { tool_calls: [{ name: "run_command", arguments: { command: check } }] },
              },
              { expect: { last_result_contains: ["Filesystem"] }, respond: { text: "The disk has room." } },
              {
                expect: { body_contains: ["once more"] },
                respond: { tool_calls: [{ name: "run_command", arguments: { command: check } }] },
              },
              { expect: { last_result_contains: ["Filesystem"] }, respond: { text: "Still room." } },
              {
                expect: { body_contains: ["and again"] },
                respond: { tool_calls: [{ name: "run_command", arguments: { command: check } }] },
              },
              {
                expect: { last_result_contains: ["edited_by_user", "edited-23"] },
                respond: { tool_calls: [{ name: "run_command", arguments: { command: `touch ${target}` } }] },
              },
              {
                expect: { last_result_contains: ["the user denied this call: not today, thanks"] },
                respond: { text: "Understood: not today." },
              },
            ],
          },
          async ({ url }) => {
            await openSsh(page, url, sshd, { name: "web1" });
            await showPilot(page);
            await message(page, "how full is the disk?");
            const cards = panel(page).getByRole("article", { name: `run_command ${check}` });
            // A routine card: what happens in words, Pilot's reason, the command once, no boilerplate.
            const first = cards.first();
            await first.getByRole("button", { name: "Approve" }).waitFor();
            await first.getByText("Run in web1’s terminal", { exact: true }).waitFor();
            await first.getByText("Pilot: “To see how full the disk is.”").waitFor();
            if ((await first.getByText(check, { exact: true }).count()) !== 1) {
              throw new Error("the card does not show the command exactly once");
            }
            if ((await first.getByRole("list", { name: "Why it asks" }).count()) !== 0) {
              throw new Error("a routine card lists the policy's routine reason");
            }
            await first.getByText("adds df to its allowed commands").waitFor();
            await inSight(first.getByRole("button", { name: "Approve" }), "Approve", TIMEOUT);
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-card-routine.png`) });
            await first.getByRole("button", { name: "Always allow this command on this connection" }).click();
            await first.getByText("ok", { exact: true }).waitFor();
            // The card says which rule it added, and offers to take it back.
            const addedNote = (card) => card.getByRole("status", { name: "Always allow" });
            await addedNote(first).getByText("Added df to this connection's allowed commands.").waitFor();
            // The same call again runs without a card: a rule allowed it.
            const second = cards.nth(1);
            await second.getByText("ok", { exact: true }).waitFor();
            await panel(page).getByText("The disk has room.").waitFor();
            await turnDone(page);
            await second.getByRole("button", { expanded: false }).click();
            await second.getByText("allowed by a rule").waitFor();
            await addedNote(first).scrollIntoViewIfNeeded();
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-always-allow-added.png`) });
            // The rule is in Connection settings.
            let settings = await openConnectionSettings(page);
            let allowed = settings.getByLabel("Allowed commands");
            await until("the rule in the settings", async () => (await allowed.inputValue()) === "df");
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-always-allow-settings.png`) });
            await settings.getByRole("button", { name: "Cancel" }).click();
            await settings.waitFor({ state: "hidden" });

            // "Undo always allow" on the card takes it out of the tab's and the saved settings.
            await showPilot(page);
            await addedNote(first).getByRole("button", { name: "Undo always allow" }).click();
            await addedNote(first)
              .getByText("Removed df from this connection's allowed commands: Pilot asks again before running it.")
              .waitFor();
            if ((await addedNote(first).getByRole("button", { name: "Undo always allow" }).count()) !== 0) {
              throw new Error("Undo is still offered after the rule was removed");
            }
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-always-allow-undone.png`) });
            settings = await openConnectionSettings(page);
            allowed = settings.getByLabel("Allowed commands");
            await until("no rule in the settings", async () => (await allowed.inputValue()) === "");
            await settings.getByRole("button", { name: "Cancel" }).click();
            await settings.waitFor({ state: "hidden" });

            // Without the rule the same call asks again. Allowed again, then taken out in
            // Connection settings: the card's Undo says it is gone already.
            await showPilot(page);
            await message(page, "once more");
            const third = cards.nth(2);
            await third.getByRole("button", { name: "Always allow this command on this connection" }).click();
            await addedNote(third).getByText("Added df to this connection's allowed commands.").waitFor();
            await panel(page).getByText("Still room.").waitFor();
            await turnDone(page);
            settings = await openConnectionSettings(page);
            allowed = settings.getByLabel("Allowed commands");
            await until("the rule in the settings again", async () => (await allowed.inputValue()) === "df");
            await allowed.fill("");
            await settings.getByRole("button", { name: "Save settings" }).click();
            await settings.waitFor({ state: "hidden" });
            await showPilot(page);
            await addedNote(third).getByRole("button", { name: "Undo always allow" }).click();
            await addedNote(third)
              .getByText("df was already removed from this connection's allowed commands; nothing to undo.")
              .waitFor();
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-always-allow-gone.png`) });

            // It asks again: the user edits the line, and their line runs.
            await message(page, "and again");
            const fourth = cards.nth(3);
            await fourth.getByRole("button", { name: "Edit before running" }).click();
            const box = fourth.getByRole("textbox", { name: "Command" });
            if ((await box.inputValue()) !== check) {
              throw new Error(`the command box starts with ${await box.inputValue()}`);
            }
            await box.fill("echo edited-$((20+3))");
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-card-edit.png`) });
            await fourth.getByRole("button", { name: "Approve" }).click();
            await fourth.getByText("ok", { exact: true }).waitFor();
            await until("the edited line in the terminal", async () =>
              ((await terminalText(page, await activeTab(page))) ?? "")
                .split("\n")
                .some((line) => line.trim() === "edited-23"),
            );
            await fourth.getByText("echo edited-$((20+3))").waitFor();

            // A deny with a reason: the model gets it; the card says it in the user's words.
            const touch = panel(page).getByRole("article", { name: /^run_command touch/ });
            await touch.getByRole("button", { name: "Deny" }).waitFor();
            await touch.getByRole("textbox", { name: "Reason (sent to Pilot)" }).fill("not today, thanks");
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-card-deny-reason.png`) });
            await touch.getByRole("button", { name: "Deny" }).click();
            await touch.getByText("you denied it", { exact: true }).waitFor();
            await turnDone(page);
            await panel(page).getByText("Understood: not today.").waitFor();
            await touch.getByRole("button", { expanded: false }).click();
            await touch.getByText("You denied it: “not today, thanks”").scrollIntoViewIfNeeded();
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-card-denied.png`) });
            if (existsSync(target)) {
              throw new Error("the denied command ran");
            }
          },
        );
        rmSync(dir, { recursive: true, force: true });
      },
      device,
    );
  }

  for (const [size, device] of SIZES) {
    test(
      `${size}: Pilot: a dangerous card is red and focuses Deny; a lock-out card asks a second time`,
      async ({ page }) => {
        const dir = mkdtempSync(join(tmpdir(), "kaiport-e2e-risk-"));
        const junk = join(dir, "junk");
        writeFileSync(junk, "keep me\n");
        const keys = join(dir, ".ssh/authorized_keys");
        const lockout = `mkdir -p ${dir}/.ssh && echo e2e-key-91 >> ${keys}`;
        await withPilot(
          {
            steps: [
              {
                respond: {
                  tool_calls: [{ name: "run_command", arguments: { command: `rm -rf ${junk}`, why: "It is junk." } }],
                },
              },
              {
                expect: { last_result_contains: ["denied"] },
                respond: {
                  tool_calls: [{ name: "run_command", arguments: { command: lockout, why: "To let the key in." } }],
                },
              },
              { expect: { last_result_contains: ["exit code 0"] }, respond: { text: "The key is in." } },
            ],
          },
          async ({ url }) => {
            await openLocal(page, url);
            await showPilot(page);
            await message(page, "tidy up and add the key");
            const danger = panel(page).getByRole("article", { name: /^run_command rm -rf/ });
            const deny = danger.getByRole("button", { name: "Deny" });
            await deny.waitFor();
            await danger.getByText("Dangerous", { exact: true }).waitFor();
            await inSight(deny, "Deny", TIMEOUT);
            // The warning colour: the waiting card's frame and its mark are the red of danger.
            const red = "rgb(198, 40, 40)";
            const colours = await danger.evaluate((card) => ({
              frame: getComputedStyle(card).borderTopColor,
              mark: getComputedStyle(card.querySelector(".risk")).color,
            }));
            if (colours.frame !== red || colours.mark !== red) {
              throw new Error(`a dangerous card is not red: ${JSON.stringify(colours)}`);
            }
            await until("Deny focused", () => deny.evaluate((el) => el === document.activeElement));
            const order = await danger
              .locator(".actions button")
              .evaluateAll((buttons) =>
                buttons.map((b) => `${b.textContent.trim()}${b.classList.contains("primary") ? "*" : ""}`),
              );
            if (order[0] !== "Deny*" || order[1] !== "Approve") {
              throw new Error(`a dangerous card's buttons: ${order.join(", ")}`);
            }
            if (
              (await danger.getByRole("button", { name: "Always allow this command on this connection" }).count()) !== 0
            ) {
              throw new Error("a dangerous card offers Always allow");
            }
            await danger.getByRole("list", { name: "Why it asks" }).waitFor();
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-card-dangerous.png`) });
            // Enter on the focused button denies.
            await page.keyboard.press("Enter");
            await danger.getByText("you denied it", { exact: true }).waitFor();
            if (readFileSync(junk, "utf8") !== "keep me\n") {
              throw new Error("the denied rm ran");
            }

            const lock = panel(page).getByRole("article", { name: /^run_command mkdir -p/ });
            await lock.getByText("Can lock you out", { exact: true }).waitFor();
            await lock.getByRole("button", { name: "Approve" }).click();
            const confirm = lock.getByRole("group", { name: "Confirm the change" });
            const back = confirm.getByRole("button", { name: "Go back" });
            await until("Go back focused", () => back.evaluate((el) => el === document.activeElement));
            await inSight(back, "Go back", TIMEOUT);
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-card-lockout-confirm.png`) });
            // Going back leaves it waiting; only "Yes, change it" makes the change.
            await back.click();
            await lock.getByRole("button", { name: "Approve" }).click();
            if (existsSync(keys)) {
              throw new Error("the lock-out change ran before its second confirmation");
            }
            await confirm.getByRole("button", { name: "Yes, change it" }).click();
            await lock.getByText("ok", { exact: true }).waitFor();
            await turnDone(page);
            if (readFileSync(keys, "utf8").trim() !== "e2e-key-91") {
              throw new Error("the approved lock-out change did not run");
            }
          },
        );
        rmSync(dir, { recursive: true, force: true });
      },
      device,
    );
  }

  test("Pilot: a sudo password prompt shows the banner; the password typed in the terminal reaches sudo and the turn goes on", async ({
    page,
  }) => {
    // A server of its own whose login user's sudo asks for the password every time.
    const server = await startWithFirstLine(SSHD, ["--sudo-password"], { env: process.env });
    const sshd = JSON.parse(server.line);
    const dir = userDir(sshd.user);
    const file = join(dir, "root-only.conf");
    writeFileSync(file, "token_ttl = 3600\n");
    chmodSync(file, 0o600);
    const frames = [];
    page.on("websocket", (ws) =>
      ws.on("framereceived", (f) =>
        frames.push(typeof f.payload === "string" ? f.payload : f.payload.toString("latin1")),
      ),
    );
    const script = {
      steps: [
        {
          respond: {
            tool_calls: [
              { name: "run_command", arguments: { command: `sudo cat ${file}`, why: "Read the root-only setting" } },
            ],
          },
        },
        {
          expect: { last_result_contains: ["run_command: awaiting_secret", "only the user types it"] },
          respond: {
            text: "sudo asks for your password: please type it in the terminal. I'll wait.",
            tool_calls: [{ name: "read_screen", arguments: {} }],
          },
        },
        // The next look waits until the test has typed the password (the gate).
        {
          expect: { last_result_contains: ["[sudo] password for"] },
          respond: { after_gate: "typed", tool_calls: [{ name: "read_screen", arguments: {} }] },
        },
        {
          expect: { last_result_contains: ["token_ttl = 3600"], body_excludes: [sshd.password] },
          respond: { text: "token_ttl is 3600 seconds." },
        },
      ],
    };
    let modelOut;
    try {
      modelOut = await withPilot(script, async ({ url, openGate }) => {
        await openSsh(page, url, sshd);
        const tab = await activeTab(page);
        await message(page, "what is token_ttl in root-only.conf?");
        const card = panel(page).getByRole("article", { name: /^run_command sudo cat/ });
        await card.getByRole("button", { name: "Approve" }).click();
        const banner = page
          .locator(`#tab-panel-${tab}`)
          .getByRole("alert")
          .filter({ hasText: "Type the password here" });
        await banner.waitFor();
        await panel(page).getByText("please type it in the terminal").waitFor();
        // The terminal has the focus: the keys go to sudo's prompt.
        await until("the terminal focused", () =>
          page.evaluate(() => document.activeElement?.classList.contains("xterm-helper-textarea") ?? false),
        );
        await until("sudo's prompt", async () =>
          ((await terminalText(page, tab)) ?? "").includes(`[sudo] password for ${sshd.user}`),
        );
        await page.screenshot({ path: join(OUTPUT, "pilot-sudo-password-banner.png") });
        // Near the top of a fresh terminal (no scrollback yet), the notice floats below: the
        // prompt's line stays in sight.
        const row = ((await terminalText(page, tab)) ?? "").split("\n").findIndex((l) => l.includes("[sudo] password"));
        const grid = await page.locator(`#tab-panel-${tab} .xterm-screen`).boundingBox();
        const size = await page.evaluate((id) => window.kaiport.terminalSize(id), tab);
        const notice = await banner.boundingBox();
        const promptBottom = grid.y + ((row + 1) * grid.height) / size.rows;
        if (row < 0 || notice === null || notice.y < promptBottom) {
          throw new Error(`the notice covers the prompt: ${JSON.stringify({ row, promptBottom, notice })}`);
        }
        await banner.screenshot({ path: join(OUTPUT, "pilot-sudo-password-banner-close.png") });
        await page.keyboard.type(sshd.password);
        await page.keyboard.press("Enter");
        await banner.waitFor({ state: "detached" });
        await until("sudo to print the file", async () =>
          ((await terminalText(page, tab)) ?? "").includes("token_ttl = 3600"),
        );
        await openGate("typed");
        await panel(page).getByText("token_ttl is 3600 seconds.").waitFor();
        await turnDone(page);
        await page.screenshot({ path: join(OUTPUT, "pilot-sudo-password-done.png") });
      });
    } finally {
      server.child.stdin.end("\n");
      await new Promise((r) => (server.child.exitCode !== null ? r() : server.child.once("exit", r)));
      rmSync(dir, { recursive: true, force: true });
    }
    // The password went to sudo only: not to the model, not echoed back to the page.
    if (modelOut.includes(sshd.password)) {
      throw new Error("the password reached the model");
    }
    const leaked = frames.filter((frame) => frame.includes(sshd.password));
    if (leaked.length > 0) {
      throw new Error(`the password came back to the page: ${leaked[0].slice(0, 200)}`);
    }
  });

  for (const [size, device] of SIZES) {
    test(
      `${size}: Pilot: a file read the connection refuses asks; allowing it for the connection changes its settings`,
      async ({ page }) => {
        const dir = mkdtempSync(join(tmpdir(), "kaiport-e2e-contents-"));
        const file = join(dir, "notes.txt");
        writeFileSync(file, "marker-31337\n");
        await withPilot(
          {
            steps: readTwice(file, "marker-31337", {
              expect: { last_result_contains: ["marker-31337"] },
              respond: { text: "Read it twice." },
            }),
          },
          async ({ url }) => {
            await openLocal(page, url);
            await showPilot(page);
            await message(page, "read my notes");
            const cards = panel(page).getByRole("article", { name: /^read_file / });
            const first = cards.first();
            const ask = first.getByRole("group", { name: "Permission" });
            await ask.getByText("Let Pilot read file contents?").waitFor();
            await ask.getByText("This tab does not send file contents to the AI").waitFor();
            await ask.getByRole("button", { name: "Just this once" }).waitFor();
            const allow = ask.getByRole("button", { name: "Allow file contents for this connection" });
            await inSight(allow, "Allow file contents for this connection", TIMEOUT);
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-file-contents-permission.png`) });
            await allow.click();
            await first.getByText("ok", { exact: true }).waitFor();
            await turnDone(page);
            await panel(page).getByText("Read it twice.").waitFor();
            // The second read ran without asking: its card never waited.
            const second = cards.nth(1);
            await second.getByText("ok", { exact: true }).waitFor();
            await second.getByRole("button", { expanded: false }).click();
            await second.getByText("allowed by a rule").waitFor();
            // The tab's settings say so, as if changed in Connection settings.
            const settings = await openConnectionSettings(page);
            const box = settings.getByRole("checkbox", { name: "Send file contents to the AI" });
            await until("the setting to show", async () => await box.isChecked());
            await settings.getByRole("button", { name: "Cancel" }).click();
          },
        );
        rmSync(dir, { recursive: true, force: true });
      },
      device,
    );
  }

  // "Just this once" runs the refused read once and changes no setting: the next read asks again.
  for (const [size, device] of SIZES) {
    test(
      `${size}: Pilot: "Just this once" runs a refused file read once; the next read asks again`,
      async ({ page }) => {
        const dir = mkdtempSync(join(tmpdir(), "kaiport-e2e-once-"));
        const file = join(dir, "notes.txt");
        writeFileSync(file, "marker-4711\n");
        try {
          await withPilot(
            {
              steps: readTwice(file, "marker-4711", {
                expect: { last_result_contains: ["denied"] },
                respond: { text: "I will not read it again." },
              }),
            },
            async ({ url }) => {
              await openLocal(page, url);
              await showPilot(page);
              await message(page, "read my notes");
              const cards = panel(page).getByRole("article", { name: /^read_file / });
              const once = cards.first().getByRole("button", { name: "Just this once" });
              await inSight(once, "Just this once", TIMEOUT);
              await page.screenshot({ path: join(OUTPUT, `${size}-pilot-file-contents-once.png`) });
              await once.click();
              await cards.first().getByText("ok", { exact: true }).waitFor();
              // The setting is as it was: the second read asks again.
              const again = cards.nth(1).getByRole("group", { name: "Permission" });
              await again.getByText("Let Pilot read file contents?").waitFor();
              await again.getByRole("button", { name: "Deny" }).click();
              await panel(page).getByText("I will not read it again.").waitFor();
              await turnDone(page);
              await page.screenshot({ path: join(OUTPUT, `${size}-pilot-file-contents-once-done.png`) });
              const dialog = await openConnectionSettings(page);
              const box = dialog.getByRole("checkbox", { name: "Send file contents to the AI" });
              await box.waitFor();
              if (await box.isChecked()) {
                throw new Error("Just this once changed the connection's setting");
              }
              await dialog.getByRole("button", { name: "Cancel" }).click();
            },
          );
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
      device,
    );
  }

  // A dropped connection comes back in the same tab with Pilot's conversation: shown, and sent
  // to the model with the next message.
  for (const [size, device] of SIZES) {
    test(
      `${size}: Pilot: the conversation stays through a dropped connection and its reconnect`,
      async ({ page, sshd }) => {
        await withPilot(
          {
            steps: [
              { expect: { body_contains: ["how full is the disk"] }, respond: { text: "The disk is half full." } },
              {
                expect: { body_contains: ["how full is the disk", "The disk is half full.", "and now?"] },
                respond: { text: "Still half full after the reconnect." },
              },
            ],
          },
          async ({ url }) => {
            await openSsh(page, url, sshd, { name: "web1" });
            const tab = await activeTab(page);
            // A saved connection's tab is titled by its name.
            const strip = page.getByRole("tab", { selected: true });
            if ((await strip.count()) > 0 && (await strip.locator(".title").textContent()) !== "web1") {
              throw new Error(`the saved connection's tab is titled ${await strip.locator(".title").textContent()}`);
            }
            await showPilot(page);
            await message(page, "how full is the disk?");
            await panel(page).getByText("The disk is half full.").waitFor();
            await turnDone(page);
            // Pilot out of the way where it lies over the terminal, then the session is killed.
            for (const name of ["Close Pilot", "Hide Pilot"]) {
              const button = page.getByRole("button", { name });
              if (device.hasTouch === true && (await button.isVisible())) await button.click();
            }
            await dropSession(page, "web1");
            await runInTerminal(page, "echo back-$((4+4))", "back-8");
            if ((await activeTab(page)) !== tab) {
              throw new Error("the reconnect made another tab");
            }
            await showPilot(page);
            await panel(page).getByText("how full is the disk?").waitFor();
            await panel(page).getByText("The disk is half full.").waitFor();
            await message(page, "and now?");
            await panel(page).getByText("Still half full after the reconnect.").waitFor();
            await turnDone(page);
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-after-reconnect.png`) });
          },
        );
      },
      device,
    );
  }

  // A failed edit is red and says so under its summary, even when the model then says it worked.
  for (const [size, device] of SIZES) {
    test(
      `${size}: Pilot: a failed edit_file reads "Edit failed" in red though the model claims success`,
      async ({ page }) => {
        const dir = mkdtempSync(join(tmpdir(), "kaiport-e2e-edit-failed-"));
        const file = join(dir, "app.conf");
        writeFileSync(file, "port = 80\n");
        try {
          await withPilot(
            {
              steps: [
                {
                  respond: {
                    tool_calls: [
                      {
                        name: "edit_file",
                        arguments: { path: file, edits: [{ old_text: "port = 81\n", new_text: "port = 8080\n" }] },
                      },
                    ],
                  },
                },
                {
                  expect: { last_result_contains: ["matched 0 times"] },
                  respond: { text: "Done: the port is 8080 now." },
                },
              ],
            },
            async ({ url }) => {
              await openLocal(page, url);
              const show = page.getByRole("button", { name: /^(Pilot|Show Pilot)$/ });
              if (await show.isVisible()) {
                await show.click();
              }
              await message(page, "set the port to 8080");
              await panel(page).getByText("Done: the port is 8080 now.").waitFor();
              const card = panel(page).getByRole("article", { name: /^edit_file / });
              const failed = card.getByText(/^Edit failed: the text to replace is not in the file/);
              await failed.waitFor();
              await inSight(failed, "Edit failed", TIMEOUT);
              const colour = await failed.evaluate((el) => getComputedStyle(el).color);
              if (colour !== "rgb(198, 40, 40)") {
                throw new Error(`"Edit failed" is ${colour}, not the red of a failure`);
              }
              await card.getByText("error", { exact: true }).waitFor();
              if (readFileSync(file, "utf8") !== "port = 80\n") {
                throw new Error("the file changed");
              }
              await page.screenshot({ path: join(OUTPUT, `${size}-pilot-edit-failed.png`) });
            },
          );
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
      device,
    );
  }

  /** Every added line of a diff table drawn inside the card, not scrolled out of sight. */
  async function addedInSight(card, table) {
    const box = await card.boundingBox();
    const cells = await table.locator("tr.add td.code, td.add").evaluateAll((tds) =>
      tds.map((td) => {
        const r = td.getBoundingClientRect();
        return { left: r.left, right: r.right, text: td.textContent };
      }),
    );
    if (cells.length === 0) throw new Error("the diff shows no added line");
    for (const cell of cells) {
      if (cell.left < box.x - 1 || cell.right > box.x + box.width + 1) {
        throw new Error(`the added line ${cell.text} is drawn at ${cell.left}–${cell.right}, outside the card`);
      }
    }
  }

  test(
    "Pilot: an edit_file shows the real diff and is applied on the server",
    async ({ page, sshd }) => {
      const dir = userDir(sshd.user);
      const file = join(dir, "app.conf");
      writeFileSync(file, "port = 80\nhost = a\nuser = www\n");
      // The login user and its own group: an SFTP edit keeps both (or writes nothing).
      execFileSync("chown", [`${sshd.user}:`, file]);
      await withPilot(
        {
          steps: [
            {
              respond: {
                text: "I'll change the port.",
                tool_calls: [
                  {
                    name: "edit_file",
                    arguments: {
                      path: file,
                      edits: [{ old_text: "port = 80\n", new_text: "port = 8080\ntls = on\n" }],
                    },
                  },
                ],
              },
            },
            { expect: { last_result_contains: ["edits applied"] }, respond: { text: "The port is 8080 now." } },
          ],
        },
        async ({ url }) => {
          // Docked at 390 px, as on a laptop's screen: too narrow for two sides.
          await page.addInitScript(() => window.localStorage.setItem("kaiport.pilot.width", "390"));
          await openSsh(page, url, sshd);
          await message(page, "use port 8080");
          const card = panel(page).getByRole("article", { name: /^edit_file / });
          await card.getByRole("button", { name: "Approve" }).waitFor();
          // What will happen, in words: the file it changes.
          await card.getByText(`Change ${file}`, { exact: true }).waitFor();
          // The diff: both lines, coloured rows with signs, and the path.
          const diff = card.getByRole("table", { name: "Change 1", exact: true });
          await diff.waitFor();
          const rows = await diff
            .locator("tr")
            .evaluateAll((trs) =>
              trs.map(
                (tr) =>
                  `${tr.className.split(" ").find((c) => ["add", "del", "context"].includes(c))}:${tr.lastElementChild?.textContent}`,
              ),
            );
          for (const expected of ["del:−port = 80", "add:+port = 8080", "add:+tls = on", "context: host = a"]) {
            if (!rows.includes(expected)) {
              throw new Error(`the diff lacks ${expected}: ${JSON.stringify(rows)}`);
            }
          }
          if (readFileSync(file, "utf8") !== "port = 80\nhost = a\nuser = www\n") {
            throw new Error("the file changed before the approval");
          }
          // Unified at 390 px, side by side not offered, and the added lines in sight.
          const sideBySide = card.getByRole("button", { name: "Side by side" });
          if (!(await sideBySide.isDisabled())) {
            throw new Error("side by side is offered in a 390 px panel");
          }
          await addedInSight(card, diff);
          await page.screenshot({ path: join(OUTPUT, "pilot-edit-diff-dark.png") });
          // Widened as far as it goes, both sides fit: side by side by default.
          const splitter = page.getByRole("separator", { name: "Resize Pilot" });
          await splitter.focus();
          await page.keyboard.press("Home");
          const split = card.getByRole("table", { name: "Change 1, side by side" });
          await split.waitFor();
          await addedInSight(card, split);
          await page.screenshot({ path: join(OUTPUT, "pilot-edit-diff-side-by-side-dark.png") });
          // The user's choice wins where both fit: unified, then side by side again.
          await sideBySide.click();
          await diff.waitFor();
          await sideBySide.click();
          await split.waitFor();
          // Narrowed again, chosen side by side no longer fits: unified.
          await splitter.focus();
          await page.keyboard.press("End");
          await split.waitFor({ state: "detached" });
          await diff.waitFor();
          await addedInSight(card, diff);
          await card.getByRole("button", { name: "Approve" }).click();
          await card.getByText("ok", { exact: true }).waitFor();
          await turnDone(page);
          const after = readFileSync(file, "utf8");
          if (after !== "port = 8080\ntls = on\nhost = a\nuser = www\n") {
            throw new Error(`the file on the server is ${JSON.stringify(after)}`);
          }
          await card.getByRole("button", { expanded: false }).click();
          await card.getByText(/1 edits applied, \+2 −1 lines/).waitFor();
          await page.screenshot({ path: join(OUTPUT, "pilot-edit-applied-dark.png") });
        },
      );
      rmSync(dir, { recursive: true, force: true });
    },
    { colorScheme: "dark" },
  );

  test("Pilot: plan mode from the proposal to done steps, with an added step confirmed", async ({ page }) => {
    const plan = {
      title: "Write the marker file",
      findings: "The folder exists and is **empty**.",
      steps: [
        { title: "Look at the folder", kind: "read" },
        { title: "Write the marker", kind: "command", detail: "echo ok > marker" },
      ],
    };
    await withPilot(
      {
        steps: [
          {
            expect: { tools_include: ["propose_plan"] },
            respond: { text: "Here is my plan.", tool_calls: [{ name: "propose_plan", arguments: plan }] },
          },
          {
            expect: { last_result_contains: ['"approved":true'] },
            respond: {
              tool_calls: [
                { name: "update_plan", arguments: { step: 1, status: "done" } },
                { name: "update_plan", arguments: { step: 2, status: "running" } },
              ],
            },
          },
          {
            respond: {
              tool_calls: [{ name: "update_plan", arguments: { add: { title: "Check the marker", kind: "check" } } }],
            },
          },
          {
            respond: {
              tool_calls: [
                { name: "update_plan", arguments: { step: 2, status: "done", note: "written" } },
                { name: "update_plan", arguments: { step: 3, status: "done" } },
              ],
            },
          },
          { respond: { text: "All three steps are done." } },
        ],
      },
      async ({ url }) => {
        await openLocal(page, url);
        const modes = panel(page).getByRole("radiogroup", { name: "Mode" });
        await modes.getByRole("radio", { name: "Plan" }).check();
        await message(page, "write the marker, with a plan");
        const card = panel(page).getByRole("article", { name: "Plan: Write the marker file" });
        await card.getByRole("button", { name: "Approve plan" }).waitFor();
        await card.getByText("0/2 done").waitFor();
        await card.getByText("empty").waitFor();
        await page.screenshot({ path: join(OUTPUT, "pilot-plan-proposed.png") });
        await card.getByRole("button", { name: "Approve plan" }).click();
        // Approving the plan switches the tab to Ask, and the panel says so.
        await until("Ask mode", () => modes.getByRole("radio", { name: "Ask" }).isChecked());
        await panel(page).getByText("Plan approved — Pilot now works in Ask mode").waitFor();
        await card.getByRole("button", { name: "Confirm step" }).waitFor();
        await card.getByText("waits for your confirmation").waitFor();
        await page.screenshot({ path: join(OUTPUT, "pilot-plan-added-step.png") });
        await card.getByRole("button", { name: "Confirm step" }).click();
        await card.getByText("3/3 done").waitFor();
        await turnDone(page);
        await panel(page).getByText("All three steps are done.").waitFor();
        const statuses = await card.getByRole("list", { name: "Steps" }).locator(".status").allTextContents();
        if (statuses.join(",") !== "done,done,done") {
          throw new Error(`step statuses: ${statuses}`);
        }
        await page.screenshot({ path: join(OUTPUT, "pilot-plan-done.png") });
      },
    );
  });

  for (const [size, device] of SIZES) {
    test(
      `${size}: Pilot: an approved plan says which mode Pilot works in now`,
      async ({ page }) => {
        const plan = {
          title: "Look around",
          findings: "Nothing yet.",
          steps: [{ title: "List the folder", kind: "read" }],
        };
        await withPilot(
          {
            steps: [
              { respond: { tool_calls: [{ name: "propose_plan", arguments: plan }] } },
              { expect: { last_result_contains: ['"approved":true'] }, respond: { text: "On it." } },
            ],
          },
          async ({ url }) => {
            await openLocal(page, url);
            const show = page.getByRole("button", { name: /^(Pilot|Show Pilot)$/ });
            if (await show.isVisible()) {
              await show.click();
            }
            await panel(page).getByRole("radiogroup", { name: "Mode" }).getByRole("radio", { name: "Plan" }).check();
            await message(page, "look around, with a plan");
            const card = panel(page).getByRole("article", { name: "Plan: Look around" });
            await card.getByRole("button", { name: "Approve plan" }).click();
            const said = panel(page).getByText("Plan approved — Pilot now works in Ask mode");
            await said.waitFor();
            await panel(page).getByText("On it.").waitFor();
            await inSight(said, "the mode note", TIMEOUT);
            if (!(await panel(page).getByRole("radio", { name: "Ask" }).isChecked())) {
              throw new Error("the mode shown is not Ask");
            }
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-plan-approved-mode.png`) });
            // A shorter window shortens the conversation without a scroll or a new item: the
            // newest line stays in view (on a phone, where it overflows the sheet, it did not).
            const { width, height } = page.viewportSize();
            await page.setViewportSize({ width, height: height - 120 });
            await inSight(panel(page).getByText("On it."), "the newest reply after the window shrank", TIMEOUT);
            await page.screenshot({ path: join(OUTPUT, `${size}-pilot-plan-approved-shorter.png`) });
            await page.setViewportSize({ width, height });
          },
        );
      },
      device,
    );
  }

  test("Pilot: ask_user answered with an option, then one not answered", async ({ page }) => {
    await withPilot(
      {
        steps: [
          {
            respond: {
              tool_calls: [
                { name: "ask_user", arguments: { question: "Which environment?", options: ["staging", "production"] } },
              ],
            },
          },
          {
            expect: { last_result_contains: ["staging"] },
            respond: {
              tool_calls: [{ name: "ask_user", arguments: { question: "Anything else to check?", options: [] } }],
            },
          },
          { expect: { last_result_contains: ["the user did not answer"] }, respond: { text: "Then staging it is." } },
        ],
      },
      async ({ url }) => {
        await openLocal(page, url);
        await message(page, "deploy");
        const first = panel(page).getByRole("article", { name: "Question: Which environment?" });
        await first.getByRole("button", { name: "production" }).waitFor();
        await first.getByRole("textbox", { name: "Your answer" }).waitFor();
        await page.screenshot({ path: join(OUTPUT, "pilot-question.png") });
        await first.getByRole("button", { name: "staging" }).click();
        await first.getByText("answered: staging").waitFor();
        const second = panel(page).getByRole("article", { name: "Question: Anything else to check?" });
        await second.getByRole("button", { name: "Don't answer" }).click();
        await second.getByText("not answered").waitFor();
        await turnDone(page);
        await panel(page).getByText("Then staging it is.").waitFor();
        await page.screenshot({ path: join(OUTPUT, "pilot-question-answered.png") });
      },
    );
  });

  test("Pilot: a tab waiting for an approval is badged while hidden; closing it asks first", async ({ page }) => {
    await withPilot(
      {
        steps: [
          {
            respond: {
              text: "Let me take a moment before asking you.",
              chunk_delay_ms: 250,
              tool_calls: [{ name: "run_command", arguments: { command: "touch /proc/kaiport-e2e-never" } }],
            },
          },
          { expect: { last_result_contains: ["denied"] }, respond: { text: "Not done." } },
        ],
      },
      async ({ url }) => {
        await openLocal(page, url);
        const first = await activeTab(page);
        await message(page, "touch it");
        await panel(page).getByText("Pilot is working").waitFor();
        // Another tab in front while Pilot works in the first.
        await page.keyboard.press("Control+Shift+T");
        await until("the second tab", async () => (await activeTab(page)) !== first);
        const badged = page.locator(`#tab-button-${first}`);
        await until("the badge on the hidden tab", async () => /1 waiting/.test((await badged.textContent()) ?? ""));
        await page.screenshot({ path: join(OUTPUT, "pilot-badge.png") });
        // Closing the tab while the turn runs asks; "Keep open" keeps it.
        await page.getByRole("button", { name: "Close tab local" }).first().click();
        const ask = page.getByRole("dialog", { name: "Close the tab while Pilot works?" });
        await ask.waitFor();
        await page.screenshot({ path: join(OUTPUT, "pilot-close-asks.png") });
        await ask.getByRole("button", { name: "Keep open" }).click();
        await ask.waitFor({ state: "detached" });
        if ((await page.locator(`#tab-button-${first}`).count()) !== 1) {
          throw new Error("Keep open closed the tab");
        }
        // Back on the tab: the badge goes, the waiting card has focus (a write to /proc is
        // dangerous: its Deny has it).
        await badged.click();
        const card = panel(page).getByRole("article", { name: /^run_command touch/ });
        await until("the card focused", () => card.evaluate((el) => el.contains(document.activeElement)));
        if (/waiting/.test((await badged.textContent()) ?? "")) {
          throw new Error("the visible tab still has a badge");
        }
        await card.getByRole("button", { name: "Deny" }).click();
        await turnDone(page);
      },
    );
  });

  test("Pilot: model text cannot run script; Ctrl+Shift+P focuses the message box; the panel hides and resizes", async ({
    page,
  }) => {
    await withPilot(
      {
        steps: [
          {
            respond: {
              text:
                'Look: <img src="x" onerror="window.pwned = 1"> and <script>window.pwned = 2</script> **safe** ' +
                "![tracker pixel](http://127.0.0.1:9/pixel.png)",
              chunk_delay_ms: 5,
            },
          },
        ],
      },
      async ({ url }) => {
        await openLocal(page, url);
        await page.keyboard.press("Control+Shift+P");
        await until("Message Pilot focused", () =>
          page.evaluate(() => document.activeElement?.getAttribute("aria-label") === "Message Pilot"),
        );
        await page.keyboard.type("hello");
        await page.keyboard.press("Enter");
        await panel(page).getByText("safe").waitFor();
        await turnDone(page);
        // Markup that ran script would have by the time it settled: no script or handler is
        // left in the panel, and every image there has loaded or failed (an <img>'s onerror
        // runs when its load fails).
        if ((await panel(page).locator("script, [onerror], [onload]").count()) !== 0) {
          throw new Error("model text left a script or an event handler in the page");
        }
        await until("the panel's images settled", () =>
          panel(page)
            .locator("img")
            .evaluateAll((images) => images.every((image) => image.complete)),
        );
        if (await page.evaluate(() => window.pwned !== undefined)) {
          throw new Error("model text ran script in the page");
        }
        // A remote image is its alt text, never a request (not even one the CSP would block).
        const remote = await panel(page)
          .locator("img")
          .evaluateAll((images) => images.filter((image) => !image.src.startsWith("data:")).length);
        if (remote !== 0) {
          throw new Error(`${remote} remote image(s) left in Pilot's text`);
        }
        await panel(page).getByText("tracker pixel").waitFor();
        // Hidden, then shown again.
        await panel(page).getByRole("button", { name: "Hide Pilot" }).click();
        await page.getByRole("button", { name: "Show Pilot" }).waitFor();
        // The terminal takes the room and still shows what it printed.
        await until("the terminal wider", async () => (await page.locator(".xterm-screen").boundingBox()).width > 900);
        // Fitted to the room: its rows are drawn at the new width in the frames that follow.
        await animationFrames(page, 2);
        await page.screenshot({ path: join(OUTPUT, "pilot-hidden.png") });
        await page.keyboard.press("Control+Shift+P");
        await panel(page).getByText("safe").waitFor();
        // Shown again by the keyboard, the message box takes the focus (in a frame of its own:
        // wait for it, or it would take the keys meant for the splitter below).
        await until("the message box focused again", async () =>
          page.evaluate(() => document.activeElement?.getAttribute("aria-label") === "Message Pilot"),
        );
        // The keyboard resizes it: three steps wider.
        const splitter = page.getByRole("separator", { name: "Resize Pilot" });
        const before = Number(await splitter.getAttribute("aria-valuenow"));
        await splitter.focus();
        for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowLeft");
        const after = Number(await splitter.getAttribute("aria-valuenow"));
        const box = await page.getByRole("complementary", { name: "Pilot panel" }).boundingBox();
        if (after !== before + 60 || Math.abs(box.width - after) > 1) {
          throw new Error(`resized from ${before} to ${after}, drawn ${box.width} wide`);
        }
      },
    );
  });

  test("Pilot: Stop cancels the turn", async ({ page }) => {
    await withPilot(
      { steps: [{ respond: { text: "Thinking about it for a long while", stall_after_chunks: 6 } }] },
      async ({ url }) => {
        await openLocal(page, url);
        await message(page, "take your time");
        await panel(page).getByText("Thinking").waitFor();
        const stop = panel(page).getByRole("button", { name: "Stop" });
        await stop.click();
        await panel(page).getByText("Stopped", { exact: true }).waitFor();
        await until("Stop disabled", () => stop.isDisabled());
        await panel(page).getByRole("textbox", { name: "Message Pilot" }).fill("next");
        if (await panel(page).getByRole("button", { name: "Send" }).isDisabled()) {
          throw new Error("Send stays disabled after Stop");
        }
        await page.screenshot({ path: join(OUTPUT, "pilot-stopped.png") });
      },
    );
  });

  test(
    "Pilot on a phone: a sheet from the bottom",
    async ({ page }) => {
      await withPilot({ steps: [{ respond: { text: "Hello from the **sheet**." } }] }, async ({ url }) => {
        await openLocal(page, url);
        await page.getByRole("button", { name: "Pilot", exact: true }).click();
        await message(page, "hi");
        await panel(page).getByText("Hello from the").waitFor();
        await turnDone(page);
        await page.screenshot({ path: join(OUTPUT, "pilot-phone-sheet.png") });
        await page.getByRole("button", { name: "Close Pilot" }).click();
        await page.getByRole("button", { name: "Pilot", exact: true }).waitFor();
      });
    },
    { viewport: { width: 390, height: 760 }, hasTouch: true, isMobile: true },
  );
}
