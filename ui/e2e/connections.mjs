// Browser tests for saved connections, the ~/.ssh/config import, Connection settings, the audit
// log, the password / keyboard-interactive / changed-host-key prompts, and what a server or a
// page on another port of this host can do. Registered by run.mjs, which gives the helpers and
// runs them with the others.

import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { freePort, ownSshd as startOwnSshd, removeHome } from "./wait.mjs";

export function register({
  test,
  until,
  runInTerminal,
  activeTab,
  startWithFirstLine,
  OUTPUT,
  SSHD,
  KAIPORT,
  TIMEOUT,
}) {
  /** Records every frame the page receives (text as is, binary as latin1). */
  function recordFrames(page) {
    const received = [];
    page.on("websocket", (ws) =>
      ws.on("framereceived", (frame) =>
        received.push(typeof frame.payload === "string" ? frame.payload : frame.payload.toString("latin1")),
      ),
    );
    return received;
  }

  function assertNotIn(frames, secret, what) {
    const leaked = frames.filter((frame) => frame.includes(secret));
    if (leaked.length > 0) {
      throw new Error(`${what} came back to the page: ${leaked[0].slice(0, 200)}`);
    }
  }

  /** A `kaiport-sshd` of its own (e.g. password only), stopped by `stop()`. */
  function ownSshd(args) {
    return startOwnSshd(startWithFirstLine, SSHD, args);
  }

  async function fillNewConnection(page, fields) {
    await page.getByRole("button", { name: "New connection" }).first().click();
    const form = page.getByRole("dialog", { name: "New connection" });
    await form.getByLabel("Host", { exact: true }).fill(fields.host);
    await form.getByLabel("Port").fill(String(fields.port));
    await form.getByLabel("User").fill(fields.user);
    if (fields.key) await form.getByLabel("Key file").fill(fields.key);
    if (fields.name) await form.getByLabel("Name").fill(fields.name);
    if (fields.password) await form.getByLabel("Password").fill(fields.password);
    return form;
  }

  /** Opens an SSH tab on `server` (a `kaiport-sshd`) with its key, from "New connection". */
  async function connectWithKey(page, server) {
    const form = await fillNewConnection(page, {
      host: "127.0.0.1",
      port: server.port,
      user: server.user,
      key: server.key,
    });
    await form.getByRole("button", { name: "Connect" }).click();
  }

  /** The body of `http://127.0.0.1:port/`. */
  function fetchPage(port) {
    return new Promise((resolvePromise, reject) => {
      httpRequest({ host: "127.0.0.1", port, path: "/" }, (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolvePromise(text));
      })
        .on("error", reject)
        .end();
    });
  }

  /** Trusts an unknown host key if the dialog comes, until `ready()` is true. */
  async function trustUntil(page, what, ready) {
    const hostKey = page.getByRole("dialog", { name: "Unknown host key" });
    await until(what, async () => {
      if (await hostKey.isVisible()) {
        await hostKey.getByRole("button", { name: "Trust and connect" }).click();
      }
      return ready();
    });
  }

  /** Runs tool calls through the engine's whole pipeline from this page (Op::RunTool over a
   * second WebSocket of the page, with the token its tab keeps, as a front end would), denying
   * any approval; resolves with each call's `tool_finished`. */
  function runTools(page, tab, calls) {
    return page.evaluate(
      ({ tab, calls, timeout }) =>
        new Promise((resolve, reject) => {
          const ws = new WebSocket(`${location.origin.replace(/^http/, "ws")}/ws`, [
            "kaiport",
            `kaiport.token.${sessionStorage.getItem("kaiport.token")}`,
          ]);
          const finished = {};
          const timer = setTimeout(
            () => reject(new Error(`no tool_finished in time: ${JSON.stringify(finished)}`)),
            timeout,
          );
          ws.onopen = () => {
            for (const c of calls) ws.send(JSON.stringify({ type: "run_tool", tab, ...c }));
          };
          ws.onmessage = (message) => {
            if (typeof message.data !== "string") return;
            const event = JSON.parse(message.data);
            const mine = calls.some((c) => c.call === event.call);
            if (mine && event.type === "approval_requested") {
              ws.send(JSON.stringify({ type: "approve", call: event.call, decision: "deny" }));
            }
            if (mine && event.type === "tool_finished") {
              finished[event.call] = event;
              if (Object.keys(finished).length === calls.length) {
                clearTimeout(timer);
                ws.close();
                resolve(finished);
              }
            }
          };
          ws.onerror = () => reject(new Error("the page's WebSocket failed"));
        }),
      { tab, calls, timeout: TIMEOUT },
    );
  }

  test("a connection saved through the form opens from the sidebar, and its settings are edited", async ({
    page,
    served,
    sshd,
    home,
  }) => {
    await page.goto(served.url);
    const form = await fillNewConnection(page, {
      host: "127.0.0.1",
      port: sshd.port,
      user: sshd.user,
      key: sshd.key,
      name: "e2e-saved",
    });
    await form.getByRole("button", { name: "Save" }).click();
    await form.waitFor({ state: "hidden" });
    const sidebar = page.getByRole("navigation", { name: "Connections" });
    const open = sidebar.getByRole("button", { name: "Open e2e-saved (SSH)" });
    await open.waitFor();
    // Saving again under the same name says so and keeps the dialog open.
    const again = await fillNewConnection(page, {
      host: "127.0.0.1",
      port: sshd.port,
      user: sshd.user,
      name: "e2e-saved",
    });
    await again.getByRole("button", { name: "Save" }).click();
    await again.getByRole("alert").filter({ hasText: "exists already" }).waitFor();
    await again.getByRole("button", { name: "Cancel" }).click();

    await open.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("tab", { name: /e2e-saved/, selected: true }).waitFor();
    await trustUntil(page, "the saved connection's shell", async () =>
      /[$#] ?$/m.test((await page.evaluate((id) => window.kaiport.terminalText(id), await activeTab(page))) ?? ""),
    );
    await runInTerminal(page, "echo saved-$((6*7))", "saved-42");
    await page.screenshot({ path: join(OUTPUT, "saved-connection-open.png") });

    // Its settings: a forbidden command, saved into the profile.
    await sidebar.getByRole("button", { name: "Connection settings for e2e-saved" }).click();
    const settings = page.getByRole("dialog", { name: "Connection settings" });
    await settings.getByLabel("Forbidden commands").fill("shutdown\nrm");
    await settings.getByLabel("Sensitivity").selectOption("confidential");
    await settings.getByText("also applied to its open tab").waitFor();
    await settings.getByRole("button", { name: "Save settings" }).click();
    await settings.waitFor({ state: "hidden" });
    // Applied to the tab already open on it: Pilot may not run rm there now.
    const refused = await runTools(page, await activeTab(page), [
      { call: "e2e-saved-rm", tool: "run_command", args: { command: "rm -f /tmp/kaiport-e2e-nothing-here" } },
    ]);
    if (refused["e2e-saved-rm"].outcome.status !== "denied") {
      throw new Error(`the open tab did not get the new settings: ${JSON.stringify(refused)}`);
    }
    const file = readFileSync(join(home, "connections.toml"), "utf8");
    if (
      !/forbidden_commands = \[\s*"shutdown",\s*"rm",?\s*\]/.test(file) ||
      !file.includes('sensitivity = "confidential"')
    ) {
      throw new Error(`the settings are not in the profile:\n${file}`);
    }
    await sidebar.getByRole("button", { name: "Connection settings for e2e-saved" }).click();
    if ((await settings.getByLabel("Forbidden commands").inputValue()) !== "shutdown\nrm") {
      throw new Error("the dialog does not show the saved settings");
    }
    await page.screenshot({ path: join(OUTPUT, "saved-connection-settings.png") });
    await settings.getByRole("button", { name: "Cancel" }).click();

    // The tab's own settings, saved for its connection too.
    await page.getByRole("button", { name: "Connection settings", exact: true }).click();
    await settings.getByText("Open tab").waitFor();
    await settings.getByLabel("Allowed commands").fill("df");
    if (!(await settings.getByRole("checkbox", { name: "Also save for e2e-saved" }).isChecked())) {
      throw new Error("the tab's settings are not offered for its saved connection");
    }
    await settings.getByRole("button", { name: "Save settings" }).click();
    await settings.waitFor({ state: "hidden" });
    if (!/allowed_commands = \["df"\]/.test(readFileSync(join(home, "connections.toml"), "utf8"))) {
      throw new Error(
        `the tab's settings were not saved for its connection:\n${readFileSync(join(home, "connections.toml"), "utf8")}`,
      );
    }

    // Edited: renamed, with its settings kept.
    await sidebar.getByRole("button", { name: "Edit e2e-saved" }).click();
    const edit = page.getByRole("dialog", { name: "Edit connection" });
    if ((await edit.getByLabel("Port").inputValue()) !== String(sshd.port)) {
      throw new Error("the edit form does not show the saved port");
    }
    await edit.getByLabel("Name").fill("e2e-renamed");
    await page.screenshot({ path: join(OUTPUT, "saved-connection-edit.png") });
    await edit.getByRole("button", { name: "Save" }).click();
    await edit.waitFor({ state: "hidden" });
    const renamed = sidebar.getByRole("button", { name: "Open e2e-renamed (SSH)" });
    await renamed.waitFor();
    await open.waitFor({ state: "detached" });
    if (!/name = "e2e-renamed"[\s\S]*"shutdown"/.test(readFileSync(join(home, "connections.toml"), "utf8"))) {
      throw new Error("the renamed connection lost its settings");
    }

    // Delete asks once more, then the connection is gone from the sidebar and the file.
    await sidebar.getByRole("button", { name: "Delete e2e-renamed" }).click();
    await sidebar.getByRole("group", { name: "Delete e2e-renamed?" }).getByRole("button", { name: "Delete" }).click();
    await renamed.waitFor({ state: "detached" });
    if (readFileSync(join(home, "connections.toml"), "utf8").includes("e2e-")) {
      throw new Error("the deleted connection is still in connections.toml");
    }
  });

  test("Import from ~/.ssh/config: the chosen hosts become saved connections", async ({ page, served, sshd, home }) => {
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(
      join(home, ".ssh", "config"),
      [
        "Host e2e-imp1",
        "  HostName 127.0.0.1",
        `  Port ${sshd.port}`,
        `  User ${sshd.user}`,
        `  IdentityFile ${sshd.key}`,
        "Host e2e-imp2 e2e-imp3",
        "  HostName 10.255.255.1",
        "  User nobody",
        "Host *.internal",
        "  User ops",
        "",
      ].join("\n"),
    );
    await page.goto(served.url);
    const sidebar = page.getByRole("navigation", { name: "Connections" });
    await sidebar.getByRole("button", { name: "Import from ~/.ssh/config" }).click();
    const dialog = page.getByRole("dialog", { name: "Import from ~/.ssh/config" });
    const first = dialog.getByRole("checkbox", { name: /^e2e-imp1/ });
    await first.waitFor();
    if ((await dialog.getByRole("checkbox").count()) !== 3) {
      throw new Error(`expected the three concrete hosts: ${await dialog.textContent()}`);
    }
    await dialog.getByRole("checkbox", { name: /^e2e-imp2/ }).uncheck();
    await dialog.getByRole("checkbox", { name: /^e2e-imp3/ }).uncheck();
    await page.screenshot({ path: join(OUTPUT, "import-ssh-config.png") });
    await dialog.getByRole("button", { name: "Import 1" }).click();
    await dialog.waitFor({ state: "hidden" });
    await sidebar.getByRole("button", { name: "Open e2e-imp1 (SSH)" }).click();
    if ((await sidebar.getByRole("button", { name: /^Open e2e-imp2/ }).count()) !== 0) {
      throw new Error("a host that was not chosen was imported");
    }
    await page.getByRole("tab", { name: /e2e-imp1/, selected: true }).waitFor();
    await trustUntil(page, "the imported connection's shell", async () =>
      /[$#] ?$/m.test((await page.evaluate((id) => window.kaiport.terminalText(id), await activeTab(page))) ?? ""),
    );
    await runInTerminal(page, "echo imported-$((2*21))", "imported-42");
    // Imported once: the dialog now shows it as saved already.
    await sidebar.getByRole("button", { name: "Import from ~/.ssh/config" }).click();
    await dialog.getByText(/saved already/).waitFor();
    if (!(await dialog.getByRole("checkbox", { name: /^e2e-imp1/ }).isDisabled())) {
      throw new Error("a saved host is offered again");
    }
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await sidebar.getByRole("button", { name: "Delete e2e-imp1" }).click();
    await sidebar.getByRole("group", { name: "Delete e2e-imp1?" }).getByRole("button", { name: "Delete" }).click();

    // Storage connections are listed beside the SSH ones, with their kind (saved here as the
    // storage form does: Op::SaveConnection with the storage URL).
    await page.evaluate(
      (op) =>
        new Promise((resolve, reject) => {
          const ws = new WebSocket(`${location.origin.replace(/^http/, "ws")}/ws`, [
            "kaiport",
            `kaiport.token.${sessionStorage.getItem("kaiport.token")}`,
          ]);
          ws.onopen = () => ws.send(JSON.stringify(op));
          ws.onmessage = (m) => {
            const event = typeof m.data === "string" ? JSON.parse(m.data) : null;
            if (event?.type === "saved_connections" && event.connections.some((c) => c.name === op.name)) {
              ws.close();
              resolve();
            } else if (event?.type === "error" && !event.tab) {
              reject(new Error(event.message));
            }
          };
          ws.onerror = () => reject(new Error("the page's WebSocket failed"));
        }),
      {
        type: "save_connection",
        name: "e2e-s3",
        target: {
          kind: "storage",
          url: "s3://backups/db?endpoint=http%3A%2F%2F127.0.0.1%3A9000&path_style=true",
          user: "AKIDEXAMPLE",
        },
      },
    );
    const s3 = sidebar.getByRole("button", { name: "Open e2e-s3 (S3)" });
    await s3.waitFor();
    if (!((await s3.getAttribute("title")) ?? "").startsWith("s3://AKIDEXAMPLE@backups/db?")) {
      throw new Error(`the storage connection's address: ${await s3.getAttribute("title")}`);
    }
    if ((await sidebar.getByRole("button", { name: "Edit e2e-s3" }).count()) !== 0) {
      throw new Error("the SSH form offers to edit a storage connection");
    }
    await page.screenshot({ path: join(OUTPUT, "saved-storage-connection.png") });
    await sidebar.getByRole("button", { name: "Delete e2e-s3" }).click();
    await sidebar.getByRole("group", { name: "Delete e2e-s3?" }).getByRole("button", { name: "Delete" }).click();
    await s3.waitFor({ state: "detached" });
  });

  test("a saved connection's forwards open with its tab and are listed in it", async ({ page, served, home }) => {
    const server = await ownSshd([]);
    const file = join(home, "connections.toml");
    const before = existsSync(file) ? readFileSync(file, "utf8") : "";
    // A page on this machine answers through the forward.
    const target = createServer((_, response) => response.end("through the forward"));
    await new Promise((resolvePromise) => target.listen(0, "127.0.0.1", resolvePromise));
    const port = await freePort();
    writeFileSync(
      file,
      `[[connection]]\nname = "e2e-forwards"\nkind = "ssh"\nhost = "127.0.0.1"\nport = ${server.port}\n` +
        `user = "${server.user}"\nidentity_files = ["${server.key}"]\n` +
        `forwards = [{ kind = "local", listen_port = ${port}, to_host = "127.0.0.1", to_port = ${target.address().port} }]\n`,
    );
    try {
      await page.goto(served.url);
      const sidebar = page.getByRole("navigation", { name: "Connections" });
      await sidebar.getByRole("button", { name: "Open e2e-forwards (SSH)" }).click();
      const list = page.getByRole("region", { name: "Forwards" });
      await trustUntil(page, "the forward listening", async () =>
        ((await list.textContent().catch(() => "")) ?? "").includes(`listening on 127.0.0.1:${port}`),
      );
      const body = await fetchPage(port);
      if (body !== "through the forward") {
        throw new Error(`the forward answered: ${body}`);
      }
      const text = (await list.textContent()) ?? "";
      if (!text.includes(`-L ${port} → 127.0.0.1:${target.address().port}`)) {
        throw new Error(`the list does not say which forward: ${text}`);
      }
      await page.screenshot({ path: join(OUTPUT, "forwards-list.png") });
      // A page loaded again learns the forward's state from the replay, not from its next change.
      await page.reload();
      await list.filter({ hasText: `listening on 127.0.0.1:${port}` }).waitFor();
    } finally {
      writeFileSync(file, before);
      target.close();
      await server.stop();
    }
  });

  test("a forward added in a tab carries connections, warns when exposed, and closes", async ({
    page,
    served,
    sshd,
  }) => {
    const target = createServer((_, response) => response.end("through the added forward"));
    await new Promise((resolvePromise) => target.listen(0, "127.0.0.1", resolvePromise));
    const port = await freePort();
    try {
      await page.goto(served.url);
      await connectWithKey(page, sshd);
      const region = page.getByRole("region", { name: "Forwards" });
      const add = region.getByRole("button", { name: "Add forward" });
      await trustUntil(page, "the tab connected", () => add.isVisible());
      await add.click();
      const adding = region.getByRole("form", { name: "Add forward" });
      await adding.getByLabel("Kind").selectOption("local");
      // A listener other computers reach is warned of before it is opened.
      await adding.getByLabel("Listen").fill(`0.0.0.0:${port}`);
      await adding.getByRole("note").filter({ hasText: "reachable from other computers" }).waitFor();
      await adding.getByLabel("Listen").fill(String(port));
      await adding.getByRole("note").waitFor({ state: "detached" });
      await adding.getByLabel("Target").fill(`127.0.0.1:${target.address().port}`);
      await adding.getByRole("button", { name: "Open" }).click();
      await region.getByText(`listening on 127.0.0.1:${port}`).waitFor();
      const body = await fetchPage(port);
      if (body !== "through the added forward") {
        throw new Error(`the forward answered: ${body}`);
      }
      // A wrong target is said in the form, and nothing is opened.
      await region.getByRole("button", { name: "Add forward" }).click();
      await adding.getByLabel("Listen").fill("9");
      await adding.getByLabel("Target").fill("nowhere");
      await adding.getByRole("button", { name: "Open" }).click();
      await adding.getByRole("alert").filter({ hasText: "Target must be host:port" }).waitFor();
      await page.screenshot({ path: join(OUTPUT, "forward-added.png") });
      await adding.getByRole("button", { name: "Cancel" }).click();
      const words = `-L ${port} → 127.0.0.1:${target.address().port}`;
      await region.getByRole("button", { name: `Close ${words}` }).click();
      await region.getByText(words).waitFor({ state: "detached" });
    } finally {
      target.close();
    }
  });

  test("the agent's keys are listed in the form; it logs in and is forwarded when ticked", async ({ page, sshd }) => {
    // Its own agent and its own `kaiport serve` that finds it through SSH_AUTH_SOCK.
    const own = mkdtempSync(join(tmpdir(), "kaiport-e2e-agent-"));
    const socket = join(own, "agent.sock");
    const agent = await startWithFirstLine("ssh-agent", ["-D", "-a", socket], { env: process.env });
    let serve = null;
    try {
      const env = { ...process.env, SSH_AUTH_SOCK: socket };
      execFileSync("ssh-add", [sshd.key], { env, stdio: "ignore" });
      const fingerprint = execFileSync("ssh-keygen", ["-lf", `${sshd.key}.pub`], { encoding: "utf8" }).split(" ")[1];
      serve = await startWithFirstLine(KAIPORT, ["serve", "--known-hosts", join(own, "known_hosts")], {
        env: { ...env, KAIPORT_HOME: own, HOME: own, SHELL: "/bin/bash" },
        cwd: own,
      });
      await page.goto(serve.line.trim());
      const form = await fillNewConnection(page, { host: "127.0.0.1", port: sshd.port, user: sshd.user });
      const keys = form.getByLabel("Agent keys");
      await keys.getByText(fingerprint).waitFor();
      if (!((await keys.textContent()) ?? "").includes("ED25519")) {
        throw new Error(`the agent's key type is not listed: ${await keys.textContent()}`);
      }
      if ((await form.getByRole("checkbox", { name: "Forward the agent to this server" }).isChecked()) !== false) {
        throw new Error("agent forwarding is on by default");
      }
      await form.getByRole("checkbox", { name: "Forward the agent to this server" }).check();
      await form.getByRole("note").filter({ hasText: "Forward the agent only to servers you trust" }).waitFor();
      await page.screenshot({ path: join(OUTPUT, "agent-keys.png") });
      // No key file: the agent logs in, and the shell reaches it.
      await form.getByRole("button", { name: "Connect" }).click();
      // The terminal is drawn before the host key is asked: wait for the shell's prompt.
      await trustUntil(page, "the shell", async () =>
        /[$#] ?$/m.test((await page.evaluate((id) => window.kaiport.terminalText(id), await activeTab(page))) ?? ""),
      );
      await runInTerminal(page, "ssh-add -l | cut -d' ' -f2", fingerprint);
    } finally {
      serve?.child.kill("SIGINT");
      if (serve !== null && serve.child.exitCode === null) {
        await new Promise((r) => serve.child.once("exit", r));
      }
      agent.child.kill("SIGTERM");
      await removeHome(own);
    }
  });

  test("an agent that never answers holds up neither Connect nor the login: the key file is checked, then logs in", async ({
    page,
    sshd,
  }) => {
    // An agent socket that takes connections and says nothing (a locked password manager): the
    // form's list of the agents' keys waits for it (5 s at most) while Connect checks the key
    // file, which is answered first.
    const own = mkdtempSync(join(tmpdir(), "kaiport-e2e-silent-agent-"));
    const socket = join(own, "agent.sock");
    const held = [];
    const silent = createNetServer((connection) => held.push(connection));
    await new Promise((resolvePromise) => silent.listen(socket, resolvePromise));
    let serve = null;
    try {
      serve = await startWithFirstLine(KAIPORT, ["serve", "--known-hosts", join(own, "known_hosts")], {
        env: { ...process.env, SSH_AUTH_SOCK: socket, KAIPORT_HOME: own, HOME: own, SHELL: "/bin/bash" },
        cwd: own,
      });
      await page.goto(serve.line.trim());
      const form = await fillNewConnection(page, {
        host: "127.0.0.1",
        port: sshd.port,
        user: sshd.user,
        key: sshd.key,
      });
      await until("the agent to be asked", () => held.length > 0);
      await form.getByRole("button", { name: "Connect" }).click();
      await page
        .getByRole("dialog", { name: "Unknown host key" })
        .getByRole("button", { name: "Trust and connect" })
        .click();
      await runInTerminal(page, "echo past-the-agent-$((6*7))", "past-the-agent-42");
    } finally {
      serve?.child.kill("SIGINT");
      if (serve !== null && serve.child.exitCode === null) {
        await new Promise((r) => serve.child.once("exit", r));
      }
      for (const connection of held) connection.destroy();
      await new Promise((r) => silent.close(r));
      await removeHome(own);
    }
  });

  test("many saved connections can be filtered in the sidebar", async ({ page, served, home }) => {
    const file = join(home, "connections.toml");
    const before = existsSync(file) ? readFileSync(file, "utf8") : "";
    const many = Array.from(
      { length: 9 },
      (_, i) => `[[connection]]\nname = "e2e-many-${i}"\nkind = "ssh"\nhost = "10.0.0.${i + 1}"\nuser = "ops"\n`,
    );
    // In place of what is there (it comes back at the end): appending to a file that says
    // `connection = []` would not be TOML.
    writeFileSync(file, many.join("\n"));
    try {
      await page.goto(served.url);
      const sidebar = page.getByRole("navigation", { name: "Connections" });
      await sidebar.getByRole("button", { name: "Open e2e-many-8 (SSH)" }).waitFor();
      await sidebar.getByRole("searchbox", { name: "Filter saved connections" }).fill("10.0.0.4");
      await until(
        "one saved connection shown",
        async () => (await sidebar.getByRole("button", { name: /^Open e2e-many-/ }).count()) === 1,
      );
      await sidebar.getByRole("button", { name: "Open e2e-many-3 (SSH)" }).waitFor();
      await page.screenshot({ path: join(OUTPUT, "saved-connections-filtered.png") });
    } finally {
      writeFileSync(file, before);
    }
  });

  test("saved connections in groups by tag: collapsed, searched, tagged from the sidebar", async ({
    page,
    served,
    home,
  }) => {
    const file = join(home, "connections.toml");
    const before = existsSync(file) ? readFileSync(file, "utf8") : "";
    const entry = (name, host, tags) =>
      `[[connection]]\nname = "${name}"\nkind = "ssh"\nhost = "${host}"\nuser = "ops"\n` +
      (tags.length > 0 ? `tags = [${tags.map((tag) => `"${tag}"`).join(", ")}]\n` : "");
    writeFileSync(
      file,
      [
        entry("e2e-web-1", "10.1.0.1", ["web", "eu"]),
        entry("e2e-web-2", "10.1.0.2", ["web"]),
        entry("e2e-db", "10.1.0.9", []),
      ].join("\n"),
    );
    try {
      await page.goto(served.url);
      const sidebar = page.getByRole("navigation", { name: "Connections" });
      const web = sidebar.getByRole("group", { name: "Group web" });
      const eu = sidebar.getByRole("group", { name: "Group eu" });
      const ungrouped = sidebar.getByRole("group", { name: "Ungrouped" });
      await web.getByRole("button", { name: "Open e2e-web-2 (SSH)" }).waitFor();
      // A connection with two tags is in both groups; the untagged one in its own.
      await eu.getByRole("button", { name: "Open e2e-web-1 (SSH)" }).waitFor();
      await ungrouped.getByRole("button", { name: "Open e2e-db (SSH)" }).waitFor();
      await page.screenshot({ path: join(OUTPUT, "sidebar-groups.png") });

      // Folded and unfolded by its heading.
      const heading = web.getByRole("button", { name: /^web\s*\d+$/, expanded: true });
      await heading.click();
      await until("the web group folded", async () => (await web.getByRole("listitem").count()) === 0);
      if ((await web.getByRole("button", { expanded: false }).count()) !== 1) {
        throw new Error("the folded group's heading does not say it is folded");
      }
      await web.getByRole("button", { name: /^web\s*\d+$/, expanded: false }).click();
      await web.getByRole("button", { name: "Open e2e-web-1 (SSH)" }).waitFor();

      // Searched by tag: only the groups with matches, the matches only.
      const search = sidebar.getByRole("searchbox", { name: "Filter saved connections" });
      await search.fill("eu");
      await until("only eu matches", async () => (await ungrouped.count()) === 0);
      await eu.getByRole("button", { name: "Open e2e-web-1 (SSH)" }).waitFor();
      if ((await web.getByRole("button", { name: "Open e2e-web-2 (SSH)" }).count()) !== 0) {
        throw new Error("a connection that does not match the search is still shown");
      }
      await search.fill("");

      // Tagged from the sidebar: the untagged one joins a new group, saved in the file.
      await ungrouped.getByRole("listitem").hover();
      await ungrouped.getByRole("button", { name: "Tags for e2e-db" }).click();
      const field = sidebar.getByRole("textbox", { name: "Tags for e2e-db, comma-separated" });
      await field.fill("db, eu");
      await field.press("Enter");
      await sidebar
        .getByRole("group", { name: "Group db" })
        .getByRole("button", { name: "Open e2e-db (SSH)" })
        .waitFor();
      await eu.getByRole("button", { name: "Open e2e-db (SSH)" }).waitFor();
      await until("no ungrouped connection left", async () => (await ungrouped.count()) === 0);
      await until("the tags saved in the file", async () =>
        /tags = \[\s*"db",\s*"eu",?\s*\]/.test(readFileSync(file, "utf8")),
      ).catch(() => {
        throw new Error(`connections.toml: ${readFileSync(file, "utf8")}`);
      });
      await page.screenshot({ path: join(OUTPUT, "sidebar-groups-tagged.png") });
    } finally {
      writeFileSync(file, before);
    }
  });

  test(
    "on a phone the saved connections are in the connections drawer, 44 px high",
    async ({ page, served, home }) => {
      const file = join(home, "connections.toml");
      const before = existsSync(file) ? readFileSync(file, "utf8") : "";
      writeFileSync(file, '[[connection]]\nname = "e2e-phone"\nkind = "ssh"\nhost = "10.0.0.9"\nuser = "ops"\n');
      try {
        await page.goto(served.url);
        await page.getByRole("button", { name: "Connections" }).click();
        const open = page.getByRole("button", { name: "Open e2e-phone (SSH)" });
        await open.waitFor();
        for (const control of [open, page.getByRole("button", { name: "Connection settings for e2e-phone" })]) {
          const box = await control.boundingBox();
          if (box === null || box.height < 44 || box.width < 44) {
            throw new Error(`a touch target is too small: ${JSON.stringify(box)}`);
          }
        }
        await open.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(OUTPUT, "phone-saved-connections.png") });
      } finally {
        writeFileSync(file, before);
      }
    },
    { viewport: { width: 390, height: 760 }, hasTouch: true, isMobile: true },
  );

  // The New connection form saves a storage connection as it saves an SSH one; its row in the
  // sidebar shows the whole name (a long one too), its actions only over it on hover or focus
  // with a mouse, on a line of their own under it with 44 px targets for a finger.
  for (const [size, options] of [
    ["desktop", { viewport: { width: 1440, height: 900 } }],
    ["tablet", { viewport: { width: 1024, height: 1366 }, hasTouch: true, isMobile: true }],
    ["phone", { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }],
  ]) {
    test(
      `a storage connection is named and saved from New connection, its name readable (${size})`,
      async ({ page, served, home }) => {
        const file = join(home, "connections.toml");
        const before = existsSync(file) ? readFileSync(file, "utf8") : "";
        const name = "e2e-ftp-backups-of-the-office";
        try {
          await page.goto(served.url);
          const sidebar = page.getByRole("navigation", { name: "Connections" });
          const drawer = page.getByRole("button", { name: "Connections" });
          const showSidebar = async () => {
            if (size !== "desktop" && (await sidebar.count()) === 0) await drawer.click();
          };
          await showSidebar();
          await sidebar.getByRole("button", { name: "New connection" }).click();
          const dialog = page.getByRole("dialog", { name: "New connection" });
          await dialog.getByLabel("Kind").selectOption("ftp");
          await dialog.getByLabel("Host").fill("127.0.0.1");
          await dialog.getByLabel("User").fill("backup");
          await dialog.getByRole("textbox", { name: "Name" }).fill(name);
          await page.screenshot({ path: join(OUTPUT, `storage-save-form-${size}.png`) });
          await dialog.getByRole("button", { name: "Save" }).click();
          await dialog.waitFor({ state: "detached" });
          await showSidebar();
          const open = sidebar.getByRole("button", { name: `Open ${name} (FTP)` });
          await open.waitFor();
          const saved = readFileSync(file, "utf8");
          if (!saved.includes(name) || /password|secret/i.test(saved)) {
            throw new Error(`the saved file: ${saved}`);
          }
          // The whole name is shown, not cut behind the action buttons.
          const cut = await open.evaluate((el) => el.scrollWidth > el.clientWidth);
          if (cut) throw new Error("the saved storage connection's name is cut");
          const settings = sidebar.getByRole("button", { name: `Connection settings for ${name}` });
          if (size === "desktop") {
            const hidden = await settings.evaluate((el) => getComputedStyle(el.parentElement).opacity === "0");
            if (!hidden) throw new Error("the row's actions show without hover or focus");
            await open.hover();
            await until(
              "the actions shown on hover",
              async () => (await settings.evaluate((el) => getComputedStyle(el.parentElement).opacity)) === "1",
            );
          } else {
            for (const control of [open, settings, sidebar.getByRole("button", { name: `Delete ${name}` })]) {
              const box = await control.boundingBox();
              if (box === null || box.height < 44 || box.width < 44) {
                throw new Error(`a touch target is too small: ${JSON.stringify(box)}`);
              }
            }
          }
          await open.scrollIntoViewIfNeeded();
          await page.screenshot({ path: join(OUTPUT, `storage-saved-row-${size}.png`) });
        } finally {
          writeFileSync(file, before);
        }
      },
      options,
    );
  }

  test(
    "Connection settings of a tab: bad values are named, a forbidden command is applied, and the audit log lists the calls",
    async ({ page, served }) => {
      await page.goto(served.url);
      await page
        .getByRole("navigation", { name: "Connections" })
        .getByRole("button", { name: "New local terminal" })
        .click();
      await runInTerminal(page, "echo ready", "ready");
      const tab = await activeTab(page);
      await page.getByRole("button", { name: "Connection settings" }).click();
      const settings = page.getByRole("dialog", { name: "Connection settings" });
      await settings.getByLabel("Forbidden commands").fill("rm");
      await settings.getByLabel("Allowed commands").fill("echo");
      await settings.getByLabel("Command timeout (s)").fill("0");
      await settings.getByRole("button", { name: "Save settings" }).click();
      await settings.getByText("Command timeout (s) must be a whole number from 1 to 600.").waitFor();
      if ((await settings.getByLabel("Command timeout (s)").getAttribute("aria-invalid")) !== "true") {
        throw new Error("the bad field is not marked invalid");
      }
      await page.screenshot({ path: join(OUTPUT, "settings-invalid.png") });
      await settings.getByLabel("Command timeout (s)").fill("30");
      await settings.getByRole("button", { name: "Save settings" }).click();
      await settings.waitFor({ state: "hidden" });

      const finished = await runTools(page, tab, [
        { call: "e2e-echo", tool: "run_command", args: { command: "echo audited-$((40+2))" } },
        { call: "e2e-rm", tool: "run_command", args: { command: "rm -rf /tmp/kaiport-e2e-nothing-here" } },
      ]);
      if (finished["e2e-echo"].verdict !== "allow" || finished["e2e-echo"].decided_by !== "rule") {
        throw new Error(`echo was not allowed by the rule: ${JSON.stringify(finished["e2e-echo"])}`);
      }
      if (finished["e2e-rm"].outcome.status !== "denied" || finished["e2e-rm"].verdict !== "deny") {
        throw new Error(`rm was not refused: ${JSON.stringify(finished["e2e-rm"])}`);
      }

      await page.getByRole("button", { name: "Audit log" }).click();
      const audit = page.getByRole("dialog", { name: "Audit log" });
      const rows = audit.getByRole("row");
      const echoRow = rows.filter({ hasText: "echo audited-$((40+2))" });
      const rmRow = rows.filter({ hasText: "rm -rf /tmp/kaiport-e2e-nothing-here" });
      await echoRow.waitFor();
      for (const [row, words] of [
        [echoRow, ["run_command", "allowed", "rule", "ok"]],
        [rmRow, ["run_command", "denied", "rule", "denied"]],
      ]) {
        const text = await row.textContent();
        if (!words.every((word) => text.includes(word))) {
          throw new Error(`the row lacks ${words}: ${text}`);
        }
      }
      // A call that ends while the view is open shows up in it.
      await runTools(page, tab, [{ call: "e2e-live", tool: "read_screen", args: { wait_seconds: 0 } }]);
      await rows.filter({ hasText: "read_screen" }).first().waitFor();
      await page.screenshot({ path: join(OUTPUT, "audit-log.png") });
      const bodyRows = audit.locator("tbody tr");
      const allSay = async (word) => (await bodyRows.allTextContents()).every((text) => text.includes(word));
      await audit.getByLabel("Decision").selectOption("denied");
      await until(
        "only denied rows",
        async () => (await rmRow.count()) === 1 && (await echoRow.count()) === 0 && (await allSay("denied")),
      );
      await audit.getByLabel("Decision").selectOption("all");
      await audit.getByRole("searchbox", { name: "Filter audit log" }).fill("audited");
      await until(
        "only the echo row",
        async () => (await echoRow.count()) === 1 && (await rmRow.count()) === 0 && (await allSay("audited")),
      );
      await page.screenshot({ path: join(OUTPUT, "audit-log-filtered.png") });
      // "By": these calls came as Pilot's (their ids are not the storage tab's `user-…`).
      if (!((await echoRow.textContent()) ?? "").includes("Pilot")) {
        throw new Error(`the row does not say Pilot made it: ${await echoRow.textContent()}`);
      }
      await audit.getByLabel("By").selectOption("you");
      await until("no row of Pilot's when filtered by you", async () => (await echoRow.count()) === 0);
      await audit.getByLabel("By").selectOption("Pilot");
      await echoRow.waitFor();
      await audit.getByRole("checkbox", { name: "Show my browsing" }).check();
      await page.screenshot({ path: join(OUTPUT, "audit-log-by.png") });
      await audit.getByRole("button", { name: "Close" }).click();
    },
    { colorScheme: "dark" },
  );

  test("password login through a masked field; a password saved with Save is used and never comes back to the page", async ({
    page,
    served,
    home,
  }) => {
    const server = await ownSshd(["--password"]);
    try {
      const received = recordFrames(page);
      await page.goto(served.url);
      const form = await fillNewConnection(page, { host: "127.0.0.1", port: server.port, user: server.user });
      await form.getByRole("button", { name: "Connect" }).click();
      const prompt = page.getByRole("dialog", { name: "Password" });
      await trustUntil(page, "the password dialog", () => prompt.isVisible());
      const field = prompt.getByLabel("Password");
      if ((await field.getAttribute("type")) !== "password") {
        throw new Error("the password field is not masked");
      }
      await field.fill(server.password);
      await page.screenshot({ path: join(OUTPUT, "password-prompt.png") });
      await prompt.getByRole("button", { name: "Log in" }).click();
      await runInTerminal(page, "echo password-$((6*7))", "password-42");

      // Saved with its password: the file holds no secret, and opening it asks nothing.
      const save = await fillNewConnection(page, {
        host: "127.0.0.1",
        port: server.port,
        user: server.user,
        name: "e2e-pw",
        password: server.password,
      });
      if ((await save.getByLabel("Password").getAttribute("type")) !== "password") {
        throw new Error("the form's password field is not masked");
      }
      await save.getByRole("button", { name: "Save" }).click();
      await save.waitFor({ state: "hidden" });
      if (readFileSync(join(home, "connections.toml"), "utf8").includes(server.password)) {
        throw new Error("the password was written into connections.toml");
      }
      const sidebar = page.getByRole("navigation", { name: "Connections" });
      await sidebar.getByRole("button", { name: "Open e2e-pw (SSH)" }).click();
      await page.getByRole("tab", { name: /e2e-pw/, selected: true }).waitFor();
      await runInTerminal(page, "echo keychain-$((6*7))", "keychain-42");
      if (await prompt.isVisible()) {
        throw new Error("the saved password was asked for again");
      }
      await sidebar.getByRole("button", { name: "Delete e2e-pw" }).click();
      await sidebar.getByRole("group", { name: "Delete e2e-pw?" }).getByRole("button", { name: "Delete" }).click();
      assertNotIn(received, server.password, "the password");
    } finally {
      await server.stop();
    }
  });

  test("keyboard-interactive login through masked fields", async ({ page, served }) => {
    const server = await ownSshd(["--keyboard-interactive"]);
    try {
      const received = recordFrames(page);
      await page.goto(served.url);
      const form = await fillNewConnection(page, { host: "127.0.0.1", port: server.port, user: server.user });
      await form.getByRole("button", { name: "Connect" }).click();
      // PAM's question (e.g. "Password: ") is the field's label.
      const prompt = page.getByRole("dialog").filter({ has: page.locator('input[id^="prompt-response-"]') });
      await trustUntil(page, "the keyboard-interactive dialog", () => prompt.isVisible());
      const fields = prompt.locator('input[id^="prompt-response-"]');
      if ((await fields.count()) < 1 || (await fields.first().getAttribute("type")) !== "password") {
        throw new Error(`no masked answer field: ${await prompt.textContent()}`);
      }
      const label = (await prompt.locator("label").first().textContent()) ?? "";
      if (!/password/i.test(label)) {
        throw new Error(`the field is not labelled with the server's question: ${label}`);
      }
      await prompt.getByLabel(label.trim()).fill(server.password);
      await page.screenshot({ path: join(OUTPUT, "keyboard-interactive.png") });
      await prompt.getByRole("button", { name: "Log in" }).click();
      await runInTerminal(page, "echo kbd-$((6*7))", "kbd-42");
      assertNotIn(received, server.password, "the keyboard-interactive answer");
    } finally {
      await server.stop();
    }
  });

  test("a changed host key is refused with both fingerprints and replaced only by typing the new one", async ({
    page,
    served,
    home,
  }) => {
    const server = await ownSshd([]);
    try {
      // known_hosts holds another ed25519 key for this server: as after a reinstall, or an attack.
      const other = readFileSync(`${server.key}.pub`, "utf8").trim().split(/\s+/);
      appendFileSync(join(home, "known_hosts"), `[127.0.0.1]:${server.port} ${other[0]} ${other[1]}\n`);
      await page.goto(served.url);
      await connectWithKey(page, server);
      const alert = page.getByRole("alertdialog", { name: "Host key changed" });
      await alert.waitFor();
      const text = (await alert.textContent()) ?? "";
      for (const words of ["did not connect", "intercepting", "Fingerprint now", "Stored fingerprint", "known_hosts"]) {
        if (!text.includes(words)) {
          throw new Error(`the dialog does not say "${words}": ${text}`);
        }
      }
      if ((text.match(/SHA256:/g) ?? []).length < 2) {
        throw new Error(`the dialog does not show both fingerprints: ${text}`);
      }
      const buttons = (await alert.getByRole("button").allTextContents()).map((b) => b.trim());
      if (buttons.join("|") !== "Replace the stored key…|Close") {
        throw new Error(`the dialog offers other buttons: ${buttons}`);
      }
      await page.screenshot({ path: join(OUTPUT, "host-key-changed.png") });
      // Replacing needs the new fingerprint's last 8 characters typed: never one click.
      const now = (await alert.locator("dd").nth(1).textContent())?.trim() ?? "";
      await alert.getByRole("button", { name: "Replace the stored key…" }).click();
      const replace = alert.getByRole("button", { name: "Replace the stored key", exact: true });
      if (!(await replace.isDisabled())) {
        throw new Error("the key can be replaced without typing its fingerprint");
      }
      const field = alert.getByLabel(/last 8 characters/);
      const before = readFileSync(join(home, "known_hosts"), "utf8");
      await field.fill("AAAAAAAA");
      await replace.click();
      await alert.getByRole("alert").filter({ hasText: "nothing was replaced" }).waitFor();
      if (readFileSync(join(home, "known_hosts"), "utf8") !== before) {
        throw new Error("a wrong confirmation changed known_hosts");
      }
      await page.screenshot({ path: join(OUTPUT, "host-key-wrong-confirmation.png") });
      await field.fill(now.slice(-8));
      await replace.click();
      // Replaced: the dialog goes and the tab connects again.
      await alert.waitFor({ state: "detached" });
      await runInTerminal(page, "echo replaced-$((6*7))", "replaced-42");
      await page.screenshot({ path: join(OUTPUT, "host-key-replaced.png") });
    } finally {
      await server.stop();
    }
  });

  test("a server on another port of this host gets nothing from the browser that opens the WebSocket", async ({
    page,
    served,
  }) => {
    // Pilot's answer may link to another port of 127.0.0.1: the same site, so the browser sends
    // that port whatever it would send this host. A logger there records every request; a
    // plain client then replays each (it sets Origin itself) to open the WebSocket.
    await page.goto(served.url);
    await page.getByRole("navigation", { name: "Connections" }).waitFor();
    const seen = [];
    const logger = createServer((request, response) => {
      seen.push({ url: request.url, headers: request.headers });
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<!doctype html><title>elsewhere</title><p>another port</p>");
    });
    await new Promise((r) => logger.listen(0, "127.0.0.1", r));
    const elsewhere = `http://127.0.0.1:${logger.address().port}`;
    try {
      // As a link in the page would (the page's CSP lets it fetch nothing from elsewhere).
      await page.evaluate((url) => {
        const link = document.createElement("a");
        link.href = `${url}/linked`;
        link.textContent = "a link in Pilot's answer";
        document.body.append(link);
        link.click();
      }, elsewhere);
      await page.waitForURL(`${elsewhere}/linked`);
      if (!seen.some((r) => r.url === "/linked")) {
        throw new Error(`the logger saw ${JSON.stringify(seen.map((r) => r.url))}`);
      }
      const carried = JSON.stringify(seen);
      if (carried.includes(served.token)) {
        throw new Error(`the token reached another port: ${carried.slice(0, 300)}`);
      }
      // Each request replayed, with this server's Origin, everything it carried and the
      // subprotocol (without a token, which it never saw): refused.
      for (const request of seen) {
        const status = await upgradeStatus(served.port, { ...request.headers, "sec-websocket-protocol": "kaiport" });
        if (status !== 401) {
          throw new Error(`replaying ${request.url} got ${status}, not 401`);
        }
      }
      // The replay can tell: with the token it opens.
      const opened = await upgradeStatus(served.port, {
        "sec-websocket-protocol": `kaiport, kaiport.token.${served.token}`,
      });
      if (opened !== 101) {
        throw new Error(`with the token the WebSocket gave ${opened}`);
      }

      // From the browser: the token opens the socket from the server's own page only.
      const attempt = (protocols) =>
        page.evaluate(
          ({ url, protocols }) =>
            new Promise((resolve) => {
              const ws = new WebSocket(url, protocols);
              const frames = [];
              ws.onmessage = (m) => {
                // One frame is enough to know it opened.
                if (frames.push(typeof m.data === "string" ? m.data : "binary") === 1) ws.close();
              };
              ws.onclose = (e) => resolve({ opened: frames.length > 0, code: e.code, frames });
              setTimeout(() => resolve({ opened: frames.length > 0, code: "timeout", frames }), 5000);
            }),
          { url: `ws://127.0.0.1:${served.port}/ws`, protocols },
        );
      const right = ["kaiport", `kaiport.token.${served.token}`];
      const foreign = await attempt(right);
      if (foreign.opened) {
        throw new Error(`a page on another origin got events: ${foreign.frames[0]?.slice(0, 200)}`);
      }
      await page.goto(served.url);
      await page.getByRole("navigation", { name: "Connections" }).waitFor();
      const own = await attempt(right);
      if (!own.opened) {
        throw new Error(`the server's own page got no events (${own.code})`);
      }
      for (const protocols of [[], ["kaiport"], ["kaiport", `kaiport.token.${"0".repeat(served.token.length)}`]]) {
        const refused = await attempt(protocols);
        if (refused.opened) {
          throw new Error(`the WebSocket opened with ${JSON.stringify(protocols)}`);
        }
      }
      await page.screenshot({ path: join(OUTPUT, "websocket-refused.png") });
    } finally {
      logger.close();
    }
  });
}

/** The HTTP status of a WebSocket upgrade to `/ws` on `port` from a plain client with this
 * server's Origin and `headers` (as received elsewhere: a replay). */
function upgradeStatus(port, headers) {
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: "127.0.0.1",
      port,
      path: "/ws",
      headers: {
        ...headers,
        host: `127.0.0.1:${port}`,
        origin: `http://127.0.0.1:${port}`,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    });
    request.on("upgrade", (response, socket) => {
      socket.destroy();
      resolve(response.statusCode);
    });
    request.on("response", (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on("error", reject);
    request.end();
  });
}
