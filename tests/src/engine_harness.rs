//! Driving a real [`Engine`] from a test: open a tab, run tool calls, answer approvals and
//! questions the way a test says, and look at every event that went by.

use anyhow::{Context, Result, bail};
use kaiport_core::{Engine, EngineConfig};
use kaiport_protocol::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// How the harness answers approval requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approvals {
    Approve,
    Deny,
    /// Approve, and give the connection the permission the call asks for.
    AllowForConnection,
    /// Approve as a standing instruction (`--yes`), not a person.
    Automatic,
    /// Leave them pending (for cancel tests).
    Ignore,
    /// Approve with the command line edited into this one (as on the card).
    EditCommand(&'static str),
    /// Deny with this reason for the model.
    DenyBecause(&'static str),
}

/// An engine with one tab, answering what it asks per the test's wishes.
pub struct EngineHarness {
    pub engine: Engine,
    pub home: tempfile::TempDir,
    pub tab: TabId,
    events: Arc<Mutex<Vec<Event>>>,
    finished: Arc<Mutex<HashMap<CallId, ToolOutcome>>>,
    /// Woken whenever a call's outcome arrives (so [`EngineHarness::outcome`] waits on it).
    outcome_arrived: Arc<tokio::sync::Notify>,
    pub approvals: Arc<Mutex<Approvals>>,
    /// Answer to the next ask_user questions (None: "did not answer").
    pub question_answer: Arc<Mutex<Option<String>>>,
    next_call: Mutex<u32>,
}

impl EngineHarness {
    /// Start an engine (its files in a temp KAIPORT_HOME, known_hosts as given) and open a tab.
    pub async fn open(
        target: TabTarget,
        known_hosts: Option<PathBuf>,
        settings: ConnectionSettings,
        mode: Mode,
    ) -> Result<EngineHarness> {
        EngineHarness::open_with_secret(target, known_hosts, settings, mode, None).await
    }

    /// A storage tab on `server`, its local side confined to `local`, logging in with
    /// `secret`.
    pub async fn open_storage(
        server: &crate::storage_servers::StorageServer,
        local: &std::path::Path,
        settings: ConnectionSettings,
        mode: Mode,
        secret: Option<&str>,
    ) -> Result<EngineHarness> {
        EngineHarness::open_storage_at(server, &server.url(), local, settings, mode, secret).await
    }

    /// [`EngineHarness::open_storage`] through `url` (the server's, on another port).
    pub async fn open_storage_at(
        server: &crate::storage_servers::StorageServer,
        url: &str,
        local: &std::path::Path,
        settings: ConnectionSettings,
        mode: Mode,
        secret: Option<&str>,
    ) -> Result<EngineHarness> {
        EngineHarness::open_with_secret(
            TabTarget::Storage {
                url: url.to_owned(),
                user: None,
                local_roots: vec![local.display().to_string()],
                identity_files: Vec::new(),
            },
            server.known_hosts(),
            settings,
            mode,
            secret.map(str::to_owned),
        )
        .await
    }

    /// Like [`EngineHarness::open`], answering password prompts with `secret` (storage tabs).
    pub async fn open_with_secret(
        target: TabTarget,
        known_hosts: Option<PathBuf>,
        settings: ConnectionSettings,
        mode: Mode,
        secret: Option<String>,
    ) -> Result<EngineHarness> {
        EngineHarness::open_configured(target, known_hosts, settings, mode, secret, |_, _| {}).await
    }

    /// Like [`EngineHarness::open_with_secret`], with the engine's configuration changed by
    /// `configure` (given it and the engine's home folder) before the engine starts.
    pub async fn open_configured(
        target: TabTarget,
        known_hosts: Option<PathBuf>,
        settings: ConnectionSettings,
        mode: Mode,
        secret: Option<String>,
        configure: impl FnOnce(&mut EngineConfig, &std::path::Path),
    ) -> Result<EngineHarness> {
        Self::open_inner(target, known_hosts, settings, mode, secret, configure, None).await
    }

    /// Like [`EngineHarness::open`], with the page's terminal resized to `cols` x `rows` right
    /// after it asked for the tab, while the tab still connects (as a page does once it has
    /// fitted its terminal).
    pub async fn open_resized_while_connecting(
        target: TabTarget,
        known_hosts: Option<PathBuf>,
        (cols, rows): (u16, u16),
    ) -> Result<EngineHarness> {
        let settings = ConnectionSettings::default();
        let resize = Some(WhileConnecting::Resize(cols, rows));
        Self::open_inner(
            target,
            known_hosts,
            settings,
            Mode::Autopilot,
            None,
            |_, _| {},
            resize,
        )
        .await
    }

    /// Like [`EngineHarness::open`], with `line` and Enter typed the moment the first prompt
    /// shows (`$ ` or `# ` at the end of the output), before the tab counts as connected: a
    /// user typing at once. Fails when the tab connected before that prompt showed.
    pub async fn open_typing_at_the_first_prompt(
        target: TabTarget,
        known_hosts: Option<PathBuf>,
        line: &str,
    ) -> Result<EngineHarness> {
        let typing = Some(WhileConnecting::TypeAtPrompt(format!("{line}\r")));
        Self::open_inner(
            target,
            known_hosts,
            ConnectionSettings::default(),
            Mode::Autopilot,
            None,
            |_, _| {},
            typing,
        )
        .await
    }

    async fn open_inner(
        target: TabTarget,
        known_hosts: Option<PathBuf>,
        settings: ConnectionSettings,
        mode: Mode,
        secret: Option<String>,
        configure: impl FnOnce(&mut EngineConfig, &std::path::Path),
        while_connecting: Option<WhileConnecting>,
    ) -> Result<EngineHarness> {
        let home = tempfile::tempdir()?;
        let mut config = EngineConfig::in_dir(home.path());
        if let Some(known_hosts) = known_hosts {
            config.known_hosts = known_hosts;
        }
        configure(&mut config, home.path());
        let (engine, mut stream) = Engine::new(config)?;
        let events: Arc<Mutex<Vec<Event>>> = Arc::default();
        let approvals = Arc::new(Mutex::new(Approvals::Approve));
        let question_answer: Arc<Mutex<Option<String>>> = Arc::default();
        let finished: Arc<Mutex<HashMap<CallId, ToolOutcome>>> = Arc::default();
        let outcome_arrived = Arc::new(tokio::sync::Notify::new());
        let (connected_tx, mut connected_rx) = mpsc::unbounded_channel();
        {
            let engine = engine.clone();
            let events = events.clone();
            let approvals = approvals.clone();
            let question_answer = question_answer.clone();
            let finished = finished.clone();
            let outcome_arrived = outcome_arrived.clone();
            tokio::spawn(async move {
                while let Some(event) = stream.recv().await {
                    match &event {
                        Event::ConnectionState { state, .. } => {
                            let _ = connected_tx.send(state.clone());
                        }
                        Event::ApprovalRequested { call, .. } => {
                            let answer = *approvals.lock().unwrap_or_else(|p| p.into_inner());
                            let (approve, deny) =
                                (ApprovalDecision::Approve, ApprovalDecision::Deny);
                            let decision = match answer {
                                Approvals::Approve => Some((approve, None, None, false)),
                                Approvals::Deny => Some((deny, None, None, false)),
                                Approvals::AllowForConnection => {
                                    Some((ApprovalDecision::AllowForConnection, None, None, false))
                                }
                                Approvals::Automatic => Some((approve, None, None, true)),
                                Approvals::Ignore => None,
                                Approvals::EditCommand(line) => {
                                    Some((approve, None, Some(line.to_owned()), false))
                                }
                                Approvals::DenyBecause(why) => {
                                    Some((deny, Some(why.to_owned()), None, false))
                                }
                            };
                            if let Some((decision, reason, command, automatic)) = decision {
                                engine
                                    .handle(Op::Approve {
                                        call: call.clone(),
                                        decision,
                                        reason,
                                        command,
                                        automatic,
                                    })
                                    .await;
                            }
                        }
                        Event::QuestionAsked { call, .. } => {
                            let answer = question_answer
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .clone();
                            engine
                                .handle(Op::AnswerQuestion {
                                    call: call.clone(),
                                    answer,
                                })
                                .await;
                        }
                        Event::PromptRequested { prompt_id, .. } => {
                            let answer = match &secret {
                                Some(value) => PromptAnswer::Secret {
                                    value: value.clone(),
                                },
                                None => PromptAnswer::Dismissed,
                            };
                            engine
                                .handle(Op::AnswerPrompt {
                                    prompt: prompt_id.clone(),
                                    answer,
                                })
                                .await;
                        }
                        _ => {}
                    }
                    let outcome = match &event {
                        Event::ToolFinished { call, outcome, .. } => {
                            Some((call.clone(), outcome.clone()))
                        }
                        _ => None,
                    };
                    events.lock().unwrap_or_else(|p| p.into_inner()).push(event);
                    // Told once the event is among the events too: a test may look for it next.
                    if let Some((call, outcome)) = outcome {
                        finished
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .insert(call, outcome);
                        outcome_arrived.notify_waiters();
                    }
                }
            });
        }
        let tab = "t1".to_owned();
        engine
            .handle(Op::OpenTab {
                tab: tab.clone(),
                target,
                cols: 100,
                rows: 30,
                settings: Some(settings),
                mode: Some(mode),
            })
            .await;
        let mut type_at_prompt = None;
        match while_connecting {
            Some(WhileConnecting::Resize(cols, rows)) => {
                engine
                    .handle(Op::Resize {
                        tab: tab.clone(),
                        cols,
                        rows,
                    })
                    .await;
            }
            Some(WhileConnecting::TypeAtPrompt(keys)) => type_at_prompt = Some(keys),
            None => {}
        }
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(keys) = &type_at_prompt {
                let shown = output_text(&events.lock().unwrap_or_else(|p| p.into_inner()));
                if shown.ends_with("$ ") || shown.ends_with("# ") {
                    let data = keys.clone().into_bytes();
                    engine
                        .handle(Op::TerminalInput {
                            tab: tab.clone(),
                            data,
                        })
                        .await;
                    type_at_prompt = None;
                }
            }
            // While keys wait for a prompt, the events are looked at every few milliseconds.
            let wait = match type_at_prompt {
                Some(_) => Duration::from_millis(5),
                None => deadline.saturating_duration_since(tokio::time::Instant::now()),
            };
            match tokio::time::timeout(wait, connected_rx.recv()).await {
                Ok(Some(ConnectionState::Connected)) if type_at_prompt.is_some() => {
                    bail!("the tab connected before its first prompt showed")
                }
                Ok(Some(ConnectionState::Connected)) => break,
                Ok(Some(ConnectionState::Failed { error })) => bail!("could not connect: {error}"),
                Ok(Some(_)) => {}
                Ok(None) => bail!("engine stopped"),
                Err(_) if tokio::time::Instant::now() < deadline => {}
                Err(_) => bail!("no connection after 30 s"),
            }
        }
        Ok(EngineHarness {
            engine,
            home,
            tab,
            events,
            finished,
            outcome_arrived,
            approvals,
            question_answer,
            next_call: Mutex::new(0),
        })
    }

    /// An SSH terminal tab on a fixture sshd (its host key trusted, its ed25519 key used).
    pub async fn open_sshd(
        sshd: &crate::sshd::Sshd,
        settings: ConnectionSettings,
        mode: Mode,
    ) -> Result<EngineHarness> {
        EngineHarness::open_sshd_with_secret(sshd, settings, mode, None).await
    }

    /// [`EngineHarness::open_sshd`], answering the engine's prompts (sudo passwords) with
    /// `secret`; `None` dismisses them.
    pub async fn open_sshd_with_secret(
        sshd: &crate::sshd::Sshd,
        settings: ConnectionSettings,
        mode: Mode,
        secret: Option<&str>,
    ) -> Result<EngineHarness> {
        let known_hosts = sshd.dir().join("harness_known_hosts");
        sshd.write_known_hosts(&known_hosts)?;
        let target = TabTarget::Ssh {
            host: "127.0.0.1".to_owned(),
            port: sshd.port(),
            user: sshd.user().to_owned(),
            identity_files: vec![sshd.keys.ed25519.display().to_string()],
            jump_hosts: Vec::new(),
            keep_session: false,
            certificate_files: Vec::new(),
            identity_agent: None,
            forward_agent: false,
        };
        let secret = secret.map(str::to_owned);
        EngineHarness::open_with_secret(target, Some(known_hosts), settings, mode, secret).await
    }

    pub fn set_approvals(&self, approvals: Approvals) {
        *self.approvals.lock().unwrap_or_else(|p| p.into_inner()) = approvals;
    }

    pub fn set_question_answer(&self, answer: Option<&str>) {
        *self
            .question_answer
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = answer.map(str::to_owned);
    }

    /// Start a call; returns its id.
    pub async fn start(&self, tool: &str, args: Value) -> CallId {
        let call = {
            let mut next = self.next_call.lock().unwrap_or_else(|p| p.into_inner());
            *next += 1;
            format!("call-{next}")
        };
        self.start_as(&call, tool, args).await;
        call
    }

    /// Start a call under the id `call` (e.g. `user-…`, as the page names the user's own calls).
    pub async fn start_as(&self, call: &str, tool: &str, args: Value) {
        self.engine
            .handle(Op::RunTool {
                tab: self.tab.clone(),
                call: call.to_owned(),
                tool: tool.to_owned(),
                args,
            })
            .await;
    }

    /// Wait for a call's outcome (woken as it arrives).
    pub async fn outcome(&self, call: &str, within: Duration) -> Result<ToolOutcome> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            // Listening before looking: an outcome arriving in between still wakes this.
            let arrived = self.outcome_arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            if let Some(outcome) = self
                .finished
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(call)
            {
                return Ok(outcome);
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                bail!("no outcome for {call} within {within:?}");
            }
        }
    }

    /// Run a call to its end (90 s at most).
    pub async fn call(&self, tool: &str, args: Value) -> Result<ToolOutcome> {
        let call = self.start(tool, args).await;
        self.outcome(&call, Duration::from_secs(90)).await
    }

    /// The result object of a successful call.
    pub async fn ok(&self, tool: &str, args: Value) -> Result<Value> {
        let outcome = self.call(tool, args.clone()).await?;
        if outcome.status != ToolStatus::Ok {
            bail!(
                "{tool} {args} ended {:?}: {:?}",
                outcome.status,
                outcome.error
            );
        }
        outcome.result.context("no result")
    }

    pub fn events(&self) -> Vec<Event> {
        self.events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Waits until an event matching `wanted` has gone by (checking every 10 ms), and returns
    /// the first such.
    pub async fn event(
        &self,
        what: &str,
        within: Duration,
        wanted: impl Fn(&Event) -> bool,
    ) -> Result<Event> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(event) = self.events().into_iter().find(|event| wanted(event)) {
                return Ok(event);
            }
            if tokio::time::Instant::now() >= deadline {
                bail!("no {what} within {within:?}");
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Sends the user's message `text` to Pilot with `model` and waits for this turn's end (not
    /// an earlier turn's, whose end is already among the events).
    pub async fn turn(&self, text: &str, model: kaiport_protocol::ModelSettings) -> Result<()> {
        let finished = || {
            self.events()
                .iter()
                .filter(|event| matches!(event, Event::TurnFinished { .. }))
                .count()
        };
        let before = finished();
        self.engine
            .handle(Op::SendMessage {
                tab: self.tab.clone(),
                text: text.to_owned(),
                model: Some(model),
            })
            .await;
        self.event("the turn's end", Duration::from_secs(120), |_| {
            finished() > before
        })
        .await
        .map(|_| ())
    }

    /// The audit log's lines so far.
    pub fn audit(&self) -> Result<Vec<Value>> {
        let text =
            std::fs::read_to_string(self.home.path().join("ai-audit.jsonl")).unwrap_or_default();
        text.lines()
            .map(|line| Ok(serde_json::from_str(line)?))
            .collect()
    }

    /// Waits until the terminal's raw output (escape sequences and all) holds `wanted`.
    pub async fn output_shows(&self, wanted: &str, within: Duration) -> Result<()> {
        let deadline = tokio::time::Instant::now() + within;
        while !self.terminal_text().contains(wanted) {
            if tokio::time::Instant::now() >= deadline {
                bail!(
                    "no {wanted:?} in the terminal within {within:?}; it shows:\n{}",
                    self.terminal_text()
                );
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Ok(())
    }

    /// Types `line` and Enter into the tab's terminal, the way the user does.
    pub async fn type_line(&self, line: &str) {
        self.engine
            .handle(Op::TerminalInput {
                tab: self.tab.clone(),
                data: format!("{line}\r").into_bytes(),
            })
            .await;
    }

    /// Proves that everything sent to the shell before has been taken: types a command that
    /// prints a marker and waits for the marker (computed by the shell, so the echo of the
    /// typed line does not count). For "X did not happen" checks: whatever the terminal got
    /// before this came out before the marker.
    pub async fn marker_round_trip(&self, name: &str) -> Result<()> {
        self.type_line(&format!("echo {name}-$((6 * 7))")).await;
        self.output_shows(&format!("{name}-42"), Duration::from_secs(30))
            .await
    }

    /// Everything the terminal printed so far, as text.
    pub fn terminal_text(&self) -> String {
        output_text(&self.events())
    }
}

/// What the page does while the tab it asked for connects.
enum WhileConnecting {
    /// Fits its terminal to this size (columns, rows).
    Resize(u16, u16),
    /// Types these keys once the first prompt shows.
    TypeAtPrompt(String),
}

/// The terminal output among `events`, as text.
fn output_text(events: &[Event]) -> String {
    let mut bytes = Vec::new();
    for event in events {
        if let Event::TerminalOutput { data, .. } = event {
            bytes.extend(data);
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}
