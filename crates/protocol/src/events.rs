//! What the engine tells front ends.

use crate::broadcast::BroadcastTabResult;
use crate::common::{CallId, DecidedBy, PromptId, Risk, TabId, ToolStatus, Verdict};
use crate::facts::HostFacts;
use crate::fleet::{FleetHostCheck, FleetHostResult, FleetReport};
use crate::forwards::ForwardReport;
use crate::ops::TabView;
use crate::pilot::{ModelChoice, ModelSettings, ProviderKind, TurnStatus};
use crate::saved::{AuditEntry, SavedConnection, SshConfigHost};
use crate::settings::{ConnectionSettings, Mode};
use crate::snippets::{Snippet, SnippetBuiltins};
use crate::tools::{PlanStep, ToolName};
use crate::views::ViewReport;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum TabKind {
    Terminal,
    Storage,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ConnectionState {
    Connecting,
    Connected,
    /// The connection ended; `reason` says why in words a user understands.
    Disconnected {
        reason: String,
    },
    /// Connecting failed.
    Failed {
        error: String,
    },
    /// The connection dropped and the engine connects the tab again by itself: attempt
    /// `attempt` (from 1) starts in `in_ms` milliseconds. `reason` says why the last one ended
    /// (the drop, or why the previous attempt failed). `Op::CancelReconnect` stops it.
    Reconnecting {
        attempt: u32,
        in_ms: u32,
        reason: String,
    },
}

/// What the user is shown before approving.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ApprovalPreview {
    Command {
        command: String,
    },
    Diff {
        path: String,
        unified: String,
        /// The file does not exist yet: the call creates it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        new_file: bool,
        /// Where the old content will be kept ("backup: …"), or why not ("no backup: file too
        /// large"), for a change that replaces a file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        backup: Option<String>,
    },
    Operations {
        lines: Vec<String>,
    },
    Text {
        text: String,
    },
    /// One command line on many hosts: what each host's rules say of it. Approving runs it on
    /// the hosts that ask; the allowed ones run anyway and the forbidden ones are refused.
    Fleet {
        command: String,
        hosts: Vec<FleetHostCheck>,
    },
    /// A port forward Pilot asks to open (open_forward), with the address it will bind.
    Forward {
        forward: crate::ForwardSpec,
    },
}

/// The result object the model gets for one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ToolOutcome {
    pub tool: String,
    pub status: ToolStatus,
    /// The tool's result (status ok).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    /// What went wrong and what to do (other statuses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What an engine prompt asks the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Prompt {
    UnknownHostKey {
        host: String,
        port: u16,
        key_type: String,
        fingerprint: String,
    },
    Password {
        user: String,
        host: String,
    },
    Passphrase {
        key_path: String,
    },
    KeyboardInteractive {
        name: String,
        instructions: String,
        prompts: Vec<String>,
    },
    /// The password `sudo` asks for on `host`, to read or change `path` as root (answered with
    /// `PromptAnswer::Secret`, which goes to sudo's standard input only).
    SudoPassword {
        user: String,
        host: String,
        path: String,
    },
}

/// Where a plan stands (plan cards).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum PlanPhase {
    /// Proposed, waiting for the user's approval.
    Proposed,
    /// Approved by the user: Pilot carries it out.
    Approved,
    /// The user did not approve it.
    Rejected,
}

/// A whole plan, as a plan card shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct PlanCard {
    pub title: String,
    pub findings: String,
    pub steps: Vec<PlanStep>,
    pub phase: PlanPhase,
}

/// A setting of a connection that a call needs and only a person may turn on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    /// `send_file_contents`: file contents may go to the AI.
    FileContents,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// First event on every stream: what this engine build can do.
    Hello {
        version: String,
        tools: Vec<ToolName>,
        /// Whether this build opens local terminal tabs (`TabTarget::Local`: desktop builds).
        local_terminal: bool,
        /// When this build keeps the local side of every storage tab in one folder (the app's
        /// documents folder on a phone), that folder; front ends then offer no choice of
        /// folders. None: `TabTarget::Storage::local_roots` says.
        documents: Option<String>,
    },
    TabOpened {
        tab: TabId,
        kind: TabKind,
        title: String,
    },
    ConnectionState {
        tab: TabId,
        state: ConnectionState,
    },
    /// What the read-only probe found about a terminal tab's host, once per connection (after
    /// `Connected`).
    HostFacts {
        tab: TabId,
        facts: HostFacts,
    },
    /// A port forward of a tab changed: opened, listening, a connection opened or closed,
    /// traffic (at most about once a second while bytes move), failed, waiting for the tab to
    /// reconnect, closed.
    ForwardState {
        tab: TabId,
        forward: ForwardReport,
    },
    /// A terminal tab's shell is in another folder (its integration reported it with OSC 7
    /// at a prompt; output that prints OSC 7 itself does not count). Sent when it changes, and
    /// first after the integration is set up; never for shells without integration.
    TerminalCwd {
        tab: TabId,
        /// Absolute path on the tab's host, decoded (it came from the server: show as text).
        cwd: String,
    },
    /// Raw terminal bytes, in order.
    TerminalOutput {
        tab: TabId,
        data: Vec<u8>,
    },
    TabClosed {
        tab: TabId,
    },
    /// The answer to `Op::CheckKeyFile`: `problem` is None when the file can be read, else
    /// what is wrong ("key file not found: PATH").
    KeyFileChecked {
        path: String,
        problem: Option<String>,
    },
    /// The answer to `Op::ListAgentKeys`: each SSH agent found, first the one used by default.
    AgentKeys {
        agents: Vec<AgentInfo>,
    },
    /// A FIDO2 security key must be touched to log in (`waiting` true) or no longer
    /// (`waiting` false: signed, refused or given up). Front ends show "Touch your security key"
    /// meanwhile.
    SecurityKeyTouch {
        tab: TabId,
        key_type: String,
        fingerprint: String,
        waiting: bool,
    },
    /// The order of the open tabs changed (`Op::MoveTab`): every tab, in the order every
    /// window shows them. A tab opens at the end; closing one keeps the others' order.
    TabsReordered {
        tabs: Vec<TabId>,
    },
    /// The tabs open when the engine last stopped were opened again (each with its
    /// `TabOpened`, in their order): the one that was shown, and what each showed besides its
    /// connection (`Op::RememberTabView`). Sent once, after the last of them opened.
    TabsRestored {
        active: Option<TabId>,
        views: std::collections::BTreeMap<TabId, TabView>,
    },
    ModeChanged {
        tab: TabId,
        mode: Mode,
    },
    SettingsChanged {
        tab: TabId,
        settings: ConnectionSettings,
    },
    /// A tool card appears.
    ToolRequested {
        tab: TabId,
        call: CallId,
        tool: String,
        args: serde_json::Value,
    },
    /// The call waits for the user's `Op::Approve`.
    ApprovalRequested {
        tab: TabId,
        call: CallId,
        tool: String,
        /// Why it asks, in the policy's words (the audit keeps them). The plain ask-mode reasons
        /// ("runs a command in the terminal") come with `risk` routine.
        reasons: Vec<String>,
        /// What is at stake: routine, dangerous, or a change that can lock the user out (a front
        /// end confirms that twice and never makes Approve its default).
        risk: Risk,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        preview: Option<ApprovalPreview>,
        /// Set when the connection's settings refuse the call and the user may allow it: the
        /// card offers "just this once" (`Approve`) and "for this connection"
        /// (`AllowForConnection`). Never answered automatically.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        permission: Option<Permission>,
        /// The model's own one-sentence reason for the call (its `why` argument), cleaned of
        /// control characters and cut; the model's words, not kaiport's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        why: Option<String>,
        /// run_command, routine: the allowed-commands rule (`systemctl status`) that would let
        /// this line run without asking from now on. The card offers it; `AllowForConnection`
        /// adds it to the connection's settings (and the saved connection's). Never set for
        /// dangerous or lock-out calls.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        allow_rule: Option<String>,
    },
    ToolRunning {
        tab: TabId,
        call: CallId,
    },
    /// ask_user: the call waits for `Op::AnswerQuestion`. Never answered automatically.
    QuestionAsked {
        tab: TabId,
        call: CallId,
        question: String,
        options: Vec<String>,
    },
    ToolFinished {
        tab: TabId,
        call: CallId,
        outcome: ToolOutcome,
        verdict: Verdict,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decided_by: Option<DecidedBy>,
        duration_ms: u64,
    },
    /// The engine needs an answer from the user (`Op::AnswerPrompt`).
    PromptRequested {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab: Option<TabId>,
        prompt_id: PromptId,
        prompt: Prompt,
    },
    /// propose_plan: a plan card appears; the call waits for the user's approval
    /// (`ApprovalRequested` follows). Approving it switches the tab from plan to ask mode.
    PlanProposed {
        tab: TabId,
        call: CallId,
        plan: PlanCard,
    },
    /// The tab's plan changed (approved, rejected, a step's status, a step added or confirmed);
    /// carries the whole plan.
    PlanUpdated {
        tab: TabId,
        plan: PlanCard,
    },
    /// A file transfer of a tool call (upload, download, folder copy) moved on. Sent at most a
    /// few times a second, and once with `done` when the data is complete.
    TransferProgress {
        tab: TabId,
        call: CallId,
        /// The file being written.
        path: String,
        transferred: u64,
        total: u64,
        /// Bytes per second so far.
        rate: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        eta_s: Option<f64>,
        done: bool,
    },
    /// show_view: the whole view for the UI's view card (the model gets only its summary).
    /// Sent before the call's `ToolFinished`.
    ViewShown {
        tab: TabId,
        call: CallId,
        report: ViewReport,
    },
    /// A view button (`Op::PressViewButton`) was typed into the terminal (`ok`), or refused
    /// (`denied`: forbidden, or not the command shown; `error`: no terminal). In the audit log
    /// as the user's action.
    ViewButtonFinished {
        tab: TabId,
        call: CallId,
        command: String,
        status: ToolStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// Something went wrong outside any tool call.
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab: Option<TabId>,
        message: String,
    },
    /// Pilot started working on a message (`Op::SendMessage`).
    TurnStarted {
        tab: TabId,
        turn: u64,
        /// The user's message, so every page (and one that reloads) shows what the turn
        /// answers.
        text: String,
    },
    /// Pilot's streamed text, in order.
    AssistantText {
        tab: TabId,
        turn: u64,
        delta: String,
    },
    /// The model API failed in a way worth retrying (rate limit, server error, network);
    /// kaiport tries again after `wait_ms`.
    ModelRetrying {
        tab: TabId,
        turn: u64,
        attempt: u32,
        wait_ms: u64,
        reason: String,
    },
    /// Pilot's turn ended; `message` says why when it did not complete.
    TurnFinished {
        tab: TabId,
        turn: u64,
        status: TurnStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// How full the model's context window is, sent before each model request of a turn.
    /// Estimated as kaiport's budget counts it (4 bytes a token, which overestimates), after
    /// older tool results were elided to fit.
    ContextUsage {
        tab: TabId,
        turn: u64,
        /// The system prompt, the tool schemas and the conversation.
        used_tokens: u64,
        /// The model's window (settings, or the provider's default for the model).
        context_tokens: u32,
        /// Tool results elided so far in this conversation to stay within the window.
        elided_results: u32,
    },
    /// The answer to `Op::ListModels`: the model used unless a front end picks another, and
    /// each provider with its settings and whether its key is there. Never a key.
    Models {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        current: Option<ModelSettings>,
        providers: Vec<ModelChoice>,
        /// Why the settings file could not be read, when it could not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
    },
    /// The answer to `SaveModelSettings`: saved, or `problem` says what was wrong (and what
    /// was not saved).
    ModelSettingsSaved {
        provider: ProviderKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
    },
    /// The answer to `TestModel`: whether the model answered, and what happened in words.
    ModelTested {
        provider: ProviderKind,
        model: String,
        ok: bool,
        message: String,
    },
    /// The answer to `ListProviderModels`: the provider's model names, sorted, or why there
    /// are none.
    ProviderModels {
        provider: ProviderKind,
        models: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
    },
    /// The saved connections, all of them, in the file's order (after `ListConnections` and
    /// every change to them).
    SavedConnections {
        connections: Vec<SavedConnection>,
    },
    /// The concrete hosts of the SSH config at `path` (`ReadSshConfig`).
    SshConfigHosts {
        path: String,
        hosts: Vec<SshConfigHost>,
    },
    /// What each host's rules say of a fleet run's line (`FleetCheck`), in the order named.
    FleetChecked {
        run: String,
        command: String,
        hosts: Vec<FleetHostCheck>,
    },
    /// A host of a fleet run started connecting and running.
    FleetHostRunning {
        run: String,
        host: String,
    },
    /// A host of a fleet run ended; `done` of `total` hosts have ended so far.
    FleetHostFinished {
        run: String,
        result: FleetHostResult,
        done: u32,
        total: u32,
    },
    /// What became of a broadcast line (`BroadcastLine`) on each of its tabs, in the order
    /// named.
    BroadcastJudged {
        broadcast: String,
        line: String,
        tabs: Vec<BroadcastTabResult>,
    },
    /// A fleet run ended: every host's outcome, grouped.
    FleetFinished {
        run: String,
        report: FleetReport,
    },
    /// The snippets (`ListSnippets`; all of them after `SaveSnippet` and `DeleteSnippet`, where
    /// `tab` is none). For a tab: those that apply to it and what it knows of the built-ins.
    /// `problem`: why the op failed (nothing was saved or deleted; the list is as it was).
    Snippets {
        #[serde(default)]
        tab: Option<TabId>,
        snippets: Vec<Snippet>,
        #[serde(default)]
        builtins: SnippetBuiltins,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
    },
    /// A snippet expanded for `tab` (`ExpandSnippet`): the line to type, and whether to press
    /// Enter after it; or `problem` (an unknown or missing variable, no such snippet) and an
    /// empty line.
    SnippetExpanded {
        tab: TabId,
        name: String,
        line: String,
        enter: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
    },
    /// The last lines of the audit log at `path`, oldest first (`ReadAudit`).
    AuditLog {
        path: String,
        entries: Vec<AuditEntry>,
    },
    /// A tool call ended and its audit line was written.
    AuditRecorded {
        entry: AuditEntry,
    },
    /// The server's host key is not the one known_hosts holds for it: the tab was not
    /// connected (a `ConnectionState` `failed` follows), and must not be connected anyway.
    /// Either the server was reinstalled (remove `line` of `known_hosts`) or someone is
    /// intercepting the connection.
    HostKeyChanged {
        tab: TabId,
        host: String,
        port: u16,
        key_type: String,
        /// The SHA256 fingerprint the server shows now.
        fingerprint: String,
        /// The SHA256 fingerprint of the key stored on `line`.
        #[serde(default)]
        old_fingerprint: String,
        known_hosts: String,
        line: u32,
    },
    /// `ReplaceHostKey` replaced the stored key of `host:port`: `known_hosts` now holds the
    /// key with `fingerprint` (on `line`), the old one is gone.
    HostKeyReplaced {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab: Option<TabId>,
        host: String,
        port: u16,
        fingerprint: String,
        old_fingerprint: String,
        known_hosts: String,
        line: u32,
    },
}

/// One SSH agent found where the engine runs (`Event::AgentKeys`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct AgentInfo {
    /// What it is: `SSH_AUTH_SOCK`, `1Password`, `Secretive`, `OpenSSH agent`, `Pageant`.
    pub name: String,
    /// Where it is, as `TabTarget::Ssh`'s `identity_agent` names it.
    pub source: String,
    pub keys: Vec<AgentKeyInfo>,
    /// Why its keys could not be listed, when they could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One key an agent holds, as `ssh-add -l` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct AgentKeyInfo {
    /// `ED25519`, `ECDSA`, `RSA`, `ED25519-SK`, `ECDSA-SK`.
    pub key_type: String,
    pub comment: String,
    /// `SHA256:…`.
    pub fingerprint: String,
    /// An OpenSSH certificate.
    pub certificate: bool,
    /// A FIDO2 security key: logging in with it waits for a touch.
    pub security_key: bool,
}
