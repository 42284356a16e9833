//! Client authentication for one hop: agent → identity files → password → keyboard-interactive,
//! each only when the server offers it. Secrets (passwords, passphrases, decrypted keys) live only
//! as long as the attempt that uses them and are never logged.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;

use russh::MethodKind;
use russh::MethodSet;
use russh::client::{self, AuthResult, KeyboardInteractiveAuthResponse};
use russh::keys::{Algorithm, HashAlg, PrivateKey, PrivateKeyWithHashAlg};

use super::handler::ClientHandler;
use super::keyfile::{self, KeyFileError};
use super::{ConnectInteraction, SshError, SshOptions, SshTarget};

/// How many keyboard-interactive rounds a server may ask before we give up on it.
const MAX_KBDINT_ROUNDS: usize = 8;

enum Outcome {
    Success,
    Failure(MethodSet),
}

struct Authenticator<'a> {
    handle: &'a mut client::Handle<ClientHandler>,
    target: &'a SshTarget,
    options: &'a SshOptions,
    interaction: &'a dyn ConnectInteraction,
    offered: MethodSet,
    tried: Vec<String>,
    rsa_hash: Option<Option<HashAlg>>,
}

/// Authenticates `target.user` on an established connection, or fails with an error listing what
/// was tried.
pub(super) async fn authenticate(
    handle: &mut client::Handle<ClientHandler>,
    target: &SshTarget,
    options: &SshOptions,
    interaction: &dyn ConnectInteraction,
) -> Result<(), SshError> {
    let mut auth = Authenticator {
        handle,
        target,
        options,
        interaction,
        offered: MethodSet::empty(),
        tried: Vec::new(),
        rsa_hash: None,
    };
    // "none" asks the server which methods it offers (and lets through servers needing none).
    let user = target.user.clone();
    let first = timed(target, options, auth.handle.authenticate_none(user)).await?;
    match auth.record(first) {
        Outcome::Success => return Ok(()),
        Outcome::Failure(methods) => auth.offered = methods,
    }
    if auth.offers(MethodKind::PublicKey) {
        if options.use_agent && auth.try_agent().await? {
            return Ok(());
        }
        if auth.try_identity_files().await? {
            return Ok(());
        }
    }
    if auth.offers(MethodKind::Password) && auth.try_password().await? {
        return Ok(());
    }
    if auth.offers(MethodKind::KeyboardInteractive) && auth.try_keyboard_interactive().await? {
        return Ok(());
    }
    if auth.tried.is_empty() {
        let offered: Vec<&str> = auth.offered.iter().map(<&str>::from).collect();
        return Err(SshError::NoUsableAuthMethod {
            user: target.user.clone(),
            host: target.host.clone(),
            offered: if offered.is_empty() {
                "nothing".to_owned()
            } else {
                offered.join(", ")
            },
        });
    }
    Err(SshError::AuthFailed {
        user: target.user.clone(),
        host: target.host.clone(),
        tried: auth.tried.join(", "),
    })
}

/// Bounds one server round trip by the connect timeout (never a wait for the user).
async fn timed<T>(
    target: &SshTarget,
    options: &SshOptions,
    fut: impl Future<Output = Result<T, russh::Error>>,
) -> Result<T, SshError> {
    match tokio::time::timeout(options.connect_timeout, fut).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(source)) => Err(SshError::Protocol {
            endpoint: target.endpoint(),
            doing: "authenticating",
            source,
        }),
        Err(_) => Err(SshError::Timeout {
            endpoint: target.endpoint(),
            seconds: options.connect_timeout.as_secs(),
        }),
    }
}

impl Authenticator<'_> {
    fn offers(&self, method: MethodKind) -> bool {
        self.offered.contains(&method)
    }

    fn record(&mut self, result: AuthResult) -> Outcome {
        match result {
            AuthResult::Success => Outcome::Success,
            AuthResult::Failure {
                remaining_methods,
                partial_success,
            } => {
                if partial_success {
                    tracing::debug!(host = %self.target.endpoint(), "partial success, more methods required");
                }
                if !remaining_methods.is_empty() {
                    self.offered = remaining_methods.clone();
                }
                Outcome::Failure(remaining_methods)
            }
        }
    }

    async fn rsa_hash(&mut self) -> Result<Option<HashAlg>, SshError> {
        if let Some(hash) = self.rsa_hash {
            return Ok(hash);
        }
        let best = timed(
            self.target,
            self.options,
            self.handle.best_supported_rsa_hash(),
        )
        .await?;
        // `None`: the server did not say; rsa-sha2-256 is what every current OpenSSH accepts.
        let hash = best.unwrap_or(Some(HashAlg::Sha256));
        self.rsa_hash = Some(hash);
        Ok(hash)
    }

    #[cfg(unix)]
    async fn try_agent(&mut self) -> Result<bool, SshError> {
        use russh::keys::agent::AgentIdentity;
        use russh::keys::agent::client::AgentClient;

        if std::env::var_os("SSH_AUTH_SOCK").is_none() {
            return Ok(false);
        }
        let mut agent = match AgentClient::connect_env().await {
            Ok(agent) => agent,
            Err(e) => {
                tracing::warn!(error = %e, "ssh-agent not reachable; skipping it");
                return Ok(false);
            }
        };
        if let Some(binding) = self.handle.agent_session_binding()
            && let Err(e) = agent.bind_session(binding, /* forwarding */ false).await
        {
            tracing::debug!(error = %e, "ssh-agent does not support session binding");
        }
        let identities = match agent.request_identities().await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "ssh-agent did not list its keys; skipping it");
                return Ok(false);
            }
        };
        let keys: Vec<_> = identities
            .into_iter()
            .filter_map(|id| match id {
                AgentIdentity::PublicKey { key, .. } => Some(key),
                AgentIdentity::Certificate { .. } => None,
            })
            .collect();
        if keys.is_empty() {
            return Ok(false);
        }
        self.tried
            .push(format!("publickey (ssh-agent, {} key(s))", keys.len()));
        for key in keys {
            if !self.offers(MethodKind::PublicKey) {
                break;
            }
            let hash = if matches!(key.algorithm(), Algorithm::Rsa { .. }) {
                self.rsa_hash().await?
            } else {
                None
            };
            let user = self.target.user.clone();
            let attempt = self
                .handle
                .authenticate_publickey_with(user, key, hash, &mut agent);
            let result = match tokio::time::timeout(self.options.connect_timeout, attempt).await {
                Ok(Ok(result)) => result,
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "ssh-agent could not sign; next key");
                    continue;
                }
                Err(_) => {
                    return Err(SshError::Timeout {
                        endpoint: self.target.endpoint(),
                        seconds: self.options.connect_timeout.as_secs(),
                    });
                }
            };
            if let Outcome::Success = self.record(result) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    #[cfg(not(unix))]
    async fn try_agent(&mut self) -> Result<bool, SshError> {
        Ok(false)
    }

    async fn try_identity_files(&mut self) -> Result<bool, SshError> {
        let files = self.target.identity_files.clone();
        for path in files {
            if !self.offers(MethodKind::PublicKey) {
                break;
            }
            let Some(key) = self.load_key(&path).await else {
                continue;
            };
            let hash = if matches!(key.algorithm(), Algorithm::Rsa { .. }) {
                self.rsa_hash().await?
            } else {
                None
            };
            self.tried.push(format!("publickey ({})", path.display()));
            let with_hash = PrivateKeyWithHashAlg::new(Arc::new(key), hash);
            let user = self.target.user.clone();
            let result = timed(
                self.target,
                self.options,
                self.handle.authenticate_publickey(user, with_hash),
            )
            .await?;
            if let Outcome::Success = self.record(result) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Reads a private key, asking for its passphrase when it is encrypted. A key that cannot be
    /// used is noted in `tried` and skipped.
    async fn load_key(&mut self, path: &Path) -> Option<PrivateKey> {
        let text = match tokio::fs::read_to_string(path).await {
            Ok(text) => text,
            Err(e) => {
                self.tried
                    .push(format!("publickey ({}: cannot read: {e})", path.display()));
                return None;
            }
        };
        let error = match keyfile::decode(&text, None) {
            Ok(key) => return Some(key),
            Err(KeyFileError::Encrypted) => {
                let Some(passphrase) = self.interaction.passphrase(path).await else {
                    self.tried.push(format!(
                        "publickey ({}: no passphrase given)",
                        path.display()
                    ));
                    return None;
                };
                crate::redact::remember(&passphrase);
                match keyfile::decode(&text, Some(passphrase.as_str())) {
                    Ok(key) => return Some(key),
                    Err(e) => e,
                }
            }
            Err(e) => e,
        };
        let why = match error {
            KeyFileError::Encrypted | KeyFileError::WrongPassphrase => {
                "wrong passphrase".to_owned()
            }
            KeyFileError::Unusable(e) => format!("unusable key: {e}"),
        };
        self.tried
            .push(format!("publickey ({}: {why})", path.display()));
        None
    }

    async fn try_password(&mut self) -> Result<bool, SshError> {
        let user = self.target.user.clone();
        let Some(password) = self
            .interaction
            .password(&user, &self.target.host, self.target.port)
            .await
        else {
            self.tried.push("password (not given)".to_owned());
            return Ok(false);
        };
        self.tried.push("password".to_owned());
        crate::redact::remember(&password);
        let result = timed(
            self.target,
            self.options,
            self.handle.authenticate_password(user, password),
        )
        .await?;
        Ok(matches!(self.record(result), Outcome::Success))
    }

    async fn try_keyboard_interactive(&mut self) -> Result<bool, SshError> {
        let user = self.target.user.clone();
        self.tried.push("keyboard-interactive".to_owned());
        let mut response = timed(
            self.target,
            self.options,
            self.handle
                .authenticate_keyboard_interactive_start(user, None::<String>),
        )
        .await?;
        for _ in 0..MAX_KBDINT_ROUNDS {
            match response {
                KeyboardInteractiveAuthResponse::Success => return Ok(true),
                KeyboardInteractiveAuthResponse::Failure {
                    remaining_methods,
                    partial_success,
                } => {
                    self.record(AuthResult::Failure {
                        remaining_methods,
                        partial_success,
                    });
                    return Ok(false);
                }
                KeyboardInteractiveAuthResponse::InfoRequest {
                    name,
                    instructions,
                    prompts,
                } => {
                    let answers = if prompts.is_empty() {
                        Vec::new()
                    } else {
                        let asked: Vec<(String, bool)> =
                            prompts.into_iter().map(|p| (p.prompt, p.echo)).collect();
                        let Some(answers) = self
                            .interaction
                            .keyboard_interactive(&name, &instructions, &asked)
                            .await
                        else {
                            if let Some(last) = self.tried.last_mut() {
                                *last = "keyboard-interactive (cancelled)".to_owned();
                            }
                            return Ok(false);
                        };
                        for (answer, (_, echo)) in answers.iter().zip(&asked) {
                            if !echo {
                                crate::redact::remember(answer);
                            }
                        }
                        answers
                    };
                    response = timed(
                        self.target,
                        self.options,
                        self.handle
                            .authenticate_keyboard_interactive_respond(answers),
                    )
                    .await?;
                }
            }
        }
        Ok(false)
    }
}
