//! Every tool Pilot can call: its name, its parameters and its result.
//!
//! The JSON schemas sent to the model are generated from these types ([`parameters_schema`]);
//! nothing here is hand-written JSON. Parameter structs reject unknown fields so a model that
//! misspells a parameter is told so instead of having it silently ignored.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// The fixed set of tools. A build may lack some (mobile builds have no edit_file, show_view,
/// propose_plan, update_plan, run_on_hosts, open_forward); the engine's registry says which ones
/// this build has.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    JsonSchema,
    Type,
)]
#[serde(rename_all = "snake_case")]
pub enum ToolName {
    RunCommand,
    SendInput,
    ReadScreen,
    ShowView,
    ProposePlan,
    UpdatePlan,
    ReadFile,
    EditFile,
    WriteFile,
    ListDir,
    FindFiles,
    SearchFiles,
    FolderReport,
    MakeDir,
    Rename,
    Delete,
    Upload,
    Download,
    ExecutePlan,
    AskUser,
    ListChanges,
    UndoChange,
    RunOnHosts,
    OpenForward,
}

impl ToolName {
    pub const ALL: [ToolName; 24] = [
        ToolName::RunCommand,
        ToolName::SendInput,
        ToolName::ReadScreen,
        ToolName::ShowView,
        ToolName::ProposePlan,
        ToolName::UpdatePlan,
        ToolName::ReadFile,
        ToolName::EditFile,
        ToolName::WriteFile,
        ToolName::ListDir,
        ToolName::FindFiles,
        ToolName::SearchFiles,
        ToolName::FolderReport,
        ToolName::MakeDir,
        ToolName::Rename,
        ToolName::Delete,
        ToolName::Upload,
        ToolName::Download,
        ToolName::ExecutePlan,
        ToolName::AskUser,
        ToolName::ListChanges,
        ToolName::UndoChange,
        ToolName::RunOnHosts,
        ToolName::OpenForward,
    ];

    /// The name the model and the audit log use, e.g. `run_command`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::RunCommand => "run_command",
            ToolName::SendInput => "send_input",
            ToolName::ReadScreen => "read_screen",
            ToolName::ShowView => "show_view",
            ToolName::ProposePlan => "propose_plan",
            ToolName::UpdatePlan => "update_plan",
            ToolName::ReadFile => "read_file",
            ToolName::EditFile => "edit_file",
            ToolName::WriteFile => "write_file",
            ToolName::ListDir => "list_dir",
            ToolName::FindFiles => "find_files",
            ToolName::SearchFiles => "search_files",
            ToolName::FolderReport => "folder_report",
            ToolName::MakeDir => "make_dir",
            ToolName::Rename => "rename",
            ToolName::Delete => "delete",
            ToolName::Upload => "upload",
            ToolName::Download => "download",
            ToolName::ExecutePlan => "execute_plan",
            ToolName::AskUser => "ask_user",
            ToolName::ListChanges => "list_changes",
            ToolName::UndoChange => "undo_change",
            ToolName::RunOnHosts => "run_on_hosts",
            ToolName::OpenForward => "open_forward",
        }
    }

    pub fn parse(name: &str) -> Option<ToolName> {
        ToolName::ALL.into_iter().find(|tool| tool.as_str() == name)
    }
}

impl std::fmt::Display for ToolName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

// ---------------------------------------------------------------------------------------------
// Terminal tools
// ---------------------------------------------------------------------------------------------

/// Type a command line into the user's visible terminal, press Enter and wait for the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct RunCommandParams {
    /// The command line, exactly as it should be typed. One line; use `&&` or `;` to chain.
    pub command: String,
    /// Seconds to wait for the command to finish (default: the connection's command timeout,
    /// given in the system prompt; at most 600). A command still running then is left running
    /// and reported as `timed_out`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<u32>,
    /// One short sentence for the user: why this call (shown on the approval card).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// How a run_command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum CommandStatus {
    /// The shell showed its prompt again.
    Completed,
    /// The time limit passed and the command is still running in the terminal.
    TimedOut,
    /// The command stopped and waits for input (a question, a password prompt, `[y/N]`): answer
    /// with send_input, or press ctrl-c.
    AwaitingInput,
    /// The command stopped at a password, passphrase or PIN prompt: only the user types it,
    /// in the terminal. Wait with read_screen until the prompt is gone.
    AwaitingSecret,
    /// The connection dropped or the call was cancelled before the command finished.
    Interrupted,
}

/// How the end of a command was detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum Detection {
    /// OSC 133 marks from the shell: exact, with exit code.
    ShellIntegration,
    /// Quiet output and a prompt-looking cursor line: no exit code.
    Heuristic,
}

/// How much of a text was left out when it was shortened for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct Truncation {
    pub omitted_bytes: u64,
    pub omitted_lines: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct RunCommandResult {
    pub status: CommandStatus,
    /// What the command printed, without the echoed command line and the prompt. Long output
    /// keeps its head and tail with a marker line in between.
    pub output: String,
    /// Exit status, known only with shell integration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    pub detection: Detection,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
    /// The visible screen, when the command waits for input or is still running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
    /// A hint for what to do next, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Set when the user edited the command on the approval card: the line that ran instead of
    /// the one asked for (the output is that line's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_by_user: Option<String>,
}

/// A special key for send_input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "kebab-case")]
pub enum Key {
    Enter,
    Tab,
    Esc,
    Backspace,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    Pgup,
    Pgdn,
    F1,
    F2,
    F3,
    F4,
    F5,
    F6,
    F7,
    F8,
    F9,
    F10,
    F11,
    F12,
    CtrlA,
    CtrlB,
    CtrlC,
    CtrlD,
    CtrlE,
    CtrlF,
    CtrlG,
    CtrlH,
    CtrlI,
    CtrlJ,
    CtrlK,
    CtrlL,
    CtrlM,
    CtrlN,
    CtrlO,
    CtrlP,
    CtrlQ,
    CtrlR,
    CtrlS,
    CtrlT,
    CtrlU,
    CtrlV,
    CtrlW,
    CtrlX,
    CtrlY,
    CtrlZ,
}

/// Send text and/or one special key to the terminal without waiting for a prompt; the screen is
/// returned once output settles (at most 2 s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct SendInputParams {
    /// Text to type (sent before the key). No Enter is added: use key "enter" for that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<Key>,
    /// One short sentence for the user: why this call (shown on the approval card).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// Wait, then return the visible screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct ReadScreenParams {
    /// Seconds to wait before reading (0–120, default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_seconds: Option<u32>,
    /// Also return everything the last command run_command started has printed since it
    /// started (still running or ended), not only what is on the screen; capped like
    /// run_command's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_command: Option<bool>,
}

/// The visible terminal screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ScreenResult {
    /// The visible rows, trailing blanks trimmed.
    pub screen: String,
    pub cursor_row: u16,
    pub cursor_col: u16,
    pub rows: u16,
    pub cols: u16,
    /// True when a full-screen program (vim, top, less) uses the alternate screen.
    pub alternate_screen: bool,
    /// read_screen with `since_command`: the last command's output so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandSoFar>,
}

/// What the last command run_command typed has printed since it started (read_screen's
/// `since_command`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct CommandSoFar {
    /// The command line as it was typed.
    pub command: String,
    /// The shell reported the command's end (its marks, or run_command saw it complete);
    /// false while it runs, and always for a command left running without shell integration
    /// (the end cannot be told then).
    pub ended: bool,
    pub exit_code: Option<i32>,
    /// Its output from its start, without the echoed command line; capped like run_command's
    /// output (head and tail kept).
    pub output: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
}

/// Server views for show_view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum ViewKind {
    Docker,
    DockerLogs,
    Services,
    ServiceStatus,
    Disk,
    DiskUsage,
    Processes,
    Logs,
    Updates,
    Websites,
    Certificates,
    Ports,
    Cron,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct ShowViewParams {
    pub view: ViewKind,
    /// Container name or id (docker_logs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Service or systemd unit (service_status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Absolute path: the folder of disk_usage (required), the log file of logs (default: the
    /// system journal or syslog), a certificate file or folder of certificates (default: those
    /// in /etc/letsencrypt/live).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ShowViewResult {
    pub view: ViewKind,
    /// Compact summary for the model (at most 2 KB, what is wrong first); the user sees the full
    /// view.
    pub summary: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum PlanStepKind {
    Read,
    Command,
    Edit,
    Check,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct PlanStepSpec {
    pub title: String,
    pub kind: PlanStepKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Plan mode only, once: the plan for the user to approve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct ProposePlanParams {
    pub title: String,
    /// What the read-only look-around found.
    pub findings: String,
    /// At most 30 steps.
    pub steps: Vec<PlanStepSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum PlanStepStatus {
    Pending,
    Running,
    Done,
    Failed,
    Skipped,
}

/// Change a step's status, or add a step (which waits for the user's confirmation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct UpdatePlanParams {
    /// 1-based step number (with status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PlanStepStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// A new step to append.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add: Option<PlanStepSpec>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct PlanStep {
    pub title: String,
    pub kind: PlanStepKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub status: PlanStepStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// An added step the user has not confirmed yet.
    pub awaiting_confirmation: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct PlanResult {
    pub title: String,
    pub steps: Vec<PlanStep>,
    /// Whether the user approved the plan (execution may start).
    pub approved: bool,
}

// ---------------------------------------------------------------------------------------------
// File tools
// ---------------------------------------------------------------------------------------------

/// Which side of a storage tab a path is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The storage service (or the server, in terminal tabs).
    #[default]
    Remote,
    /// The user's own computer (storage tabs only).
    Local,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct ReadFileParams {
    /// Absolute path; remote paths start with `/`.
    pub path: String,
    /// First line to return (1-based), with line_count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_count: Option<u64>,
    /// Terminal tabs: read as root through `sudo`, for a file the login cannot read (the user
    /// is asked for the sudo password, if sudo needs one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sudo: Option<bool>,
    /// Storage tabs only: `remote` (default) or `local`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum LineEnding {
    Lf,
    Crlf,
    Mixed,
    None,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ReadFileResult {
    pub path: String,
    pub content: String,
    pub total_lines: u64,
    pub total_bytes: u64,
    /// The 1-based line range returned.
    pub start_line: u64,
    pub end_line: u64,
    pub line_ending: LineEnding,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
    /// Set when the file is not valid UTF-8 (invalid bytes shown as U+FFFD).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding_note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct TextEdit {
    /// Exact text to find; must occur exactly once unless replace_all.
    pub old_text: String,
    pub new_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_all: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct EditFileParams {
    pub path: String,
    /// Applied in order; all apply or none.
    pub edits: Vec<TextEdit>,
    /// Terminal tabs: write as root through `sudo` (the user is asked for the sudo password, if sudo
    /// needs one), keeping owner, group and mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sudo: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// One short sentence for the user: why this call (shown on the approval card).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct EditFileResult {
    pub path: String,
    pub edits_applied: u32,
    pub bytes_written: u64,
    pub lines_added: u64,
    pub lines_removed: u64,
    /// The change's id and where the old content was kept (see [`ChangeNote`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeNote>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct WriteFileParams {
    pub path: String,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sudo: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// One short sentence for the user: why this call (shown on the approval card).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct WriteFileResult {
    pub path: String,
    pub created: bool,
    pub bytes_written: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeNote>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    Other,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct ListDirParams {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// Terminal tabs: list as root through `sudo`, for a folder the login may not open (the
    /// user is asked for the sudo password, if sudo needs one). Its entries are `root_only`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sudo: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct DirEntry {
    pub name: String,
    pub kind: EntryKind,
    pub size: u64,
    /// RFC 3339, UTC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    /// `rwxr-xr-x` style, where the service has permissions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permissions: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_target: Option<String>,
    /// A file the login may not read, or may not replace keeping its owner (someone else's,
    /// or without write permission): reading or changing it takes `sudo: true`; a folder the
    /// login may not open (list or enter): listing it takes `sudo: true`. SSH terminal tabs
    /// only, where the login's uid and groups are known.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub root_only: bool,
}

/// The most entries list_dir returns to the user's own file pane, which shows a folder whole:
/// a ceiling that keeps one outcome's memory sane, not a page size (Pilot gets 500). The UI
/// reads it from the generated bindings.
pub const MAX_USER_LIST_ENTRIES: u32 = 1_000_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ListDirResult {
    pub path: String,
    pub entries: Vec<DirEntry>,
    /// Entries left out: beyond the 500 Pilot gets, or [`MAX_USER_LIST_ENTRIES`] for the user.
    pub omitted: u64,
    /// Names the server listed that kaiport does not use (not in `entries`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<RefusedEntry>,
}

/// A name in a server's listing that kaiport refuses to use as a name in that folder: `.` or
/// `..` as a file, a name holding `/` or a NUL byte, an empty name (from a broken or hostile
/// server). Joined to the folder's path it would be another place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct RefusedEntry {
    /// The folder whose listing held it.
    pub folder: String,
    /// The name as listed.
    pub name: String,
    /// Why it is refused, in words.
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct FindFilesParams {
    /// Folder to search under.
    pub path: String,
    /// Name glob, e.g. `*.log`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<EntryKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<u64>,
    /// RFC 3339 date/time or a relative age like `7d`, `12h`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_after: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
    /// At most this many results (default 200, max 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct FoundEntry {
    pub path: String,
    pub kind: EntryKind,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct FindFilesResult {
    pub matches: Vec<FoundEntry>,
    /// More matched than the limit.
    pub truncated: bool,
    pub entries_scanned: u64,
    /// Names in the listings walked that kaiport refused (neither matched nor entered): a copy
    /// of the folder built from `matches` is missing them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<RefusedEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct SearchFilesParams {
    /// Folder to search under (at most 6 levels deep).
    pub path: String,
    /// Regular expression, or literal text with literal: true.
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub literal: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_insensitive: Option<bool>,
    /// Only files whose name matches this glob, e.g. `*.conf`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct SearchMatch {
    pub path: String,
    pub line: u64,
    /// The matching line, cut to 200 characters.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct SearchFilesResult {
    pub matches: Vec<SearchMatch>,
    /// Stopped at 100 matching lines.
    pub truncated: bool,
    /// Every file whose contents were read.
    pub files_read: Vec<String>,
    pub skipped: Vec<SkippedFile>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct FolderReportParams {
    pub path: String,
    /// Default 6, at most 12.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct SizeGroup {
    pub name: String,
    pub files: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct FileFact {
    pub path: String,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct DuplicateGroup {
    pub name: String,
    pub size: u64,
    pub paths: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct CleanupCandidate {
    pub path: String,
    pub size: u64,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct FolderReportResult {
    pub path: String,
    pub files: u64,
    pub folders: u64,
    pub total_bytes: u64,
    pub by_type: Vec<SizeGroup>,
    pub by_extension: Vec<SizeGroup>,
    pub by_age: Vec<SizeGroup>,
    pub largest: Vec<FileFact>,
    pub oldest: Vec<FileFact>,
    pub newest: Vec<FileFact>,
    pub possible_duplicates: Vec<DuplicateGroup>,
    pub empty_folders: Vec<String>,
    pub cleanup_candidates: Vec<CleanupCandidate>,
    /// Folders deeper than max_depth were not entered.
    pub depth_limited: bool,
}

// ---------------------------------------------------------------------------------------------
// Storage tools
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct MakeDirParams {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct RenameParams {
    pub from: String,
    pub to: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct DeleteParams {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// Required to delete a folder that is not empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recursive: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct UploadParams {
    /// File on the user's computer.
    pub local_path: String,
    /// Folder on the storage service.
    pub remote_dir: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct DownloadParams {
    /// File on the storage service.
    pub remote_path: String,
    /// Folder on the user's computer.
    pub local_dir: String,
}

/// One operation of execute_plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlanOp {
    MakeDir {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<Side>,
    },
    Rename {
        from: String,
        to: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<Side>,
    },
    Delete {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<Side>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        recursive: Option<bool>,
    },
    Upload {
        local_path: String,
        remote_dir: String,
    },
    Download {
        remote_path: String,
        local_dir: String,
    },
}

/// Run up to 200 operations after one approval. Operations that are malformed are dropped and
/// reported; the first failing operation stops the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct ExecutePlanParams {
    /// Parsed one by one so a malformed op is dropped instead of failing the whole call.
    #[schemars(with = "Vec<PlanOp>")]
    #[specta(type = Vec<PlanOp>)]
    pub ops: Vec<serde_json::Value>,
}

/// Result of make_dir, rename, delete, upload or download.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct StorageOpResult {
    /// What was done, in one sentence.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// A file replaced or deleted: the change's id and where its old content was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeNote>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum PlanOpStatus {
    Done,
    Failed,
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct PlanOpOutcome {
    /// 0-based index in the ops given.
    pub index: u32,
    pub status: PlanOpStatus,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeNote>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct DroppedOp {
    pub index: u32,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ExecutePlanResult {
    pub dropped: Vec<DroppedOp>,
    pub outcomes: Vec<PlanOpOutcome>,
}

// ---------------------------------------------------------------------------------------------
// Everywhere
// ---------------------------------------------------------------------------------------------

/// Ask the user a question. Never answered automatically.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct AskUserParams {
    pub question: String,
    /// Up to 5 suggested answers; the user may type their own instead.
    #[serde(default)]
    pub options: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct AskUserResult {
    pub answered: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

/// One command line on many saved SSH connections at once, each under its own rules; the result
/// is a `FleetReport` (hosts with identical output grouped, each group's output capped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct RunOnHostsParams {
    /// Saved connection names and group (tag) names; a group means every connection in it.
    pub hosts: Vec<String>,
    /// One command line (no line breaks), run as it is on every host.
    pub command: String,
    /// One short sentence for the user: why this call (shown on the approval card).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// Open a port forward on the tab's SSH connection; the user approves every one, and closes it
/// in the tab's Forwards list. Give the forward one way: `forward` (OpenSSH's spelling) or
/// `spec` (the same as fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct OpenForwardParams {
    /// As `ssh` takes it: `-L 8080:localhost:80` (this computer's port 8080 to the server's
    /// localhost:80), `-R 9000:localhost:3000` (the server's port 9000 to this computer's
    /// localhost:3000), `-D 1080` (a SOCKS proxy on this computer through the server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward: Option<String>,
    /// The same forward as fields, instead of `forward`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<crate::ForwardSpec>,
    /// One short sentence for the user: why this forward (shown on the approval card).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// The forward open_forward opened, as it is once set up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct OpenForwardResult {
    /// Its id in the tab's Forwards list.
    pub id: u32,
    /// As `ssh` would take it, with the address it binds: `-L 127.0.0.1:8080:localhost:80`.
    pub forward: String,
    /// Listening (and where), waiting for the tab's connection, or still starting.
    pub status: crate::ForwardStatus,
}

// ---------------------------------------------------------------------------------------------
// Changes kaiport made on a server, and their undo
// ---------------------------------------------------------------------------------------------

/// One change kaiport made to a file, as a tool result names it: its id, and where the old
/// content was kept on the server (`backup`), or why it was not (`note`, e.g. "no backup: file
/// too large").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ChangeNote {
    pub change_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a change did to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum ChangeAction {
    /// The file did not exist: it was created (undo removes it).
    Created,
    /// The file's content was replaced (edit_file, write_file, a rename over it, an undo).
    Replaced,
    /// The file was deleted.
    Deleted,
}

/// One change in a server's change list (`list_changes`, `kaiport changes`), newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ChangeRecord {
    pub id: String,
    /// RFC 3339, UTC.
    pub time: String,
    /// The tool that made it (`edit_file`, `write_file`, `delete`, `rename`, `undo_change`, …).
    pub tool: String,
    /// The file changed (links followed).
    pub path: String,
    pub action: ChangeAction,
    /// Where the old content is kept on the server (`None`: nothing to keep, or not kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    /// Why there is no backup, or that it was pruned since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Size, mode (permission bits), owner and group of the old file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gid: Option<u32>,
    /// Made through sudo (its backup is root's; undo goes through sudo too).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sudo: bool,
    /// The change this one undid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// The path is a folder (a recursive delete, or the undo of one): `size` is the bytes of
    /// all its files, and the backup a folder holding them all.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub folder: bool,
    /// Whether undo_change can restore it now.
    pub undoable: bool,
}

/// List the changes kaiport made to files on this server (newest first), with their backups.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct ListChangesParams {
    /// Only changes of this file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ListChangesResult {
    pub changes: Vec<ChangeRecord>,
    /// Where the backups are kept on this server, or why this tab keeps none.
    pub area: String,
}

/// Put a file back as it was before a change (from list_changes): restores the old bytes,
/// mode and owner; the undo is itself a change that can be undone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(deny_unknown_fields)]
pub struct UndoChangeParams {
    pub change_id: String,
    /// One short sentence for the user: why this call (shown on the approval card).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct UndoChangeResult {
    pub path: String,
    /// What the undo did: `restored` the old content, or `removed` a file the change created.
    pub restored: bool,
    pub bytes_written: u64,
    /// The undo's own change (undo it to redo).
    pub change: ChangeNote,
    /// Set when owner or group could not be given back (e.g. not root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// The parameter type of a tool, for schema generation.
pub fn parameters_schema(tool: ToolName) -> schemars::Schema {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    match tool {
        ToolName::RunCommand => generator.root_schema_for::<RunCommandParams>(),
        ToolName::SendInput => generator.root_schema_for::<SendInputParams>(),
        ToolName::ReadScreen => generator.root_schema_for::<ReadScreenParams>(),
        ToolName::ShowView => generator.root_schema_for::<ShowViewParams>(),
        ToolName::ProposePlan => generator.root_schema_for::<ProposePlanParams>(),
        ToolName::UpdatePlan => generator.root_schema_for::<UpdatePlanParams>(),
        ToolName::ReadFile => generator.root_schema_for::<ReadFileParams>(),
        ToolName::EditFile => generator.root_schema_for::<EditFileParams>(),
        ToolName::WriteFile => generator.root_schema_for::<WriteFileParams>(),
        ToolName::ListDir => generator.root_schema_for::<ListDirParams>(),
        ToolName::FindFiles => generator.root_schema_for::<FindFilesParams>(),
        ToolName::SearchFiles => generator.root_schema_for::<SearchFilesParams>(),
        ToolName::FolderReport => generator.root_schema_for::<FolderReportParams>(),
        ToolName::MakeDir => generator.root_schema_for::<MakeDirParams>(),
        ToolName::Rename => generator.root_schema_for::<RenameParams>(),
        ToolName::Delete => generator.root_schema_for::<DeleteParams>(),
        ToolName::Upload => generator.root_schema_for::<UploadParams>(),
        ToolName::Download => generator.root_schema_for::<DownloadParams>(),
        ToolName::ExecutePlan => generator.root_schema_for::<ExecutePlanParams>(),
        ToolName::AskUser => generator.root_schema_for::<AskUserParams>(),
        ToolName::ListChanges => generator.root_schema_for::<ListChangesParams>(),
        ToolName::UndoChange => generator.root_schema_for::<UndoChangeParams>(),
        ToolName::RunOnHosts => generator.root_schema_for::<RunOnHostsParams>(),
        ToolName::OpenForward => generator.root_schema_for::<OpenForwardParams>(),
    }
}
