//! A scripted [`ConnectInteraction`] for tests: fixed answers, and a log of every question.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kaiport_core::ssh::agent::AgentKey;
use kaiport_core::ssh::{
    ConnectInteraction, SshError, SshOptions, SshSession, SshTarget, async_trait,
};

/// Connects to `target` answering with `interaction`; panics when connecting takes longer than
/// `within` (a hang, not a slow server). Returns the result and the interaction, for what it
/// was asked.
pub async fn connect_within(
    target: &SshTarget,
    options: &SshOptions,
    interaction: ScriptedInteraction,
    within: Duration,
) -> (Result<SshSession, SshError>, Arc<ScriptedInteraction>) {
    let interaction = Arc::new(interaction);
    let connecting = SshSession::connect(target, options, interaction.clone());
    let Ok(result) = tokio::time::timeout(within, connecting).await else {
        panic!("connect hung for {within:?}");
    };
    (result, interaction)
}

/// Answers connect-time questions from fixed values and records each question asked.
#[derive(Debug, Default)]
pub struct ScriptedInteraction {
    /// Answer to "trust this unknown host key?".
    pub accept_unknown_host: bool,
    /// Answer to password prompts (`None`: the user cancels).
    pub password: Option<String>,
    /// Answer to key passphrase prompts.
    pub passphrase: Option<String>,
    /// Answers to keyboard-interactive prompts: every prompt is answered with this text.
    pub keyboard_interactive: Option<String>,
    asked: Mutex<Vec<String>>,
}

impl ScriptedInteraction {
    /// Accepts unknown host keys, knows no secrets.
    pub fn accepting() -> Self {
        ScriptedInteraction {
            accept_unknown_host: true,
            ..Default::default()
        }
    }

    /// Refuses unknown host keys, knows no secrets.
    pub fn refusing() -> Self {
        ScriptedInteraction::default()
    }

    /// Answers password prompts with `password`.
    pub fn with_password(mut self, password: &str) -> Self {
        self.password = Some(password.to_owned());
        self
    }

    /// Answers passphrase prompts with `passphrase`.
    pub fn with_passphrase(mut self, passphrase: &str) -> Self {
        self.passphrase = Some(passphrase.to_owned());
        self
    }

    /// Answers every keyboard-interactive prompt with `answer`.
    pub fn with_keyboard_interactive(mut self, answer: &str) -> Self {
        self.keyboard_interactive = Some(answer.to_owned());
        self
    }

    /// The questions asked so far, like `host 127.0.0.1:2222 ED25519 SHA256:…`, `password
    /// kaiport-test@127.0.0.1`, `passphrase /tmp/…/id_enc`, `keyboard-interactive Password: `,
    /// `touch ED25519-SK SHA256:…` and `touched …` around a security key's signature.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().map(|a| a.clone()).unwrap_or_default()
    }

    fn note(&self, question: String) {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(question);
        }
    }
}

#[async_trait]
impl ConnectInteraction for ScriptedInteraction {
    async fn confirm_unknown_host(
        &self,
        host: &str,
        port: u16,
        key_type: &str,
        fingerprint_sha256: &str,
    ) -> bool {
        self.note(format!(
            "host {host}:{port} {key_type} {fingerprint_sha256}"
        ));
        self.accept_unknown_host
    }

    async fn password(&self, user: &str, host: &str, _port: u16) -> Option<String> {
        self.note(format!("password {user}@{host}"));
        self.password.clone()
    }

    async fn passphrase(&self, key_path: &Path) -> Option<String> {
        self.note(format!("passphrase {}", key_path.display()));
        self.passphrase.clone()
    }

    async fn keyboard_interactive(
        &self,
        _name: &str,
        _instructions: &str,
        prompts: &[(String, bool)],
    ) -> Option<Vec<String>> {
        for (prompt, _) in prompts {
            self.note(format!("keyboard-interactive {prompt}"));
        }
        let answer = self.keyboard_interactive.clone()?;
        Some(prompts.iter().map(|_| answer.clone()).collect())
    }

    async fn security_key_touch(&self, key: &AgentKey, waiting: bool) {
        let what = if waiting { "touch" } else { "touched" };
        self.note(format!("{what} {} {}", key.key_type, key.fingerprint));
    }
}
