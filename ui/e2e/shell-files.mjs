// Browser test of an SSH tab's file pane, registered by run.mjs: against run.mjs's sshd (shell
// integration on, so the shell reports its folder), the pane opened with "Files" follows a `cd`
// typed into the terminal, and "Open terminal here" after going elsewhere in the pane moves the
// shell there (its `pwd` says so), through a folder name that needs shell quoting; a delete goes
// through the engine's confirmation. Screenshots at desktop, phone and tablet widths.

import { join } from "node:path";

export function shellFilesTests({ test, until, runInTerminal, activeTab, terminalText, fillConnectionForm, OUTPUT }) {
  test("SSH tab file pane: follows cd, and Open terminal here moves the shell", async ({ page, served, sshd }) => {
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
}
