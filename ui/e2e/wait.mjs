// Waiting helpers shared by the browser tests (run.mjs) and the desktop window's (desktop-driver.mjs),
// and the removal of a test's home once nothing of kaiport's runs in it.

import { readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";

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
