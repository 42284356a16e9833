//! Keys against a real OpenSSH sshd: a real `ssh-agent` (login, listing, agent forwarding off
//! and on), OpenSSH user certificates signed by a CA the server trusts, and a FIDO2 security key
//! through the agent (a software one: this machine has no authenticator).

use std::sync::Arc;
use std::time::Duration;

use kaiport_core::shell_io::{ShellInput, ShellIo, ShellOutput};
use kaiport_core::ssh::agent::{self, AgentSource};
use kaiport_core::ssh::{SshError, SshOptions, SshSession, SshTarget};
use kaiport_tests::interaction::{ScriptedInteraction, connect_within};
use kaiport_tests::sk_agent::SoftSkAgent;
use kaiport_tests::sshd::{SshAgent, Sshd};

/// Generous upper bound for anything that should be quick, so a bug fails instead of hanging.
const QUICK: Duration = Duration::from_secs(20);

/// The fixture's options, using the agent at `socket`.
fn with_agent(sshd: &Sshd, socket: std::path::PathBuf) -> SshOptions {
    let mut options = sshd.options().unwrap();
    options.use_agent = true;
    options.agent = Some(AgentSource::Socket(socket));
    options
}

async fn connect(
    target: &SshTarget,
    options: &SshOptions,
) -> (Result<SshSession, SshError>, Arc<ScriptedInteraction>) {
    connect_within(target, options, ScriptedInteraction::refusing(), QUICK).await
}

/// Logs in to `sshd` (as its user, checked with `id -un`); returns the session and what was
/// asked meanwhile.
async fn logs_in(
    sshd: &Sshd,
    target: &SshTarget,
    options: &SshOptions,
) -> (SshSession, Arc<ScriptedInteraction>) {
    let (session, asked) = connect(target, options).await;
    let session = session.unwrap_or_else(|e| panic!("{e}\nsshd log:\n{}", sshd.log()));
    assert_eq!(whoami(&session).await, sshd.user());
    (session, asked)
}

async fn whoami(session: &SshSession) -> String {
    let out = session.exec("id -un").await.unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Runs `command` in a new interactive shell and returns what it printed up to `END`.
async fn in_shell(session: &SshSession, command: &str) -> String {
    let mut io: ShellIo = session.open_shell("xterm", 200, 40).await.unwrap();
    let line = format!("{command}; echo EN''D\n");
    io.input
        .send(ShellInput::Data(line.into_bytes()))
        .await
        .unwrap();
    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + QUICK;
    while !seen.contains("END") {
        match tokio::time::timeout_at(deadline, io.output.recv()).await {
            Ok(Some(ShellOutput::Data(bytes))) => seen.push_str(&String::from_utf8_lossy(&bytes)),
            other => panic!("shell ended or hung before END ({other:?}); got {seen:?}"),
        }
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_logs_in_and_lists_its_keys() {
    let sshd = Sshd::start().unwrap();
    let ssh_agent = SshAgent::start().unwrap();
    ssh_agent.add(&sshd.keys.ecdsa).unwrap();
    let source = AgentSource::Socket(ssh_agent.socket());
    let keys = agent::list_keys(&source).await.unwrap();
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert_eq!(keys[0].key_type, "ECDSA");
    assert_eq!(keys[0].comment, "kaiport-test");
    assert!(keys[0].fingerprint.starts_with("SHA256:"), "{keys:?}");
    assert!(!keys[0].certificate && !keys[0].security_key);

    let options = with_agent(&sshd, ssh_agent.socket());
    let (_session, asked) = logs_in(&sshd, &sshd.target_without_keys(), &options).await;
    assert_eq!(asked.asked(), Vec::<String>::new());
}

/// `ssh-add -l` on the server reaches the local agent only with agent forwarding on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_is_forwarded_only_when_asked() {
    let sshd = Sshd::start().unwrap();
    let ssh_agent = SshAgent::start().unwrap();
    ssh_agent.add(&sshd.keys.ecdsa).unwrap();
    let fingerprint = agent::list_keys(&AgentSource::Socket(ssh_agent.socket()))
        .await
        .unwrap()[0]
        .fingerprint
        .clone();
    let options = with_agent(&sshd, ssh_agent.socket());

    let off = connect(&sshd.target_without_keys(), &options)
        .await
        .0
        .unwrap();
    let said = in_shell(&off, "ssh-add -l; echo rc=$?").await;
    assert!(!said.contains(&fingerprint), "{said}");
    assert!(said.contains("rc=2"), "no agent on the server: {said}");

    let mut target = sshd.target_without_keys();
    target.forward_agent = true;
    let on = connect(&target, &options).await.0.unwrap();
    let said = in_shell(&on, "ssh-add -l; echo rc=$?").await;
    assert!(said.contains(&fingerprint), "{said}");
    assert!(said.contains("rc=0"), "{said}");
}

/// A key that is not in authorized_keys logs in with its certificate from the CA sshd trusts:
/// `KEY-cert.pub` beside the key, or a `CertificateFile` elsewhere; without one it is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_logs_in_where_the_bare_key_is_refused() {
    let sshd = Sshd::start().unwrap();
    let key = sshd.keys.unauthorized.clone();
    let options = sshd.options().unwrap();
    let mut target = sshd.target_without_keys();
    target.identity_files = vec![key.clone()];

    let (refused, _) = connect(&target, &options).await;
    assert!(
        matches!(refused, Err(SshError::AuthFailed { .. })),
        "{refused:?}"
    );

    let beside = std::path::PathBuf::from(format!("{}-cert.pub", key.display()));
    sshd.certify(&key, &beside).unwrap();
    logs_in(&sshd, &target, &options).await;
    assert!(sshd.log().contains("ED25519-CERT"), "{}", sshd.log());

    let elsewhere = sshd.dir().join("certificates-cert.pub");
    std::fs::rename(&beside, &elsewhere).unwrap();
    let (refused, _) = connect(&target, &options).await;
    assert!(refused.is_err(), "no certificate any more");
    target.certificate_files = vec![elsewhere];
    logs_in(&sshd, &target, &options).await;
}

/// The agent holds the key, the certificate is a file: the agent signs for the certificate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_key_logs_in_with_its_certificate_file() {
    let sshd = Sshd::start().unwrap();
    let ssh_agent = SshAgent::start().unwrap();
    ssh_agent.add(&sshd.keys.unauthorized).unwrap();
    let cert = sshd.dir().join("agent-key-cert.pub");
    sshd.certify(&sshd.keys.unauthorized, &cert).unwrap();
    let options = with_agent(&sshd, ssh_agent.socket());
    let mut target = sshd.target_without_keys();

    let (refused, _) = connect(&target, &options).await;
    assert!(refused.is_err(), "the bare agent key is not authorized");
    target.certificate_files = vec![cert];
    logs_in(&sshd, &target, &options).await;
}

/// An `sk-ssh-ed25519@openssh.com` key logs in through the agent; the touch prompt is shown
/// while its signature is pending and taken down after. The key is a software one behind a test
/// agent (no FIDO2 authenticator here); the signature sshd checks is a security key's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_security_key_logs_in_through_the_agent_with_a_touch_prompt() {
    let sshd = Sshd::start().unwrap();
    let sk = SoftSkAgent::start().unwrap();
    sshd.authorize(&sk.public_line().unwrap()).unwrap();
    let source = AgentSource::Socket(sk.socket());
    let keys = agent::list_keys(&source).await.unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].key_type, "ED25519-SK");
    assert!(keys[0].security_key);

    let options = with_agent(&sshd, sk.socket());
    let (_session, asked) = logs_in(&sshd, &sshd.target_without_keys(), &options).await;
    assert_eq!(sk.signatures(), 1);
    assert_eq!(
        asked.asked(),
        vec![
            format!("touch ED25519-SK {}", sk.fingerprint()),
            format!("touched ED25519-SK {}", sk.fingerprint()),
        ]
    );
}

/// A security key's private key file cannot sign here (russh drives no FIDO2 device): it is
/// skipped with a note to add it to the agent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_security_key_file_is_sent_to_the_agent() {
    use russh::keys::ssh_key::private::{Ed25519Keypair, KeypairData, SkEd25519};
    use russh::keys::ssh_key::{LineEnding, PrivateKey, public};

    let sshd = Sshd::start().unwrap();
    let keypair = Ed25519Keypair::from_seed(&[9u8; 32]);
    let sk = SkEd25519::new(
        public::SkEd25519::new(keypair.public, "ssh:"),
        0x01,
        vec![1, 2, 3, 4],
    )
    .unwrap();
    let key = PrivateKey::new(KeypairData::SkEd25519(sk), "kaiport-test-sk").unwrap();
    let path = sshd.dir().join("id_ed25519_sk");
    std::fs::write(&path, key.to_openssh(LineEnding::LF).unwrap().as_bytes()).unwrap();
    let mut target = sshd.target_without_keys();
    target.identity_files = vec![path];
    let (refused, _) = connect(&target, &sshd.options().unwrap()).await;
    let error = refused.unwrap_err().to_string();
    assert!(error.contains("a FIDO2 security key"), "{error}");
    assert!(error.contains("ssh-add"), "{error}");
}
