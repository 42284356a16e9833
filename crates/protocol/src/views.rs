//! What show_view shows: one typed view per [`ViewKind`], the commands that produced it, what is
//! missing from it and why, and the compact summary the model gets.
//!
//! The engine sends a [`ViewReport`] to front ends in `Event::ViewShown` (the UI's view card is
//! generated from these types); the model only ever gets [`crate::tools::ShowViewResult`], the
//! summary. Every text here comes from the server and is untrusted: the engine has removed
//! control characters and escape sequences from it, but it is still data, never markup.

use crate::tools::ViewKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// One view as the engine built it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ViewReport {
    pub view: ViewKind,
    /// The container, unit or path the view is about, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// What the model was given (at most 2 KB): counts, what is wrong first, the rows that matter.
    pub summary: String,
    /// What the server ran before each command (the C locale and the sbin folders in PATH).
    pub prelude: String,
    /// The commands that ran (each after `prelude`), in the order they were started.
    pub commands: Vec<ViewCommand>,
    /// What the view could not show, and why.
    #[serde(default)]
    pub gaps: Vec<ViewGap>,
    pub data: ViewData,
    /// The user's buttons for this view's rows (never the model's): each with the exact command
    /// it types into the user's terminal once the user confirms it (`Op::PressViewButton`).
    #[serde(default)]
    pub buttons: Vec<ViewButton>,
}

/// A button of a view: what it does, and the exact command line it types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ViewButton {
    /// Short words for the button, e.g. `restart nginx`.
    pub label: String,
    pub action: ButtonAction,
    /// The line typed into the user's terminal (shown in the confirmation).
    pub command: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum ContainerVerb {
    Start,
    Stop,
    Restart,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum ServiceVerb {
    Start,
    Stop,
    Restart,
    Reload,
}

/// What a view button does; the engine derives its command from this alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ButtonAction {
    Container {
        verb: ContainerVerb,
        container: String,
    },
    /// Through sudo: the terminal is where its password prompt can be answered.
    Service {
        verb: ServiceVerb,
        manager: ServiceManager,
        name: String,
    },
    /// `kill -TERM`.
    Kill {
        pid: u32,
    },
    FollowFile {
        path: String,
    },
    /// The system journal, or one unit's.
    FollowJournal {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unit: Option<String>,
    },
    FollowContainer {
        container: String,
    },
}

/// One read-only command of a view (run on its own exec channel, never in the user's terminal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ViewCommand {
    pub command: String,
    /// `None` when it was stopped by the time limit or ended without a status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<u32>,
    pub duration_ms: u64,
}

/// Why part of a view is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum GapReason {
    /// The server does not have the program (or the service manager is not running).
    NotInstalled,
    /// The login user may not read it (views never use sudo).
    Permission,
    /// The view's time limit ran out first.
    TimeLimit,
    /// The command failed for another reason (see `detail`).
    Failed,
}

/// Something a view could not show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ViewGap {
    /// What is missing, e.g. "the processes of other users' sockets".
    pub what: String,
    pub reason: GapReason,
    /// The server's own words (first lines of its error output), or kaiport's.
    pub detail: String,
}

/// The data of one view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ViewData {
    /// The server cannot show this view (no docker, no service manager, not Linux, …).
    Unavailable {
        reason: String,
    },
    Processes(ProcessesView),
    Disk(DiskView),
    DiskUsage(DiskUsageView),
    Ports(PortsView),
    /// logs, docker_logs.
    Logs(LogsView),
    Cron(CronView),
    Certificates(CertificatesView),
    Services(ServicesView),
    ServiceStatus(ServiceStatusView),
    Updates(UpdatesView),
    Websites(WebsitesView),
    Docker(DockerView),
}

// ---------------------------------------------------------------------------------------------
// processes
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ProcessesView {
    /// CPUs online; `None` when the server did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores: Option<u32>,
    /// Load averages over 1, 5 and 15 minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<LoadAverage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryInfo>,
    /// How many processes the server has.
    pub total: u32,
    /// The processes, most CPU first (at most [`MAX_PROCESS_ROWS`]).
    pub processes: Vec<ProcessRow>,
}

/// Most process rows a view carries.
pub const MAX_PROCESS_ROWS: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct LoadAverage {
    pub one: f64,
    pub five: f64,
    pub fifteen: f64,
}

/// From `/proc/meminfo`, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct MemoryInfo {
    pub total_bytes: u64,
    pub available_bytes: u64,
    pub swap_total_bytes: u64,
    pub swap_free_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ProcessRow {
    pub pid: u32,
    pub user: String,
    pub cpu_percent: f64,
    pub memory_percent: f64,
    pub rss_bytes: u64,
    /// Seconds since the process started.
    pub elapsed_s: u64,
    /// `ps` state letters, e.g. `Ss`, `R+`, `Z`.
    pub state: String,
    pub command: String,
}

// ---------------------------------------------------------------------------------------------
// disk, disk_usage
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct DiskView {
    pub filesystems: Vec<FilesystemRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct FilesystemRow {
    pub source: String,
    pub fs_type: String,
    pub mount: String,
    pub size_bytes: u64,
    pub used_bytes: u64,
    pub available_bytes: u64,
    /// As `df` reports it (used / (used + available)), 0–100.
    pub used_percent: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inodes_total: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inodes_used: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inodes_percent: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct DiskUsageView {
    pub path: String,
    /// The folder's own total, when `du` finished it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<u64>,
    /// The entries directly below `path`, largest first.
    pub entries: Vec<DiskUsageEntry>,
    /// False when the time limit stopped `du` (sizes are then lower bounds, and some entries may
    /// be missing) or some folders could not be read.
    pub complete: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct DiskUsageEntry {
    pub path: String,
    pub bytes: u64,
}

// ---------------------------------------------------------------------------------------------
// ports
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct PortsView {
    pub sockets: Vec<PortRow>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    Tcp,
    Udp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct PortRow {
    pub transport: Transport,
    /// The address as `ss` shows it (`0.0.0.0`, `[::]`, `127.0.0.1`, `*`, `127.0.0.53%lo`).
    pub address: String,
    pub port: u16,
    /// Reachable from other machines (bound to a wildcard or a non-loopback address).
    pub public: bool,
    /// The owning program, where the login user may see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

// ---------------------------------------------------------------------------------------------
// logs, docker_logs
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct LogsView {
    /// Where the lines come from: `journal`, a file path, `container NAME`.
    pub source: String,
    /// Oldest first.
    pub lines: Vec<LogLine>,
    pub errors: u32,
    pub warnings: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    Error,
    Warning,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct LogLine {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    pub level: LogLevel,
    /// The line without control characters or escape sequences.
    pub text: String,
}

// ---------------------------------------------------------------------------------------------
// cron
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct CronView {
    pub jobs: Vec<CronJob>,
    /// systemd timers (`systemctl list-timers --all`), where systemd runs.
    pub timers: Vec<TimerRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct CronJob {
    /// `crontab` (the login user's), `/etc/crontab` or a file in `/etc/cron.d`.
    pub source: String,
    /// The five time fields, or `@daily`, `@reboot`, ….
    pub schedule: String,
    /// The user it runs as (system crontabs name one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    pub command: String,
    /// The next run in the server's local time (`YYYY-MM-DD HH:MM`), where kaiport can tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_run: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct TimerRow {
    pub unit: String,
    pub activates: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// certificates
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct CertificatesView {
    /// Soonest expiry first.
    pub certificates: Vec<CertificateRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct CertificateRow {
    pub path: String,
    pub subject: String,
    pub issuer: String,
    /// Subject alternative names (`DNS:example.org`, `IP Address:…`).
    pub names: Vec<String>,
    /// RFC 3339, UTC.
    pub not_before: String,
    pub not_after: String,
    /// Whole days until `not_after` (negative: expired that many days ago).
    pub days_left: i64,
    pub expired: bool,
}

/// A certificate counts as expiring soon below this many days.
pub const CERTIFICATE_WARNING_DAYS: i64 = 14;

// ---------------------------------------------------------------------------------------------
// services, service_status
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum ServiceManager {
    Systemd,
    Openrc,
    /// `service --status-all` (init.d scripts).
    Sysv,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ServicesView {
    pub manager: ServiceManager,
    /// Failed first, then by name.
    pub services: Vec<ServiceRow>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum ServiceState {
    Running,
    Stopped,
    Failed,
    /// Starting, stopping, reloading, or a state kaiport does not know.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ServiceRow {
    pub name: String,
    pub state: ServiceState,
    /// The manager's own words (`active (running)`, `failed`, `[ + ]`, `started`).
    pub detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ServiceStatusView {
    pub unit: String,
    pub manager: ServiceManager,
    pub state: ServiceState,
    /// `systemctl show` properties kaiport reads (ActiveState, SubState, Result, MainPID, …), or
    /// the init script's status text.
    pub properties: Vec<(String, String)>,
    /// When it entered its current state, as the server said it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// The unit's last journal lines, oldest first.
    pub log: Vec<LogLine>,
}

// ---------------------------------------------------------------------------------------------
// updates
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum PackageManager {
    Apt,
    Dnf,
    Apk,
    Pacman,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct UpdatesView {
    pub manager: PackageManager,
    /// Security updates first, then by name.
    pub updates: Vec<UpdateRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct UpdateRow {
    pub package: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed: Option<String>,
    /// The repository or suite it comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub security: bool,
}

// ---------------------------------------------------------------------------------------------
// websites
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum WebServer {
    Nginx,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct WebsitesView {
    pub server: WebServer,
    /// The configuration files read.
    pub files: Vec<String>,
    pub sites: Vec<SiteRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct SiteRow {
    pub names: Vec<String>,
    pub listen: Vec<String>,
    /// Serves TLS (a `listen … ssl` or `quic`).
    pub tls: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// `proxy_pass` targets.
    pub proxies: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate: Option<String>,
    /// The file the site is configured in.
    pub file: String,
}

// ---------------------------------------------------------------------------------------------
// docker
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct DockerView {
    /// Exited, restarting and unhealthy first.
    pub containers: Vec<ContainerRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ContainerRow {
    pub id: String,
    pub name: String,
    pub image: String,
    /// `running`, `exited`, `restarting`, `paused`, `created`, `dead`.
    pub state: String,
    /// Docker's own words: `Up 3 hours (healthy)`, `Exited (1) 2 minutes ago`.
    pub status: String,
    pub ports: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_percent: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
}
