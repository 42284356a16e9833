//! Connection prompts (unknown host keys, passwords, passphrases, keyboard-interactive) as
//! `PromptRequested` events answered by `Op::AnswerPrompt`; saved secrets come from the OS
//! keychain first. A secret never goes into an event, log or error here.

use super::Inner;
use crate::connect::secrets::{SecretStore, key_passphrase_account, ssh_password_account};
use crate::ssh::ConnectInteraction;
use crate::tools::SudoPasswordAsker;
use kaiport_protocol::*;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

impl Inner {
    pub(super) fn next_prompt_id(&self) -> PromptId {
        format!(
            "prompt-{}",
            self.next_prompt.fetch_add(1, Ordering::Relaxed)
        )
    }

    pub(super) async fn prompt(&self, tab: &str, prompt: Prompt) -> Option<PromptAnswer> {
        let id = self.next_prompt_id();
        let closing = self
            .tab(tab)
            .map(|found| found.closing.clone())
            .unwrap_or_default();
        self.prompts
            .ask(id.clone(), &closing, || {
                self.emit(Event::PromptRequested {
                    tab: Some(tab.to_owned()),
                    prompt_id: id.clone(),
                    prompt,
                });
            })
            .await
            .ok()
    }
}

impl Inner {
    /// Asks the tab's user for the sudo password (a `SudoPassword` prompt), for the sudo reads
    /// and writes of one call: asked once per call (a write reads, checks and installs), kept
    /// in memory until the call ends, then wiped; never kept between calls.
    pub(super) fn sudo_password_asker(
        self: &Arc<Self>,
        tab: &super::tabs::Tab,
    ) -> SudoPasswordAsker {
        let inner = self.clone();
        let id = tab.id.clone();
        let (user, host) = match &tab.target {
            TabTarget::Ssh { user, host, .. } => (user.clone(), host.clone()),
            _ => (String::new(), tab.connection.clone()),
        };
        let given: Arc<tokio::sync::Mutex<Option<zeroize::Zeroizing<String>>>> = Arc::default();
        Arc::new(move |path: String| {
            let (inner, id, given) = (inner.clone(), id.clone(), given.clone());
            let prompt = Prompt::SudoPassword {
                user: user.clone(),
                host: host.clone(),
                path,
            };
            Box::pin(async move {
                let mut given = given.lock().await;
                if given.is_none()
                    && let Some(PromptAnswer::Secret { value }) = inner.prompt(&id, prompt).await
                {
                    *given = Some(zeroize::Zeroizing::new(value));
                }
                given.clone()
            })
        })
    }
}

/// Connection prompts (host keys, passwords) as engine events answered by `Op::AnswerPrompt`.
pub(super) struct EnginePrompts {
    pub(super) inner: Arc<Inner>,
    pub(super) tab: TabId,
    /// An automatic reconnect: a host key the tab did not know before is refused without
    /// asking (nobody asked to connect; the attempt stops with `Failed`).
    pub(super) automatic: bool,
}

#[async_trait::async_trait]
impl ConnectInteraction for EnginePrompts {
    async fn confirm_unknown_host(
        &self,
        host: &str,
        port: u16,
        key_type: &str,
        fingerprint_sha256: &str,
    ) -> bool {
        if self.automatic {
            return false;
        }
        let prompt = Prompt::UnknownHostKey {
            host: host.to_owned(),
            port,
            key_type: key_type.to_owned(),
            fingerprint: fingerprint_sha256.to_owned(),
        };
        matches!(
            self.inner.prompt(&self.tab, prompt).await,
            Some(PromptAnswer::Confirm { accept: true })
        )
    }

    async fn password(&self, user: &str, host: &str, port: u16) -> Option<String> {
        if let Some(saved) = keychain_secret(ssh_password_account(user, host, port)).await {
            return Some(saved);
        }
        let prompt = Prompt::Password {
            user: user.to_owned(),
            host: host.to_owned(),
        };
        match self.inner.prompt(&self.tab, prompt).await {
            Some(PromptAnswer::Secret { value }) => Some(value),
            _ => None,
        }
    }

    async fn passphrase(&self, key_path: &Path) -> Option<String> {
        if let Some(saved) = keychain_secret(key_passphrase_account(key_path)).await {
            return Some(saved);
        }
        let prompt = Prompt::Passphrase {
            key_path: key_path.display().to_string(),
        };
        match self.inner.prompt(&self.tab, prompt).await {
            Some(PromptAnswer::Secret { value }) => Some(value),
            _ => None,
        }
    }

    async fn keyboard_interactive(
        &self,
        name: &str,
        instructions: &str,
        prompts: &[(String, bool)],
    ) -> Option<Vec<String>> {
        let prompt = Prompt::KeyboardInteractive {
            name: name.to_owned(),
            instructions: instructions.to_owned(),
            prompts: prompts.iter().map(|(text, _)| text.clone()).collect(),
        };
        match self.inner.prompt(&self.tab, prompt).await {
            Some(PromptAnswer::Responses { values }) => Some(values),
            _ => None,
        }
    }

    async fn security_key_touch(&self, key: &crate::ssh::agent::AgentKey, waiting: bool) {
        self.inner.emit(Event::SecurityKeyTouch {
            tab: self.tab.clone(),
            key_type: key.key_type.clone(),
            fingerprint: key.fingerprint.clone(),
            waiting,
        });
    }
}

/// A secret saved in the OS keychain, if the keychain can be read and has one. A keychain that
/// cannot be opened is not an error here: the user is asked instead.
pub(super) async fn keychain_secret(account: String) -> Option<String> {
    let lookup = tokio::task::spawn_blocking(move || SecretStore::open()?.get(&account)).await;
    match lookup {
        Ok(Ok(secret)) => secret,
        Ok(Err(error)) => {
            tracing::debug!(%error, "no secret from the keychain");
            None
        }
        Err(_) => None,
    }
}
