import { describe, expect, it } from "vitest";
import type { Event, ViewButton, ViewData, ViewReport } from "../protocol";
import { applyPilotEvent, initialPilot, tabPilot, viewButtonPressed, type PilotState } from "./pilot";
import {
  daysLeft,
  elapsed,
  gapLines,
  percent,
  plain,
  summaryLine,
  viewHeader,
  viewSections,
  viewTitle,
  type Section,
} from "./view-card";

function apply(state: PilotState, ...events: Event[]): PilotState {
  return events.reduce(applyPilotEvent, state);
}

function report(data: ViewData, extra: Partial<ViewReport> = {}): ViewReport {
  return {
    view: data.kind === "unavailable" ? "docker" : (data.kind as ViewReport["view"]),
    summary: "first line\n  second line",
    prelude: 'export LC_ALL=C PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin";',
    commands: [{ command: "df -PT -B1", exit_code: 0, duration_ms: 7 }],
    gaps: [],
    data,
    buttons: [],
    ...extra,
  };
}

// As the engine sends them for the SysV init scripts of the test sshd (tests/suite/views.rs).
const start: ViewButton = {
  label: "start cron",
  action: { kind: "service", verb: "start", manager: "sysv", name: "cron" },
  command: "sudo service 'cron' start",
};
const restart: ViewButton = {
  label: "restart cron",
  action: { kind: "service", verb: "restart", manager: "sysv", name: "cron" },
  command: "sudo service 'cron' restart",
};
const follow: ViewButton = {
  label: "follow /tmp/app.log",
  action: { kind: "follow_file", path: "/tmp/app.log" },
  command: "tail -F -n 50 -- '/tmp/app.log'",
};

const services = report(
  {
    kind: "services",
    manager: "sysv",
    services: [
      { name: "cron", state: "stopped", detail: "[ - ]" },
      { name: "nginx", state: "failed", detail: "[ - ]", description: "web server" },
    ],
  },
  { view: "services", buttons: [start, restart] },
);

function sections(r: ViewReport): Section[] {
  return viewSections(r).sections;
}

function tableOf(r: ViewReport, index = 0): Extract<Section, { kind: "table" }> {
  const table = sections(r).filter((s) => s.kind === "table")[index];
  if (table?.kind !== "table") throw new Error("no table");
  return table;
}

describe("view cards in Pilot's state", () => {
  it("gives a show_view call its view from view_shown, and keeps it when the call finishes", () => {
    let state = apply(
      initialPilot(),
      { type: "tool_requested", tab: "t", call: "v1", tool: "show_view", args: { view: "services" } },
      { type: "view_shown", tab: "t", call: "v1", report: services },
      { type: "view_shown", tab: "other", call: "v9", report: services },
    );
    const card = tabPilot(state, "t").calls["v1"];
    expect(card?.view).toEqual(services);
    expect(card?.presses).toEqual([]);
    state = apply(state, {
      type: "tool_finished",
      tab: "t",
      call: "v1",
      outcome: { tool: "show_view", status: "ok", result: { view: "services", summary: services.summary } },
      verdict: "allow",
      decided_by: "rule",
      duration_ms: 1300,
    });
    const finished = tabPilot(state, "t").calls["v1"];
    expect([finished?.phase, finished?.view?.view, finished?.durationMs]).toEqual(["finished", "services", 1300]);
    expect(tabPilot(state, "t").items.map((i) => i.kind)).toEqual(["call"]);
  });

  it("makes the card from view_shown when the replay lost the call's start", () => {
    const state = apply(initialPilot(), { type: "view_shown", tab: "t", call: "v1", report: services });
    const card = tabPilot(state, "t").calls["v1"];
    expect([card?.tool, card?.view?.view]).toEqual(["show_view", "services"]);
  });

  it("shows a confirmed button as sent, then as typed or refused with the reason", () => {
    let state = apply(initialPilot(), { type: "view_shown", tab: "t", call: "v1", report: services });
    state = viewButtonPressed(state, "t", "v1", restart);
    state = viewButtonPressed(state, "t", "v1", start);
    expect(tabPilot(state, "t").calls["v1"]?.presses.map((p) => p.status)).toEqual(["sent", "sent"]);
    state = apply(
      state,
      {
        type: "view_button_finished",
        tab: "t",
        call: "v1",
        command: start.command,
        status: "denied",
        message: "forbidden by the rule `sudo`",
      },
      { type: "view_button_finished", tab: "t", call: "v1", command: restart.command, status: "ok" },
    );
    expect(tabPilot(state, "t").calls["v1"]?.presses).toEqual([
      { label: "restart cron", command: restart.command, status: "ok", message: null },
      { label: "start cron", command: start.command, status: "denied", message: "forbidden by the rule `sudo`" },
    ]);
  });

  it("adds a press it did not send (another page's, or replayed after a reload) with its button's words", () => {
    const state = apply(
      initialPilot(),
      { type: "view_shown", tab: "t", call: "v1", report: services },
      { type: "view_button_finished", tab: "t", call: "v1", command: restart.command, status: "ok" },
      {
        type: "view_button_finished",
        tab: "t",
        call: "v1",
        command: "kill -TERM 42",
        status: "error",
        message: "no terminal",
      },
      // A press for a call this page has no card of changes nothing.
      { type: "view_button_finished", tab: "t", call: "unknown", command: "x", status: "ok" },
    );
    const pilot = tabPilot(state, "t");
    expect(pilot.calls["v1"]?.presses.map((p) => [p.label, p.status, p.message])).toEqual([
      ["restart cron", "ok", null],
      ["kill -TERM 42", "error", "no terminal"],
    ]);
    expect(Object.keys(pilot.calls)).toEqual(["v1"]);
  });
});

describe("what a view card shows", () => {
  it("says the view and the summary's first line in its header", () => {
    expect(viewTitle(services)).toBe("services");
    expect(viewTitle({ ...services, view: "disk_usage", subject: "/var/log" })).toBe("disk_usage /var/log");
    expect(summaryLine("\n5 file systems, 1 at or above 90%\n  / ext4 93%")).toBe("5 file systems, 1 at or above 90%");
    expect(summaryLine(`${"x".repeat(300)}`)).toHaveLength(160);
    // The subject once: where the summary names it, the header does not repeat it.
    const logs = { ...services, view: "logs" as const, subject: "/tmp/app.log" };
    expect(viewHeader({ ...logs, summary: "/tmp/app.log: 5 lines, 2 errors" })).toEqual({
      name: "logs",
      headline: "/tmp/app.log: 5 lines, 2 errors",
    });
    expect(viewHeader({ ...logs, summary: "5 lines" })).toEqual({ name: "logs /tmp/app.log", headline: "5 lines" });
  });

  it("draws a usage bar per file system and marks the ones at or above 90% in a word and a shape", () => {
    const disk = report({
      kind: "disk",
      filesystems: [
        {
          source: "/dev/vda",
          fs_type: "ext4",
          mount: "/",
          size_bytes: 100 * 2 ** 30,
          used_bytes: 93 * 2 ** 30,
          available_bytes: 7 * 2 ** 30,
          used_percent: 93.2,
          inodes_total: 100,
          inodes_used: 3,
          inodes_percent: 3,
        },
        {
          source: "tmpfs",
          fs_type: "tmpfs",
          mount: "/run",
          size_bytes: 2 ** 20,
          used_bytes: 0,
          available_bytes: 2 ** 20,
          used_percent: 0,
          inodes_percent: 95,
        },
        {
          source: "/dev/vdb",
          fs_type: "xfs",
          mount: "/data",
          size_bytes: 2 ** 30,
          used_bytes: 0,
          available_bytes: 2 ** 30,
          used_percent: 89.6,
        },
      ],
    });
    const table = tableOf(disk);
    expect(table.columns.map((c) => c.title)).toEqual([
      "Mounted on",
      "Full",
      "Free",
      "Size",
      "Used",
      "Inodes",
      "Type",
      "Source",
    ]);
    expect(
      table.rows.map((r) => [r.cells[0]?.text, r.tone, r.cells[1]?.text, r.cells[1]?.bar, r.cells[5]?.text]),
    ).toEqual([
      ["/", "bad", "⚠ 93%", 93.2, "3%"],
      ["/run", "bad", "0%", 0, "⚠ 95%"],
      ["/data", null, "89%", 89.6, "—"],
    ]);
    expect(table.rows[0]?.cells.slice(2, 5).map((c) => c.text)).toEqual(["7.0 GB", "100 GB", "93.0 GB"]);
    expect(table.buttons).toBe(false);
  });

  it("lists disk_usage largest first, named below the folder, with a share bar of the total", () => {
    const usage = report({
      kind: "disk_usage",
      path: "/var",
      total_bytes: 1000,
      complete: false,
      entries: [
        { path: "/var/cache", bytes: 100 },
        { path: "/var/log", bytes: 600 },
        { path: "/var/lib", bytes: 250 },
      ],
    });
    const facts = sections(usage)[0];
    expect(facts?.kind === "facts" && facts.facts.map((f) => [f.name, f.tone])).toEqual([
      ["Folder", null],
      ["Total", null],
      ["Incomplete", "warn"],
    ]);
    expect(
      tableOf(usage).rows.map((r) => [r.cells[0]?.text, r.cells[0]?.title, r.cells[2]?.text, r.cells[2]?.bar]),
    ).toEqual([
      ["log", "/var/log", "60%", 60],
      ["lib", "/var/lib", "25%", 25],
      ["cache", "/var/cache", "10%", 10],
    ]);
  });

  it("says how many days a certificate has, and marks the expired and the expiring", () => {
    expect(daysLeft({ days_left: -3, expired: true })).toEqual({ text: "✕ expired 3 days ago", tone: "bad" });
    expect(daysLeft({ days_left: 5, expired: false })).toEqual({ text: "⚠ 5 days", tone: "warn" });
    expect(daysLeft({ days_left: 0, expired: false })).toEqual({ text: "⚠ expires today", tone: "warn" });
    expect(daysLeft({ days_left: 200, expired: false })).toEqual({ text: "200 days", tone: null });
    const certs = report({
      kind: "certificates",
      certificates: [
        {
          path: "/etc/ssl/old.pem",
          subject: "CN=old.example.org",
          issuer: "CN=Test CA,O=Test",
          names: ["DNS:old.example.org"],
          not_before: "2024-01-01T00:00:00Z",
          not_after: "2025-01-01T00:00:00Z",
          days_left: -300,
          expired: true,
        },
      ],
    });
    const row = tableOf(certs).rows[0];
    expect([row?.tone, row?.cells[0]?.text, row?.cells[2]?.text, row?.cells[4]?.text]).toEqual([
      "bad",
      "old.example.org",
      "2025-01-01",
      "Test CA",
    ]);
  });

  it("puts each button on its row, and the others below the view", () => {
    const shown = viewSections(services);
    const table = tableOf(services);
    expect(table.buttons).toBe(true);
    expect(table.rows.map((r) => [r.cells[0]?.text, r.cells[1]?.text, r.tone, r.buttons.map((b) => b.label)])).toEqual([
      ["cron", "○ stopped", null, ["start cron", "restart cron"]],
      ["nginx", "✕ failed", "bad", []],
    ]);
    expect(shown.loose).toEqual([]);
    // service_status has no rows of services: its buttons are the view's.
    const status = report(
      {
        kind: "service_status",
        unit: "cron",
        manager: "sysv",
        state: "stopped",
        properties: [["status", "cron is not running ... failed!"]],
        log: [],
      },
      { view: "service_status", subject: "cron", buttons: [start, restart] },
    );
    expect(viewSections(status).loose.map((b) => b.label)).toEqual(["start cron", "restart cron"]);
    const logs = report(
      { kind: "logs", source: "/tmp/app.log", lines: [], errors: 0, warnings: 0 },
      { view: "logs", subject: "/tmp/app.log", buttons: [follow] },
    );
    expect(viewSections(logs).loose).toEqual([follow]);
  });

  it("shows log lines as text only: no escape or control character gets through", () => {
    const logs = report({
      kind: "logs",
      source: "/tmp/app.log",
      errors: 1,
      warnings: 1,
      lines: [
        { level: "warning", text: "WARNING low disk" },
        { level: "error", time: "2026-12-03T12:00:00Z", text: "ERROR \u001b]0;title\u0007db failed \u009b2J" },
        { level: "other", text: "<b>bold</b> & <script>x</script>" },
      ],
    });
    const log = sections(logs).find((s) => s.kind === "log");
    expect(log?.kind === "log" && log.lines).toEqual([
      { time: null, level: "warning", text: "WARNING low disk" },
      { time: "2026-12-03T12:00:00Z", level: "error", text: "ERROR \ufffd]0;title\ufffddb failed \ufffd2J" },
      { time: null, level: "other", text: "<b>bold</b> & <script>x</script>" },
    ]);
    const facts = sections(logs)[0];
    expect(facts?.kind === "facts" && facts.facts[1]).toEqual({
      name: "Found",
      value: "1 error, 1 warning in 3 lines",
      tone: "bad",
    });
    expect(plain("tab\tand\nnewline stay")).toBe("tab\tand\nnewline stay");
  });

  it("shows processes with load against the cores and a kill button per row", () => {
    const kill: ViewButton = {
      label: "kill (TERM) 4242 sleep 1000",
      action: { kind: "kill", pid: 4242 },
      command: "kill -TERM 4242",
    };
    const processes = report(
      {
        kind: "processes",
        cores: 2,
        load: { one: 4.25, five: 3.63, fifteen: 2.43 },
        memory: { total_bytes: 8 * 2 ** 30, available_bytes: 6 * 2 ** 30, swap_total_bytes: 0, swap_free_bytes: 0 },
        total: 96,
        processes: [
          {
            pid: 4242,
            user: "kaiport-test",
            cpu_percent: 32,
            memory_percent: null,
            rss_bytes: 2 ** 20,
            elapsed_s: 3725,
            state: "S",
            command: "sleep 1000",
          },
          {
            pid: 77,
            user: "root",
            cpu_percent: 0,
            memory_percent: 0,
            rss_bytes: 0,
            elapsed_s: 90_000,
            state: "Z",
            command: "[defunct]",
          },
        ],
      },
      { view: "processes", buttons: [kill] },
    );
    const facts = sections(processes)[0];
    expect(facts?.kind === "facts" && facts.facts).toEqual([
      { name: "Load", value: "4.25 3.63 2.43 on 2 cores ⚠ over the cores", tone: "warn" },
      { name: "Memory", value: "2.0 GB of 8.0 GB used (25%)", tone: null },
      { name: "Processes", value: "96 (the 2 busiest shown)", tone: null },
    ]);
    const rows = tableOf(processes).rows;
    expect(rows.map((r) => [r.cells.map((c) => c.text).join(" | "), r.tone, r.buttons.length])).toEqual([
      ["4242 | 32.0 | sleep 1000 | — | 1.0 MB | kaiport-test | 1 h 2 min | S", null, 1],
      ["77 | 0.0 | [defunct] | 0.0 | 0 B | root | 1 d 1 h | ⚠ Z zombie", "warn", 0],
    ]);
  });

  it("shows containers with their state in a word and a shape, trouble marked, buttons on their rows", () => {
    const restartWeb: ViewButton = {
      label: "restart web",
      action: { kind: "container", verb: "restart", container: "web" },
      command: "docker restart -- 'web'",
    };
    const startJob: ViewButton = {
      label: "start job",
      action: { kind: "container", verb: "start", container: "job" },
      command: "docker start -- 'job'",
    };
    const docker = report(
      {
        kind: "docker",
        containers: [
          { id: "a1", name: "job", image: "busybox", state: "exited", status: "Exited (1) 2 minutes ago", ports: "" },
          {
            id: "b2",
            name: "api",
            image: "api:1",
            state: "running",
            status: "Up 3 hours (unhealthy)",
            ports: "0.0.0.0:8080->80/tcp",
            cpu_percent: 1.5,
            memory: "20MiB / 1GiB",
          },
          { id: "c3", name: "web", image: "nginx", state: "running", status: "Up 3 hours (healthy)", ports: "" },
        ],
      },
      { view: "docker", buttons: [startJob, restartWeb] },
    );
    expect(
      tableOf(docker).rows.map((r) => [
        r.cells[0]?.text,
        r.cells[1]?.text,
        r.cells[1]?.tone,
        r.tone,
        r.buttons.map((b) => b.label),
      ]),
    ).toEqual([
      ["job", "✕ exited", "bad", "bad", ["start job"]],
      ["api", "✕ unhealthy", "bad", "bad", []],
      ["web", "● running", "ok", null, ["restart web"]],
    ]);
    expect(
      tableOf(docker)
        .rows[1]?.cells.slice(4)
        .map((c) => c.text),
    ).toEqual(["0.0.0.0:8080->80/tcp", "1.5%", "20MiB / 1GiB"]);
  });

  it("says what the view could not see, and a view the server cannot show", () => {
    const ports = report(
      { kind: "ports", sockets: [{ transport: "tcp", address: "0.0.0.0", port: 2024, public: true }] },
      {
        gaps: [
          {
            what: "the programs behind 2 sockets",
            reason: "permission",
            detail: "ss shows only the login user's own programs",
          },
        ],
      },
    );
    expect(gapLines(ports)).toEqual([
      {
        what: "the programs behind 2 sockets",
        reason: "no permission",
        detail: "ss shows only the login user's own programs",
      },
    ]);
    expect(tableOf(ports).rows[0]?.cells.map((c) => c.text)).toEqual([
      "tcp",
      "0.0.0.0",
      "2024",
      "⚠ public",
      "— (not shown)",
    ]);
    expect(sections(report({ kind: "unavailable", reason: "the Docker engine is not running" }))).toEqual([
      { kind: "unavailable", reason: "the Docker engine is not running" },
    ]);
  });

  it("words percentages and running times compactly", () => {
    expect([percent(0), percent(0.004), percent(31.6), percent(89.6), percent(90), percent(null)]).toEqual([
      "0%",
      "<1%",
      "32%",
      "89%",
      "90%",
      "—",
    ]);
    expect([elapsed(42), elapsed(300), elapsed(7800), elapsed(3 * 86_400 + 4 * 3600)]).toEqual([
      "42 s",
      "5 min",
      "2 h 10 min",
      "3 d 4 h",
    ]);
  });
});
