// Browser tests of the view cards (show_view): the scripted model asks for a view of the real
// sshd fixture, the card shows the view's table, summary and commands; a view's button shows its
// exact command, asks in a dialog, runs nothing on "Cancel" and types exactly that command into
// the terminal on "Run".

import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pilotKit } from "./pilot.mjs";

/** Makes `name`.pem in `dir` with openssl, as tests/suite/views.rs does: valid for `days`, or
 * (days null) expired in 2020 (`openssl req` cannot date a certificate in the past; `openssl ca`
 * can). */
function certificate(dir, name, days) {
  const [key, pem] = [join(dir, `${name}.key`), join(dir, `${name}.pem`)];
  const identity = ["-subj", `/CN=${name}.kaiport.invalid`, "-addext", `subjectAltName=DNS:${name}.kaiport.invalid`];
  const newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key];
  const openssl = (args) => execFileSync("openssl", args, { stdio: "pipe" });
  if (days !== null) {
    openssl(["req", "-x509", ...newKey, "-out", pem, "-days", String(days), ...identity]);
  } else {
    const ca = join(dir, "ca");
    mkdirSync(join(ca, "new"), { recursive: true });
    writeFileSync(join(ca, "index.txt"), "");
    writeFileSync(join(ca, "serial"), "01\n");
    writeFileSync(
      join(ca, "ca.cnf"),
      `[ca]\ndefault_ca=kp\n[kp]\ndatabase=${ca}/index.txt\nnew_certs_dir=${ca}/new\nserial=${ca}/serial\n` +
        "default_md=sha256\npolicy=any\ncopy_extensions=copy\n[any]\ncommonName=supplied\n",
    );
    const csr = join(dir, `${name}.csr`);
    openssl(["req", "-new", ...newKey, "-out", csr, ...identity]);
    openssl([
      "ca",
      "-batch",
      "-notext",
      "-config",
      join(ca, "ca.cnf"),
      "-selfsign",
      "-keyfile",
      key,
      "-in",
      csr,
      "-out",
      pem,
      "-startdate",
      "20200101000000Z",
      "-enddate",
      "20200201000000Z",
    ]);
    rmSync(csr);
    rmSync(ca, { recursive: true, force: true });
  }
  chmodSync(pem, 0o644);
}

/**
 * Registers the view card tests with run.mjs's `test`. `h` carries run.mjs's helpers and paths.
 */
export function viewTests(test, h) {
  const { until, activeTab, OUTPUT } = h;
  const { withPilot, openSsh, message, panel, turnDone } = pilotKit(h);

  const terminalText = async (page, tab) => (await page.evaluate((id) => window.kaiport.terminalText(id), tab)) ?? "";

  /** The card is no wider than the panel it is in (large tables scroll inside it). */
  async function fitsThePanel(page, card) {
    const [cardBox, panelBox] = [await card.boundingBox(), await panel(page).boundingBox()];
    if (cardBox.x < panelBox.x - 1 || cardBox.x + cardBox.width > panelBox.x + panelBox.width + 1) {
      throw new Error(`the card (${JSON.stringify(cardBox)}) is wider than the panel (${JSON.stringify(panelBox)})`);
    }
  }

  test("Pilot: show_view disk on the sshd fixture: a view card with the file systems, usage bars, the summary and its commands", async ({
    page,
    sshd,
  }) => {
    await withPilot(
      {
        steps: [
          {
            expect: { tools_include: ["show_view"] },
            respond: {
              text: "Let me look at the disks.",
              tool_calls: [{ name: "show_view", arguments: { view: "disk" } }],
            },
          },
          {
            expect: { last_result_contains: ["file systems", "the disk view is on the user's screen"] },
            respond: { text: "The root file system has room." },
          },
        ],
      },
      async ({ url }) => {
        await openSsh(page, url, sshd);
        await message(page, "how full are the disks?");
        const card = panel(page).getByRole("article", { name: "View disk" });
        await card.waitFor();
        await turnDone(page);
        await panel(page).getByText("The root file system has room.").waitFor();
        // The header: the view's name and the first line of the summary Pilot got.
        const header = card.getByRole("button", { expanded: true }).first();
        const headerText = (await header.textContent()) ?? "";
        if (!/disk\s*\d+ file systems, \d+ at or above 90%/.test(headerText)) {
          throw new Error(`the header says ${JSON.stringify(headerText)}`);
        }
        // The table: a row per file system of this machine, "/" among them, each with a bar.
        const table = card.getByRole("table", { name: "File systems" });
        const headers = await table.locator("th").allTextContents();
        if (headers.slice(0, 4).join(",") !== "Mounted on,Full,Free,Size") {
          throw new Error(`columns: ${headers}`);
        }
        const rows = await table
          .locator("tbody tr")
          .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent.trim())));
        const root = rows.find((cells) => cells[0] === "/");
        if (root === undefined || !/^(⚠ )?\d+%$/.test(root[1]) || !/ (GB|TB|MB)$/.test(root[3])) {
          throw new Error(`no sensible row for /: ${JSON.stringify(rows)}`);
        }
        const bars = await table.locator("tbody .bar").count();
        if (bars !== rows.length) {
          throw new Error(`${bars} bars for ${rows.length} file systems`);
        }
        // A file system at or above 90% is marked with a word-like shape, not colour alone.
        for (const cells of rows) {
          const share = Number(/(\d+)%/.exec(cells[1])?.[1]);
          if (share >= 90 !== cells[1].startsWith("⚠")) {
            throw new Error(`the mark of ${cells[0]} is wrong: ${cells[1]}`);
          }
        }
        await fitsThePanel(page, card);
        // The summary Pilot got, and the exact commands that ran, on request.
        await card.getByText("What Pilot was told").click();
        const told = (await card.getByLabel("Summary").textContent()) ?? "";
        if (!told.includes("file systems") || !told.includes(" / ")) {
          throw new Error(`the summary: ${told}`);
        }
        await card.getByText(/^Commands that ran \(2\)$/).click();
        const commands = await card
          .getByRole("list", { name: "Commands that ran" })
          .locator(".command")
          .allTextContents();
        if (commands.join("|") !== "df -PT -B1|df -Pi") {
          throw new Error(`commands: ${commands}`);
        }
        await card.getByText("exit 0, ").first().waitFor();
        await card.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(OUTPUT, "pilot-view-disk.png") });
        await page.emulateMedia({ colorScheme: "dark" });
        await page.screenshot({ path: join(OUTPUT, "pilot-view-disk-dark.png") });
        // Collapsed, it is one line: name and summary.
        await header.click();
        await table.waitFor({ state: "detached" });
        await card.screenshot({ path: join(OUTPUT, "pilot-view-disk-collapsed-dark.png") });
      },
    );
  });

  test("Pilot: a view's button shows its command, asks first; Cancel runs nothing, Run types exactly that command", async ({
    page,
    sshd,
  }) => {
    // A log file the fixture's user may read, with lines that must stay text.
    const dir = mkdtempSync(join("/tmp", "kaiport-e2e-view-"));
    chmodSync(dir, 0o755);
    const log = join(dir, "app.log");
    writeFileSync(
      log,
      "start ok\nWARNING low disk\nERROR \u001b]0;pwned-title\u0007database connection failed\n" +
        "\u001b[31mred\u001b[0m <b>not bold</b> <img src=x onerror=window.pwned=1>\nfatal: out of memory\n",
    );
    chmodSync(log, 0o644);
    const command = `tail -F -n 50 -- '${log}'`;
    try {
      await withPilot(
        {
          steps: [
            { respond: { tool_calls: [{ name: "show_view", arguments: { view: "logs", path: log } }] } },
            {
              // The model gets the counts, never the lines (send_file_contents is off).
              expect: { last_result_contains: ["2 errors, 1 warnings"], body_excludes: ["database connection failed"] },
              respond: { text: "Two errors in that log." },
            },
          ],
        },
        async ({ url }) => {
          await openSsh(page, url, sshd);
          const tab = await activeTab(page);
          await message(page, "anything wrong in the app log?");
          const card = panel(page).getByRole("article", { name: `View logs ${log}` });
          await card.waitFor();
          await turnDone(page);
          // The lines, as text: no escape characters, no markup from the log.
          const lines = card.getByRole("log", { name: "Log, oldest first" });
          const text = (await lines.textContent()) ?? "";
          // eslint-disable-next-line no-control-regex -- control characters are what it looks for
          if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text)) {
            throw new Error(`a control character in the shown log: ${JSON.stringify(text)}`);
          }
          for (const expected of ["database connection failed", "<b>not bold</b>", "fatal: out of memory"]) {
            if (!text.includes(expected)) {
              throw new Error(`the log lacks ${expected}: ${text}`);
            }
          }
          if ((await card.locator("b, img").count()) > 0 || (await page.evaluate(() => window.pwned !== undefined))) {
            throw new Error("the log's markup became elements");
          }
          if (
            (await card.locator(".line.error").count()) !== 2 ||
            (await card.locator(".line.warning").count()) !== 1
          ) {
            throw new Error("the errors and the warning are not marked");
          }
          // The button says what it types.
          const actions = card.getByRole("list", { name: "Actions" });
          const button = actions.getByRole("button", { name: `follow ${log}` });
          if (((await actions.locator("code").textContent()) ?? "") !== command) {
            throw new Error(`the button shows ${await actions.locator("code").textContent()}`);
          }
          await page.screenshot({ path: join(OUTPUT, "pilot-view-logs.png") });
          // Pressed, it asks, with the exact command; Cancel runs nothing.
          await button.click();
          const dialog = page.getByRole("dialog", { name: "Run in the terminal?" });
          await dialog.waitFor();
          if ((await dialog.getByLabel("Command").textContent()) !== command) {
            throw new Error(`the dialog shows ${await dialog.getByLabel("Command").textContent()}`);
          }
          await page.screenshot({ path: join(OUTPUT, "pilot-view-button-dialog.png") });
          await dialog.getByRole("button", { name: "Cancel" }).click();
          await dialog.waitFor({ state: "detached" });
          // A press shows in the card as it is sent. That nothing reached the terminal shows once
          // Run's command is there (below): ops go out in order, so one sent here came first.
          if ((await card.getByRole("list", { name: "Pressed buttons" }).count()) !== 0) {
            throw new Error("Cancel pressed the button");
          }
          // Escape runs nothing either.
          await button.click();
          await dialog.waitFor();
          await page.keyboard.press("Escape");
          await dialog.waitFor({ state: "detached" });
          // Run: exactly that command, typed at the prompt, following the file.
          await button.click();
          await dialog.getByRole("button", { name: "Run" }).click();
          const pressed = card.getByRole("list", { name: "Pressed buttons" });
          await pressed.getByText("typed into the terminal").waitFor();
          if ((await pressed.locator("li").count()) !== 1) {
            throw new Error(`pressed more than once: ${await pressed.textContent()}`);
          }
          const typed = await until("the command in the terminal", async () =>
            (await terminalText(page, tab)).split("\n").find((line) => line.includes("tail -F")),
          );
          const prompt = typed.slice(0, typed.length - command.length);
          if (!typed.endsWith(command) || !/[$#] ?$/.test(prompt)) {
            throw new Error(`the terminal shows ${JSON.stringify(typed)}, not ${JSON.stringify(command)} at a prompt`);
          }
          await until("tail's output", async () => (await terminalText(page, tab)).includes("fatal: out of memory"));
          appendFileSync(log, "followed-line-42\n");
          await until("the followed line", async () => (await terminalText(page, tab)).includes("followed-line-42"));
          if ((await terminalText(page, tab)).split("\n").filter((line) => line.includes("tail -F")).length !== 1) {
            throw new Error("the command was typed more than once (by Cancel or Escape too?)");
          }
          await page.emulateMedia({ colorScheme: "dark" });
          await page.screenshot({ path: join(OUTPUT, "pilot-view-button-ran-dark.png") });
          // The follow runs in the terminal until the user stops it.
          await page.getByRole("region", { name: "Terminal" }).click();
          await page.keyboard.press("Control+C");
          // A reload shows the card again, with what its button did.
          await page.reload();
          await card.getByRole("log", { name: "Log, oldest first" }).getByText("fatal: out of memory").waitFor();
          await card.getByRole("list", { name: "Pressed buttons" }).getByText("typed into the terminal").waitFor();
          if ((await card.getByRole("list", { name: "Pressed buttons" }).locator("li").count()) !== 1) {
            throw new Error("the reloaded card shows another number of presses");
          }
          // The audit log says the view's button made that call (By), approved by the user,
          // and its By filter keeps it while leaving out Pilot's show_view.
          await page.getByRole("button", { name: "Audit log" }).click();
          const audit = page.getByRole("dialog", { name: "Audit log" });
          const rows = audit.locator("tbody tr");
          const pressRow = rows.filter({ hasText: command });
          const viewRow = rows.filter({ hasText: "show_view" });
          await pressRow.waitFor();
          await viewRow.first().waitFor();
          // Time, Tab, By, Tool, Arguments, Decision, Approved by, Ended.
          const cells = async (row) => (await row.locator("td").allTextContents()).map((text) => text.trim());
          const press = await cells(pressRow);
          if (press[2] !== "view button" || press[3] !== "view_button" || press[6] !== "you") {
            throw new Error(`the button's audit row says ${JSON.stringify(press)}`);
          }
          if ((await cells(viewRow.first()))[2] !== "Pilot") {
            throw new Error(`show_view's row says ${JSON.stringify(await cells(viewRow.first()))}`);
          }
          await audit.getByLabel("By").selectOption({ label: "View buttons" });
          await until(
            "only the view button's rows",
            async () =>
              (await viewRow.count()) === 0 &&
              (await pressRow.count()) === 1 &&
              (await rows.evaluateAll((all) =>
                all.every((row) => row.cells[2]?.textContent?.trim() === "view button"),
              )),
          );
          await page.screenshot({ path: join(OUTPUT, "audit-log-by-view-button.png") });
          await audit.getByRole("button", { name: "Close" }).click();
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("Pilot: every view the sshd fixture can show gets its card, with a table, a log or why not", async ({
    page,
    sshd,
  }) => {
    // Certificates the view reads: one expired, one expiring in 5 days, one for 200 days.
    const certs = mkdtempSync(join("/tmp", "kaiport-e2e-certs-"));
    chmodSync(certs, 0o755);
    certificate(certs, "long", 200);
    certificate(certs, "soon", 5);
    certificate(certs, "old", null);
    // [arguments, the card's name, what its body must show]
    const views = [
      [{ view: "processes" }, "View processes", { table: "Processes, most CPU first" }],
      [{ view: "disk_usage", path: "/usr/share" }, "View disk_usage /usr/share", { table: "Largest first" }],
      [{ view: "ports" }, "View ports", { table: "Listening ports", gap: "no permission" }],
      [{ view: "services" }, "View services", { table: "Services, failed first" }],
      [{ view: "service_status", unit: "cron" }, "View service_status cron", { table: "Properties" }],
      [{ view: "cron" }, "View cron", { table: "Cron jobs" }],
      [
        { view: "certificates", path: certs },
        `View certificates ${certs}`,
        { table: "Certificates, soonest expiry first" },
      ],
      [{ view: "updates" }, "View updates", { table: "Upgradable packages, security first" }],
      [{ view: "websites" }, "View websites", { table: "Sites" }],
      [{ view: "docker" }, "View docker", { text: "Not available on this server" }],
    ];
    try {
      await withPilot(
        {
          steps: [
            { respond: { tool_calls: views.map(([args]) => ({ name: "show_view", arguments: args })) } },
            { respond: { text: "That is the whole server." } },
          ],
        },
        async ({ url }) => {
          await openSsh(page, url, sshd);
          await message(page, "show me everything");
          await panel(page).getByText("That is the whole server.").waitFor({ timeout: 90_000 });
          for (const [args, name, expect] of views) {
            const card = panel(page).getByRole("article", { name, exact: true });
            await card.waitFor();
            if (expect.table !== undefined) {
              const rows = await card.getByRole("table", { name: expect.table }).locator("tbody tr").count();
              if (rows === 0) {
                throw new Error(`${name}: an empty table`);
              }
            }
            if (expect.text !== undefined) {
              await card.getByText(expect.text).first().waitFor();
            }
            if (expect.gap !== undefined) {
              await card.getByRole("list", { name: "Could not see" }).getByText(expect.gap).waitFor();
            }
            await fitsThePanel(page, card);
            await card.evaluate((el) => el.scrollIntoView({ block: "start" }));
            await card.screenshot({ path: join(OUTPUT, `view-card-${args.view}.png`) });
          }
          // Services have their buttons on their rows, each named by what it does.
          const services = panel(page).getByRole("article", { name: "View services", exact: true });
          await services.getByRole("button", { name: "start cron", exact: true }).waitFor();
          // Certificates: soonest first, the expired and the expiring marked in words.
          const table = panel(page).getByRole("table", { name: "Certificates, soonest expiry first" });
          const rows = await table
            .locator("tbody tr")
            .evaluateAll((trs) =>
              trs.map((tr) => [
                tr.className.split(" ").find((c) => c === "bad" || c === "warn") ?? "",
                tr.children[0].textContent.trim(),
                tr.children[1].textContent.trim(),
              ]),
            );
          const expected = [
            ["bad", "old.kaiport.invalid", /^✕ expired \d+ days ago$/],
            ["warn", "soon.kaiport.invalid", /^⚠ [45] days$/],
            ["", "long.kaiport.invalid", /^(199|200) days$/],
          ];
          if (
            rows.length !== 3 ||
            expected.some(
              ([tone, name, left], i) => rows[i][0] !== tone || rows[i][1] !== name || !left.test(rows[i][2]),
            )
          ) {
            throw new Error(`certificates: ${JSON.stringify(rows)}`);
          }
        },
      );
    } finally {
      rmSync(certs, { recursive: true, force: true });
    }
  });

  test(
    "Pilot on a phone: a processes view card fits the sheet, its table scrolls inside it",
    async ({ page, sshd }) => {
      await withPilot(
        {
          steps: [
            { respond: { tool_calls: [{ name: "show_view", arguments: { view: "processes" } }] } },
            { expect: { last_result_contains: ["Top CPU:"] }, respond: { text: "Nothing runs wild." } },
          ],
        },
        async ({ url }) => {
          await openSsh(page, url, sshd);
          await page.getByRole("button", { name: "Pilot", exact: true }).click();
          await message(page, "what is busy?");
          const card = panel(page).getByRole("article", { name: "View processes" });
          await card.waitFor();
          await turnDone(page);
          const table = card.getByRole("table", { name: "Processes, most CPU first" });
          const rowCount = await table.locator("tbody tr").count();
          if (rowCount < 3) {
            throw new Error(`${rowCount} process rows`);
          }
          // Each row has its kill button, named by the process; it shows its command on hover.
          const kill = table.getByRole("button", { name: /^kill \(TERM\) \d+ / }).first();
          if (!/^kill -TERM \d+$/.test((await kill.getAttribute("title")) ?? "")) {
            throw new Error(`the kill button's command: ${await kill.getAttribute("title")}`);
          }
          await fitsThePanel(page, card);
          // The table scrolls inside the card, its header stays.
          const scroller = card.getByRole("region", { name: "Processes, most CPU first, scrollable" });
          const size = await scroller.evaluate((el) => ({
            sw: el.scrollWidth,
            cw: el.clientWidth,
            sh: el.scrollHeight,
            ch: el.clientHeight,
          }));
          if (size.sw <= size.cw || size.sh <= size.ch) {
            throw new Error(`the table does not scroll inside the card: ${JSON.stringify(size)}`);
          }
          await scroller.evaluate((el) => (el.scrollTop = 200));
          const [headerBox, scrollerBox] = [
            await table.locator("th").first().boundingBox(),
            await scroller.boundingBox(),
          ];
          if (Math.abs(headerBox.y - scrollerBox.y) > 2) {
            throw new Error(`the header scrolled away: ${headerBox.y} vs ${scrollerBox.y}`);
          }
          // The card's top in view for the screenshot.
          await card.evaluate((el) => el.scrollIntoView({ block: "start" }));
          await page.screenshot({ path: join(OUTPUT, "pilot-view-processes-phone.png") });
          await page.emulateMedia({ colorScheme: "dark" });
          await page.screenshot({ path: join(OUTPUT, "pilot-view-processes-phone-dark.png") });
        },
      );
    },
    { viewport: { width: 390, height: 760 }, hasTouch: true, isMobile: true },
  );

  // The Pilot panel is 400 px wide on a desktop and a tablet (its default), and the phone's
  // window here is too: a view's table scrolls sideways inside its card and a side-by-side diff
  // keeps its lines whole and scrolls inside the diff; nothing widens the page.
  for (const [size, device] of [
    ["desktop", { viewport: { width: 1440, height: 900 } }],
    ["tablet", { viewport: { width: 1024, height: 1366 }, hasTouch: true, isMobile: true }],
    ["phone", { viewport: { width: 400, height: 844 }, hasTouch: true, isMobile: true }],
  ]) {
    test(
      `${size}: at 400 px a view card's table and a diff are readable inside their card`,
      async ({ page, sshd }) => {
        const dir = mkdtempSync(join(tmpdir(), "kaiport-e2e-narrow-"));
        chmodSync(dir, 0o755);
        const file = join(dir, "app.conf");
        writeFileSync(file, "listen_port = 80       # where it listens\nhost = a\nuser = www\n");
        chmodSync(file, 0o644);
        try {
          await withPilot(
            {
              steps: [
                { respond: { tool_calls: [{ name: "show_view", arguments: { view: "processes" } }] } },
                {
                  expect: { last_result_contains: ["Top CPU:"] },
                  respond: {
                    tool_calls: [
                      {
                        name: "edit_file",
                        arguments: {
                          path: file,
                          edits: [
                            {
                              old_text: "listen_port = 80       # where it listens\n",
                              new_text: "listen_port = 8080     # where it listens\n",
                            },
                          ],
                        },
                      },
                    ],
                  },
                },
                { expect: { last_result_contains: ["denied"] }, respond: { text: "Left as it is." } },
              ],
            },
            async ({ url }) => {
              await openSsh(page, url, sshd);
              const show = page.getByRole("button", { name: /^(Pilot|Show Pilot)$/ });
              if (await show.isVisible()) {
                await show.click();
              }
              const width = (await panel(page).boundingBox()).width;
              if (width > 401) {
                throw new Error(`the panel is ${width} px wide, not 400`);
              }
              await message(page, "look, then change the port");
              const view = panel(page).getByRole("article", { name: "View processes" });
              const table = view.getByRole("table", { name: "Processes, most CPU first" });
              await table.waitFor();
              await fitsThePanel(page, view);
              // No column squeezed: every header is whole.
              const clipped = await table
                .locator("th")
                .evaluateAll((ths) =>
                  ths.filter((th) => th.scrollWidth > th.clientWidth + 1).map((th) => th.textContent),
                );
              if (clipped.length > 0) {
                throw new Error(`headers cut: ${clipped}`);
              }
              const scroller = view.getByRole("region", { name: "Processes, most CPU first, scrollable" });
              if (!(await scroller.evaluate((el) => el.scrollWidth > el.clientWidth))) {
                throw new Error("the table neither fits nor scrolls sideways");
              }
              await view.evaluate((el) => el.scrollIntoView({ block: "start" }));
              await page.screenshot({ path: join(OUTPUT, `${size}-400-view-table.png`) });

              const edit = panel(page).getByRole("article", { name: /^edit_file / });
              // Too narrow for two sides: unified, side by side not offered, the added line
              // drawn inside the card.
              const sideBySide = edit.getByRole("button", { name: "Side by side" });
              await sideBySide.waitFor();
              if (!(await sideBySide.isDisabled())) {
                throw new Error(`${size}: side by side is offered in a 400 px panel`);
              }
              const unified = edit.getByRole("table", { name: "Change 1", exact: true });
              await unified.waitFor();
              await fitsThePanel(page, edit);
              const box = await edit.boundingBox();
              const added = await unified.locator("tr.add td.code").evaluateAll((tds) =>
                tds.map((td) => {
                  const r = td.getBoundingClientRect();
                  return { left: r.left, right: r.right };
                }),
              );
              if (added.length === 0 || added.some((r) => r.left < box.x - 1 || r.right > box.x + box.width + 1)) {
                throw new Error(`${size}: the added line is not drawn inside the card: ${JSON.stringify(added)}`);
              }
              await edit.evaluate((el) => el.scrollIntoView({ block: "start" }));
              await page.screenshot({ path: join(OUTPUT, `${size}-400-diff-unified.png`) });
              // Nothing made the page wider than the window.
              const page_ = await page.evaluate(() => ({
                scroll: document.documentElement.scrollWidth,
                window: window.innerWidth,
              }));
              if (page_.scroll > page_.window) {
                throw new Error(`the page is ${page_.scroll} px wide in a ${page_.window} px window`);
              }
              await edit.getByRole("button", { name: "Deny" }).click();
              await panel(page).getByText("Left as it is.").waitFor();
            },
          );
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
      device,
    );
  }
}
