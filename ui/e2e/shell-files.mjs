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
// and no audit line.

import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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
      return /[$#] ?$/m.test((await terminalText(page, tab)) ?? "");
    });
    return tab;
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
}
