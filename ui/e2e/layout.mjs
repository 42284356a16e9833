// Browser tests of the app as a newcomer meets it, registered by run.mjs: the tab strip (the
// "All tabs" menu, moving tabs by dragging and by keys, one order in every window), the tablet
// held upright (the connections a drawer, Pilot over the terminal, storage actions in a menu),
// the phone's details (the extra keys' scroll hint, 44 px buttons, no keyboard hints, Pilot's
// half-height sheet), and two windows on one engine (a connection's prompt only in the window
// that asked, the pty at the size of the window that typed last). Desktop 1440×900, tablet
// 1024×1366 portrait, phone 390×844; each saves screenshots under ui/test-output/e2e/.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { devices } from "playwright-core";
import { removeHome } from "./wait.mjs";

const DESKTOP = { viewport: { width: 1440, height: 900 } };
const TABLET = {
  viewport: { width: 1024, height: 1366 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  userAgent: devices["iPad (gen 7)"].userAgent,
};
const PHONE = { ...devices["iPhone 13"], viewport: { width: 390, height: 844 } };
/** What a finger needs (docs/ui-contract.md): 44 CSS px each way. */
const TOUCH_TARGET = 44;

/** A key file that is not there is caught in the open "New connection" form `form` (port 9,
 * on which nothing is tried: the form stops first). */
async function missingKeyFileCaught(form) {
  await form.getByLabel("Host", { exact: true }).fill("127.0.0.1");
  await form.getByLabel("Port").fill("9");
  await form.getByLabel("User").fill("nobody");
  await form.getByLabel("Key file").fill("/nonexistent/kaiport/id_missing");
  await form.getByRole("button", { name: "Connect" }).click();
  await form.getByRole("alert").getByText("key file not found: /nonexistent/kaiport/id_missing").waitFor();
}

/** Fills the open "New connection" form with an SFTP storage tab on the sshd fixture's
 * `folder`; returns the dialog. */
export async function fillSftpForm(page, sshd, folder) {
  const form = page.getByRole("dialog", { name: "New connection" });
  await form.getByLabel("Kind").selectOption({ label: "SFTP (files)" });
  await form.getByLabel("Host", { exact: true }).fill("127.0.0.1");
  await form.getByLabel("Port").fill(String(sshd.port));
  await form.getByLabel("User").fill(sshd.user);
  await form.getByLabel("Folder", { exact: true }).fill(folder);
  await form.getByLabel("Key file").fill(sshd.key);
  return form;
}

/** Registers the tests with run.mjs's `test`. */
export function layoutTests({
  test,
  until,
  activeTab,
  terminalText,
  fillConnectionForm,
  startWithFirstLine,
  KAIPORT,
  OUTPUT,
}) {
  /** The tab ids in the tab strip's order. */
  async function stripOrder(page) {
    return page
      .getByRole("tablist", { name: "Open tabs" })
      .getByRole("tab")
      .evaluateAll((tabs) => tabs.map((t) => t.id.replace(/^tab-button-/, "")));
  }

  async function sameOrder(what, pages, expected) {
    await until(what, async () => {
      for (const page of pages) {
        if (JSON.stringify(await stripOrder(page)) !== JSON.stringify(expected)) return false;
      }
      return true;
    });
  }

  async function fingerSized(locator, what) {
    const box = await locator.boundingBox();
    if (box === null || box.width < TOUCH_TARGET - 0.5 || box.height < TOUCH_TARGET - 0.5) {
      throw new Error(`${what} is ${box?.width}×${box?.height} px, less than ${TOUCH_TARGET}`);
    }
  }

  /** Types `command` into the page's visible terminal and waits for `expected` on a line. */
  async function typeAndSee(page, command, expected) {
    const tab = await activeTab(page);
    await until("a shell prompt", async () => /[$#] ?$/m.test((await terminalText(page, tab)) ?? ""));
    await page.getByRole("region", { name: "Terminal" }).filter({ visible: true }).click();
    await page.keyboard.type(command);
    await page.keyboard.press("Enter");
    await until(`${expected} in the terminal`, async () =>
      ((await terminalText(page, tab)) ?? "").split("\n").some((line) => line.trim() === expected),
    );
  }

  test(
    "tabs: the All tabs menu, moving by drag and by Ctrl+Shift+PageDown, one order in two windows",
    async ({ page, context, served }) => {
      await page.goto(served.url);
      const newLocal = page.getByRole("button", { name: "New local terminal" }).first();
      for (let i = 0; i < 3; i++) {
        await newLocal.click();
      }
      const opened = await stripOrder(page);
      if (opened.length !== 3) throw new Error(`three tabs expected: ${opened}`);
      const [a, b, c] = opened;
      const other = await context.newPage();
      try {
        await other.goto(served.url);
        await sameOrder("both windows list the tabs in one order", [page, other], [a, b, c]);

        // The menu lists every tab; choosing one shows it.
        await page.getByRole("button", { name: "All tabs" }).click();
        const menu = page.getByRole("menu", { name: "All tabs" });
        const items = menu.getByRole("menuitemradio");
        if ((await items.count()) !== 3) throw new Error("the menu does not list every tab");
        await page.screenshot({ path: join(OUTPUT, "desktop-tabs-menu.png") });
        await items.nth(1).click();
        await menu.waitFor({ state: "detached" });
        if ((await activeTab(page)) !== b) throw new Error("the menu's choice is not shown");
        // By keyboard: arrows in the menu, Escape gives the focus back to its button.
        await page.getByRole("button", { name: "All tabs" }).click();
        const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
        // The tab shown is the menu's focused item; ArrowDown goes to the next.
        await page.waitForFunction(() => document.activeElement?.getAttribute("aria-checked") === "true");
        await page.keyboard.press("ArrowDown");
        await page.waitForFunction(() => document.activeElement?.getAttribute("aria-checked") === "false");
        await page.keyboard.press("Escape");
        await menu.waitFor({ state: "detached" });
        if ((await focused()) !== "▾") throw new Error(`the focus went to ${await focused()}`);

        // Ctrl+Shift+PageDown moves the tab shown one place right, in both windows.
        await page.keyboard.press("Control+Shift+PageDown");
        await sameOrder("the moved tab in both windows", [page, other], [a, c, b]);
        await page.keyboard.press("Control+Shift+PageUp");
        await sameOrder("moved back", [page, other], [a, b, c]);

        // Dragged with the pointer from the first place past the last.
        const first = await page.locator(`#tab-button-${a}`).boundingBox();
        const last = await page.locator(`#tab-button-${c}`).boundingBox();
        await page.mouse.move(first.x + first.width / 2, first.y + first.height / 2);
        await page.mouse.down();
        await page.mouse.move(first.x + first.width / 2 + 20, first.y + first.height / 2, { steps: 3 });
        await page.mouse.move(last.x + last.width + 10, last.y + last.height / 2, { steps: 5 });
        await page.screenshot({ path: join(OUTPUT, "desktop-tab-drag.png") });
        await page.mouse.up();
        await sameOrder("the dragged tab last in both windows", [page, other], [b, c, a]);
        // The drag is no click: the tab shown stays.
        if ((await activeTab(page)) !== b) throw new Error("the drag switched tabs");

        // A window that opens later gets the same order.
        await other.reload();
        await sameOrder("the order after a reload", [other], [b, c, a]);

        // Tablet and phone: the same menu; on a phone the header names the tab shown.
        await page.setViewportSize({ width: 1024, height: 1366 });
        await page.getByRole("button", { name: "All tabs" }).click();
        await page.screenshot({ path: join(OUTPUT, "tablet-tabs-menu.png") });
        await page.keyboard.press("Escape");
        await page.setViewportSize({ width: 390, height: 844 });
        const shown = await page.locator(`#tab-panel-${b}`).getAttribute("id");
        if (shown === null) throw new Error("no tab shown");
        await page.getByRole("button", { name: /^Tabs: local.*, 3 open$/ }).waitFor();
        await page.screenshot({ path: join(OUTPUT, "phone-tabs-header.png") });
      } finally {
        await other.close();
      }
    },
    DESKTOP,
  );

  test(
    "tablet portrait: connections in a drawer, Pilot over the terminal, storage actions in a menu",
    async ({ page, served, sshd }) => {
      await page.goto(served.url);
      const drawer = page.getByRole("navigation", { name: "Connections" });
      await page.getByRole("button", { name: "Connections" }).waitFor();
      if (await drawer.isVisible()) throw new Error("an upright tablet shows the sidebar column");
      await page.screenshot({ path: join(OUTPUT, "tablet-portrait-first-screen.png") });
      await page.getByRole("button", { name: "Connections" }).tap();
      await drawer.waitFor();
      await page.keyboard.press("Escape");
      await drawer.waitFor({ state: "detached" });
      // A choice in the drawer closes it.
      await page.getByRole("button", { name: "Connections" }).tap();
      await drawer.getByRole("button", { name: "New local terminal" }).tap();
      await drawer.waitFor({ state: "detached" });
      const tab = await activeTab(page);
      await until("a shell prompt", async () => /[$#] ?$/m.test((await terminalText(page, tab)) ?? ""));

      // The terminal has the width; Pilot opens over it and leaves it as it is.
      const before = await page.evaluate((id) => window.kaiport.terminalSize(id), tab);
      if (before.cols < 100) throw new Error(`the terminal has ${before.cols} columns`);
      const terminal = await page.getByRole("region", { name: "Terminal" }).boundingBox();
      await page.getByRole("button", { name: "Show Pilot" }).tap();
      const pilot = page.getByRole("complementary", { name: "Pilot panel" });
      await pilot.getByRole("textbox", { name: "Message Pilot" }).waitFor();
      const over = await pilot.boundingBox();
      if (over.x >= terminal.x + terminal.width - 1) throw new Error("Pilot is not over the terminal");
      const after = await page.evaluate((id) => window.kaiport.terminalSize(id), tab);
      if (after.cols !== before.cols) throw new Error(`the terminal went from ${before.cols} to ${after.cols} columns`);
      await page.screenshot({ path: join(OUTPUT, "tablet-portrait-pilot.png") });
      await page.keyboard.press("Escape");
      await pilot.getByRole("textbox", { name: "Message Pilot" }).waitFor({ state: "hidden" });
      await page.screenshot({ path: join(OUTPUT, "tablet-portrait-terminal.png") });

      // A storage tab: one row of tools, the rest in "More actions".
      await page.getByRole("button", { name: "Connections" }).tap();
      await drawer.getByRole("button", { name: "New connection" }).tap();
      const form = await fillSftpForm(page, sshd, "/tmp");
      await form.getByRole("button", { name: "Connect" }).tap();
      const trust = page
        .getByRole("dialog", { name: "Unknown host key" })
        .getByRole("button", { name: "Trust and connect" });
      const remote = page.getByRole("region", { name: /^sftp:/ });
      // The host key may be known from an earlier test on this server.
      const connecting = page.getByRole("tab", { selected: true, name: /connecting/ });
      await until(
        "the storage tab connected or its host key asked",
        async () => (await trust.isVisible()) || (await connecting.count()) === 0,
      );
      if (await trust.isVisible()) await trust.tap();
      const tools = remote.getByRole("toolbar", { name: /actions$/ });
      await tools.getByRole("button", { name: "Download" }).waitFor();
      const box = await tools.boundingBox();
      if (box.height > 2 * TOUCH_TARGET) throw new Error(`the storage tools take ${box.height} px`);
      await tools.getByRole("button", { name: "More actions" }).tap();
      const more = page.getByRole("menu", { name: "More actions" });
      for (const name of ["Refresh", "New folder", "Rename", "Delete"]) {
        await fingerSized(more.getByRole("menuitem", { name }), name);
      }
      await page.screenshot({ path: join(OUTPUT, "tablet-portrait-storage.png") });
      await more.getByRole("menuitem", { name: "New folder" }).tap();
      await page.getByRole("dialog", { name: "New folder" }).getByRole("button", { name: "Cancel" }).tap();
    },
    TABLET,
  );

  test(
    "phone: the extra keys say they scroll, buttons are 44 px, no keyboard hints, Pilot is a half-height sheet with a handle to drag",
    async ({ page, served }) => {
      await page.goto(served.url);
      await page.getByText("Pilot, an AI assistant").waitFor();
      for (const name of ["New local terminal", "New connection"]) {
        await fingerSized(page.getByRole("button", { name }).last(), `${name} on the first screen`);
      }
      if ((await page.getByText(/Ctrl\+Shift/).count()) !== 0) throw new Error("a phone shows keyboard shortcuts");
      await page.screenshot({ path: join(OUTPUT, "phone-first-screen.png") });
      await page.getByRole("button", { name: "New connection" }).last().tap();
      const form = page.getByRole("dialog", { name: "New connection" });
      await fingerSized(form.getByRole("button", { name: "Connect" }), "Connect");
      await fingerSized(form.getByRole("button", { name: "Cancel" }), "Cancel");
      await missingKeyFileCaught(form);
      await page.screenshot({ path: join(OUTPUT, "phone-key-file-not-found.png") });
      // A port nobody listens on: the failure's line fits the screen, its button in sight.
      await form.getByLabel("Key file").fill("");
      await form.getByRole("button", { name: "Connect" }).tap();
      const reconnect = page.getByRole("button", { name: "Reconnect" });
      await reconnect.waitFor();
      const status = await page.getByRole("status").filter({ has: reconnect }).boundingBox();
      const button = await reconnect.boundingBox();
      if (button.x + button.width > 390 || status.x + status.width > 390) {
        throw new Error(`the failure's line is cut: ${JSON.stringify({ status, button })}`);
      }
      await fingerSized(reconnect, "Reconnect");
      await page.screenshot({ path: join(OUTPUT, "phone-failed.png") });

      // A terminal: the extra keys' row is wider than the screen and shows that it scrolls.
      await page.getByRole("button", { name: /^Tabs: / }).tap();
      const switcher = page.getByRole("dialog", { name: "Open tabs" });
      await switcher.getByRole("button", { name: /^Close tab / }).tap();
      await switcher.getByRole("button", { name: "Done" }).tap();
      await page.getByRole("button", { name: "New local terminal" }).last().tap();
      const keys = page.getByRole("toolbar", { name: "Extra keys" });
      await keys.waitFor();
      const hint = (side) => keys.evaluate((row, s) => row.parentElement.classList.contains(`more-${s}`), side);
      await until("the hint that more keys are right", () => hint("right"));
      if (await hint("left")) throw new Error("a hint of keys left of the first");
      await page.screenshot({ path: join(OUTPUT, "phone-extra-keys.png") });
      await keys.evaluate((row) => row.scrollTo({ left: row.scrollWidth }));
      await until("the hint that more keys are left", async () => (await hint("left")) && !(await hint("right")));
      await page.screenshot({ path: join(OUTPUT, "phone-extra-keys-scrolled.png") });

      // Pilot: half the height, the terminal in sight above; the handle expands and shrinks it.
      await page.getByRole("button", { name: "Pilot", exact: true }).tap();
      const sheet = page.getByRole("complementary", { name: "Pilot panel" });
      const message = sheet.getByRole("textbox", { name: "Message Pilot" });
      await message.waitFor();
      if (/Ctrl/.test((await message.getAttribute("placeholder")) ?? "")) {
        throw new Error("the message box names a keyboard shortcut on a phone");
      }
      const half = await sheet.boundingBox();
      if (half.height > 844 * 0.55 || half.height < 844 * 0.4) throw new Error(`the sheet is ${half.height} px high`);
      await page.screenshot({ path: join(OUTPUT, "phone-pilot-half.png") });
      await sheet.getByRole("button", { name: "Expand Pilot" }).tap();
      await until("the whole height", async () => (await sheet.boundingBox()).height > 844 * 0.8);
      await page.screenshot({ path: join(OUTPUT, "phone-pilot-expanded.png") });
      await sheet.getByRole("button", { name: "Shrink Pilot" }).tap();
      await until("half the height again", async () => (await sheet.boundingBox()).height < 844 * 0.55);
      // The handle dragged: up gives the whole height, down half again, down once more closes.
      const handle = sheet.getByRole("button", { name: /^(Expand|Shrink) Pilot$/ });
      const drag = async (dy) => {
        const box = await handle.boundingBox();
        const x = box.x + box.width / 2;
        const y = box.y + box.height / 2;
        await page.mouse.move(x, y);
        await page.mouse.down();
        await page.mouse.move(x, y + dy, { steps: 5 });
        await page.mouse.up();
      };
      await drag(-200);
      await until("the whole height, dragged", async () => (await sheet.boundingBox()).height > 844 * 0.8);
      await drag(200);
      await until("half the height, dragged", async () => (await sheet.boundingBox()).height < 844 * 0.55);
      await drag(200);
      await message.waitFor({ state: "hidden" });
    },
    PHONE,
  );

  // What the phone test checks of the first screen and the form, on the desktop and the tablet.
  for (const [size, device] of [
    ["desktop", DESKTOP],
    ["tablet", TABLET],
  ]) {
    test(
      `${size}: the first screen says what kaiport is; a missing key file is caught in the form`,
      async ({ page, served }) => {
        await page.goto(served.url);
        const about = page.locator(".empty .about");
        await about.getByText("Pilot, an AI assistant").waitFor();
        for (const words of ["storage", "approval", "audit log"]) {
          if (!((await about.textContent()) ?? "").replace(/\s+/g, " ").includes(words)) {
            throw new Error(`the first screen does not mention ${words}`);
          }
        }
        // Two lines, as written, wherever there is room for them (not wrapped into four).
        const lines = await about.evaluate((el) =>
          Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)),
        );
        if (size === "desktop" && lines > 2) throw new Error(`the first screen's text takes ${lines} lines`);
        // A touch screen names no keyboard shortcut.
        if (device.hasTouch === true && (await page.getByText(/Ctrl\+Shift/).count()) !== 0) {
          throw new Error("a touch tablet shows keyboard shortcuts");
        }
        await page.screenshot({ path: join(OUTPUT, `${size}-first-screen.png`) });
        await page.locator(".empty").getByRole("button", { name: "New connection" }).click();
        const form = page.getByRole("dialog", { name: "New connection" });
        await missingKeyFileCaught(form);
        await page.screenshot({ path: join(OUTPUT, `${size}-key-file-not-found.png`) });
        await form.getByRole("button", { name: "Cancel" }).click();
        if ((await page.getByRole("tab").count()) !== 0) {
          throw new Error("a form with a missing key file opened a tab");
        }
      },
      device,
    );
  }

  test("two windows: the host-key prompt only where the tab was opened, the pty at the size of the window that typed", async ({
    browser,
    sshd,
  }) => {
    // A server of its own: its known_hosts does not know the sshd yet.
    const home = mkdtempSync(join(tmpdir(), "kaiport-e2e-windows-"));
    const env = { ...process.env, KAIPORT_HOME: home, HOME: home, SHELL: "/bin/bash", PS1: "\\$ " };
    const serve = await startWithFirstLine(KAIPORT, ["serve", "--known-hosts", join(home, "known_hosts")], {
      env,
      cwd: home,
    });
    const bigContext = await browser.newContext({ ...DESKTOP, colorScheme: "light" });
    const smallContext = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: "light" });
    try {
      const url = serve.line.trim();
      const big = await bigContext.newPage();
      const small = await smallContext.newPage();
      await big.goto(url);
      await small.goto(url);
      await small.getByRole("button", { name: "New connection" }).last().waitFor();
      const form = await fillConnectionForm(big, { port: sshd.port, user: sshd.user, key: sshd.key });
      await form.getByRole("button", { name: "Connect" }).click();
      const prompt = big.getByRole("dialog", { name: "Unknown host key" });
      await prompt.waitFor();
      // The other window says that the tab waits, and asks nothing.
      const notice = small.getByRole("status").filter({ hasText: "waits for an answer in the window that opened it" });
      await notice.waitFor();
      if ((await small.getByRole("dialog", { name: "Unknown host key" }).count()) !== 0) {
        throw new Error("the host-key prompt shows in the other window");
      }
      await small.screenshot({ path: join(OUTPUT, "windows-prompt-elsewhere.png") });
      await big.screenshot({ path: join(OUTPUT, "windows-prompt-here.png") });
      await prompt.getByRole("button", { name: "Trust and connect" }).click();
      await notice.waitFor({ state: "detached" });

      const size = async (page) => page.evaluate((id) => window.kaiport.terminalSize(id), await activeTab(page));
      const bigSize = await size(big);
      const smallSize = await size(small);
      if (bigSize.cols <= smallSize.cols) throw new Error(`sizes ${JSON.stringify({ bigSize, smallSize })}`);
      await typeAndSee(big, "stty size", `${bigSize.rows} ${bigSize.cols}`);
      await typeAndSee(small, "stty size", `${smallSize.rows} ${smallSize.cols}`);
      await small.screenshot({ path: join(OUTPUT, "windows-small-typed.png") });
      await typeAndSee(big, "stty size", `${bigSize.rows} ${bigSize.cols}`);
      await big.screenshot({ path: join(OUTPUT, "windows-big-typed.png") });
      // The small window resizes while the big one types: the pty keeps the big one's size.
      await small.setViewportSize({ width: 360, height: 700 });
      await until("the small terminal refitted", async () => (await size(small)).cols !== smallSize.cols);
      await typeAndSee(big, "stty size", `${bigSize.rows} ${bigSize.cols}`);
      await big.getByRole("button", { name: /^Close tab / }).click();
    } finally {
      await bigContext.close();
      await smallContext.close();
      serve.child.kill("SIGINT");
      await new Promise((r) => (serve.child.exitCode !== null ? r() : serve.child.once("exit", r)));
      await removeHome(home);
    }
  });
}

/** Opens the app's "Settings" (from the connections drawer where the sidebar is one); returns
 * the dialog. */
export async function openSettings(page) {
  const direct = page.getByRole("button", { name: "Settings", exact: true });
  if (!(await direct.isVisible())) {
    await page.getByRole("button", { name: "Connections", exact: true }).click();
  }
  await direct.click();
  const dialog = page.getByRole("dialog", { name: "Settings" });
  await dialog.waitFor();
  return dialog;
}

/** Registers the Settings tests with run.mjs's `test`: desktop, tablet and phone. */
export function settingsTests({ test, until, activeTab, terminalText, OUTPUT }) {
  for (const [size, device] of [
    ["desktop", DESKTOP],
    ["tablet", TABLET],
    ["phone", PHONE],
  ]) {
    test(
      `${size}: Settings — the theme, the terminal's font and size apply at once to an open terminal and stay; the keys listed`,
      async ({ page, served }) => {
        await page.goto(served.url);
        // The first screen's button, else (tabs open already) the sidebar's or the drawer's.
        const newLocal = page.getByRole("button", { name: "New local terminal" }).filter({ visible: true });
        await page.getByText("Connecting to kaiport").waitFor({ state: "hidden" });
        // The first screen or the sidebar may come a moment after the link: wait for one of them.
        const drawer = page.getByRole("button", { name: "Connections", exact: true });
        await until(
          "New local terminal or the connections drawer",
          async () => (await newLocal.count()) > 0 || (await drawer.isVisible()),
        );
        if ((await newLocal.count()) === 0) {
          await drawer.click();
        }
        const tabsBefore = await page.locator('[id^="tab-panel-"]').count();
        await newLocal.first().click();
        await until("the new tab", async () => (await page.locator('[id^="tab-panel-"]').count()) > tabsBefore);
        const tab = await activeTab(page);
        await until("a shell prompt", async () => /[$#] ?$/m.test((await terminalText(page, tab)) ?? ""));
        const gridOf = () => page.evaluate((id) => window.kaiport.terminalSize(id), tab);
        const before = await gridOf();
        const terminalInk = () =>
          page.locator(`#tab-panel-${tab} .xterm-rows`).evaluate((element) => getComputedStyle(element).color);

        const dialog = await openSettings(page);
        const theme = dialog.getByRole("radiogroup", { name: "Theme" });
        if (!(await theme.getByRole("radio", { name: "System" }).isChecked())) {
          throw new Error("the theme does not start as the system's");
        }
        await theme.getByRole("radio", { name: "Dark" }).check();
        await until(
          "the page and the terminal in the dark theme",
          async () =>
            (await page.evaluate(() => document.documentElement.dataset.theme)) === "dark" &&
            // The dark theme's foreground (lib/xterm.ts).
            (await terminalInk()) === "rgb(216, 222, 233)",
        );
        // The keyboard shortcuts are listed.
        const keys = dialog.getByRole("table", { name: "Keyboard shortcuts" });
        for (const [chord, what] of [
          ["Ctrl+Shift+T", "New local terminal"],
          ["Ctrl+Shift+F", "Search in the terminal"],
          ["Ctrl+Shift+P", "Focus “Message Pilot”"],
          ["Ctrl+,", "Open these settings"],
        ]) {
          await keys.getByRole("row", { name: `${chord} ${what}` }).waitFor();
        }
        await dialog.getByLabel("Font family").fill('"DejaVu Sans Mono", monospace');
        await dialog.getByLabel("Font family").press("Tab");
        await dialog.getByLabel("Font size").fill("22");
        await dialog.getByRole("button", { name: "Set up Pilot…" }).waitFor();
        await page.screenshot({ path: join(OUTPUT, `${size}-settings.png`) });
        await dialog.getByRole("button", { name: "Close" }).click();
        await dialog.waitFor({ state: "detached" });

        // The open terminal took the bigger font: fewer columns, and the shell was told.
        const bigger = await until("fewer columns", async () => {
          const now = await gridOf();
          return now.cols < before.cols && now.rows < before.rows ? now : null;
        });
        const family = await page
          .locator(`#tab-panel-${tab} .xterm-rows`)
          .evaluate((element) => getComputedStyle(element).fontFamily);
        if (!family.startsWith('"DejaVu Sans Mono"')) {
          throw new Error(`the terminal's font is ${family}`);
        }
        await page.getByRole("region", { name: "Terminal" }).filter({ visible: true }).click();
        await page.keyboard.type("echo size=$(stty size)");
        await page.keyboard.press("Enter");
        await until(`the shell told ${bigger.rows} ${bigger.cols}`, async () =>
          ((await terminalText(page, tab)) ?? "")
            .split("\n")
            .some((line) => line.trim() === `size=${bigger.rows} ${bigger.cols}`),
        );
        await page.screenshot({ path: join(OUTPUT, `${size}-settings-dark-terminal.png`) });

        // Kept: after a reload the page is dark and the terminal at the chosen size.
        await page.reload();
        await until("the dark theme after a reload", async () =>
          page.evaluate(() => document.documentElement.dataset.theme === "dark"),
        );
        // Whichever terminal tab the page shows: the same pane at the same font.
        await until("the chosen font size after a reload", async () => {
          const now = await page.evaluate((id) => window.kaiport.terminalSize(id), await activeTab(page));
          return now !== null && now.cols === bigger.cols;
        });
        // With a keyboard, Ctrl+, opens Settings too, even from the terminal.
        let again;
        if (size === "desktop") {
          await page.getByRole("region", { name: "Terminal" }).filter({ visible: true }).click();
          await page.keyboard.press("Control+Comma");
          again = page.getByRole("dialog", { name: "Settings" });
          await again.waitFor();
        } else {
          again = await openSettings(page);
        }
        if ((await again.getByLabel("Font size").inputValue()) !== "22") {
          throw new Error("the font size was not kept");
        }
        // Back to the system's theme: light here (the context asks for light).
        await again.getByRole("radio", { name: "System" }).check();
        await until(
          "the light theme",
          async () => (await page.evaluate(() => document.documentElement.dataset.theme)) === "light",
        );
        // "Set up Pilot…" leads to Pilot's own settings, where a model and its key are chosen.
        await again.getByRole("button", { name: "Set up Pilot…" }).click();
        const pilot = page.getByRole("dialog", { name: "Pilot settings" });
        await pilot.waitFor();
        await pilot.getByLabel("API key").waitFor();
        await page.screenshot({ path: join(OUTPUT, `${size}-settings-pilot.png`) });
        await page.keyboard.press("Escape");
        await pilot.waitFor({ state: "detached" });
        // Back in Settings, where it was opened from.
        await again.getByRole("button", { name: "Close" }).click();
        await again.waitFor({ state: "detached" });
      },
      device,
    );
  }
}
