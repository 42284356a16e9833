// Waiting helpers shared by the browser tests (run.mjs) and the desktop window's (desktop-driver.mjs).

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
