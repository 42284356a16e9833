// Waiting helpers shared by the browser tests (run.mjs) and the desktop window's (desktop-driver.mjs),
// and the removal of a test's home once nothing of kaiport's runs in it.

import { readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";

/** The screen sizes each item is tried at: a desktop window, a tablet in portrait, a phone
 * (browser context options, by name). */
export const SIZES = [
  ["desktop", { viewport: { width: 1440, height: 900 } }],
  ["tablet", { viewport: { width: 1024, height: 1366 }, hasTouch: true, isMobile: true }],
  ["phone", { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }],
];

/** What a child process prints: its last `keep` characters and how much it printed in all. A
 * process that prints without end must not grow a string past what node can hold (that ends
 * the whole run with "Invalid string length"); `loud` (bytes) and `onLoud` say once that it
 * printed that much, while it runs, for a log that names it. */
export function outputTail({ keep = 256 * 1024, loud = Infinity, onLoud = () => {} } = {}) {
  let text = "";
  let total = 0;
  return {
    add(chunk) {
      total += chunk.length;
      text += chunk;
      if (text.length > 2 * keep) {
        text = text.slice(-keep);
      }
      if (total >= loud) {
        const said = loud;
        loud = Infinity;
        onLoud(said);
      }
    },
    text: () => text.slice(-keep),
    total: () => total,
  };
}

/** A TCP port on 127.0.0.1 that nothing listens on now. */
export function freePort() {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePromise(port));
    });
  });
}

/**
 * Waits until `check()` returns something truthy, and returns it. With `retryErrors`, a check
 * that throws counts as not yet (a WebDriver call can fail while the window is still starting);
 * otherwise its error ends the wait.
 */
export async function until(what, check, timeout, { retryErrors = false } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await check();
    } catch (error) {
      if (!retryErrors) {
        throw error;
      }
      last = String(error);
    }
    if (last) {
      return last;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)?.slice(-400)})`);
}

/** The PIDs of processes whose environment has `KAIPORT_HOME=home`: kaiport and what it started. */
export function processesOf(home) {
  const found = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`KAIPORT_HOME=${home}`))
        found.push(Number(pid));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/**
 * Removes a test's home once kaiport's processes in it have ended. A local terminal's shell outlives
 * kaiport by a moment (on its hangup bash writes .bash_history into the home), and a removal that
 * lists the folder before that write fails with ENOTEMPTY. Processes that outlive 10 s are killed.
 * A removal that still fails is said, not thrown: thrown from a `finally` it would hide the test's
 * own outcome.
 */
export async function removeHome(home) {
  const deadline = Date.now() + 10_000;
  while (processesOf(home).length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const pid of processesOf(home)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Ended meanwhile.
    }
  }
  try {
    rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  } catch (error) {
    let left = [];
    try {
      left = readdirSync(home, { recursive: true }).map(String);
    } catch {
      // Unreadable: the code says enough.
    }
    console.warn(`warning: ${home} not removed (${error.code}); left in it: ${left.join(", ")}`);
  }
}

/**
 * Keeps each WebSocket a page opens (its link to kaiport) where `roundTrip` and `armFrame` find
 * it, counting the `list_models` ops sent on it and the `models` events that answer them. Added
 * to a browser context before its pages load (run.mjs does it for every test).
 */
export async function watchLinks(context) {
  await context.addInitScript(() => {
    const Native = window.WebSocket;
    const isType = (data, type) => {
      try {
        return typeof data === "string" && JSON.parse(data).type === type;
      } catch {
        return false;
      }
    };
    window.WebSocket = class extends Native {
      asked = 0;
      answered = 0;
      constructor(...args) {
        super(...args);
        this.addEventListener("message", (message) => {
          if (isType(message.data, "models")) this.answered++;
        });
      }
      send(data) {
        if (isType(data, "list_models")) this.asked++;
        // The link the page's last op went out on: the one `roundTrip` and `armFrame` use.
        window.__kaiportLink = this;
        super.send(data);
      }
    };
  });
}

/**
 * A round trip on the page's link to kaiport (see `watchLinks`): kaiport handles a page's ops in
 * order, so once every `list_models` sent on it, this one last, is answered, each op the page
 * sent before has been handled. `list_models` reads settings and changes nothing. Resolves with
 * false, at once, when the link is not open (its ops cannot leave).
 */
export function roundTrip(page, timeout) {
  return page.evaluate(
    (timeout) =>
      new Promise((resolve, reject) => {
        const link = window.__kaiportLink;
        if (link === undefined || link.readyState !== WebSocket.OPEN) {
          resolve(false);
          return;
        }
        link.send(JSON.stringify({ type: "list_models" }));
        const timer = setTimeout(() => reject(new Error("list_models unanswered in time")), timeout);
        const check = () => {
          if (link.answered >= link.asked) {
            clearTimeout(timer);
            link.removeEventListener("message", check);
            resolve(true);
          }
        };
        link.addEventListener("message", check);
      }),
    timeout,
  );
}

/**
 * Starts watching the page's link to kaiport for a frame whose text (terminal bytes as UTF-8)
 * contains `text`; the returned function waits for it. The page's own handler has taken the
 * frame by then: a link's listeners run in the order they were added, the page's first.
 */
export async function armFrame(page, text, timeout) {
  await page.evaluate(
    ({ text, timeout }) => {
      const link = window.__kaiportLink;
      window.__kaiportFrame = new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no frame with ${text} in time`)), timeout);
        const seen = (message) => {
          const data = typeof message.data === "string" ? message.data : new TextDecoder().decode(message.data);
          if (data.includes(text)) {
            clearTimeout(timer);
            link.removeEventListener("message", seen);
            resolve();
          }
        };
        link.addEventListener("message", seen);
      });
    },
    { text, timeout },
  );
  return () => page.evaluate(() => window.__kaiportFrame);
}

/** Waits for the page's next `count` animation frames (what it draws follows each). */
export function animationFrames(page, count = 1) {
  return page.evaluate(async (count) => {
    for (let i = 0; i < count; i++) {
      await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    }
  }, count);
}

/** Waits until `locator`'s element is in sight without scrolling: inside the window, and what is
 * drawn at its middle is it (not clipped by a scrolled list, not under another element). */
export async function inSight(locator, what, timeout) {
  await until(
    `${what} in sight without scrolling`,
    () =>
      locator.evaluate((element) => {
        const box = element.getBoundingClientRect();
        if (box.top < 0 || box.left < 0 || box.bottom > window.innerHeight || box.right > window.innerWidth) {
          return false;
        }
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return hit !== null && element.contains(hit);
      }),
    timeout,
  );
}

/** A `kaiport-sshd` of its own started by `start` (run.mjs's startWithFirstLine) from the binary
 * `sshd` with `args`: its JSON line's fields, and `stop()`. */
export async function ownSshd(start, sshd, args) {
  const started = await start(sshd, args, { env: process.env });
  return {
    ...JSON.parse(started.line),
    stop: async () => {
      started.child.stdin.end("\n");
      if (started.child.exitCode === null) {
        await new Promise((r) => started.child.once("exit", r));
      }
    },
  };
}

/** Sends every HTTP(S) request that this run's programs (kaiport, the browser) would make to
 * another machine to a closed port on this one instead: tests talk to loopback only, and a
 * screen that fetches a provider's model list by default (Pilot's settings) must not reach out,
 * let alone with a key some earlier run left in the keychain. Loopback itself goes direct. */
export function keepTrafficOnLoopback() {
  const closed = "http://127.0.0.1:9";
  for (const name of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]) {
    process.env[name] = closed;
  }
  for (const name of ["NO_PROXY", "no_proxy"]) {
    process.env[name] = "127.0.0.1,localhost,::1";
  }
}

/** Saved SSH connections tagged `tag` on `kaiport-sshd` fixtures of their own (their host keys
 * trusted in `knownHosts`): per host `{ name, env, forbid }`, `forbid` a command its rules
 * forbid. The servers, and the `connections.toml` text naming them. */
export async function savedFixtures(start, sshd, knownHosts, tag, hosts) {
  const servers = [];
  let profiles = "";
  for (const host of hosts) {
    const env = Object.entries(host.env ?? {}).map(([k, v]) => `--env=${k}=${v}`);
    const server = await ownSshd(start, sshd, [`--trust-in=${knownHosts}`, ...env]);
    servers.push(server);
    profiles +=
      `[[connection]]\nname = "${host.name}"\nkind = "ssh"\nhost = "127.0.0.1"\nport = ${server.port}\n` +
      `user = "${server.user}"\nidentity_files = ["${server.key}"]\ntags = ["${tag}"]\n` +
      (host.forbid === undefined ? "" : `[connection.settings]\nforbidden_commands = ["${host.forbid}"]\n`) +
      "\n";
  }
  return { servers, profiles };
}

/** On a phone: a new local terminal from the connections drawer (which closes on choosing). */
export async function openLocalOnPhone(page) {
  await page.getByRole("button", { name: "Connections" }).click();
  const drawer = page.getByRole("navigation", { name: "Connections" });
  await drawer.getByRole("button", { name: "New local terminal" }).click();
  await drawer.waitFor({ state: "detached" });
}
