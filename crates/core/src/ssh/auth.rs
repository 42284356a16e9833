//! Client authentication for one hop: agent → identity files → password → keyboard-interactive,
//! each only when the server offers it. Secrets (passwords, passphrases, decrypted keys) live only
//! as long as the attempt that uses them and are never logged.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use russh::MethodKind;
use russh::MethodSet;
use russh::Signer;
use russh::client::{self, AuthResult, KeyboardInteractiveAuthResponse};
use russh::keys::agent::AgentIdentity;
use russh::keys::{Algorithm, Certificate, HashAlg, PrivateKey, PrivateKeyWithHashAlg, PublicKey};

use super::agent::{self, Agent};
use super::handler::ClientHandler;
use super::keyfile::{self, KeyFileError};
use super::{ConnectInteraction, SshError, SshOptions, SshTarget};

/// How many keyboard-interactive rounds a server may ask before we give up on it.
const MAX_KBDINT_ROUNDS: usize = 8;
/// How long one agent login attempt may take: long, since a security key waits for a person's
/// touch (OpenSSH's own authenticators give up after about this long).
const AGENT_SIGN_LIMIT: Duration = Duration::from_secs(60);

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

    async fn try_agent(&mut self) -> Result<bool, SshError> {
        let Some(source) = self.options.agent_source(self.target) else {
            return Ok(false);
        };
        // An agent that takes the connection and never answers (a locked password manager)
        // must not hold up the login: past the limit it is skipped, as one that is not there.
        let listing = async {
            let mut agent = match source.connect().await {
                Ok(agent) => agent,
                Err(e) => {
                    tracing::warn!(error = %e, "SSH agent not reachable; skipping it");
                    return None;
                }
            };
            if let Some(binding) = self.handle.agent_session_binding()
                && let Err(e) = agent.bind_session(binding, /* forwarding */ false).await
            {
                tracing::debug!(error = %e, "SSH agent does not support session binding");
            }
            match agent.request_identities().await {
                Ok(ids) => Some((agent, ids)),
                Err(e) => {
                    tracing::warn!(error = %e, "SSH agent did not list its keys; skipping it");
                    None
                }
            }
        };
        let (agent, identities) = match tokio::time::timeout(agent::LIST_LIMIT, listing).await {
            Ok(Some(listed)) => listed,
            Ok(None) => return Ok(false),
            Err(_) => {
                tracing::warn!(
                    seconds = agent::LIST_LIMIT.as_secs(),
                    "SSH agent did not list its keys in time; skipping it"
                );
                self.tried.push(format!(
                    "publickey (agent {}: did not answer)",
                    source.label()
                ));
                return Ok(false);
            }
        };
        if identities.is_empty() {
            return Ok(false);
        }
        let certificates = self.certificates(&[]).await;
        let held: Vec<Certificate> = identities
            .iter()
            .filter_map(|identity| match identity {
                AgentIdentity::Certificate { certificate, .. } => Some(certificate.clone()),
                AgentIdentity::PublicKey { .. } => None,
            })
            .collect();
        // A plain key of the agent goes with each certificate on disk that certifies it, tried
        // first (as OpenSSH does); the agent's own certificates are tried as they are.
        let mut attempts: Vec<AgentIdentity> = Vec::new();
        for identity in identities {
            if let AgentIdentity::PublicKey { key, comment } = &identity {
                for cert in certificates.iter().filter(|cert| certifies(cert, key)) {
                    attempts.push(AgentIdentity::Certificate {
                        certificate: cert.clone(),
                        comment: comment.clone(),
                    });
                }
            }
            attempts.push(identity);
        }
        self.tried.push(format!(
            "publickey (agent {}, {} key(s))",
            source.label(),
            attempts.len()
        ));
        let mut signer = TouchSigner {
            agent,
            held,
            interaction: self.interaction,
        };
        for identity in attempts {
            if !self.offers(MethodKind::PublicKey) {
                break;
            }
            let algorithm = match &identity {
                AgentIdentity::PublicKey { key, .. } => key.algorithm(),
                AgentIdentity::Certificate { certificate, .. } => certificate.algorithm(),
            };
            let hash = if matches!(algorithm, Algorithm::Rsa { .. }) {
                self.rsa_hash().await?
            } else {
                None
            };
            // A security key waits for a person's touch: the connect timeout is not for that.
            let limit = if agent::is_security_key(&algorithm) {
                AGENT_SIGN_LIMIT.max(self.options.connect_timeout)
            } else {
                self.options.connect_timeout
            };
            let user = self.target.user.clone();
            let attempt = async {
                match identity {
                    AgentIdentity::PublicKey { key, .. } => {
                        self.handle
                            .authenticate_publickey_with(user, key, hash, &mut signer)
                            .await
                    }
                    AgentIdentity::Certificate { certificate, .. } => {
                        self.handle
                            .authenticate_certificate_with(user, certificate, hash, &mut signer)
                            .await
                    }
                }
            };
            let result = match tokio::time::timeout(limit, attempt).await {
                Ok(Ok(result)) => result,
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "SSH agent could not sign; next key");
                    continue;
                }
                Err(_) => {
                    return Err(SshError::Timeout {
                        endpoint: self.target.endpoint(),
                        seconds: limit.as_secs(),
                    });
                }
            };
            if let Outcome::Success = self.record(result) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The OpenSSH certificates of this target, read and parsed: its `CertificateFile`s and a
    /// `KEY-cert.pub` beside each identity file in `beside` (all identity files when empty).
    /// Unreadable ones are skipped (a missing `-cert.pub` is the usual case).
    async fn certificates(&self, beside: &[PathBuf]) -> Vec<Certificate> {
        let beside = if beside.is_empty() {
            &self.target.identity_files[..]
        } else {
            beside
        };
        let paths = self
            .target
            .certificate_files
            .iter()
            .cloned()
            .chain(beside.iter().map(|key| cert_path_beside(key)));
        let mut found = Vec::new();
        for path in paths {
            let Ok(text) = tokio::fs::read_to_string(&path).await else {
                continue;
            };
            match Certificate::from_openssh(text.trim()) {
                Ok(cert) => found.push(cert),
                Err(e) => {
                    tracing::debug!(path = %path.display(), error = %e, "not an OpenSSH certificate");
                }
            }
        }
        found
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
            let key = Arc::new(key);
            let public = key.public_key().clone();
            let certificates = self.certificates(std::slice::from_ref(&path)).await;
            for cert in certificates.into_iter().filter(|c| certifies(c, &public)) {
                self.tried.push(format!(
                    "publickey ({} with its certificate)",
                    path.display()
                ));
                let user = self.target.user.clone();
                let result = timed(
                    self.target,
                    self.options,
                    self.handle
                        .authenticate_openssh_cert(user, key.clone(), cert),
                )
                .await?;
                if let Outcome::Success = self.record(result) {
                    return Ok(true);
                }
            }
            self.tried.push(format!("publickey ({})", path.display()));
            let with_hash = PrivateKeyWithHashAlg::new(key, hash);
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
            Ok(key) if agent::is_security_key(&key.algorithm()) => {
                self.tried.push(format!(
                    "publickey ({}: a FIDO2 security key, which kaiport uses only through the \
                     SSH agent: add it with ssh-add)",
                    path.display()
                ));
                return None;
            }
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

/// `KEY-cert.pub`: where OpenSSH looks for the certificate of the private key `KEY`.
fn cert_path_beside(key: &Path) -> PathBuf {
    let mut name = key.as_os_str().to_owned();
    name.push("-cert.pub");
    PathBuf::from(name)
}

/// Whether `cert` is a certificate of `key`.
fn certifies(cert: &Certificate, key: &PublicKey) -> bool {
    cert.public_key() == key.key_data()
}

/// The agent as russh's signer, telling the front end while a security key waits for a touch.
struct TouchSigner<'a> {
    agent: Agent,
    /// The certificates the agent holds itself. Any other certificate is one from a file whose
    /// plain key the agent holds: the agent finds that key only by the plain key (the signature
    /// is the same).
    held: Vec<Certificate>,
    interaction: &'a dyn ConnectInteraction,
}

impl Signer for TouchSigner<'_> {
    type Error = russh::AgentAuthError;

    async fn auth_sign(
        &mut self,
        identity: &AgentIdentity,
        hash_alg: Option<HashAlg>,
        to_sign: Vec<u8>,
    ) -> Result<Vec<u8>, Self::Error> {
        let plain;
        let identity = match identity {
            AgentIdentity::Certificate { certificate, .. } if !self.held.contains(certificate) => {
                plain = AgentIdentity::from(PublicKey::from(certificate.public_key().clone()));
                &plain
            }
            other => other,
        };
        let described = agent::describe(identity);
        if !described.security_key {
            return self.agent.auth_sign(identity, hash_alg, to_sign).await;
        }
        self.interaction.security_key_touch(&described, true).await;
        let signed = self.agent.auth_sign(identity, hash_alg, to_sign).await;
        self.interaction.security_key_touch(&described, false).await;
        signed
    }
}
