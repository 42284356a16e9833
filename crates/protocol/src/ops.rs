//! What a front end asks of the engine. Each variant's doc names the events that answer it.

use crate::common::{CallId, PromptId, TabId};
use crate::forwards::ForwardSpec;
use crate::pilot::ModelSettings;
use crate::settings::{ConnectionSettings, Mode};
use crate::snippets::{Snippet, SnippetValue};
use crate::views::ViewButton;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// What a page shows of a tab besides its connection, kept by the engine so that a tab
/// reopened after a restart looks as it did. Never a secret (no prompt text, no key).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(default)]
pub struct TabView {
    /// The Pilot panel was open.
    pub pilot_open: bool,
    /// A storage tab's folder on the service side, as the tab names it (`/`-rooted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// A storage tab's folder on this computer's side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_folder: Option<String>,
}

/// What a tab connects to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TabTarget {
    /// A shell on this computer (desktop builds).
    Local,
    /// A saved connection profile, by name.
    Profile { name: String },
    /// An SSH server given directly.
    Ssh {
        host: String,
        port: u16,
        user: String,
        #[serde(default)]
        identity_files: Vec<String>,
        /// ProxyJump hops, `user@host:port`, in order.
        #[serde(default)]
        jump_hosts: Vec<String>,
        /// "Keep the session on the server": the shell runs inside tmux (or screen) under a
        /// name kaiport owns, so a reconnect or a restart attaches to the same shell.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        keep_session: bool,
        /// OpenSSH certificates (`CertificateFile`) to log in with, beside the `KEY-cert.pub`
        /// found next to each identity file.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        certificate_files: Vec<String>,
        /// Which SSH agent to use (`IdentityAgent`: a socket path, a `\\.\pipe\…` name or
        /// `pageant`); none is the default agent (`SSH_AUTH_SOCK`, else one found on this
        /// computer). `AgentKeys` lists those found.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        identity_agent: Option<String>,
        /// Let the server use this computer's agent (agent forwarding, `ssh -A`): asked for
        /// with the tab's shell, and sshd then offers it to every session of the connection
        /// (Pilot's commands too). Off unless asked for: whoever controls the server can log in
        /// elsewhere with the agent's keys while the tab is connected.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        forward_agent: bool,
    },
    /// A storage tab: `s3://bucket/prefix?endpoint=…&region=…&path_style=true`,
    /// `webdav(s)://host/path`, `azblob://container/prefix?account=…&endpoint=…`,
    /// `ftp(s)://user@host:port/path`, `sftp://user@host:port/path`. Never a secret in the URL:
    /// it comes from the keychain or a `PromptRequested` password prompt.
    Storage {
        url: String,
        /// The user name (S3 access key id, Azure account, FTP/WebDAV/SFTP user) when the URL
        /// has none.
        #[serde(default)]
        user: Option<String>,
        /// The folders of this computer the tab's local side may use (absolute paths, or `~`,
        /// `~/…` in the home folder). Listing `/` on the local side shows the way down to them.
        #[serde(default)]
        local_roots: Vec<String>,
        /// SFTP only: private key files to log in with, tried in order after the ssh-agent and
        /// before a password (passphrases from the keychain or a `Passphrase` prompt).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        identity_files: Vec<String>,
    },
}

/// The user's answer to a pending approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    Approve,
    Deny,
    /// Approve, and for the connection from now on: turn on the permission the call asked for
    /// (`Event::ApprovalRequested::permission`), or add its `allow_rule` to the allowed
    /// commands; in the tab's settings and, for a saved connection, in its saved settings. Only
    /// a person may give it (`automatic` approves the call alone, or not at all for a
    /// permission).
    AllowForConnection,
}

/// An answer to an engine prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PromptAnswer {
    /// Host key: trust and remember it, or not.
    Confirm { accept: bool },
    /// Password or passphrase. Never logged, never echoed in events.
    Secret { value: String },
    /// keyboard-interactive answers, one per prompt.
    Responses { values: Vec<String> },
    /// The user closed the prompt.
    Dismissed,
}

/// A secret to keep in the OS keychain with a saved connection. Goes to the engine only; the
/// engine never writes it into the profile file, an event or a log.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SaveConnectionSecret {
    /// The SSH login password, or a storage connection's secret (S3 secret key, Azure key,
    /// WebDAV/FTP/SFTP password).
    Password { value: String },
    /// The passphrase of the connection's first key file.
    Passphrase { value: String },
}

// Debug by hand: an op printed for debugging must not print the secret.
impl std::fmt::Debug for SaveConnectionSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SaveConnectionSecret::Password { .. } => f.write_str("Password { .. }"),
            SaveConnectionSecret::Passphrase { .. } => f.write_str("Passphrase { .. }"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Op {
    /// Open a tab. Answered by `TabOpened`, then `ConnectionState` changes (and `PromptRequested`
    /// for host keys or passwords), `TerminalOutput` as the shell prints.
    OpenTab {
        tab: TabId,
        target: TabTarget,
        cols: u16,
        rows: u16,
        #[serde(default)]
        settings: Option<ConnectionSettings>,
        #[serde(default)]
        mode: Option<Mode>,
    },
    /// Close a tab. Answered by `TabClosed`.
    CloseTab { tab: TabId },
    /// Open a port forward on an SSH terminal tab (on its connection now, and again on every
    /// reconnect until it is closed). Answered by `ForwardState` (starting, then listening or
    /// failed), again at each change; an `Error` when the tab is no SSH tab.
    OpenForward { tab: TabId, forward: ForwardSpec },
    /// Close one of a tab's forwards. Answered by `ForwardState` with status `closed`.
    CloseForward { tab: TabId, id: u32 },
    /// Replace the host key `known_hosts` holds for `host:port` with the one the server shows
    /// now, after a `HostKeyChanged` refusal. The engine fetches the server's key again and
    /// replaces nothing unless `confirmation` is that key's SHA256 fingerprint, whole or its
    /// last 8 characters, as the user typed it (never filled in by a front end: a changed key is
    /// never one click away). Answered by `HostKeyReplaced`, or an `Error` saying why nothing
    /// was replaced. Audited either way.
    ReplaceHostKey {
        #[serde(default)]
        tab: Option<TabId>,
        host: String,
        port: u16,
        confirmation: String,
    },
    /// Whether a key file the user typed (a leading `~` is the home folder) can be read where
    /// the engine runs: the "New connection" form asks before it connects. Answered by
    /// `KeyFileChecked`.
    CheckKeyFile { path: String },
    /// List the SSH agents found where the engine runs and the keys each holds (the "New
    /// connection" form shows them). Answered by `AgentKeys`.
    ListAgentKeys,
    /// Move a tab to `index` in the one order of tabs every window shows (an index past the
    /// end moves it last). Answered by `TabsReordered`; an `Error` when there is no such tab.
    MoveTab { tab: TabId, index: u32 },
    /// Connect a tab again (its connection dropped or failed): the same tab on a new
    /// connection, with its settings, mode and Pilot conversation. Answered by
    /// `ConnectionState` (connecting, then connected or failed).
    ReconnectTab { tab: TabId },
    /// Stop the automatic reconnect of a tab (`ConnectionState` `reconnecting`): no further
    /// attempt. Answered by `ConnectionState` `disconnected` (the front end offers "Reconnect").
    CancelReconnect { tab: TabId },
    /// The page shows `tab` now: remembered (with the open tabs) as the tab to show after a
    /// restart. No answer; an `Error` for an unknown tab.
    ShowTab { tab: TabId },
    /// What a page shows of `tab` besides its connection (the Pilot panel, a storage tab's
    /// folders), remembered for reopening the tab after a restart (`TabsRestored`). No answer;
    /// an `Error` for an unknown tab.
    RememberTabView { tab: TabId, view: TabView },
    /// Keystrokes from the user, as the bytes the terminal sends (not always UTF-8: a terminal
    /// in another locale, xterm's mouse reports). Answered by `TerminalOutput` as the shell
    /// echoes.
    TerminalInput { tab: TabId, data: Vec<u8> },
    /// The terminal's visible size changed. No answer.
    Resize { tab: TabId, cols: u16, rows: u16 },
    /// Change a tab's mode. Answered by `ModeChanged`.
    SetMode { tab: TabId, mode: Mode },
    /// Replace a tab's connection settings. Answered by `SettingsChanged`.
    UpdateSettings {
        tab: TabId,
        settings: ConnectionSettings,
    },
    /// Run one tool call through the whole pipeline (as if the model had asked). Answered by
    /// `ToolRequested`, maybe `ApprovalRequested`, `ToolRunning`, `ToolFinished`.
    RunTool {
        tab: TabId,
        call: CallId,
        tool: String,
        args: serde_json::Value,
    },
    /// Answer a pending approval. Answered by `ToolRunning`/`ToolFinished` of that call.
    Approve {
        call: CallId,
        decision: ApprovalDecision,
        /// Deny: the user's reason, which the model gets with the refusal (and the audit log
        /// keeps).
        #[serde(default)]
        reason: Option<String>,
        /// Approve, run_command only: the command line as the user edited it on the card. It runs
        /// instead of the model's (still refused when a forbidden rule matches it); the audit log
        /// keeps both lines and the model's result says the user edited it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command: Option<String>,
        /// True when the front end answered by a standing instruction (`--yes`, nobody at the
        /// terminal) rather than a person deciding now. Recorded in the audit log.
        #[serde(default)]
        automatic: bool,
    },
    /// Answer an ask_user question; `answer: None` means the user stopped it without answering.
    /// Answered by `ToolFinished` of that call.
    AnswerQuestion {
        call: CallId,
        #[serde(default)]
        answer: Option<String>,
    },
    /// Answer an engine prompt. Answered by whatever the prompt was blocking.
    AnswerPrompt {
        prompt: PromptId,
        answer: PromptAnswer,
    },
    /// Cancel a tool call (or everything running in a tab when `call` is absent). Answered by
    /// `ToolFinished` with status `cancelled`.
    Cancel {
        tab: TabId,
        #[serde(default)]
        call: Option<CallId>,
    },
    /// Run a failed transfer again (an upload, download or execute_plan that ended in an error
    /// or was cancelled, e.g. the server went away), from the start, under the new id
    /// `new_call`, through the whole pipeline again: the same policy and approval rules, a new
    /// audit line. Answered like `RunTool` (`ToolRequested`, maybe `ApprovalRequested`,
    /// `ToolRunning`, `TransferProgress`, `ToolFinished` of `new_call`); an `Error` when `call`
    /// is no failed transfer of that tab.
    RetryTransfer {
        tab: TabId,
        call: CallId,
        new_call: CallId,
    },
    /// The changes kaiport made to files on the tab's server (newest first, with their
    /// backups), through the pipeline as a `list_changes` call under `call` (audited as a
    /// read). Answered like `RunTool`; the `ToolFinished` result is a `ListChangesResult`.
    ListChanges {
        tab: TabId,
        call: CallId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
    },
    /// The user undoes a change (an id from `ListChanges`): an `undo_change` call under `call`
    /// through the whole pipeline. It always asks (`ApprovalRequested` with the diff from the
    /// file now to the file after the undo), in every mode; approved, the file's present content
    /// is backed up first, so the undo is itself a change that can be undone. Answered like
    /// `RunTool`; the result is an `UndoChangeResult`.
    UndoChange {
        tab: TabId,
        call: CallId,
        change_id: String,
    },
    /// A message from the user to Pilot in a tab. Answered by `TurnStarted`, then
    /// `AssistantText` as the model writes, the events of each tool call it makes
    /// (`ToolRequested`, `ApprovalRequested`, `QuestionAsked`, `ToolRunning`, `ToolFinished`),
    /// `ModelRetrying` when the model API has to be retried, and `TurnFinished`. An `Error`
    /// when the tab does not exist or Pilot is still busy with the previous message.
    SendMessage {
        tab: TabId,
        text: String,
        /// The model to use from now on in this tab (default: the one used before, else the
        /// settings file).
        #[serde(default)]
        model: Option<ModelSettings>,
    },
    /// The user confirmed a view's button (a person, never the model): the engine derives the
    /// command from `button.action`, refuses it when it is not `button.command` (what the user
    /// was shown) or when the connection's rules forbid it, else types it into the tab's
    /// terminal and presses Enter, and audits it as the user's action. Answered by
    /// `ViewButtonFinished`.
    PressViewButton {
        tab: TabId,
        call: CallId,
        button: ViewButton,
    },
    /// Stop Pilot's current turn in a tab; the running tool call is cancelled (a command
    /// already typed into the terminal keeps running there). Answered by `TurnFinished` with
    /// status `cancelled`.
    CancelTurn { tab: TabId },
    /// Which models Pilot can use and whether each provider's API key is saved (never the
    /// key). Answered by `Models`.
    ListModels,
    /// Save Pilot's model settings for `settings.provider` in the settings file (`pilot.toml`,
    /// whose other sections and comments are kept) and make that provider the one used.
    /// `api_key`, when given, goes to the OS keychain (account `model-api-key:<provider>`),
    /// never into the file, an event or a log; left out, a saved key stays. Answered by
    /// `ModelSettingsSaved`.
    SaveModelSettings {
        settings: ModelSettings,
        #[serde(default)]
        api_key: Option<String>,
    },
    /// Send one tiny request to the model `settings` names, with `api_key` (else the key the
    /// settings would use), to see that the provider, model, address and key work. Answered by
    /// `ModelTested`.
    TestModel {
        settings: ModelSettings,
        #[serde(default)]
        api_key: Option<String>,
    },
    /// The models the provider of `settings` offers (its model list), asked with `api_key`
    /// (else the key the settings would use). Answered by `ProviderModels`.
    ListProviderModels {
        settings: ModelSettings,
        #[serde(default)]
        api_key: Option<String>,
    },
    /// List the saved connections (SSH and storage). Answered by `SavedConnections`.
    ListConnections,
    /// Save a connection under `name`: `target` is what "Connect" would open (`ssh` or
    /// `storage`, never a secret). `secrets` go to the OS keychain, never into the profile file,
    /// an event or a log. An existing connection of that name is replaced only with `replace`.
    /// Answered by `SavedConnections`; an `Error` (tab none) says what was wrong, and then
    /// nothing was saved.
    SaveConnection {
        name: String,
        target: TabTarget,
        #[serde(default)]
        settings: Option<ConnectionSettings>,
        #[serde(default)]
        secrets: Vec<SaveConnectionSecret>,
        #[serde(default)]
        replace: bool,
    },
    /// Delete a saved connection and its saved password. Answered by `SavedConnections` (an
    /// `Error` when there is none of that name).
    DeleteConnection { name: String },
    /// Read ~/.ssh/config and list its concrete hosts. Answered by `SshConfigHosts` (an `Error`
    /// when it cannot be read).
    ReadSshConfig,
    /// Save the hosts of ~/.ssh/config called `names` as connections (names already saved are
    /// kept as they are). Answered by `SavedConnections`.
    ImportSshConfig { names: Vec<String> },
    /// Replace a saved connection's settings (tabs already open keep theirs: `UpdateSettings`).
    /// Answered by `SavedConnections`; an `Error` naming the bad value saves nothing.
    UpdateConnectionSettings {
        name: String,
        settings: ConnectionSettings,
    },
    /// Replace a saved connection's tags (its groups): each trimmed, at most 64 characters, no
    /// control characters, duplicates dropped; an empty list leaves it in no group. Answered by
    /// `SavedConnections`; an `Error` naming the bad tag changes nothing.
    SetConnectionTags { name: String, tags: Vec<String> },
    /// What each host's rules say of `command` before it runs: `targets` are saved connections
    /// and tags (a tag means every connection that has it), each host once. Each host is judged
    /// as run_command in a tab of it would be (its settings, `mode`, default ask), without
    /// connecting, so where links lead is not known yet (the run judges that again). Answered
    /// by `FleetChecked`; an `Error` when a target is neither a connection nor a tag.
    FleetCheck {
        run: String,
        targets: Vec<String>,
        command: String,
        #[serde(default)]
        mode: Option<Mode>,
    },
    /// Run `command` on every host of `targets` (as in `FleetCheck`) on exec channels of their
    /// own (never a user's terminal), `concurrency` at a time (default: the engine's setting,
    /// 16), each under its own connection's rules: a forbidden line is refused there, a line
    /// its rules ask about runs only on the hosts in `approved` (`automatic`: approved by a
    /// standing instruction such as `--yes`, not a person now). Unknown host keys are not
    /// asked about and passwords come only from the keychain: such a host fails. One audit
    /// line per host. Answered by `FleetHostRunning` and `FleetHostFinished` per host, then
    /// `FleetFinished`.
    FleetRun {
        run: String,
        targets: Vec<String>,
        command: String,
        #[serde(default)]
        mode: Option<Mode>,
        #[serde(default)]
        approved: Vec<String>,
        #[serde(default)]
        automatic: bool,
        #[serde(default)]
        concurrency: Option<u32>,
    },
    /// List the snippets: all of them, or with `tab` those that apply to that terminal tab
    /// (global ones, its saved connection's and its groups') with what the tab knows of the
    /// built-in variables. Answered by `Snippets`.
    ListSnippets {
        #[serde(default)]
        tab: Option<TabId>,
    },
    /// Save a snippet (replacing the one called `previous`, else the one of the same name).
    /// Its command must parse and be one line. Answered by `Snippets` (all of them), whose
    /// `problem` says what was wrong, and then nothing was saved.
    SaveSnippet {
        snippet: Snippet,
        #[serde(default)]
        previous: Option<String>,
    },
    /// Delete the snippet called `name`. Answered by `Snippets` (all of them; `problem` when
    /// there is none of that name).
    DeleteSnippet { name: String },
    /// Expand snippet `name` for `tab`: each variable from `values`, else (built-ins) what the
    /// tab knows, else its default. Answered by `SnippetExpanded`, whose `problem` names a value
    /// for a name the command does not have or a variable left without one (an `Error` when
    /// there is no such tab). The engine types nothing (the front end sends the line as the user's
    /// `TerminalInput`).
    ExpandSnippet {
        tab: TabId,
        name: String,
        #[serde(default)]
        values: Vec<SnippetValue>,
    },
    /// Broadcast input: type `line` and Enter into every terminal tab of `tabs` (the user's
    /// typing, once for all). Each tab judges the line first by its own connection's rules, as
    /// a command typed there (ask and autopilot lines are sent: the user typed them). When a tab
    /// forbids it, it is typed nowhere, unless `skip_refused` (the user chose to send it to the
    /// tabs that allow it). One audit line per tab (tool `broadcast_input`). Answered by
    /// `BroadcastJudged`; a line with a line break is an `Error` and is typed nowhere.
    BroadcastLine {
        broadcast: String,
        tabs: Vec<TabId>,
        line: String,
        #[serde(default)]
        skip_refused: bool,
    },
    /// Stop fleet run `run`: hosts not started yet are skipped, running ones are stopped by
    /// closing their connection; each is reported `cancelled` (with its audit line), then
    /// `FleetFinished` as usual. A run that already ended, or is unknown, is left alone.
    FleetCancel { run: String },
    /// Ask for an open tab's settings. Answered by `SettingsChanged`.
    ReadSettings { tab: TabId },
    /// Read the last `limit` lines of the audit log. Answered by `AuditLog`; every tool call
    /// that ends after that adds an `AuditRecorded`.
    ReadAudit { limit: u32 },
    /// The front end went to the background: a phone app about to be suspended (iOS stops it
    /// and its sockets may die meanwhile), or a page that was hidden. The engine notes it and
    /// watches whether it is itself suspended from now on (a heartbeat that stops ticking).
    /// No answer. Nothing is stopped: a front end whose page was only hidden loses nothing.
    AppBackground,
    /// The front end is in the foreground again. Every tab's connection is checked at once, not
    /// after a keep-alive interval: the server must answer an SSH request within 1.5 s
    /// (`kaiport_core::lifecycle::CHECK_TIMEOUT`); a terminal tab whose server does not gets
    /// `ConnectionState` `disconnected` (the front end offers "Reconnect"), and a transfer over
    /// that connection ends as failed (`ToolFinished` with status `error`, retried with
    /// `RetryTransfer`). When the engine was itself suspended since `AppBackground` (its
    /// heartbeat missed 3 s or more, `SUSPENDED_AFTER`: iOS stopped the app, the computer
    /// slept), also: a Pilot turn still running ends with `TurnFinished` status `interrupted`,
    /// with a note to the user in its message and to the model in the conversation (never
    /// carried on against a stale screen); and a transfer that does not move again within 5 s
    /// (`TRANSFER_STALL`) ends as failed, retryable. Without an `AppBackground` before, only
    /// the connections are checked.
    AppForeground,
}
