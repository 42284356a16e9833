// Browser test of the snippet palette: opened by keyboard only over an SSH tab on the sshd
// fixture, a snippet chosen with the arrows, its variable asked for (its default filled), and
// the expanded line typed into the terminal as the user's input — not run, as the snippet has
// no Enter flag — until the user presses Enter; and handed to a fleet run instead. Registered by
// run.mjs.

import { writeFileSync } from "node:fs";
import { join } from "node:path";

export function snippetTests({ test, until, runInTerminal, activeTab, terminalText, fillConnectionForm, OUTPUT }) {
  test("the snippet palette types a snippet with its variables into the terminal, without Enter", async ({
    page,
    served,
    sshd,
  }) => {
    writeFileSync(
      join(served.home, "snippets.toml"),
      [
        "[[snippet]]",
        'name = "say other"',
        'command = "echo other"',
        "",
        "[[snippet]]",
        'name = "make marker"',
        'description = "Echo a marker"',
        'command = "echo snip-{{word}}-{{n:7}}-{{user}} \\\\{{literal}}"',
        "",
      ].join("\n"),
    );
    await page.goto(served.url);
    const form = await fillConnectionForm(page, { port: sshd.port, user: sshd.user, key: sshd.key });
    await form.getByRole("button", { name: "Connect" }).click();
    // The host key may be known already (an earlier test trusted it on this server).
    const hostKey = page.getByRole("dialog", { name: "Unknown host key" });
    const tab = await activeTab(page);
    await until("a shell prompt", async () => {
      if (await hostKey.isVisible()) {
        await hostKey.getByRole("button", { name: "Trust and connect" }).click();
      }
      return /[$#] ?$/m.test((await terminalText(page, tab)) ?? "");
    });
    await runInTerminal(page, "echo ready-$((40+2))", "ready-42");

    // Keyboard only from here: the terminal has the focus.
    await page.keyboard.press("Control+Shift+S");
    const palette = page.getByRole("dialog", { name: "Snippets" });
    await palette.waitFor();
    const search = palette.getByRole("combobox", { name: "Search snippets" });
    await until("the search field focused", () => search.evaluate((el) => el === document.activeElement));
    const options = palette.getByRole("option");
    await until("both snippets listed", async () => (await options.count()) === 2);
    await page.keyboard.press("ArrowDown");
    await palette.getByRole("option", { name: /make marker/, selected: true }).waitFor();
    await page.keyboard.type("mark");
    await until("the filter keeps one", async () => (await options.count()) === 1);
    await page.screenshot({ path: join(OUTPUT, "snippets-palette.png") });
    await page.keyboard.press("Enter");

    const word = palette.getByLabel("word", { exact: true });
    await word.waitFor();
    await until("the first variable focused", () => word.evaluate((el) => el === document.activeElement));
    const n = await palette.getByLabel("n", { exact: true }).inputValue();
    if (n !== "7") throw new Error(`the default is not filled in: ${JSON.stringify(n)}`);
    await page.keyboard.type("hello");
    await page.screenshot({ path: join(OUTPUT, "snippets-variables.png") });
    await page.keyboard.press("Enter");
    await palette.waitFor({ state: "hidden" });

    const line = `echo snip-hello-7-${sshd.user} {{literal}}`;
    await until("the expanded line at the prompt", async () =>
      ((await terminalText(page, tab)) ?? "").split("\n").some((l) => l.trimEnd().endsWith(line)),
    );
    const output = `snip-hello-7-${sshd.user} {{literal}}`;
    const ran = () =>
      terminalText(page, tab).then((text) => (text ?? "").split("\n").some((l) => l.trimEnd() === output));
    if (await ran()) throw new Error("the snippet ran without its Enter flag");
    await page.screenshot({ path: join(OUTPUT, "snippets-typed.png") });
    // The line is the user's: the terminal has the focus back, and Enter runs it.
    await page.keyboard.press("Enter");
    await until("the line ran after the user's Enter", ran);

    // A new snippet made in the palette is listed at once, and deleted there again.
    await page.keyboard.press("Control+Shift+S");
    await palette.waitFor();
    await palette.getByRole("button", { name: "New snippet" }).click();
    await palette.getByLabel("Name", { exact: true }).fill("disk here");
    await palette.getByLabel("Description").fill("Disk use of the current folder");
    await palette.getByLabel("Command").fill("du -sh {{cwd}}");
    await page.screenshot({ path: join(OUTPUT, "snippets-new.png") });
    await palette.getByRole("button", { name: "Save" }).click();
    await palette.getByRole("option", { name: /disk here/ }).waitFor();
    await until("three snippets listed", async () => (await options.count()) === 3);
    await page.keyboard.type("disk");
    await palette.getByRole("button", { name: "Edit" }).click();
    await palette.getByRole("button", { name: "Delete" }).click();
    await until("the snippet deleted", async () => (await options.count()) === 2);
    await page.keyboard.press("Escape");
    await palette.waitFor({ state: "hidden" });

    // "Run on connections…" hands the expanded line to a fleet run instead of the terminal; not
    // for a snippet with {{user}}, whose value is this tab's.
    await page.keyboard.press("Control+Shift+S");
    await palette.waitFor();
    const fleet = palette.getByRole("button", { name: "Run on connections…" });
    await page.keyboard.type("marker");
    await until("the filter keeps one", async () => (await options.count()) === 1);
    if (await fleet.isEnabled()) throw new Error("a snippet with {{user}} can be run on other connections");
    await search.fill("other");
    await until("the filter keeps the other", async () => (await options.count()) === 1);
    await fleet.click();
    await palette.waitFor({ state: "hidden" });
    const command = page.getByRole("textbox", { name: "Command" });
    await until("the fleet dialog with the snippet's line", async () => (await command.inputValue()) === "echo other");
    await page.screenshot({ path: join(OUTPUT, "snippets-fleet.png") });
    await page.keyboard.press("Escape");
    await command.waitFor({ state: "hidden" });
  });
}
