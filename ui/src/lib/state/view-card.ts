// What a view card (show_view) shows, as plain data: the header line, the view's data as
// sections (facts, tables with bars and status words, log lines), what the view could not see,
// and which button belongs to which row. Pure functions of the engine's `ViewReport`; the card
// component only lays them out.
//
// Everything in a report comes from the server and is untrusted: the engine has removed control
// characters already, and `plain` removes any that are left, so a line is only ever text.

import type {
  ButtonAction,
  CertificateRow,
  ContainerRow,
  GapReason,
  LogLevel,
  LogLine,
  ServiceManager,
  ServiceState,
  ViewButton,
  ViewData,
  ViewKind,
  ViewReport,
} from "../protocol";
import { formatBytes } from "./storage";

/** How a row, cell or fact stands out (always with a word or a shape as well, never colour alone). */
export type Tone = "bad" | "warn" | "ok" | null;

export interface Cell {
  text: string;
  /** Paths, commands, addresses: monospace. */
  mono?: boolean;
  /** Numbers: right-aligned, tabular. */
  numeric?: boolean;
  /** A usage bar beside the text (0–100). */
  bar?: number;
  tone?: Tone;
  /** The whole text on hover, where the cell shows a shortened form. */
  title?: string;
}

export interface Column {
  title: string;
  numeric?: boolean;
  /** The column that takes the room left (commands, descriptions); it wraps. */
  wide?: boolean;
}

export interface Row {
  key: string;
  tone: Tone;
  cells: Cell[];
  /** This row's buttons (restart this service, kill this process). */
  buttons: ViewButton[];
}

export interface Fact {
  name: string;
  value: string;
  tone: Tone;
}

export interface ShownLine {
  time: string | null;
  level: LogLevel;
  text: string;
}

export type Section =
  | { kind: "facts"; facts: Fact[] }
  | { kind: "table"; label: string; columns: Column[]; rows: Row[]; empty: string; buttons: boolean }
  | { kind: "log"; label: string; lines: ShownLine[]; empty: string }
  | { kind: "list"; label: string; items: string[] }
  | { kind: "unavailable"; reason: string };

export interface ViewSections {
  sections: Section[];
  /** The buttons that belong to no row (follow a log, the service of service_status). */
  loose: ViewButton[];
}

/** Full at or above this share (space or inodes): the row is marked. */
export const FULL_PERCENT = 90;
/** A certificate expires soon below this many days (the engine's CERTIFICATE_WARNING_DAYS). */
export const EXPIRING_DAYS = 14;

// C0 controls but tab and newline, DEL, and C1 controls (CSI, OSC, … as single characters).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** The text with control characters (escape sequences' ESC, BEL, CSI, …) shown as "�". */
export function plain(text: string): string {
  return text.replace(CONTROL, "\ufffd");
}

/** One line: control characters and line breaks made harmless, at most `max` characters. */
function line(text: string, max: number): string {
  const flat = plain(text)
    .replace(/\s*\n\s*/g, " ⏎ ")
    .trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The view's name as the card says it: `disk`, `disk_usage /var`, `service_status nginx`. */
export function viewTitle(report: ViewReport): string {
  return report.subject != null && report.subject !== "" ? `${report.view} ${line(report.subject, 60)}` : report.view;
}

/** The summary's first line, for the collapsed card. */
export function summaryLine(summary: string): string {
  const first = summary.split("\n").find((l) => l.trim() !== "") ?? "";
  return line(first, 160);
}

/** The card's header: the view's name (with its subject where the summary's first line does not
 * say it already) and the summary's first line. */
export function viewHeader(report: ViewReport): { name: string; headline: string } {
  const headline = summaryLine(report.summary);
  const subject = report.subject != null ? line(report.subject, 60) : "";
  const name = subject === "" || headline.includes(subject) ? report.view : `${report.view} ${subject}`;
  return { name, headline };
}

const GAP_WORDS: Record<GapReason, string> = {
  not_installed: "not available",
  permission: "no permission",
  time_limit: "time limit",
  failed: "failed",
};

/** What the view could not see, each with its reason in words. */
export function gapLines(report: ViewReport): { what: string; reason: string; detail: string }[] {
  return (report.gaps ?? []).map((gap) => ({
    what: plain(gap.what),
    reason: GAP_WORDS[gap.reason],
    detail: plain(gap.detail),
  }));
}

/** A number the engine may send as null (a float that was not a number): "—". */
function fixed(value: number | null, digits: number): string {
  return value === null ? "—" : value.toFixed(digits);
}

/** 32%, <1% (something, but under one percent), — (not known). Never rounded up to the
 * "full" mark it is below (89.6 shows as 89%, not 90%). */
export function percent(value: number | null): string {
  if (value === null) {
    return "—";
  }
  if (value > 0 && value < 1) {
    return "<1%";
  }
  const shown = Math.round(value);
  return `${value < FULL_PERCENT && shown >= FULL_PERCENT ? FULL_PERCENT - 1 : shown}%`;
}

/** 42 s, 5 min, 2 h 10 min, 3 d 4 h. */
export function elapsed(seconds: number): string {
  if (seconds < 60) {
    return `${seconds} s`;
  }
  if (seconds < 3600) {
    return `${Math.floor(seconds / 60)} min`;
  }
  if (seconds < 86_400) {
    const minutes = Math.floor((seconds % 3600) / 60);
    return `${Math.floor(seconds / 3600)} h${minutes > 0 ? ` ${minutes} min` : ""}`;
  }
  const hours = Math.floor((seconds % 86_400) / 3600);
  return `${Math.floor(seconds / 86_400)} d${hours > 0 ? ` ${hours} h` : ""}`;
}

const SERVICE_WORDS: Record<ServiceState, { word: string; shape: string; tone: Tone }> = {
  running: { word: "running", shape: "●", tone: "ok" },
  stopped: { word: "stopped", shape: "○", tone: null },
  failed: { word: "failed", shape: "✕", tone: "bad" },
  other: { word: "other", shape: "◌", tone: "warn" },
};

const MANAGER_WORDS: Record<ServiceManager, string> = {
  systemd: "systemd",
  openrc: "OpenRC",
  sysv: "SysV init scripts (service --status-all)",
};

function serviceState(state: ServiceState): Cell {
  const shown = SERVICE_WORDS[state];
  return { text: `${shown.shape} ${shown.word}`, tone: shown.tone };
}

/** The row a button acts on, as a key the view's rows carry; null: the whole view's. */
function rowKeyOf(action: ButtonAction): string | null {
  switch (action.kind) {
    case "kill":
      return `pid:${action.pid}`;
    case "service":
      return `service:${action.name}`;
    case "container":
      return `container:${action.container}`;
    case "follow_file":
    case "follow_journal":
    case "follow_container":
      return null;
  }
}

/** The words of a row's button without the row's name (`restart`, `kill`): the row says whose. */
export function buttonVerb(button: ViewButton): string {
  switch (button.action.kind) {
    case "kill":
      return "kill";
    case "service":
    case "container":
      return button.action.verb;
    case "follow_file":
    case "follow_journal":
    case "follow_container":
      return button.label;
  }
}

function table(label: string, columns: Column[], rows: Row[], empty: string): Extract<Section, { kind: "table" }> {
  return { kind: "table", label, columns, rows, empty, buttons: rows.some((r) => r.buttons.length > 0) };
}

function logLines(lines: LogLine[]): ShownLine[] {
  return lines.map((l) => ({ time: l.time != null ? plain(l.time) : null, level: l.level, text: plain(l.text) }));
}

/** A container's state as the card says it: a running container that is unhealthy says so. */
function containerState(row: ContainerRow): { tone: Tone; shape: string; word: string } {
  const word = line(row.state, 20);
  if (/\(unhealthy\)/i.test(row.status)) {
    return { tone: "bad", shape: "✕", word: "unhealthy" };
  }
  switch (row.state) {
    case "running":
      return { tone: "ok", shape: "●", word };
    case "exited":
    case "dead":
      return { tone: "bad", shape: "✕", word };
    case "restarting":
      return { tone: "warn", shape: "↻", word };
    default:
      return { tone: null, shape: "○", word };
  }
}

/** Days left in words: "expired 3 days ago", "expires today", "5 days". */
export function daysLeft(cert: Pick<CertificateRow, "days_left" | "expired">): Cell {
  const days = cert.days_left;
  if (cert.expired || days < 0) {
    const ago = Math.abs(days);
    return { text: `✕ expired${ago > 0 ? ` ${ago} day${ago === 1 ? "" : "s"} ago` : ""}`, tone: "bad" };
  }
  const text = days === 0 ? "expires today" : `${days} day${days === 1 ? "" : "s"}`;
  return days < EXPIRING_DAYS ? { text: `⚠ ${text}`, tone: "warn" } : { text, tone: null };
}

/** The date part of an RFC 3339 time. */
function day(time: string): string {
  return plain(time).slice(0, 10);
}

/** A certificate subject's CN, else the whole subject. */
function commonName(subject: string): string {
  return /CN\s*=\s*([^,/]+)/.exec(subject)?.[1]?.trim() ?? subject;
}

function relativeTo(folder: string, path: string): string {
  const base = folder.endsWith("/") ? folder : `${folder}/`;
  return path.startsWith(base) && path.length > base.length ? path.slice(base.length) : path;
}

/** The view's data as sections, with each button on its row where it has one. */
export function viewSections(report: ViewReport): ViewSections {
  const buttons = report.buttons ?? [];
  const byRow = new Map<string, ViewButton[]>();
  const loose: ViewButton[] = [];
  for (const button of buttons) {
    const key = rowKeyOf(button.action);
    if (key === null) {
      loose.push(button);
    } else {
      byRow.set(key, [...(byRow.get(key) ?? []), button]);
    }
  }
  const used = new Set<string>();
  const take = (key: string): ViewButton[] => {
    used.add(key);
    return byRow.get(key) ?? [];
  };
  const sections = sectionsOf(report.view, report.data, take);
  // A button whose row is not shown (cut off, or the unit of service_status) stays reachable.
  for (const [key, rowButtons] of byRow) {
    if (!used.has(key)) {
      loose.push(...rowButtons);
    }
  }
  return { sections, loose };
}

function sectionsOf(view: ViewKind, data: ViewData, take: (key: string) => ViewButton[]): Section[] {
  switch (data.kind) {
    case "unavailable":
      return [{ kind: "unavailable", reason: plain(data.reason) }];
    case "processes": {
      const facts: Fact[] = [];
      if (data.load != null) {
        const load = data.load;
        const busy = data.cores != null && load.one !== null && load.one > data.cores;
        facts.push({
          name: "Load",
          value: `${fixed(load.one, 2)} ${fixed(load.five, 2)} ${fixed(load.fifteen, 2)}${data.cores != null ? ` on ${data.cores} core${data.cores === 1 ? "" : "s"}` : ""}${busy ? " ⚠ over the cores" : ""}`,
          tone: busy ? "warn" : null,
        });
      } else if (data.cores != null) {
        facts.push({ name: "Cores", value: String(data.cores), tone: null });
      }
      if (data.memory != null) {
        const m = data.memory;
        const used = m.total_bytes - m.available_bytes;
        const share = m.total_bytes > 0 ? (100 * used) / m.total_bytes : 0;
        facts.push({
          name: "Memory",
          value: `${formatBytes(used)} of ${formatBytes(m.total_bytes)} used (${percent(share)})${share >= FULL_PERCENT ? " ⚠" : ""}`,
          tone: share >= FULL_PERCENT ? "warn" : null,
        });
        if (m.swap_total_bytes > 0) {
          const swapUsed = m.swap_total_bytes - m.swap_free_bytes;
          facts.push({
            name: "Swap",
            value: `${formatBytes(swapUsed)} of ${formatBytes(m.swap_total_bytes)} used`,
            tone: null,
          });
        }
      }
      facts.push({
        name: "Processes",
        value:
          data.processes.length < data.total
            ? `${data.total} (the ${data.processes.length} busiest shown)`
            : String(data.total),
        tone: null,
      });
      const rows: Row[] = data.processes.map((p) => {
        const zombie = p.state.startsWith("Z");
        return {
          key: `pid:${p.pid}`,
          tone: zombie ? "warn" : null,
          buttons: take(`pid:${p.pid}`),
          cells: [
            { text: String(p.pid), numeric: true },
            { text: fixed(p.cpu_percent, 1), numeric: true },
            { text: line(p.command, 300), mono: true, title: plain(p.command) },
            { text: fixed(p.memory_percent, 1), numeric: true },
            { text: formatBytes(p.rss_bytes), numeric: true },
            { text: line(p.user, 32) },
            { text: elapsed(p.elapsed_s), numeric: true },
            zombie
              ? { text: `⚠ ${line(p.state, 8)} zombie`, mono: true, tone: "warn" }
              : { text: line(p.state, 8), mono: true },
          ],
        };
      });
      return [
        { kind: "facts", facts },
        table(
          "Processes, most CPU first",
          [
            { title: "PID", numeric: true },
            { title: "CPU %", numeric: true },
            { title: "Command", wide: true },
            { title: "Mem %", numeric: true },
            { title: "RSS", numeric: true },
            { title: "User" },
            { title: "Running", numeric: true },
            { title: "State" },
          ],
          rows,
          "no processes",
        ),
      ];
    }
    case "disk": {
      const rows: Row[] = data.filesystems.map((fs) => {
        const full = fs.used_percent !== null && fs.used_percent >= FULL_PERCENT;
        const inodesFull = fs.inodes_percent != null && fs.inodes_percent >= FULL_PERCENT;
        return {
          key: `fs:${fs.mount}`,
          tone: full || inodesFull ? "bad" : null,
          buttons: [],
          cells: [
            { text: line(fs.mount, 120), mono: true },
            fs.used_percent !== null
              ? {
                  text: `${full ? "⚠ " : ""}${percent(fs.used_percent)}`,
                  bar: fs.used_percent,
                  tone: full ? "bad" : null,
                  numeric: true,
                }
              : { text: "—", numeric: true },
            { text: formatBytes(fs.available_bytes), numeric: true },
            { text: formatBytes(fs.size_bytes), numeric: true },
            { text: formatBytes(fs.used_bytes), numeric: true },
            fs.inodes_percent != null
              ? {
                  text: `${inodesFull ? "⚠ " : ""}${percent(fs.inodes_percent)}`,
                  tone: inodesFull ? "bad" : null,
                  numeric: true,
                }
              : { text: "—", numeric: true },
            { text: line(fs.fs_type, 20), mono: true },
            { text: line(fs.source, 120), mono: true },
          ],
        };
      });
      return [
        table(
          "File systems",
          [
            { title: "Mounted on" },
            { title: "Full", numeric: true },
            { title: "Free", numeric: true },
            { title: "Size", numeric: true },
            { title: "Used", numeric: true },
            { title: "Inodes", numeric: true },
            { title: "Type" },
            { title: "Source", wide: true },
          ],
          rows,
          "no file systems",
        ),
      ];
    }
    case "disk_usage": {
      const entries = [...data.entries].sort((a, b) => b.bytes - a.bytes);
      const largest = entries[0]?.bytes ?? 0;
      const whole = data.total_bytes != null && data.total_bytes > 0 ? data.total_bytes : largest;
      const facts: Fact[] = [
        { name: "Folder", value: plain(data.path), tone: null },
        { name: "Total", value: data.total_bytes != null ? formatBytes(data.total_bytes) : "unknown", tone: null },
      ];
      if (!data.complete) {
        facts.push({
          name: "Incomplete",
          value: "⚠ some folders were not counted: sizes are at least these",
          tone: "warn",
        });
      }
      const rows: Row[] = entries.map((entry) => {
        const share = whole > 0 ? (100 * entry.bytes) / whole : 0;
        return {
          key: `du:${entry.path}`,
          tone: null,
          buttons: [],
          cells: [
            { text: line(relativeTo(data.path, entry.path), 200), mono: true, title: plain(entry.path) },
            { text: formatBytes(entry.bytes), numeric: true },
            { text: percent(share), bar: share, numeric: true },
          ],
        };
      });
      return [
        { kind: "facts", facts },
        table(
          "Largest first",
          [
            { title: "Entry", wide: true },
            { title: "Size", numeric: true },
            { title: "Share", numeric: true },
          ],
          rows,
          "nothing below this folder",
        ),
      ];
    }
    case "ports": {
      const rows: Row[] = data.sockets.map((s) => ({
        key: `port:${s.transport}:${s.address}:${s.port}`,
        tone: null,
        buttons: [],
        cells: [
          { text: s.transport },
          { text: line(s.address, 60), mono: true },
          { text: String(s.port), numeric: true },
          s.public ? { text: "⚠ public", tone: "warn" } : { text: "local only" },
          {
            text: s.process != null ? `${line(s.process, 60)}${s.pid != null ? ` (${s.pid})` : ""}` : "— (not shown)",
            mono: s.process != null,
          },
        ],
      }));
      return [
        table(
          "Listening ports",
          [
            { title: "Proto" },
            { title: "Address" },
            { title: "Port", numeric: true },
            { title: "Reach" },
            { title: "Program", wide: true },
          ],
          rows,
          "nothing listens",
        ),
      ];
    }
    case "logs":
      return [
        {
          kind: "facts",
          facts: [
            { name: "Source", value: plain(data.source), tone: null },
            {
              name: "Found",
              value: `${data.errors} error${data.errors === 1 ? "" : "s"}, ${data.warnings} warning${data.warnings === 1 ? "" : "s"} in ${data.lines.length} line${data.lines.length === 1 ? "" : "s"}`,
              tone: data.errors > 0 ? "bad" : data.warnings > 0 ? "warn" : null,
            },
          ],
        },
        {
          kind: "log",
          label: view === "docker_logs" ? "Container log, oldest first" : "Log, oldest first",
          lines: logLines(data.lines),
          empty: "no lines",
        },
      ];
    case "cron": {
      const jobs: Row[] = data.jobs.map((job, i) => ({
        key: `job:${i}`,
        tone: null,
        buttons: [],
        cells: [
          { text: line(job.schedule, 60), mono: true },
          { text: job.next_run != null ? plain(job.next_run) : "—" },
          { text: job.user != null ? line(job.user, 32) : "—" },
          { text: line(job.command, 300), mono: true, title: plain(job.command) },
          { text: line(job.source, 120), mono: true },
        ],
      }));
      const sections: Section[] = [
        table(
          "Cron jobs",
          [
            { title: "Schedule" },
            { title: "Next run" },
            { title: "User" },
            { title: "Command", wide: true },
            { title: "From" },
          ],
          jobs,
          "no cron jobs",
        ),
      ];
      if (data.timers.length > 0) {
        const timers: Row[] = data.timers.map((timer) => ({
          key: `timer:${timer.unit}`,
          tone: null,
          buttons: [],
          cells: [
            { text: line(timer.unit, 80), mono: true },
            { text: timer.next != null ? plain(timer.next) : "—" },
            { text: timer.last != null ? plain(timer.last) : "—" },
            { text: line(timer.activates, 80), mono: true },
          ],
        }));
        sections.push(
          table(
            "systemd timers",
            [{ title: "Timer" }, { title: "Next" }, { title: "Last" }, { title: "Starts", wide: true }],
            timers,
            "no timers",
          ),
        );
      }
      return sections;
    }
    case "certificates": {
      const rows: Row[] = data.certificates.map((cert) => {
        const left = daysLeft(cert);
        return {
          key: `cert:${cert.path}`,
          tone: left.tone ?? null,
          buttons: [],
          cells: [
            { text: line(commonName(cert.subject), 80), title: plain(cert.subject) },
            left,
            { text: day(cert.not_after), mono: true, title: plain(cert.not_after) },
            { text: line(cert.names.join(", "), 200) || "—", mono: true },
            { text: line(commonName(cert.issuer), 80), title: plain(cert.issuer) },
            { text: line(cert.path, 200), mono: true },
          ],
        };
      });
      return [
        table(
          "Certificates, soonest expiry first",
          [
            { title: "Subject" },
            { title: "Left" },
            { title: "Expires" },
            { title: "Names", wide: true },
            { title: "Issuer" },
            { title: "File" },
          ],
          rows,
          "no certificates found",
        ),
      ];
    }
    case "services": {
      const rows: Row[] = data.services.map((s) => ({
        key: `service:${s.name}`,
        tone: s.state === "failed" ? "bad" : null,
        buttons: take(`service:${s.name}`),
        cells: [
          { text: line(s.name, 80), mono: true },
          serviceState(s.state),
          { text: line(s.detail, 60), mono: true },
          { text: s.description != null ? line(s.description, 200) : "" },
        ],
      }));
      return [
        { kind: "facts", facts: [{ name: "Manager", value: MANAGER_WORDS[data.manager], tone: null }] },
        table(
          "Services, failed first",
          [{ title: "Service" }, { title: "State" }, { title: "Detail" }, { title: "Description", wide: true }],
          rows,
          "no services",
        ),
      ];
    }
    case "service_status": {
      const state = serviceState(data.state);
      const facts: Fact[] = [
        { name: "Unit", value: plain(data.unit), tone: null },
        { name: "State", value: state.text, tone: state.tone ?? null },
      ];
      if (data.since != null) {
        facts.push({ name: "Since", value: plain(data.since), tone: null });
      }
      facts.push({ name: "Manager", value: MANAGER_WORDS[data.manager], tone: null });
      const sections: Section[] = [{ kind: "facts", facts }];
      if (data.properties.length > 0) {
        sections.push(
          table(
            "Properties",
            [{ title: "Property" }, { title: "Value", wide: true }],
            data.properties.map(([name, value], i) => ({
              key: `prop:${i}`,
              tone: null,
              buttons: [],
              cells: [
                { text: line(name, 60), mono: true },
                { text: plain(value), mono: true },
              ],
            })),
            "",
          ),
        );
      }
      sections.push({ kind: "log", label: "Last log lines", lines: logLines(data.log), empty: "no log lines" });
      return sections;
    }
    case "updates": {
      const security = data.updates.filter((u) => u.security).length;
      const rows: Row[] = data.updates.map((u) => ({
        key: `pkg:${u.package}`,
        // Marked in its own column: a row tint on most rows would say nothing.
        tone: null,
        buttons: [],
        cells: [
          { text: line(u.package, 80), mono: true },
          u.security ? { text: "⚠ security", tone: "warn" } : { text: "" },
          { text: line(u.version, 60), mono: true },
          { text: u.installed != null ? line(u.installed, 60) : "—", mono: u.installed != null },
          { text: u.source != null ? line(u.source, 80) : "" },
        ],
      }));
      return [
        {
          kind: "facts",
          facts: [
            { name: "Manager", value: data.manager, tone: null },
            {
              name: "Updates",
              value: `${data.updates.length}${security > 0 ? `, ${security} security` : ""} (from the package lists as they are; not refreshed)`,
              tone: security > 0 ? "warn" : null,
            },
          ],
        },
        table(
          "Upgradable packages, security first",
          [
            { title: "Package" },
            { title: "Kind" },
            { title: "New version" },
            { title: "Installed" },
            { title: "From", wide: true },
          ],
          rows,
          "everything is up to date",
        ),
      ];
    }
    case "websites": {
      const rows: Row[] = data.sites.map((site, i) => ({
        key: `site:${i}`,
        tone: null,
        buttons: [],
        cells: [
          { text: line(site.names.join(" "), 200) || "(default)", mono: true },
          { text: line(site.listen.join(", "), 120), mono: true },
          site.tls ? { text: "● TLS", tone: "ok" } : { text: "○ plain HTTP" },
          {
            text:
              line([site.root, ...site.proxies.map((p) => `→ ${p}`)].filter((x) => x != null).join(" "), 200) || "—",
            mono: true,
          },
          { text: site.certificate != null ? line(site.certificate, 200) : "—", mono: site.certificate != null },
          { text: line(site.file, 200), mono: true },
        ],
      }));
      return [
        { kind: "facts", facts: [{ name: "Server", value: data.server, tone: null }] },
        table(
          "Sites",
          [
            { title: "Names" },
            { title: "Listen" },
            { title: "TLS" },
            { title: "Serves", wide: true },
            { title: "Certificate" },
            { title: "File" },
          ],
          rows,
          "no sites configured",
        ),
        { kind: "list", label: "Configuration files read", items: data.files.map(plain) },
      ];
    }
    case "docker": {
      const rows: Row[] = data.containers.map((c) => {
        const { tone, shape, word } = containerState(c);
        return {
          key: `container:${c.name}`,
          tone: tone === "bad" ? "bad" : tone === "warn" ? "warn" : null,
          buttons: take(`container:${c.name}`),
          cells: [
            { text: line(c.name, 80), mono: true, title: plain(c.id) },
            { text: `${shape} ${word}`, tone },
            { text: line(c.status, 80) },
            { text: line(c.image, 120), mono: true },
            { text: line(c.ports, 160) || "—", mono: true },
            { text: c.cpu_percent != null ? `${c.cpu_percent.toFixed(1)}%` : "—", numeric: true },
            { text: c.memory != null ? line(c.memory, 40) : "—", numeric: true },
          ],
        };
      });
      return [
        table(
          "Containers, trouble first",
          [
            { title: "Name" },
            { title: "State" },
            { title: "Status" },
            { title: "Image" },
            { title: "Ports", wide: true },
            { title: "CPU", numeric: true },
            { title: "Memory", numeric: true },
          ],
          rows,
          "no containers",
        ),
      ];
    }
  }
}
