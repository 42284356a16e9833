// Browser tests of storage tabs, registered by run.mjs: most start their own FTP server (the
// pyftpdlib fixture of the Rust storage tests, tests/fixtures/ftpd.py, on 127.0.0.1, held to a
// rate so that progress can be watched and a transfer cancelled half-way; one uses run.mjs's
// sshd for SFTP), open a storage tab through "New connection", and check what the server and
// this computer hold afterwards, byte for byte.

import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { SIZES, outputTail } from "./wait.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const FTPD = resolve(here, "../../tests/fixtures/ftpd.py");
const USER = "kaiport";
/** The FTP password: typed into the form's masked field, never to be seen again. */
const PASSWORD = "ftp-e2e-pw-7f3a9c";
/** For the desktop window's test of files dropped on an FTP tab. */
export { USER as FTP_USER, PASSWORD as FTP_PASSWORD };
/** Bytes per second the server allows each transfer (pyftpdlib lets up to twice through). */
const RATE = 4 * 1024 * 1024;
/** Big enough to watch: the engine counts what it read of the file, and about 16 MB go at once
 * into its pipe, the loopback socket's buffers and the server's first second (the throttle lets
 * a second's worth through and then sleeps). The rest goes in steps of a second: shown as 0,
 * ~35, ~50, ~70, ~85, 100 % (on a busy machine fewer, bigger steps). */
const BIG = 48 * 1024 * 1024;

/** Names the server adds to the listing of every folder called `hostile`: joined to it, each
 * would be another place. */
const HOSTILE_NAMES = ["..", "../escape.txt", "sub/../../up.txt"];

/** Starts pyftpdlib on `port` serving `data`; resolves once it listens. */
function spawnFtpd(port, data, timeout) {
  const child = spawn("python3", [FTPD, String(port), data, USER, PASSWORD], {
    stdio: ["ignore", "pipe", "pipe"],
    // A folder called `hostile` also lists names a hostile server could send (tests/fixtures/ftpd.py).
    env: { ...process.env, FTPD_BYTES_PER_SECOND: String(RATE), FTPD_HOSTILE_NAMES: JSON.stringify(HOSTILE_NAMES) },
  });
  const stderr = outputTail();
  child.stderr.on("data", (chunk) => stderr.add(chunk));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`ftpd: not ready in time\n${stderr.text()}`)), timeout);
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.trim() === "ready") {
        clearTimeout(timer);
        resolvePromise(child);
      }
    });
    child.once("exit", (code) => reject(new Error(`ftpd exited (${code})\n${stderr.text()}`)));
  });
}

/** An FTP server on 127.0.0.1 serving `data/`, and `local/` as the tab's folder of this
 * computer, both in a fresh temp dir. `kill()` stops it as a crash would, `restart()` starts
 * it again on the same port with the same files. */
export async function startFtp(timeout, freePort) {
  const root = mkdtempSync(join(tmpdir(), "kaiport-e2e-ftp-"));
  const data = join(root, "data");
  const local = join(root, "local");
  mkdirSync(data);
  mkdirSync(local);
  const port = await freePort();
  let child = await spawnFtpd(port, data, timeout);
  return {
    port,
    data,
    local,
    title: `ftp://${USER}@127.0.0.1:${port}/`,
    kill: () => stopProcess(child, "SIGKILL"),
    async restart() {
      child = await spawnFtpd(port, data, timeout);
    },
    async stop() {
      await stopProcess(child, "SIGTERM");
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Stops a process we started, by its handle, and waits for it. */
async function stopProcess(child, signal) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill(signal);
    await exited;
  }
}

/** Stops a test server by its process (SIGTERM) and removes its folder. */
function stopper(child, root) {
  return async () => {
    await stopProcess(child, "SIGTERM");
    rmSync(root, { recursive: true, force: true });
  };
}

function sha256(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

export function storageTests({ test, until, closedPort, OUTPUT, TIMEOUT }) {
  /** Runs `body` with a fresh FTP server, stopped afterwards whatever happens. */
  function withFtp(body) {
    return async (context) => {
      const ftp = await startFtp(TIMEOUT, closedPort);
      try {
        await body({ ...context, ftp });
      } finally {
        await ftp.stop();
      }
    };
  }

  /** Opens "New connection" and fills in a storage server of `kind` (as the option says it). */
  async function storageForm(page, served, kind, { port, user }) {
    await page.goto(served.url);
    // Narrow layouts (a phone, an upright tablet) keep the connections in a drawer.
    const newConnection = page.getByRole("button", { name: "New connection" }).first();
    const drawer = page.getByRole("button", { name: "Connections", exact: true });
    await newConnection.or(drawer).filter({ visible: true }).first().waitFor();
    if (!(await newConnection.isVisible())) await drawer.click();
    await newConnection.click();
    const form = page.getByRole("dialog", { name: "New connection" });
    await form.getByLabel("Kind").selectOption({ label: `${kind} (files)` });
    await form.getByLabel("Host", { exact: true }).fill("127.0.0.1");
    await form.getByLabel("Port").fill(String(port));
    await form.getByLabel("User").fill(user);
    return form;
  }

  /** Opens an FTP storage tab through "New connection"; resolves with the two panes once both
   * list their folders. */
  async function openFtpTab(page, served, ftp, shot, { password = PASSWORD, localFolder = ftp.local } = {}) {
    const form = await storageForm(page, served, "FTP", { port: ftp.port, user: USER });
    const secret = form.getByLabel("Password");
    if ((await secret.getAttribute("type")) !== "password") {
      throw new Error("the password field is not masked");
    }
    await secret.fill(password);
    if (localFolder !== null) {
      await form.getByLabel("Local folder").fill(localFolder);
    }
    if (shot) {
      await page.screenshot({ path: join(OUTPUT, shot) });
    }
    await form.getByRole("button", { name: "Connect" }).click();
    // The selected tab; on a phone, the tab switcher naming it.
    await page
      .getByRole("tab", { name: ftp.title, selected: true })
      .or(page.getByRole("button", { name: new RegExp(`^Tabs: ${ftp.title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`) }))
      .first()
      .waitFor();
    const local = page.getByRole("region", { name: "This computer" });
    const remote = page.getByRole("region", { name: ftp.title });
    await local.waitFor();
    // On a phone one side shows at a time, with the switch between them.
    await remote
      .or(page.getByRole("group", { name: "Side shown" }))
      .first()
      .waitFor();
    return { local, remote };
  }

  function row(pane, name) {
    return pane.getByRole("row", { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`) });
  }

  function transfer(page, name) {
    return page.getByRole("list", { name: "Transfers" }).getByRole("listitem", { name });
  }

  /**
   * Starts noting, in the page, what each row of Transfers shows as it changes: its percent,
   * and whether a speed and a time left show beside it. A poll from here can miss a state the
   * page held for a few frames on a busy machine; a MutationObserver sees every one.
   */
  async function watchTransfers(page) {
    await page.evaluate(() => {
      const shown = {};
      window.__transfersShown = shown;
      const note = () => {
        for (const item of document.querySelectorAll('ul[aria-label="Transfers"] > li[aria-labelledby]')) {
          const name = document.getElementById(item.getAttribute("aria-labelledby"))?.textContent ?? "";
          const now = Number(item.querySelector('[role="progressbar"]')?.getAttribute("aria-valuenow"));
          const text = item.textContent ?? "";
          const seen = (shown[name] ??= { percents: [], partWay: null, speedAndLeft: false });
          if (seen.percents.at(-1) !== now) seen.percents.push(now);
          if (now > 0 && now < 100) {
            seen.partWay ??= now;
            seen.speedAndLeft ||= /\/s/.test(text) && /left/.test(text);
          }
        }
      };
      new MutationObserver(note).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
      note();
    });
  }

  /** What `watchTransfers` noted of one transfer. */
  function transferShown(page, name) {
    return page.evaluate((name) => window.__transfersShown?.[name] ?? null, name);
  }

  /** Waits until a transfer has shown progress between the ends (noted since `watchTransfers`),
   * and returns the first such percent. */
  async function progressSeen(page, name) {
    let shown = null;
    try {
      return await until(`${name} part-way`, async () => {
        shown = await transferShown(page, name);
        return shown?.partWay ?? null;
      });
    } catch (error) {
      const said =
        (await transfer(page, name).count()) === 0
          ? "(no row in Transfers)"
          : (await transfer(page, name).innerText()).replace(/\s+/g, " ");
      error.message += `; percents shown: ${JSON.stringify(shown?.percents ?? [])}; the row says now: ${said}`;
      throw error;
    }
  }

  /** A big file uploaded by button, once its progress shows. */
  async function bigUploadUnderWay(page, served, ftp, name) {
    writeFileSync(join(ftp.local, name), randomBytes(BIG));
    const { local, remote } = await openFtpTab(page, served, ftp);
    await watchTransfers(page);
    await row(local, name).click();
    await local.getByRole("button", { name: "Upload" }).click();
    const item = transfer(page, name);
    await progressSeen(page, name);
    return { remote, item };
  }

  /** After "Retry": the upload ends and the server holds the file byte for byte. */
  async function retriedUploadArrived(page, remote, item, ftp, name) {
    await item.getByText("done").waitFor({ timeout: 60_000 });
    // On a phone one side shows at a time: the storage side, to see the file there.
    const sides = page.getByRole("group", { name: "Side shown" });
    if (await sides.isVisible()) await sides.getByText("Storage", { exact: true }).click();
    await row(remote, name).waitFor();
    if (sha256(join(ftp.local, name)) !== sha256(join(ftp.data, name))) {
      throw new Error(`the retried upload of ${name} differs`);
    }
    // One final file, no temp of the cut upload beside it.
    const left = readdirSync(ftp.data);
    if (left.length !== 1) {
      throw new Error(`the server holds more than the retried upload: ${left.join(", ")}`);
    }
  }

  // A storage connection goes into Recent once it connected, not when it failed; on touch
  // screens Recent is in the connections drawer, its rows 44 px high.
  for (const [size, options] of SIZES) {
    test(
      `storage: a connected storage tab is in Recent, a failed one is not (${size})`,
      withFtp(async ({ page, served, ftp }) => {
        await page.evaluate(() => localStorage.clear()).catch(() => {});
        await openFtpTab(page, served, ftp);
        const sidebar = page.getByRole("navigation", { name: "Connections" });
        const showSidebar = async () => {
          if ((await sidebar.count()) === 0) await page.getByRole("button", { name: "Connections" }).click();
        };
        await showSidebar();
        const again = sidebar.getByRole("button", { name: `Connect to ${ftp.title}` });
        await again.waitFor();
        if (options.hasTouch === true) {
          const box = await again.boundingBox();
          if (box === null || box.height < 44) throw new Error(`Recent's row is too small: ${JSON.stringify(box)}`);
        }
        await page.screenshot({ path: join(OUTPUT, `storage-recent-${size}.png`) });
        // A port nobody listens on: the tab fails, and Recent does not offer it.
        const port = await closedPort();
        const form = await storageForm(page, served, "FTP", { port, user: USER });
        await form.getByLabel("Password").fill(PASSWORD);
        await form.getByRole("button", { name: "Connect" }).click();
        await page
          .getByRole("tab", { name: /failed/ })
          .or(page.getByRole("button", { name: /failed/ }))
          .first()
          .waitFor();
        await showSidebar();
        await sidebar.getByRole("button", { name: `Connect to ${ftp.title}` }).waitFor();
        if ((await sidebar.getByRole("button", { name: new RegExp(`:${port}`) }).count()) !== 0) {
          throw new Error("a failed storage connection is in Recent");
        }
        // A touch screen's drawer covers the tabs: closed, as a user would.
        if (options.hasTouch === true) {
          await page.keyboard.press("Escape");
          await sidebar.waitFor({ state: "detached" });
        }
      }),
      options,
    );
  }

  // The audit log leaves the user's own browsing out until asked, says who made each call and
  // names the tab as the strip does.
  for (const [size, options] of SIZES) {
    test(
      `storage: the audit log groups out my browsing and names the tab as the strip does (${size})`,
      withFtp(async ({ page, served, ftp }) => {
        await openFtpTab(page, served, ftp);
        const drawer = page.getByRole("button", { name: "Connections" });
        if (await drawer.isVisible()) await drawer.click();
        await page.getByRole("navigation", { name: "Connections" }).getByRole("button", { name: "Audit log" }).click();
        const audit = page.getByRole("dialog", { name: "Audit log" });
        const count = audit.getByRole("status");
        await count.getByText(/^\d+ of [1-9]\d* calls$/).waitFor();
        const browsing = audit.locator("tbody tr").filter({ hasText: "list_dir" });
        if ((await browsing.count()) !== 0) {
          throw new Error("the user's browsing is listed before it is asked for");
        }
        await page.screenshot({ path: join(OUTPUT, `audit-browsing-hidden-${size}.png`) });
        await audit.getByRole("checkbox", { name: "Show my browsing" }).check();
        await browsing.first().waitFor();
        const cells = await browsing
          .first()
          .locator("td")
          .evaluateAll((tds) => tds.map((td) => td.textContent.trim()));
        // Time, Tab, By, Tool, …: the tab as the strip names it, made by the user.
        if (cells[1] !== ftp.title || cells[2] !== "you" || cells[3] !== "list_dir") {
          throw new Error(`a browsing row reads ${JSON.stringify(cells)}`);
        }
        await page.screenshot({ path: join(OUTPUT, `audit-browsing-shown-${size}.png`) });
        await page.keyboard.press("Escape");
        await audit.waitFor({ state: "detached" });
      }),
      options,
    );
  }

  test(
    "storage: an FTP tab through the form lists both sides, sorts by keyboard and makes a folder",
    withFtp(async ({ page, served, ftp }) => {
      writeFileSync(join(ftp.local, "small.txt"), "hello\n");
      writeFileSync(join(ftp.local, "larger.bin"), randomBytes(50_000));
      mkdirSync(join(ftp.local, "photos"));
      writeFileSync(join(ftp.data, "readme.md"), "# remote\n");
      mkdirSync(join(ftp.data, "archive"));
      const received = [];
      page.on("websocket", (ws) =>
        ws.on("framereceived", (frame) =>
          received.push(typeof frame.payload === "string" ? frame.payload : frame.payload.toString("latin1")),
        ),
      );
      const { local, remote } = await openFtpTab(page, served, ftp, "storage-new-connection.png");
      await row(local, "small.txt").waitFor();
      await row(local, "photos").waitFor();
      await row(remote, "readme.md").waitFor();
      await row(remote, "archive").waitFor();
      // No password prompt: the typed secret answered the engine's, and never came back.
      if (await page.getByRole("dialog", { name: "Password" }).isVisible()) {
        throw new Error("the engine's password prompt was shown although the form had the password");
      }
      const leaked = received.filter((frame) => frame.includes(PASSWORD));
      if (leaked.length > 0) {
        throw new Error(`the password came back to the page: ${leaked[0].slice(0, 200)}`);
      }
      // Sort by size with the keyboard: folders first, then the biggest file.
      const grid = local.getByRole("grid");
      const names = async () => (await grid.locator("tbody td.name").allTextContents()).map((text) => text.trim());
      await local.getByRole("button", { name: "Size" }).focus();
      await page.keyboard.press("Enter");
      await until(
        "sorted by size, biggest first",
        async () => (await names()).join() === "photos,larger.bin,small.txt",
      );
      if ((await local.getByRole("columnheader", { name: "Size" }).getAttribute("aria-sort")) !== "descending") {
        throw new Error("the Size header does not say how it sorts");
      }
      await page.keyboard.press("Enter");
      await until(
        "sorted by size, smallest first",
        async () => (await names()).join() === "photos,small.txt,larger.bin",
      );
      // Navigate with the keyboard: into a folder (empty: the focus goes to "Up one folder"),
      // back up (the folder just left has the focus), then with the breadcrumb.
      await row(remote, "archive").click();
      await page.keyboard.press("Enter");
      await remote.getByText("This folder is empty.").waitFor();
      const focused = () =>
        page.evaluate(
          () => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent?.trim() ?? "",
        );
      await until("the focus on Up one folder", async () => (await focused()) === "Up one folder");
      await page.keyboard.press("Enter");
      await until("the focus back on archive", async () => (await focused()).startsWith("archive"));
      await page.keyboard.press("ArrowDown");
      await until("the focus on readme.md", async () => (await focused()).startsWith("readme.md"));
      // A typed path, relative to the folder shown.
      await remote.getByRole("button", { name: "Go to…" }).click();
      await remote.getByRole("textbox", { name: "Go to folder" }).fill("./archive/");
      await page.keyboard.press("Enter");
      await remote.getByText("This folder is empty.").waitFor();
      await remote
        .getByRole("navigation", { name: `${ftp.title} path` })
        .getByRole("button", { name: "Top folder" })
        .click();
      await row(remote, "readme.md").waitFor();
      // Make a folder on the storage.
      await remote.getByRole("button", { name: "New folder" }).click();
      const naming = page.getByRole("dialog", { name: "New folder" });
      await naming.getByLabel("Name").fill("reports 2026");
      await naming.getByRole("button", { name: "Create" }).click();
      await row(remote, "reports 2026").waitFor();
      if (!statSync(join(ftp.data, "reports 2026")).isDirectory()) {
        throw new Error("the folder is not on the server");
      }
      await page.screenshot({ path: join(OUTPUT, "storage-tab.png") });
    }),
  );

  test(
    "storage: the local side starts in the home folder (~) and a wrong password is asked again in a masked field",
    withFtp(async ({ page, served, ftp }) => {
      mkdirSync(join(served.home, "Documents"), { recursive: true });
      writeFileSync(join(served.home, "Documents", "home-file.txt"), "at home\n");
      // The form's default local folder is ~; a wrong password fails the tab.
      await openFtpTab(page, served, ftp, null, { password: "not-the-password", localFolder: null });
      await page
        .getByRole("tab", { name: new RegExp(`${ftp.title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}.*failed`) })
        .waitFor();
      await page.getByRole("button", { name: "Reconnect" }).click();
      const prompt = page.getByRole("dialog", { name: "Password" });
      await prompt.waitFor();
      const field = prompt.getByLabel("Password");
      if ((await field.getAttribute("type")) !== "password") {
        throw new Error("the password prompt is not masked");
      }
      await field.fill(PASSWORD);
      await prompt.getByRole("button", { name: "Log in" }).click();
      const local = page.getByRole("region", { name: "This computer" });
      // The local side walked down from / to the home folder.
      await row(local, "Documents").waitFor();
      const crumbs = await local.getByRole("navigation").getByRole("list").getByRole("button").allTextContents();
      const expected = served.home.split("/").filter((part) => part !== "");
      if (crumbs.slice(1).join("/") !== expected.join("/")) {
        throw new Error(`the local side is not in the home folder: ${crumbs.join(" / ")}`);
      }
      await row(local, "Documents").dblclick();
      await row(local, "home-file.txt").waitFor();
      // Above the home folder only the way down shows: nothing else of this computer.
      await local.getByRole("button", { name: "Top folder" }).click();
      await until(
        "only the way down at /",
        async () =>
          (await local.locator("tbody td.name").allTextContents()).map((t) => t.trim()).join() === expected[0],
      );
      await page.screenshot({ path: join(OUTPUT, "storage-home.png") });
    }),
  );

  test(
    "storage: an upload dragged across shows its progress and arrives byte for byte",
    withFtp(async ({ page, served, ftp }) => {
      writeFileSync(join(ftp.local, "big.bin"), randomBytes(BIG));
      const { local, remote } = await openFtpTab(page, served, ftp);
      await watchTransfers(page);
      await row(local, "big.bin").dragTo(remote.getByRole("grid"));
      const item = transfer(page, "big.bin");
      await item.waitFor();
      const seen = await progressSeen(page, "big.bin");
      await page.screenshot({ path: join(OUTPUT, "storage-upload-progress.png") });
      await until(
        "a speed and time left beside the progress",
        async () => (await transferShown(page, "big.bin"))?.speedAndLeft,
      );
      // As wide as a phone, the row's figures break between them instead of running off the side.
      const wide = page.viewportSize();
      await page.setViewportSize({ width: 390, height: 760 });
      const list = page.getByRole("list", { name: "Transfers" });
      await until("the transfer's row within a phone's width", async () =>
        list.evaluate((ul) => ul.scrollWidth <= ul.clientWidth),
      );
      await page.screenshot({ path: join(OUTPUT, "storage-upload-progress-phone.png") });
      await page.setViewportSize(wide);
      await item.getByText("done").waitFor({ timeout: 60_000 });
      if ((await item.getByRole("progressbar").getAttribute("aria-valuenow")) !== "100") {
        throw new Error("a finished upload does not show 100 %");
      }
      await row(remote, "big.bin").waitFor();
      const sent = sha256(join(ftp.local, "big.bin"));
      const stored = sha256(join(ftp.data, "big.bin"));
      if (sent !== stored) {
        throw new Error(`the uploaded file differs: ${sent} sent, ${stored} stored`);
      }
      console.log(
        `     progress seen at ${seen} %, percents shown: ${(await transferShown(page, "big.bin")).percents.join(" ")}`,
      );
      // The files keep the room above the status bar and the transfers (no gap under the panes).
      const grid = await remote.boundingBox();
      const transfers = await page.getByRole("heading", { name: "Transfers" }).boundingBox();
      if (grid === null || transfers === null || transfers.y - (grid.y + grid.height) > 60) {
        throw new Error(`the file panes do not reach down to the transfers: ${JSON.stringify({ grid, transfers })}`);
      }
      await page.screenshot({ path: join(OUTPUT, "storage-upload-done.png") });
    }),
  );

  test(
    "storage: a download by button arrives byte for byte on this computer, replacing asks, and a drop on a folder goes into it",
    withFtp(async ({ page, served, ftp }) => {
      writeFileSync(join(ftp.data, "report.pdf"), randomBytes(700_000));
      writeFileSync(join(ftp.data, "notes.txt"), "notes\n");
      mkdirSync(join(ftp.local, "inbox"));
      const { local, remote } = await openFtpTab(page, served, ftp);
      await row(remote, "report.pdf").click();
      await remote.getByRole("button", { name: "Download" }).click();
      await transfer(page, "report.pdf").getByText("done").waitFor({ timeout: 30_000 });
      await row(local, "report.pdf").waitFor();
      if (sha256(join(ftp.data, "report.pdf")) !== sha256(join(ftp.local, "report.pdf"))) {
        throw new Error("the downloaded file differs");
      }
      await page.screenshot({ path: join(OUTPUT, "storage-download.png") });
      // Downloading it again would replace this computer's copy: that is asked first.
      writeFileSync(join(ftp.data, "report.pdf"), "the newer report\n");
      await page.getByRole("button", { name: "Clear ended" }).click();
      await row(remote, "report.pdf").click();
      await remote.getByRole("button", { name: "Download" }).click();
      const confirm = page.getByRole("dialog", { name: "Replace?" });
      await confirm.waitFor();
      await page.screenshot({ path: join(OUTPUT, "storage-replace-confirm.png") });
      await confirm.getByRole("button", { name: "Replace" }).click();
      await transfer(page, "report.pdf").getByText("done").waitFor({ timeout: 30_000 });
      if (readFileSync(join(ftp.local, "report.pdf"), "utf8") !== "the newer report\n") {
        throw new Error("the replaced download is not the server's newer file");
      }
      // Dropped on a folder of this computer, a file goes into that folder.
      await row(remote, "notes.txt").dragTo(row(local, "inbox"));
      await transfer(page, "notes.txt").getByText("done").waitFor();
      await until("notes.txt in inbox", async () => existsSync(join(ftp.local, "inbox", "notes.txt")));
      if (existsSync(join(ftp.local, "notes.txt"))) {
        throw new Error("the dropped file went to the folder shown, not the one it was dropped on");
      }
    }),
  );

  // An ended transfer says how long the copy worked — the engine's count, which leaves out the
  // time its "Replace?" question waited for the user — and its average speed.
  for (const [size, options] of [
    ["desktop", { viewport: { width: 1440, height: 900 } }],
    ["tablet", { viewport: { width: 1024, height: 1366 }, hasTouch: true, isMobile: true }],
    ["phone", { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }],
  ]) {
    test(
      `storage: a replacing upload says how long the copy took, without the wait for Replace (${size})`,
      withFtp(async ({ page, served, ftp }) => {
        writeFileSync(join(ftp.local, "backup.tar"), randomBytes(3_000_000));
        writeFileSync(join(ftp.data, "backup.tar"), "the old backup\n");
        const events = [];
        page.on("websocket", (ws) =>
          ws.on("framereceived", (frame) => {
            if (typeof frame.payload === "string") events.push(JSON.parse(frame.payload));
          }),
        );
        const { local } = await openFtpTab(page, served, ftp);
        const sides = page.getByRole("group", { name: "Side shown" });
        await row(local, "backup.tar").click();
        await local.getByRole("button", { name: "Upload" }).click();
        const confirm = page.getByRole("dialog", { name: "Replace?" });
        await confirm.getByRole("button", { name: "Replace" }).click();
        const shown = transfer(page, "backup.tar");
        await shown.getByText("done").waitFor({ timeout: 30_000 });
        const ended = events.find((e) => e.type === "tool_finished" && e.outcome?.tool === "upload");
        const audited = await until("the upload's audit record", async () =>
          events.find((e) => e.type === "audit_recorded" && e.entry?.call === ended?.call),
        );
        // The engine measured the wait for "Replace" and left it out of the duration.
        if (typeof audited.entry.waited_ms !== "number") {
          throw new Error(`no wait recorded for the confirmed upload: ${JSON.stringify(audited.entry)}`);
        }
        const ms = ended.duration_ms;
        const expected = ms < 1000 ? "took under 1 s" : `took ${Math.round(ms / 1000)} s`;
        await shown.getByText(expected, { exact: true }).waitFor();
        await shown.getByText(/\/s average$/).waitFor();
        if (await sides.isVisible()) {
          // On a phone Transfers sits below the side shown.
          await shown.scrollIntoViewIfNeeded();
        }
        await page.screenshot({ path: join(OUTPUT, `storage-transfer-took-${size}.png`) });
        if (sha256(join(ftp.local, "backup.tar")) !== sha256(join(ftp.data, "backup.tar"))) {
          throw new Error("the uploaded file differs");
        }
      }),
      options,
    );
  }

  for (const [size, options] of SIZES) {
    test(
      `storage: several files uploaded at once end in one status line that keeps the one not done (${size})`,
      withFtp(async ({ page, served, ftp }) => {
        for (const name of ["a.txt", "b.txt", "c.txt"]) {
          writeFileSync(join(ftp.local, name), `${name} from this computer\n`);
        }
        writeFileSync(join(ftp.data, "b.txt"), "the server's b\n");
        const { local } = await openFtpTab(page, served, ftp);
        await row(local, "a.txt").click();
        await row(local, "c.txt").click({ modifiers: ["Shift"] });
        await local.getByRole("button", { name: "Upload" }).click();
        // b.txt would replace the server's: asked, and kept.
        const confirm = page.getByRole("dialog", { name: "Replace?" });
        await confirm.waitFor();
        for (const name of ["a.txt", "c.txt"]) {
          await transfer(page, name).getByText("done").waitFor({ timeout: 30_000 });
        }
        await confirm.getByRole("button", { name: "Cancel" }).click();
        const status = page.getByRole("status").filter({ hasText: /upload 3 files/ });
        await status.waitFor();
        const said = await status.textContent();
        // The user's own Cancel of the question is a cancel, not a refusal (people-text.ts).
        if (said !== "Done 2 of 3: upload 3 files; 1 cancelled.") {
          throw new Error(`the status line says: ${said}`);
        }
        if (
          readFileSync(join(ftp.data, "b.txt"), "utf8") !== "the server's b\n" ||
          readFileSync(join(ftp.data, "c.txt"), "utf8") !== "c.txt from this computer\n"
        ) {
          throw new Error("the server does not hold what was asked");
        }
        await page.screenshot({ path: join(OUTPUT, `storage-batch-status-${size}.png`) });
      }),
      options,
    );
  }

  test(
    "storage: a folder uploaded by button arrives whole, in one plan and one row",
    withFtp(async ({ page, served, ftp }) => {
      mkdirSync(join(ftp.local, "photos", "2026"), { recursive: true });
      writeFileSync(join(ftp.local, "photos", "a.jpg"), randomBytes(300_000));
      writeFileSync(join(ftp.local, "photos", "2026", "b.jpg"), randomBytes(200_000));
      const { local, remote } = await openFtpTab(page, served, ftp);
      await row(local, "photos").click();
      await local.getByRole("button", { name: "Upload" }).click();
      await transfer(page, "photos/").getByText("done").waitFor({ timeout: 30_000 });
      // The row counts the whole folder, not its last file.
      await transfer(page, "photos/").getByText("488 KB of 488 KB").waitFor();
      await row(remote, "photos").waitFor();
      for (const file of ["a.jpg", "2026/b.jpg"]) {
        if (sha256(join(ftp.local, "photos", file)) !== sha256(join(ftp.data, "photos", file))) {
          throw new Error(`photos/${file} differs on the server`);
        }
      }
      await page.screenshot({ path: join(OUTPUT, "storage-folder-upload.png") });
    }),
  );

  test(
    "storage: a folder download from a server listing `..` and `a/../b` copies the rest and ends as failed, naming them",
    withFtp(async ({ page, served, ftp }) => {
      mkdirSync(join(ftp.data, "hostile"));
      writeFileSync(join(ftp.data, "hostile", "good.txt"), "good\n");
      writeFileSync(join(ftp.data, "escape.txt"), "outside\n");
      const { local, remote } = await openFtpTab(page, served, ftp);
      await row(remote, "hostile").click();
      await remote.getByRole("button", { name: "Download" }).click();
      const item = transfer(page, "hostile/");
      await item.getByText("failed", { exact: true }).waitFor({ timeout: 30_000 });
      const status = page.getByRole("status").filter({ hasText: /not copied/ });
      await status.waitFor();
      const said = (await status.textContent()) ?? "";
      if (!said.startsWith("Failed: ") || !said.includes("3 entries the server listed were not copied")) {
        throw new Error(`the status line says: ${said}`);
      }
      await row(local, "hostile").waitFor();
      if (readFileSync(join(ftp.local, "hostile", "good.txt"), "utf8") !== "good\n") {
        throw new Error("the good file was not copied");
      }
      const landed = readdirSync(ftp.local).sort().join(",");
      if (landed !== "hostile" || readdirSync(join(ftp.local, "hostile")).join(",") !== "good.txt") {
        throw new Error(`this computer's folder holds ${landed}`);
      }
      await page.screenshot({ path: join(OUTPUT, "storage-hostile-folder.png") });
    }),
  );

  // Cancelled or cut off by the server, at every size: nothing left under the name, no
  // temporary copy beside it, and Retry sends it whole.
  for (const [size, options] of SIZES) {
    test(
      `storage: a cancelled upload leaves nothing under its name, and Retry completes it (${size})`,
      withFtp(async ({ page, served, ftp }) => {
        const { remote, item } = await bigUploadUnderWay(page, served, ftp, "cancel-me.bin");
        await item.getByRole("button", { name: "Cancel" }).click();
        await item.getByText("cancelled", { exact: true }).waitFor();
        if (existsSync(join(ftp.data, "cancel-me.bin"))) {
          throw new Error("a cancelled upload left a file under its final name");
        }
        // The engine removes its temporary copy too.
        await until("no half-written copy left", async () => readdirSync(ftp.data).length === 0);
        await page.screenshot({ path: join(OUTPUT, `storage-cancelled-${size}.png`) });
        await item.getByRole("button", { name: "Retry" }).click();
        await retriedUploadArrived(page, remote, item, ftp, "cancel-me.bin");
      }),
      options,
    );

    test(
      `storage: an upload whose server dies fails, and Retry sends it again once the server is back (${size})`,
      withFtp(async ({ page, served, ftp }) => {
        const { remote, item } = await bigUploadUnderWay(page, served, ftp, "survivor.bin");
        await ftp.kill();
        await item.getByText("failed", { exact: true }).waitFor({ timeout: 60_000 });
        if (existsSync(join(ftp.data, "survivor.bin"))) {
          throw new Error("a failed upload left a file under its final name");
        }
        await page.screenshot({ path: join(OUTPUT, `storage-failed-${size}.png`) });
        await ftp.restart();
        await item.getByRole("button", { name: "Retry" }).click();
        await retriedUploadArrived(page, remote, item, ftp, "survivor.bin");
      }),
      options,
    );
  }

  test(
    "storage: rename, and delete only after the confirmation (dark)",
    withFtp(async ({ page, served, ftp }) => {
      writeFileSync(join(ftp.data, "draft.txt"), "draft\n");
      mkdirSync(join(ftp.data, "old"));
      writeFileSync(join(ftp.data, "old", "a.log"), "a\n");
      writeFileSync(join(ftp.data, "old", "b.log"), "b\n");
      const { remote } = await openFtpTab(page, served, ftp);
      // Rename with F2 from the keyboard.
      await row(remote, "draft.txt").click();
      await page.keyboard.press("F2");
      const naming = page.getByRole("dialog", { name: /Rename/ });
      await naming.getByLabel("Name").fill("final.txt");
      await naming.getByRole("button", { name: "Rename" }).click();
      await row(remote, "final.txt").waitFor();
      if (!existsSync(join(ftp.data, "final.txt")) || existsSync(join(ftp.data, "draft.txt"))) {
        throw new Error("the server does not hold the renamed file");
      }
      // Delete a folder with files: the engine's account of it is shown; Cancel keeps it.
      await row(remote, "old").click();
      await remote.getByRole("button", { name: "Delete" }).click();
      const confirm = page.getByRole("dialog", { name: "Delete?" });
      await confirm.waitFor();
      const text = await confirm.textContent();
      if (!/old/.test(text) || !/2 files/.test(text)) {
        throw new Error(`the confirmation does not say what goes: ${text}`);
      }
      await page.screenshot({ path: join(OUTPUT, "storage-delete-confirm.png") });
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: /Cancelled: delete \/old/ })
        .waitFor();
      if (!existsSync(join(ftp.data, "old", "a.log"))) {
        throw new Error("a cancelled delete deleted");
      }
      // Delete again with the Delete key and confirm.
      await row(remote, "old").click();
      await page.keyboard.press("Delete");
      await confirm.getByRole("button", { name: "Delete" }).click();
      await until("the folder gone from the list", async () => (await row(remote, "old").count()) === 0);
      if (existsSync(join(ftp.data, "old"))) {
        throw new Error("the folder is still on the server");
      }
      await page.screenshot({ path: join(OUTPUT, "storage-dark.png") });
    }),
    { colorScheme: "dark" },
  );

  test(
    "storage: on a phone one side shows at a time, switched above, and Transfers stays below",
    withFtp(async ({ page, served, ftp }) => {
      writeFileSync(join(ftp.local, "notes.txt"), "phone\n");
      writeFileSync(join(ftp.data, "remote.txt"), "remote\n");
      const { local, remote } = await openFtpTab(page, served, ftp);
      await row(local, "notes.txt").waitFor();
      if (await remote.isVisible()) {
        throw new Error("both sides show on a phone");
      }
      const sides = page.getByRole("group", { name: "Side shown" });
      await sides.getByRole("button", { name: "Storage" }).tap();
      await row(remote, "remote.txt").waitFor();
      if (await local.isVisible()) {
        throw new Error("the local side still shows");
      }
      const [pane, transfers] = [
        await remote.boundingBox(),
        await page.getByRole("list", { name: "Transfers" }).boundingBox(),
      ];
      if (!(transfers.y >= pane.y + pane.height - 2)) {
        throw new Error(`Transfers is not below the files: ${JSON.stringify([pane, transfers])}`);
      }
      await page.screenshot({ path: join(OUTPUT, "storage-phone.png") });
      await sides.getByRole("button", { name: "This computer" }).tap();
      await row(local, "notes.txt").waitFor();
    }),
    { viewport: { width: 390, height: 760 }, hasTouch: true, isMobile: true },
  );

  test("storage: an SFTP tab with a key file: the host key is trusted, and the server's folder lists", async ({
    page,
    served,
    sshd,
  }) => {
    const shared = mkdtempSync(join(tmpdir(), "kaiport-e2e-sftp-"));
    try {
      chmodSync(shared, 0o755);
      writeFileSync(join(shared, "on-the-server.txt"), "sftp\n");
      chmodSync(join(shared, "on-the-server.txt"), 0o644);
      const form = await storageForm(page, served, "SFTP", { port: sshd.port, user: sshd.user });
      await form.getByLabel("Folder", { exact: true }).fill(shared);
      await form.getByLabel("Key file").fill(sshd.key);
      await form.getByLabel("Local folder").fill(served.home);
      await form.getByRole("button", { name: "Connect" }).click();
      // The host key may be known already (an earlier test trusted it on this server).
      const hostKey = page.getByRole("dialog", { name: "Unknown host key" });
      const remote = page.getByRole("region", {
        name: new RegExp(`^sftp://${sshd.user}@127\\.0\\.0\\.1:${sshd.port}/`),
      });
      await until("the server's file listed", async () => {
        if (await hostKey.isVisible()) {
          await hostKey.getByRole("button", { name: "Trust and connect" }).click();
        }
        return row(remote, "on-the-server.txt").isVisible();
      });
      await page.screenshot({ path: join(OUTPUT, "storage-sftp.png") });
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  test(
    "storage: after a reload the storage tab lists both sides again",
    withFtp(async ({ page, served, ftp }) => {
      writeFileSync(join(ftp.local, "kept.txt"), "kept\n");
      writeFileSync(join(ftp.data, "remote-kept.txt"), "kept\n");
      await openFtpTab(page, served, ftp);
      await page.reload();
      const local = page.getByRole("region", { name: "This computer" });
      const remote = page.getByRole("region", { name: ftp.title });
      // The page no longer knows the folder it opened: it walks down to it from /.
      await row(local, "kept.txt").waitFor();
      await row(remote, "remote-kept.txt").waitFor();
    }),
  );

  /** `rclone serve s3|webdav` on 127.0.0.1 (as tests/src/storage_servers.rs starts it) over a
   * fresh folder; for S3 the bucket is a folder in it. */
  async function startRclone(kind) {
    const root = mkdtempSync(join(tmpdir(), `kaiport-e2e-${kind}-`));
    const data = join(root, "data");
    const served = kind === "s3" ? join(data, "bucket") : data;
    mkdirSync(served, { recursive: true });
    mkdirSync(join(root, "local"));
    const port = await closedPort();
    const auth = kind === "s3" ? ["--auth-key", `${USER},${PASSWORD}`] : ["--user", USER, "--pass", PASSWORD];
    const child = spawn(
      "rclone",
      ["serve", kind, "--addr", `127.0.0.1:${port}`, ...auth, "--config", "/dev/null", data],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    const stderr = outputTail();
    child.stderr.on("data", (chunk) => stderr.add(chunk));
    await until(`rclone serve ${kind} listening`, async () => {
      if (child.exitCode !== null) throw new Error(`rclone exited (${child.exitCode})\n${stderr.text()}`);
      return fetch(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false,
      );
    });
    return {
      port,
      data: served,
      local: join(root, "local"),
      stop: stopper(child, root),
    };
  }

  for (const kind of ["s3", "webdav"]) {
    test(`storage: ${kind === "s3" ? "S3" : "WebDAV"} through the form (rclone): lists, and an upload arrives byte for byte`, async ({
      page,
      served,
    }) => {
      const server = await startRclone(kind);
      try {
        writeFileSync(join(server.data, "already-there.txt"), "hello\n");
        writeFileSync(join(server.local, "up.bin"), randomBytes(300_000));
        await page.goto(served.url);
        await page.getByRole("button", { name: "New connection" }).first().click();
        const form = page.getByRole("dialog", { name: "New connection" });
        if (kind === "s3") {
          await form.getByLabel("Kind").selectOption({ label: "S3 (files)" });
          await form.getByLabel("Bucket").fill("bucket");
          await form.getByLabel("Endpoint").fill(`http://127.0.0.1:${server.port}`);
          await form.getByLabel("Region").fill("us-east-1");
          await form.getByLabel("Path-style addressing").check();
          await form.getByLabel("Access key ID").fill(USER);
          await form.getByLabel("Secret access key").fill(PASSWORD);
        } else {
          await form.getByLabel("Kind").selectOption({ label: "WebDAV (files)" });
          await form.getByLabel("Host", { exact: true }).fill("127.0.0.1");
          await form.getByLabel("Port").fill(String(server.port));
          await form.getByLabel("HTTPS").uncheck();
          await form.getByLabel("User").fill(USER);
          await form.getByLabel("Password").fill(PASSWORD);
        }
        await form.getByLabel("Local folder").fill(server.local);
        await page.screenshot({ path: join(OUTPUT, `storage-form-${kind}.png`) });
        await form.getByRole("button", { name: "Connect" }).click();
        const remote = page
          .getByRole("region")
          .filter({ has: page.getByRole("grid") })
          .nth(1);
        await row(remote, "already-there.txt").waitFor();
        const local = page.getByRole("region", { name: "This computer" });
        await row(local, "up.bin").dragTo(remote.getByRole("grid"));
        await transfer(page, "up.bin").getByText("done").waitFor({ timeout: 30_000 });
        await row(remote, "up.bin").waitFor();
        if (sha256(join(server.local, "up.bin")) !== sha256(join(server.data, "up.bin"))) {
          throw new Error(`the ${kind} upload differs`);
        }
        await page.screenshot({ path: join(OUTPUT, `storage-${kind}.png`) });
      } finally {
        await server.stop();
      }
    });
  }
}
