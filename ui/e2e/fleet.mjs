// Browser test for "Run on group…": a group of three real sshd fixtures (one whose rules forbid
// the command, the others asking), the dialog, the ONE approval card that lists which hosts
// allow, ask and forbid the line, the results card grouped by output with the refusal first, and
// Cancel while every host waits.
// Registered by run.mjs, which gives the helpers and runs it with the others.

import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { savedFixtures } from "./wait.mjs";

export function fleetTests({ test, until, startWithFirstLine, OUTPUT, SSHD }) {
  test("Run on group: one approval for the asking hosts, a refusal said so, output grouped", async ({
    page,
    served,
    home,
  }) => {
    const file = join(home, "connections.toml");
    const before = existsSync(file) ? readFileSync(file, "utf8") : "";
    const knownHosts = join(home, "known_hosts");
    const hosts = [
      { name: "e2e-fleet-1", env: { NGINX_VERSION: "nginx/1.24.0" } },
      { name: "e2e-fleet-2", env: { NGINX_VERSION: "nginx/1.24.0" } },
      { name: "e2e-fleet-3", env: { NGINX_VERSION: "nginx/1.22.1" }, forbid: "printenv" },
    ];
    const { servers, profiles } = await savedFixtures(startWithFirstLine, SSHD, knownHosts, "fleet", hosts);
    try {
      writeFileSync(file, profiles);
      await page.goto(served.url);
      const group = page.getByRole("navigation", { name: "Connections" }).getByRole("group", { name: "Group fleet" });
      await group.getByRole("button", { name: "Run on group…" }).click();
      const dialog = page.getByRole("dialog", { name: "Run on group" });
      const listed = dialog.getByRole("list", { name: "Hosts" });
      for (const host of hosts) {
        await listed.getByText(host.name, { exact: true }).waitFor();
      }
      await dialog.getByRole("textbox", { name: "Command" }).fill("printenv NGINX_VERSION");
      await dialog.getByRole("button", { name: "Run", exact: true }).click();

      // One card: two hosts ask, one forbids, and the approval is for the two only.
      const card = dialog.getByRole("article", { name: "Approval" });
      const rules = card.getByRole("list", { name: "What each host's rules say" });
      await rules.getByText("Ask — approving runs it on 2:").waitFor();
      await rules.getByText("e2e-fleet-1, e2e-fleet-2").waitFor();
      await rules.getByText("Forbid — refused on 1:").waitFor();
      await rules
        .getByText(/printenv/)
        .first()
        .waitFor();
      await page.screenshot({ path: join(OUTPUT, "fleet-approval.png") });
      await card.getByRole("button", { name: "Approve for 2 hosts" }).click();

      // The results: the refusal first, then the two that printed the same line as one group.
      const results = dialog.getByRole("region", { name: "Results" });
      await results.getByText("3 hosts: 2 done, 1 refused").waitFor();
      const groups = results.getByRole("list", { name: "Groups" }).getByRole("listitem");
      await until("two groups", async () => (await groups.count()) === 2);
      const first = (await groups.nth(0).innerText()).trim();
      if (!/^refused/.test(first) || !first.includes("printenv")) {
        throw new Error(`the refusal is not first, with its reason: ${first}`);
      }
      const second = groups.nth(1);
      await second.getByText("2 hosts: nginx/1.24.0").waitFor();
      await second.getByText("2 hosts: nginx/1.24.0").click();
      const table = second.getByRole("table", { name: "Hosts of this group" });
      await table.getByRole("cell", { name: "e2e-fleet-1" }).waitFor();
      await table.getByRole("cell", { name: "e2e-fleet-2" }).waitFor();
      if ((await table.getByRole("row").count()) !== 3) {
        throw new Error("the group lists other hosts than its two");
      }
      await page.screenshot({ path: join(OUTPUT, "fleet-results.png") });

      // Each connection's audit log has its line.
      const audit = readFileSync(join(home, "ai-audit.jsonl"), "utf8")
        .split("\n")
        .filter((line) => line.includes('"fleet_run"'));
      for (const host of hosts) {
        if (!audit.some((line) => line.includes(`"connection":"${host.name}"`))) {
          throw new Error(`no fleet_run audit line for ${host.name}`);
        }
      }

      // A line that waits for a gate, cancelled while every host runs it.
      const gate = mkdtempSync(join(tmpdir(), "kaiport-fleet-gate-"));
      chmodSync(gate, 0o777);
      try {
        // It also ends once the gate is gone: a cancelled run leaves it running on the servers.
        const wait = `while [ -d ${gate} ] && [ ! -e ${gate}/open ]; do sleep 0.1; done`;
        await dialog.getByRole("textbox", { name: "Command" }).fill(wait);
        await dialog.getByRole("button", { name: "Run", exact: true }).click();
        await card.getByRole("button", { name: "Approve for 3 hosts" }).click();
        await results.getByRole("status").getByText("0/3 hosts done").waitFor();
        await page.screenshot({ path: join(OUTPUT, "fleet-running.png") });
        await results.getByRole("button", { name: "Cancel" }).click();
        await results.getByText("3 hosts: 0 done, 3 cancelled").waitFor();
        await page.screenshot({ path: join(OUTPUT, "fleet-cancelled.png") });
      } finally {
        // Whatever still waits on a server ends.
        writeFileSync(join(gate, "open"), "");
        rmSync(gate, { recursive: true, force: true });
      }
      await dialog.getByRole("button", { name: "Close" }).click();

      // Not a group: two saved connections ticked by hand, one of them forbidding the line.
      await page
        .getByRole("navigation", { name: "Connections" })
        .getByRole("button", { name: "Run on connections…" })
        .click();
      const chosen = page.getByRole("dialog", { name: "Run on connections" });
      await chosen.getByRole("checkbox", { name: "e2e-fleet-1" }).check();
      await chosen.getByRole("checkbox", { name: "e2e-fleet-3" }).check();
      await chosen.getByText("2 of 3 chosen").waitFor();
      await chosen.getByRole("textbox", { name: "Command" }).fill("printenv NGINX_VERSION");
      await chosen.getByRole("button", { name: "Run", exact: true }).click();
      await chosen
        .getByRole("article", { name: "Approval" })
        .getByRole("button", { name: "Approve for 1 host" })
        .click();
      const picked = chosen.getByRole("region", { name: "Results" });
      await picked.getByText("2 hosts: 1 done, 1 refused").waitFor();
      await picked.getByText("1 host: nginx/1.24.0").waitFor();
      await page.screenshot({ path: join(OUTPUT, "fleet-chosen.png") });
      await chosen.getByRole("button", { name: "Close" }).click();
    } finally {
      writeFileSync(file, before);
      for (const server of servers) {
        await server.stop();
      }
    }
  });
}
