// Browser tests of broadcast input: three SSH tabs on real sshd fixtures (saved connections of
// one group, the third forbidding `printenv`) receive a line typed once into the banner's field;
// a line the third forbids is refused there and said so on that tab, sent nowhere until the user
// sends it to the other two; Esc stops. On a phone: broadcast started from the tab switcher, and
// the snippet palette from its header button. Registered by run.mjs.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openLocalOnPhone, savedFixtures } from "./wait.mjs";

export function broadcastTests({
  test,
  until,
  startWithFirstLine,
  activeTab,
  terminalText,
  runInTerminal,
  OUTPUT,
  SSHD,
}) {
  /** Whether a line of `tab`'s terminal is exactly `text`. */
  async function shows(page, tab, text) {
    return ((await terminalText(page, tab)) ?? "").split("\n").some((line) => line.trim() === text);
  }

  test("broadcast input: one line into three tabs, a forbidden one refused where it is forbidden", async ({
    page,
    served,
    home,
  }) => {
    const file = join(home, "connections.toml");
    const before = existsSync(file) ? readFileSync(file, "utf8") : "";
    const knownHosts = join(home, "known_hosts");
    const names = ["e2e-bc-1", "e2e-bc-2", "e2e-bc-3"];
    const hosts = names.map((name) => ({
      name,
      env: { BC_NAME: `from-${name}` },
      forbid: name === "e2e-bc-3" ? "printenv" : undefined,
    }));
    const { servers, profiles } = await savedFixtures(startWithFirstLine, SSHD, knownHosts, "bc", hosts);
    try {
      writeFileSync(file, profiles);
      await page.goto(served.url);
      const sidebar = page.getByRole("navigation", { name: "Connections" });
      const tabs = [];
      for (const name of names) {
        await sidebar.getByRole("button", { name: `Open ${name} (SSH)` }).click();
        await page.getByRole("tab", { name: new RegExp(name), selected: true }).waitFor();
        const tab = await activeTab(page);
        await until(`a shell prompt in ${name}`, async () => /[$#] ?$/m.test((await terminalText(page, tab)) ?? ""));
        tabs.push(tab);
      }

      // Chosen by group, started: the banner's field takes the typing.
      await page.getByRole("button", { name: "Broadcast…" }).click();
      const dialog = page.getByRole("dialog", { name: "Broadcast input" });
      await dialog.getByRole("button", { name: "Group bc (3)" }).click();
      await dialog.getByRole("button", { name: "Start broadcast to 3 tabs" }).click();
      const banner = page.getByRole("region", { name: "Broadcast input" });
      await banner.getByText("to 3 tabs: e2e-bc-1, e2e-bc-2, e2e-bc-3").waitFor();
      const field = banner.getByRole("textbox", { name: "Broadcast line" });
      await until("the line field focused", () => field.evaluate((el) => el === document.activeElement));
      await page.keyboard.type("echo bc-$((6*7))");
      await page.keyboard.press("Enter");
      const results = banner.getByRole("list", { name: "Broadcast results" });
      await until("sent to three", async () => (await results.getByText(/: sent$/).count()) === 3);
      for (const tab of tabs) {
        await until(`bc-42 in ${tab}`, () => shows(page, tab, "bc-42"));
      }

      // Forbidden on the third: refused there, sent nowhere.
      await field.fill("printenv BC_NAME");
      await field.press("Enter");
      const held = banner.getByRole("alert").filter({ hasText: "Not sent anywhere: refused on e2e-bc-3." });
      await held.waitFor();
      // An allowing tab's banner says it waits; the refusing tab's says why on its own.
      const refusedHere = banner.getByText(/^Refused on this tab: `printenv BC_NAME` is forbidden/);
      await page.getByRole("tab", { name: /e2e-bc-1/ }).click();
      await held.waitFor();
      if ((await refusedHere.count()) !== 0) {
        throw new Error("an allowing tab says the line was refused on it");
      }
      await page.screenshot({ path: join(OUTPUT, "broadcast-refused.png") });
      await page.getByRole("tab", { name: /e2e-bc-3/ }).click();
      await refusedHere.waitFor();
      await page.screenshot({ path: join(OUTPUT, "broadcast-refused-here.png") });

      // Sent to the other two on purpose; the third still gets nothing.
      await banner.getByRole("button", { name: "Send to the other 2" }).click();
      await until("e2e-bc-1 printed its name", () => shows(page, tabs[0], "from-e2e-bc-1"));
      await until("e2e-bc-2 printed its name", () => shows(page, tabs[1], "from-e2e-bc-2"));
      await field.fill("echo after-$((1+1))");
      await field.press("Enter");
      await until("after-2 in e2e-bc-3", () => shows(page, tabs[2], "after-2"));
      if (((await terminalText(page, tabs[2])) ?? "").includes("printenv")) {
        throw new Error("the forbidden line reached the tab that forbids it");
      }

      // Each tab's audit line for each line.
      const audit = readFileSync(join(home, "ai-audit.jsonl"), "utf8")
        .split("\n")
        .filter((line) => line.includes('"broadcast_input"'));
      for (const name of names) {
        const mine = audit.filter((line) => line.includes(`"connection":"${name}"`));
        if (mine.length < 3) {
          throw new Error(`${name} has ${mine.length} broadcast_input audit lines`);
        }
      }

      // Esc stops: the banner goes, and typing goes to one terminal again.
      await field.press("Escape");
      await banner.waitFor({ state: "detached" });
      await page.screenshot({ path: join(OUTPUT, "broadcast-stopped.png") });
    } finally {
      writeFileSync(file, before);
      for (const server of servers) {
        await server.stop();
      }
    }
  });

  test(
    "on a phone: broadcast from the tab switcher, the snippet palette from its button",
    async ({ page, served }) => {
      await page.goto(served.url);
      const tabs = [];
      for (let i = 0; i < 2; i += 1) {
        await openLocalOnPhone(page);
        await page.getByRole("button", { name: new RegExp(`^Tabs: .*, ${i + 1} open$`) }).waitFor();
        const tab = await activeTab(page);
        await runInTerminal(page, `echo tab-$((${i}+1))`, `tab-${i + 1}`);
        tabs.push(tab);
      }

      await page.getByRole("button", { name: /^Tabs: / }).click();
      await page.getByRole("dialog", { name: "Open tabs" }).getByRole("button", { name: "Broadcast…" }).click();
      const dialog = page.getByRole("dialog", { name: "Broadcast input" });
      for (const box of await dialog.getByRole("checkbox").all()) {
        await box.check();
      }
      await page.screenshot({ path: join(OUTPUT, "phone-broadcast-choose.png") });
      await dialog.getByRole("button", { name: "Start broadcast to 2 tabs" }).click();
      const banner = page.getByRole("region", { name: "Broadcast input" });
      const field = banner.getByRole("textbox", { name: "Broadcast line" });
      await field.fill("echo both-$((2*3))");
      await field.press("Enter");
      await until("sent to two", async () => (await banner.getByText(/: sent$/).count()) === 2);
      for (const tab of tabs) {
        await until(`both-6 in ${tab}`, () => shows(page, tab, "both-6"));
      }
      await page.screenshot({ path: join(OUTPUT, "phone-broadcast.png") });
      await banner.getByRole("button", { name: "Stop broadcast" }).click();
      await banner.waitFor({ state: "detached" });

      // No keyboard shortcut on a phone: the header's button opens the palette.
      await page.getByRole("button", { name: "Snippets" }).click();
      const palette = page.getByRole("dialog", { name: "Snippets" });
      await palette.waitFor();
      await page.screenshot({ path: join(OUTPUT, "phone-snippets.png") });
      await palette.getByRole("button", { name: "Close" }).click();
      await palette.waitFor({ state: "detached" });
    },
    { viewport: { width: 390, height: 760 }, hasTouch: true, isMobile: true },
  );
}
