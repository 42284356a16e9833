// Browser test of an SSH tab's file pane, registered by run.mjs: against run.mjs's sshd (shell
// integration on, so the shell reports its folder), the pane opened with "Files" follows a `cd`
// typed into the terminal, and "Open terminal here" after going elsewhere in the pane moves the
// shell there (its `pwd` says so), through a folder name that needs shell quoting; a delete goes
// through the engine's confirmation. Screenshots at desktop, phone and tablet widths.
//
// And the editor: on a server whose login's sudo asks for a password, a root-only file shows a
// lock; "Open as root" asks for the sudo password in the app's masked dialog, the editor shows
// the file, an edit is shown as a diff, saved through sudo (owner, group and mode kept), and the
// audit log has the user's read and save — while the password appears in no frame the page got
// and no audit line. Closing the editor, its pane or its tab with unsaved edits asks "Discard
// changes to NAME?" first; without edits they close at once.
//
// And this computer: a file uploaded from "This computer" (by button and by a dragged row)
// arrives on the server byte for byte and downloads back the same, each in Transfers and the
// audit log as the user's; an upload the server refuses says why, a cancelled one leaves no file
// and no temp. The pane follows `cd` in zsh and fish too, and a root-owned 0700 folder shows a
// lock and opens as root through sudo. Screenshots at desktop and phone widths.

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

export function shellFilesTests(h) {
  const { test, until, runInTerminal, activeTab, terminalText } = h;
  const { fillConnectionForm, startWithFirstLine, OUTPUT, SSHD } = h;

  /** An SSH tab to `sshd` through the form, at its shell prompt; its tab id. */
  async function openShell(page, served, sshd) {
    await page.goto(served.url);
    const form = await fillConnectionForm(page, { port: sshd.port, user: sshd.user, key: sshd.key });
    await form.getByRole("button", { name: "Connect" }).click();
    const hostKey = page.getByRole("dialog", { name: "Unknown host key" });
    const tab = await activeTab(page);
    await until("a shell prompt", async () => {
      // Trusted already when an earlier test connected to the same sshd.
      if (await hostKey.isVisible()) {
        await hostKey.getByRole("button", { name: "Trust and connect" }).click();
      }
      return /[$#%>] ?$/m.test((await terminalText(page, tab)) ?? "");
    });
    return tab;
  }

  /** A kaiport-sshd of the test's own (with `args`), stopped after `body` whatever happens. */
  async function withOwnSshd(args, body) {
    const server = await startWithFirstLine(SSHD, args, { env: process.env });
    try {
      return await body(JSON.parse(server.line));
    } finally {
      server.child.stdin.end("\n");
      await new Promise((r) => (server.child.exitCode !== null ? r() : server.child.once("exit", r)));
    }
  }

  /** The row of `name` in `pane`'s grid. */
  function row(pane, name) {
    return pane.getByRole("row", { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`) });
  }

  /** The folder `pane` (a region of the file pane) shows. */
  function shownIn(pane) {
    return pane.locator('nav [aria-current="location"]').getAttribute("title");
  }

  /** The file pane's row of `name` in Transfers. */
  function transfer(files, name) {
    return files.getByRole("list", { name: "Transfers" }).getByRole("listitem", { name });
  }

  /** The user's own calls of `tool` (`user-…`) in the audit log of `served`, with their status. */
  function usersAudited(served, tool) {
    const path = join(served.home, "ai-audit.jsonl");
    if (!existsSync(path)) return [];
    return readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line))
      .filter((line) => line.tool === tool && String(line.call).startsWith("user-"));
  }

  /** Screenshots of `dialog` at tablet and phone sizes (`NAME-tablet.png`, `NAME-phone.png`). */
  async function tabletAndPhone(page, dialog, name) {
    for (const [size, width, height] of [
      ["tablet", 820, 1180],
      ["phone", 390, 760],
    ]) {
      await page.setViewportSize({ width, height });
      await until(`${name} at ${size} width`, async () => {
        const box = await dialog.boundingBox();
        return box !== null && box.width <= width;
      });
      await page.screenshot({ path: join(OUTPUT, `${name}-${size}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 760 });
  }

  test("SSH tab file pane: follows cd, and Open terminal here moves the shell", async ({ page, served, sshd }) => {
    await openShell(page, served, sshd);
    const dir = `/tmp/kp-files-e2e-${Date.now()}`;
    const quoted = "it's here";
    await runInTerminal(page, `mkdir -p "${dir}/${quoted}" && touch ${dir}/marker.txt && echo made-$((2+2))`, "made-4");

    await page.getByRole("button", { name: "Files", exact: true }).click();
    const pane = page.getByRole("complementary", { name: "Files" });
    const follow = pane.getByRole("checkbox", { name: "Follow terminal" });
    await follow.waitFor();
    if (!(await follow.isChecked())) {
      throw new Error("Follow terminal is off by default");
    }
    const grid = pane.getByRole("grid");
    const shown = () => pane.locator('nav [aria-current="location"]').getAttribute("title");

    // The shell moves: the pane goes with it.
    await runInTerminal(page, `cd ${dir} && echo moved-$((2+3))`, "moved-5");
    await until("the pane shows the shell's folder", async () => (await shown()) === dir);
    await grid.getByRole("row", { name: /marker\.txt/ }).waitFor();
    if ((await pane.getByText(/^Not following/).count()) !== 0) {
      throw new Error("the pane says it does not follow, with shell integration on");
    }
    await page.screenshot({ path: join(OUTPUT, "ssh-files-pane.png") });

    // Elsewhere in the pane, then "Open terminal here": the shell goes there.
    await grid.getByRole("row", { name: new RegExp(quoted) }).dblclick();
    await until("the pane in the folder opened", async () => (await shown()) === `${dir}/${quoted}`);
    await pane.getByRole("button", { name: "Open terminal here" }).click();
    // The shell compares (a long path wraps in the terminal's narrow column).
    await runInTerminal(page, `test "$(pwd)" = "${dir}/${quoted}" && echo same-$((4+4))`, "same-8");
    // The shell reported its new folder, where the pane is already.
    await until("the pane still in the folder", async () => (await shown()) === `${dir}/${quoted}`);

    // Phone width: the pane is a sheet over the lower part, the terminal above it.
    await page.setViewportSize({ width: 390, height: 760 });
    await page.getByRole("button", { name: "Files", exact: true }).first().waitFor();
    await until("the pane as a sheet", async () => {
      const box = await pane.boundingBox();
      return box !== null && box.width <= 390 && box.y > 200;
    });
    await page.screenshot({ path: join(OUTPUT, "ssh-files-pane-phone.png") });
    // Tablet held upright: over the terminal's left side, the terminal keeping its width.
    await page.setViewportSize({ width: 820, height: 1180 });
    await until("the pane over the terminal", async () => {
      const [box, terminal] = [
        await pane.boundingBox(),
        await page.getByRole("region", { name: "Terminal" }).boundingBox(),
      ];
      return box !== null && terminal !== null && box.x <= terminal.x + 1 && terminal.width > 700;
    });
    await page.screenshot({ path: join(OUTPUT, "ssh-files-pane-tablet.png") });
    await page.setViewportSize({ width: 1280, height: 760 });

    // Up one folder, and delete the file through the engine's confirmation.
    await pane.getByRole("button", { name: "Up one folder" }).click();
    await until("the pane one folder up", async () => (await shown()) === dir);
    await grid.getByRole("row", { name: /marker\.txt/ }).click();
    await pane.getByRole("button", { name: "Delete", exact: true }).click();
    const confirm = page.getByRole("dialog", { name: "Delete?" });
    await confirm.getByRole("button", { name: "Delete", exact: true }).click();
    await grid.getByRole("row", { name: /marker\.txt/ }).waitFor({ state: "detached" });

    // Ctrl+Shift+E puts it away (and brings it back).
    await page.getByRole("region", { name: "Terminal" }).click();
    await page.keyboard.press("Control+Shift+E");
    await pane.waitFor({ state: "detached" });
    await page.keyboard.press("Control+Shift+E");
    await pane.waitFor();
    await runInTerminal(page, `cd / && rm -rf ${dir} && echo gone-$((3+3))`, "gone-6");
    await until("the pane followed to /", async () => (await shown()) === "/");
  });

  test("SSH tab file editor: a root-only file opened as root with the sudo password, diffed, saved", async ({
    page,
    served,
  }) => {
    // A server of its own whose login user's sudo asks for the password every time.
    const server = await startWithFirstLine(SSHD, ["--sudo-password"], { env: process.env });
    const sshd = JSON.parse(server.line);
    const dir = mkdtempSync(join("/tmp", "kp-edit-e2e-"));
    chmodSync(dir, 0o755);
    const file = join(dir, "app.yml");
    writeFileSync(file, "# the app\nworkers: 2\nlisten: 80\n");
    chmodSync(file, 0o600);
    execFileSync("chown", ["0:0", file]);
    const frames = [];
    page.on("websocket", (ws) =>
      ws.on("framereceived", (f) =>
        frames.push(typeof f.payload === "string" ? f.payload : f.payload.toString("latin1")),
      ),
    );
    try {
      await openShell(page, served, sshd);
      await runInTerminal(page, `cd ${dir} && echo in-$((1+1))`, "in-2");
      await page.getByRole("button", { name: "Files", exact: true }).click();
      const pane = page.getByRole("complementary", { name: "Files" });
      const row = pane.getByRole("grid").getByRole("row", { name: /app\.yml/ });
      await row.getByRole("img", { name: "Only root may change it" }).waitFor();
      await row.click();
      await pane.screenshot({ path: join(OUTPUT, "ssh-files-root-lock.png") });
      await pane.getByRole("button", { name: "Open as root" }).click();

      // sudo's password, asked by the app in a masked field.
      const asked = page.getByRole("dialog", { name: "sudo password" });
      const field = asked.getByLabel("Password");
      if ((await field.getAttribute("type")) !== "password") {
        throw new Error("the sudo password field is not masked");
      }
      await page.screenshot({ path: join(OUTPUT, "editor-sudo-password.png") });
      await field.fill(sshd.password);
      await asked.getByRole("button", { name: "Continue as root" }).click();

      const editor = page.getByRole("dialog", { name: "Edit app.yml" });
      const text = editor.getByRole("textbox", { name: "Text of app.yml" });
      await text.getByText("listen: 80").waitFor();
      await editor.getByText("YAML").waitFor();
      await page.screenshot({ path: join(OUTPUT, "editor-open.png") });
      await text.click();
      await page.keyboard.press("Control+End");
      await page.keyboard.type("replicas: 3\n");
      // And a changed line: workers 2 becomes 4.
      await page.keyboard.press("Control+Home");
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("End");
      await page.keyboard.press("Backspace");
      await page.keyboard.type("4");
      await editor.getByRole("button", { name: "Search" }).click();
      await editor.getByRole("textbox", { name: "Find" }).fill("workers");
      await page.screenshot({ path: join(OUTPUT, "editor-search.png") });
      await editor.getByRole("button", { name: "Review changes" }).click();
      const changes = editor.getByRole("region", { name: "Changes to app.yml" });
      await changes.getByText("replicas: 3").waitFor();
      await page.screenshot({ path: join(OUTPUT, "editor-diff.png") });
      await tabletAndPhone(page, editor, "editor-diff");

      // Saving goes through sudo too: the password asked again, for this call.
      await editor.getByRole("button", { name: "Save" }).click();
      await asked.getByLabel("Password").fill(sshd.password);
      await asked.getByRole("button", { name: "Continue as root" }).click();
      await editor.getByRole("status").getByText("Saved.").waitFor();
      const saved = readFileSync(file, "utf8");
      if (saved !== "# the app\nworkers: 4\nlisten: 80\nreplicas: 3\n") {
        throw new Error(`the file on the server is ${JSON.stringify(saved)}`);
      }
      const meta = statSync(file);
      if (meta.uid !== 0 || meta.gid !== 0 || (meta.mode & 0o7777) !== 0o600) {
        throw new Error(`owner, group or mode changed: ${meta.uid}:${meta.gid} ${(meta.mode & 0o7777).toString(8)}`);
      }
      await tabletAndPhone(page, editor, "editor");
      await editor.getByRole("button", { name: "Close", exact: true }).click();
      await editor.waitFor({ state: "detached" });

      // The audit log has the user's own read and save (their calls), and no password.
      const auditPath = join(served.home, "ai-audit.jsonl");
      await until(
        "the save in the audit log",
        async () => existsSync(auditPath) && readFileSync(auditPath, "utf8").includes("write_file"),
      );
      const lines = readFileSync(auditPath, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line));
      const save = lines.find((line) => line.tool === "write_file" && JSON.stringify(line.args).includes(file));
      if (save === undefined || save.status !== "ok" || !save.call.startsWith("user-")) {
        throw new Error(`no audit line of the user's save: ${JSON.stringify(save)}`);
      }
      if (readFileSync(auditPath, "utf8").includes(sshd.password)) {
        throw new Error("the password is in the audit log");
      }
    } finally {
      server.child.stdin.end("\n");
      await new Promise((r) => (server.child.exitCode !== null ? r() : server.child.once("exit", r)));
      rmSync(dir, { recursive: true, force: true });
    }
    const leaked = frames.filter((frame) => frame.includes(sshd.password));
    if (leaked.length > 0) {
      throw new Error(`the password came back to the page: ${leaked[0].slice(0, 200)}`);
    }
  });

  test("SSH tab file pane: uploads from this computer and downloads back byte for byte, by button and by drag", async ({
    page,
    served,
    sshd,
  }) => {
    // The server's folder (the login user writes there) and one only root may write to.
    const dir = mkdtempSync(join("/tmp", "kp-transfer-e2e-"));
    chmodSync(dir, 0o777);
    const closed = mkdtempSync(join("/tmp", "kp-closed-e2e-"));
    chmodSync(closed, 0o755);
    // This computer's side is kaiport serve's home folder.
    const outbox = join(served.home, "outbox");
    mkdirSync(outbox, { recursive: true });
    const content = randomBytes(3_000_000);
    writeFileSync(join(outbox, "payload.bin"), content);
    writeFileSync(join(outbox, "dragged.txt"), "dragged across\n");
    try {
      await openShell(page, served, sshd);
      await runInTerminal(page, `cd ${dir} && echo in-$((3+4))`, "in-7");
      await page.getByRole("button", { name: "Files", exact: true }).click();
      const files = page.getByRole("complementary", { name: "Files" });
      const remote = files.locator('[data-storage-side="remote"]');
      const local = files.getByRole("region", { name: "This computer" });
      await until("the pane in the shell's folder", async () => (await shownIn(remote)) === dir);
      if ((await remote.getByRole("button", { name: "Download" }).count()) !== 0) {
        throw new Error("the server's side offers Download with no side of this computer shown");
      }
      const toggle = files.getByRole("button", { name: "This computer" });
      await toggle.click();
      if ((await toggle.getAttribute("aria-pressed")) !== "true") {
        throw new Error("the This computer button is not pressed once its side shows");
      }
      // It walks down to its folder: kaiport serve's home.
      await until("this computer's side at home", async () => (await shownIn(local)) === served.home);
      await row(local, "outbox").dblclick();
      await until("this computer's side in outbox", async () => (await shownIn(local)) === outbox);

      // Upload by button: the transfer's row, the file on the server byte for byte.
      await row(local, "payload.bin").click();
      await local.getByRole("button", { name: "Upload" }).click();
      await transfer(files, "payload.bin").getByText("done").waitFor({ timeout: 60_000 });
      await row(remote, "payload.bin").waitFor();
      if (!readFileSync(join(dir, "payload.bin")).equals(content)) {
        throw new Error("the uploaded file differs on the server");
      }
      await page.screenshot({ path: join(OUTPUT, "ssh-files-upload.png") });

      // A row dragged from this computer's side onto the server's is uploaded too.
      await row(local, "dragged.txt").dragTo(remote.getByRole("grid"));
      await transfer(files, "dragged.txt").getByText("done").waitFor({ timeout: 30_000 });
      if (readFileSync(join(dir, "dragged.txt"), "utf8") !== "dragged across\n") {
        throw new Error("the dragged file differs on the server");
      }

      // Download back, into the home folder.
      await files.getByRole("button", { name: "Clear ended" }).click();
      await local.getByRole("button", { name: "Up one folder" }).click();
      await until("this computer's side at home again", async () => (await shownIn(local)) === served.home);
      await row(remote, "payload.bin").click();
      await remote.getByRole("button", { name: "Download" }).click();
      await transfer(files, "payload.bin").getByText("done").waitFor({ timeout: 60_000 });
      await row(local, "payload.bin").waitFor();
      if (!readFileSync(join(served.home, "payload.bin")).equals(content)) {
        throw new Error("the downloaded file differs from the one uploaded");
      }
      await page.screenshot({ path: join(OUTPUT, "ssh-files-download.png") });

      // An upload the server refuses fails with its reason in Transfers, and leaves nothing.
      execFileSync("chown", ["0:0", closed]);
      await remote.getByRole("button", { name: "Go to…" }).click();
      await remote.getByRole("textbox", { name: "Go to folder" }).fill(closed);
      await page.keyboard.press("Enter");
      await until("the server's side in the closed folder", async () => (await shownIn(remote)) === closed);
      await files.getByRole("button", { name: "Clear ended" }).click();
      await row(local, "outbox").dblclick();
      await until("this computer's side in outbox", async () => (await shownIn(local)) === outbox);
      await row(local, "dragged.txt").click();
      await local.getByRole("button", { name: "Upload" }).click();
      const refused = transfer(files, "dragged.txt");
      await refused.getByText("failed").waitFor({ timeout: 30_000 });
      const said = await refused.locator(".error").innerText();
      if (!/permission denied/i.test(said)) {
        throw new Error(`the failed upload does not say why: ${JSON.stringify(said)}`);
      }
      if (readdirSync(closed).length !== 0) {
        throw new Error(`the refused upload left ${readdirSync(closed).join(", ")}`);
      }
      await page.screenshot({ path: join(OUTPUT, "ssh-files-upload-failed.png") });
      // On a phone this computer's side shows instead of the server's, Transfers below.
      await page.setViewportSize({ width: 390, height: 760 });
      await until("this computer's side alone on a phone", async () => !(await remote.isVisible()));
      await page.screenshot({ path: join(OUTPUT, "ssh-files-this-computer-phone.png") });
      await page.setViewportSize({ width: 1280, height: 760 });
      await until("both sides again on a wide screen", async () => await remote.isVisible());

      // No temp beside what arrived, on either side.
      const left = readdirSync(dir).sort();
      if (JSON.stringify(left) !== JSON.stringify(["dragged.txt", "payload.bin"])) {
        throw new Error(`the server's folder holds ${left.join(", ")}`);
      }
      if (readdirSync(served.home).some((name) => name.includes(".kaiport-"))) {
        throw new Error(`a temp was left at home: ${readdirSync(served.home).join(", ")}`);
      }
      // The user's own calls, in the audit log.
      await until("the transfers in the audit log", async () => {
        const ok = (tool) => usersAudited(served, tool).filter((line) => line.status === "ok").length;
        return ok("upload") >= 2 && ok("download") >= 1;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(closed, { recursive: true, force: true });
      rmSync(outbox, { recursive: true, force: true });
      rmSync(join(served.home, "payload.bin"), { force: true });
    }
  });

  test("SSH tab file pane: a cancelled upload leaves no file and no temp on the server", async ({
    page,
    served,
    sshd,
  }) => {
    const dir = mkdtempSync(join("/tmp", "kp-cancel-e2e-"));
    chmodSync(dir, 0o777);
    // Big enough to cancel part-way (a sparse file: nothing to write here).
    const big = join(served.home, "big.bin");
    execFileSync("truncate", ["-s", "2G", big]);
    try {
      await openShell(page, served, sshd);
      await runInTerminal(page, `cd ${dir} && echo in-$((4+4))`, "in-8");
      await page.getByRole("button", { name: "Files", exact: true }).click();
      const files = page.getByRole("complementary", { name: "Files" });
      const remote = files.locator('[data-storage-side="remote"]');
      const local = files.getByRole("region", { name: "This computer" });
      await until("the pane in the shell's folder", async () => (await shownIn(remote)) === dir);
      await files.getByRole("button", { name: "This computer" }).click();
      await until("this computer's side at home", async () => (await shownIn(local)) === served.home);
      await row(local, "big.bin").click();
      await local.getByRole("button", { name: "Upload" }).click();
      const item = transfer(files, "big.bin");
      await until("the upload part-way", async () => {
        const now = Number(
          await item
            .getByRole("progressbar")
            .getAttribute("aria-valuenow")
            .catch(() => "0"),
        );
        return now > 0 && now < 100;
      });
      await page.screenshot({ path: join(OUTPUT, "ssh-files-upload-progress.png") });
      await item.getByRole("button", { name: "Cancel" }).click();
      await item.getByText("cancelled").waitFor({ timeout: 30_000 });
      await until("nothing left in the server's folder", async () => readdirSync(dir).length === 0);
      await page.screenshot({ path: join(OUTPUT, "ssh-files-upload-cancelled.png") });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(big, { force: true });
    }
  });

  test("SSH tab file editor that cannot be fetched says so and closes, and the pane works on", async ({
    page,
    served,
    sshd,
  }) => {
    // The editor is fetched on the first file opened; a kaiport serve stopped or upgraded since
    // the page loaded cannot give it. The pane said nothing and the page had an error.
    const dir = `/tmp/kp-editor-fetch-e2e-${Date.now()}`;
    await page.route(/\/assets\/FileEditor-[^/]+\.js$/, (route) => route.abort("connectionrefused"));
    await openShell(page, served, sshd);
    await runInTerminal(
      page,
      `mkdir -p ${dir} && printf 'first\\n' > ${dir}/notes.txt && cd ${dir} && echo ok-$((5+2))`,
      "ok-7",
    );
    await page.getByRole("button", { name: "Files", exact: true }).click();
    const files = page.getByRole("complementary", { name: "Files" });
    await row(files, "notes.txt").dblclick();
    const failed = page.getByRole("alert").filter({ hasText: "Could not load the editor" });
    await failed.waitFor();
    await failed.getByText("Reload the page to try again").waitFor();
    await page.screenshot({ path: join(OUTPUT, "editor-not-fetched.png") });
    await page.setViewportSize({ width: 390, height: 844 });
    await failed.getByRole("button", { name: "Close" }).waitFor();
    await page.screenshot({ path: join(OUTPUT, "editor-not-fetched-phone.png") });
    await page.setViewportSize({ width: 1280, height: 760 });
    await failed.getByRole("button", { name: "Close" }).click();
    await failed.waitFor({ state: "detached" });
    // The pane is still there and still lists the folder.
    await row(files, "notes.txt").waitFor();
    await runInTerminal(page, `rm -r ${dir} && echo gone-$((4+4))`, "gone-8");
  });

  test("SSH tab file editor: closing with unsaved edits asks first; without edits it closes at once", async ({
    page,
    served,
    sshd,
  }) => {
    const dir = `/tmp/kp-discard-e2e-${Date.now()}`;
    await openShell(page, served, sshd);
    await runInTerminal(
      page,
      `mkdir -p ${dir} && printf 'first\\n' > ${dir}/notes.txt && cd ${dir} && echo ok-$((5+1))`,
      "ok-6",
    );
    await page.getByRole("button", { name: "Files", exact: true }).click();
    const files = page.getByRole("complementary", { name: "Files" });
    const editor = page.getByRole("dialog", { name: "Edit notes.txt" });
    const discard = page.getByRole("dialog", { name: "Discard changes to notes.txt?" });
    const text = editor.getByRole("textbox", { name: "Text of notes.txt" });
    const open = async () => {
      await row(files, "notes.txt").dblclick();
      await text.getByText("first").waitFor();
    };
    const edit = async () => {
      await text.click();
      await page.keyboard.press("Control+End");
      await page.keyboard.type("second line");
      await editor.getByText("· changed").waitFor();
    };

    // Without edits: Close and Escape close at once.
    await open();
    await editor.getByRole("button", { name: "Close", exact: true }).click();
    await editor.waitFor({ state: "detached" });
    await open();
    await page.keyboard.press("Escape");
    await editor.waitFor({ state: "detached" });

    // With edits, Escape asks; "Keep editing" keeps them.
    await open();
    await edit();
    await page.keyboard.press("Escape");
    await discard.waitFor();
    await page.screenshot({ path: join(OUTPUT, "editor-discard.png") });
    await tabletAndPhone(page, discard, "editor-discard");
    await discard.getByRole("button", { name: "Keep editing" }).click();
    await discard.waitFor({ state: "detached" });
    await text.getByText("second line").waitFor();
    // Close asks too; "Discard" closes and the file stays as it was.
    await editor.getByRole("button", { name: "Close", exact: true }).click();
    await discard.getByRole("button", { name: "Discard" }).click();
    await editor.waitFor({ state: "detached" });
    if (readFileSync(`${dir}/notes.txt`, "utf8") !== "first\n") {
      throw new Error("discarded edits reached the file");
    }

    // Another tab put in front (Ctrl+Shift+T opens one while the editor is open) hides the
    // editor; back on this tab, the unsaved edits are still there.
    await open();
    await edit();
    await page.keyboard.press("Control+Shift+T");
    await editor.waitFor({ state: "hidden" });
    await page.getByRole("tab").first().click();
    await editor.waitFor();
    await text.getByText("second line").waitFor();
    await editor.getByText("· changed").waitFor();
    await page.screenshot({ path: join(OUTPUT, "editor-after-tab-switch.png") });
    // Done with it: discard, and close the tab Ctrl+Shift+T opened.
    await editor.getByRole("button", { name: "Close", exact: true }).click();
    await discard.getByRole("button", { name: "Discard" }).click();
    await editor.waitFor({ state: "detached" });
    await page.getByRole("tab").last().click();
    await page.keyboard.press("Control+Shift+W");
    await page.getByRole("tab").nth(1).waitFor({ state: "detached" });
    await page.getByRole("tab").first().click();

    // Putting the pane away asks (Ctrl+Shift+E), and so does closing the tab (Ctrl+Shift+W).
    await open();
    await edit();
    await page.keyboard.press("Control+Shift+E");
    await discard.waitFor();
    await discard.getByRole("button", { name: "Keep editing" }).click();
    await text.getByText("second line").waitFor();
    await page.keyboard.press("Control+Shift+E");
    await discard.getByRole("button", { name: "Discard" }).click();
    await files.waitFor({ state: "detached" });
    await page.keyboard.press("Control+Shift+E");
    await open();
    await edit();
    await page.keyboard.press("Control+Shift+W");
    await discard.waitFor();
    await discard.getByRole("button", { name: "Discard" }).click();
    await page.getByRole("region", { name: "Terminal" }).waitFor({ state: "detached" });
    rmSync(dir, { recursive: true, force: true });
  });

  // The pane follows `cd` in every shell the integration knows, not only bash.
  for (const shell of ["zsh", "fish"]) {
    test(`SSH tab file pane: follows cd in ${shell}`, async ({ page, served }) => {
      await withOwnSshd([`--login-shell=${shell}`], async (own) => {
        const dir = `/tmp/kp-${shell}-e2e-${Date.now()}`;
        await openShell(page, served, own);
        await runInTerminal(page, `mkdir -p ${dir}/inner && echo made-${shell}`, `made-${shell}`);
        await page.getByRole("button", { name: "Files", exact: true }).click();
        const files = page.getByRole("complementary", { name: "Files" });
        const remote = files.locator('[data-storage-side="remote"]');
        await runInTerminal(page, `cd ${dir}/inner && echo moved-${shell}`, `moved-${shell}`);
        await until(`the pane in the ${shell} shell's folder`, async () => (await shownIn(remote)) === `${dir}/inner`);
        if ((await files.getByText(/^Not following/).count()) !== 0) {
          throw new Error(`the pane says it does not follow ${shell}`);
        }
        await runInTerminal(page, `cd .. && echo up-${shell}`, `up-${shell}`);
        await until(`the pane one folder up`, async () => (await shownIn(remote)) === dir);
        await row(remote, "inner").waitFor();
        await page.screenshot({ path: join(OUTPUT, `ssh-files-${shell}.png`) });
        await runInTerminal(page, `cd / && rm -rf ${dir} && echo gone-${shell}`, `gone-${shell}`);
        await until("the pane followed to /", async () => (await shownIn(remote)) === "/");
      });
    });
  }

  test("SSH tab file pane: a folder only root may open shows a lock and opens as root through sudo", async ({
    page,
    served,
  }) => {
    await withOwnSshd(["--sudo-password"], async (own) => {
      const home = execFileSync("getent", ["passwd", own.user], { encoding: "utf8" }).split(":")[5];
      const vault = join(home, `kp-vault-${Date.now()}`);
      mkdirSync(join(vault, "inner"), { recursive: true });
      writeFileSync(join(vault, "secret.conf"), "key = value\n");
      execFileSync("chown", ["-R", "0:0", vault]);
      chmodSync(vault, 0o700);
      try {
        await openShell(page, served, own);
        await runInTerminal(page, `cd ${home} && echo home-$((6+1))`, "home-7");
        await page.getByRole("button", { name: "Files", exact: true }).click();
        const files = page.getByRole("complementary", { name: "Files" });
        const remote = files.locator('[data-storage-side="remote"]');
        const name = vault.split("/").pop();
        const locked = row(remote, name);
        await locked.getByRole("img", { name: "Only root may open it" }).waitFor();
        await locked.dblclick();
        // In words, not the server's raw error.
        const alert = remote.getByRole("alert");
        await alert.getByText(/Only root can open/).waitFor();
        await page.screenshot({ path: join(OUTPUT, "ssh-files-root-folder.png") });
        await alert.getByRole("button", { name: "Open as root" }).click();
        // The same sudo password dialog as files opened as root.
        const asked = page.getByRole("dialog", { name: "sudo password" });
        await asked.getByLabel("Password").fill(own.password);
        await asked.getByRole("button", { name: "Continue as root" }).click();
        await row(remote, "secret.conf").getByRole("img", { name: "Only root may change it" }).waitFor();
        await row(remote, "inner").waitFor();
        await remote.getByText("as root", { exact: true }).waitFor();
        await page.screenshot({ path: join(OUTPUT, "ssh-files-root-folder-open.png") });
        await page.setViewportSize({ width: 390, height: 760 });
        await until("the pane as a sheet", async () => {
          const box = await files.boundingBox();
          return box !== null && box.width <= 390;
        });
        await page.screenshot({ path: join(OUTPUT, "ssh-files-root-folder-phone.png") });
        await page.setViewportSize({ width: 1280, height: 760 });
        await until("the pane beside the terminal again", async () => {
          const box = await files.boundingBox();
          return box !== null && box.x < 300 && box.height > 600;
        });
        // Its file opens as root in the editor.
        await row(remote, "secret.conf").click();
        await remote.getByRole("button", { name: "Open as root" }).click();
        await asked.getByLabel("Password").fill(own.password);
        await asked.getByRole("button", { name: "Continue as root" }).click();
        const editor = page.getByRole("dialog", { name: "Edit secret.conf" });
        await editor.getByRole("textbox", { name: "Text of secret.conf" }).getByText("key = value").waitFor();
        await editor.getByRole("button", { name: "Close", exact: true }).click();
        await editor.waitFor({ state: "detached" });
        // Back up, out of root's folder: listed as the login again.
        await remote.getByRole("button", { name: "Up one folder" }).click();
        await until("the pane back home", async () => (await shownIn(remote)) === home);
        if ((await remote.getByText("as root", { exact: true }).count()) !== 0) {
          throw new Error("the login's own folder is still listed as root");
        }
      } finally {
        rmSync(vault, { recursive: true, force: true });
      }
    });
  });

  test("SSH tab file pane: a folder of 10,000 entries, whole, scrolled, sorted and typed to", async ({
    page,
    served,
    sshd,
  }) => {
    const ENTRIES = 10_000;
    const dir = mkdtempSync("/tmp/kp-files-big-");
    chmodSync(dir, 0o755);
    const name = (index) => `file-${String(index).padStart(5, "0")}.txt`;
    try {
      for (let index = 0; index < ENTRIES; index += 1) {
        writeFileSync(join(dir, name(index)), "x".repeat(index % 97));
      }
      await openShell(page, served, sshd);
      await page.getByRole("button", { name: "Files", exact: true }).click();
      const pane = page.getByRole("complementary", { name: "Files" });
      const grid = pane.getByRole("grid");
      const started = Date.now();
      await runInTerminal(page, `cd ${dir} && echo big-$((3+4))`, "big-7");
      await row(pane, name(0)).waitFor();
      const shownIn = Date.now() - started;
      // Every entry is the grid's (its row count), only those in view are in the page.
      const count = await grid.getAttribute("aria-rowcount");
      if (count !== String(ENTRIES + 1)) {
        throw new Error(`the grid says ${count} rows, not ${ENTRIES + 1}`);
      }
      const rendered = await grid.locator("tbody tr[data-index]").count();
      if (rendered > 200) {
        throw new Error(`${rendered} rows rendered for a pane a screen high`);
      }
      if ((await pane.getByText(/more not shown/).count()) !== 0) {
        throw new Error("the pane says entries were left out");
      }
      await page.screenshot({ path: join(OUTPUT, "ssh-files-big-top.png") });

      // End: the last entry, focused and selected, in view.
      await row(pane, name(0)).click();
      await page.keyboard.press("End");
      const last = row(pane, name(ENTRIES - 1));
      await until("the last entry focused", () => last.evaluate((el) => el === document.activeElement));
      if ((await last.getAttribute("aria-selected")) !== "true" || !(await last.isVisible())) {
        throw new Error("End did not select the last entry in view");
      }
      await page.screenshot({ path: join(OUTPUT, "ssh-files-big-end.png") });
      // Arrows and Home from there.
      await page.keyboard.press("ArrowUp");
      await until("the entry above focused", () =>
        row(pane, name(ENTRIES - 2)).evaluate((el) => el === document.activeElement),
      );
      await page.keyboard.press("Home");
      await until("the first entry focused", () => row(pane, name(0)).evaluate((el) => el === document.activeElement));
      // Typing a name goes to it.
      await page.keyboard.type("file-0617");
      await until("the typed entry focused", () =>
        row(pane, name(6170)).evaluate((el) => el === document.activeElement),
      );

      // Scrolled to the bottom with the scroll bar's worth of pixels: the last rows are there.
      await grid.evaluate((el) => {
        const list = el.parentElement;
        list.scrollTop = list.scrollHeight;
      });
      await last.waitFor();

      // Sorted by name, descending: the last name is the first row.
      await grid.getByRole("button", { name: "Name" }).click();
      await until(
        "sorted descending",
        async () => (await grid.locator("th.name").getAttribute("aria-sort")) === "descending",
      );
      await grid.evaluate((el) => {
        el.parentElement.scrollTop = 0;
      });
      await until("the first row is the last name", async () =>
        ((await grid.locator('tbody tr[data-index="0"]').textContent()) ?? "").includes(name(ENTRIES - 1)),
      );
      // By size: the biggest (96 bytes) first.
      await grid.getByRole("button", { name: "Size" }).click();
      await until("sorted by size, biggest first", async () =>
        /96 B/.test((await grid.locator('tbody tr[data-index="0"]').textContent()) ?? ""),
      );
      await page.screenshot({ path: join(OUTPUT, "ssh-files-big-sorted.png") });

      // Phone width: the sheet, still scrollable to the end.
      await page.setViewportSize({ width: 390, height: 760 });
      await until("the pane as a sheet", async () => {
        const box = await pane.boundingBox();
        return box !== null && box.width <= 390;
      });
      await grid.getByRole("button", { name: "Name" }).click();
      await until(
        "sorted by name again",
        async () => (await grid.locator("th.name").getAttribute("aria-sort")) === "ascending",
      );
      await grid.evaluate((el) => {
        el.parentElement.scrollTop = 0;
      });
      await row(pane, name(0)).click();
      await page.keyboard.press("End");
      await until("the last entry focused at phone width", () => last.evaluate((el) => el === document.activeElement));
      await page.screenshot({ path: join(OUTPUT, "ssh-files-big-phone.png") });
      await page.setViewportSize({ width: 1280, height: 760 });
      console.log(`10,000 entries: first row shown ${shownIn} ms after the cd was typed`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
