//! The SSH client against a real OpenSSH sshd: authentication methods, host-key checking, jump
//! hosts, exec, interactive shells and dropped connections.

use std::sync::Arc;
use std::time::Duration;

use kaiport_core::shell_io::{ShellClosed, ShellInput, ShellIo, ShellOutput};
use kaiport_core::ssh::{SshError, SshSession, SshTarget};
use kaiport_tests::interaction::{ScriptedInteraction, connect_within};
use kaiport_tests::sshd::{KEY_PASSPHRASE, SshAgent, Sshd, SshdConfig, TEST_PASSWORD};

/// Generous upper bound for anything that should be quick, so a bug fails instead of hanging.
const QUICK: Duration = Duration::from_secs(20);

async fn connect(
    sshd: &Sshd,
    target: &SshTarget,
    interaction: ScriptedInteraction,
) -> (Result<SshSession, SshError>, Arc<ScriptedInteraction>) {
    connect_within(target, &sshd.options().unwrap(), interaction, QUICK).await
}

async fn whoami(session: &SshSession) -> String {
    let out = session.exec("id -un").await.unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

async fn login_with_key(key: impl Fn(&Sshd) -> std::path::PathBuf) {
    let sshd = Sshd::start().unwrap();
    let mut target = sshd.target();
    target.identity_files = vec![key(&sshd)];
    let (session, asked) = connect(&sshd, &target, ScriptedInteraction::refusing()).await;
    let session = session.unwrap_or_else(|e| panic!("{e}\nsshd log:\n{}", sshd.log()));
    assert_eq!(whoami(&session).await, sshd.user());
    assert_eq!(asked.asked(), Vec::<String>::new());
    session.disconnect().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publickey_ed25519() {
    login_with_key(|s| s.keys.ed25519.clone()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publickey_ecdsa() {
    login_with_key(|s| s.keys.ecdsa.clone()).await;
}

/// Logs in with `key`, a P-256 key with a 31-byte scalar (which russh's own decoder refuses),
/// decrypted with `passphrase` if one is given.
async fn login_with_short_scalar_key(sshd: &Sshd, key: &std::path::Path, passphrase: Option<&str>) {
    let text = std::fs::read_to_string(key).unwrap();
    if passphrase.is_none() {
        assert!(
            russh::keys::decode_secret_key(&text, None).is_err(),
            "russh reads this key itself now: the test no longer covers kaiport's workaround"
        );
    }
    let mut target = sshd.target();
    target.identity_files = vec![key.to_owned()];
    let interaction = match passphrase {
        Some(passphrase) => ScriptedInteraction::refusing().with_passphrase(passphrase),
        None => ScriptedInteraction::refusing(),
    };
    let (session, asked) = connect(sshd, &target, interaction).await;
    let session = session.unwrap_or_else(|e| panic!("{e}\nsshd log:\n{}", sshd.log()));
    assert_eq!(whoami(&session).await, sshd.user());
    let expected: Vec<String> = passphrase
        .map(|_| format!("passphrase {}", key.display()))
        .into_iter()
        .collect();
    assert_eq!(asked.asked(), expected);
    session.disconnect().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_p256_key_whose_scalar_starts_with_zero_logs_in() {
    let sshd = Sshd::start().unwrap();
    let key = sshd
        .add_short_scalar_p256_key("id_ecdsa_short", "", "aes256-ctr")
        .unwrap();
    login_with_short_scalar_key(&sshd, &key, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_encrypted_p256_key_whose_scalar_starts_with_zero_logs_in() {
    let sshd = Sshd::start().unwrap();
    // OpenSSH's default cipher for keys, and an AEAD one whose tag follows the encrypted part.
    for cipher in ["aes256-ctr", "aes256-gcm@openssh.com"] {
        let key = sshd
            .add_short_scalar_p256_key(&format!("id_ecdsa_short_{cipher}"), KEY_PASSPHRASE, cipher)
            .unwrap();
        login_with_short_scalar_key(&sshd, &key, Some(KEY_PASSPHRASE)).await;

        let mut target = sshd.target();
        target.identity_files = vec![key.clone()];
        let interaction = ScriptedInteraction::refusing().with_passphrase("wrong");
        let (session, _) = connect(&sshd, &target, interaction).await;
        let message = session.unwrap_err().to_string();
        assert!(
            message.contains(&format!("{}: wrong passphrase", key.display())),
            "{message}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publickey_rsa_uses_rsa_sha2() {
    let sshd = Sshd::start().unwrap();
    let mut target = sshd.target();
    target.identity_files = vec![sshd.keys.rsa.clone()];
    let (session, _) = connect(&sshd, &target, ScriptedInteraction::refusing()).await;
    let session = session.unwrap_or_else(|e| panic!("{e}\nsshd log:\n{}", sshd.log()));
    assert_eq!(whoami(&session).await, sshd.user());
    // OpenSSH 8.8+ refuses ssh-rsa (SHA-1) signatures by default; it logs the algorithm used.
    let log = sshd.log();
    assert!(
        log.contains("Accepted publickey") && log.contains("RSA"),
        "{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusable_keys_are_skipped_until_one_works() {
    let sshd = Sshd::start().unwrap();
    let mut target = sshd.target();
    target.identity_files = vec![
        sshd.dir().join("no-such-key"),
        sshd.keys.unauthorized.clone(),
        sshd.keys.ecdsa.clone(),
    ];
    let (session, _) = connect(&sshd, &target, ScriptedInteraction::refusing()).await;
    assert_eq!(whoami(&session.unwrap()).await, sshd.user());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn encrypted_key_with_passphrase() {
    let sshd = Sshd::start().unwrap();
    let mut target = sshd.target();
    target.identity_files = vec![sshd.keys.ed25519_encrypted.clone()];
    let interaction = ScriptedInteraction::refusing().with_passphrase(KEY_PASSPHRASE);
    let (session, asked) = connect(&sshd, &target, interaction).await;
    assert_eq!(whoami(&session.unwrap()).await, sshd.user());
    assert_eq!(
        asked.asked(),
        vec![format!(
            "passphrase {}",
            sshd.keys.ed25519_encrypted.display()
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passphrase_fails_with_the_key_named() {
    let sshd = Sshd::start().unwrap();
    let mut target = sshd.target();
    target.identity_files = vec![sshd.keys.ed25519_encrypted.clone()];
    let interaction = ScriptedInteraction::refusing().with_passphrase("wrong");
    let (session, _) = connect(&sshd, &target, interaction).await;
    let message = session.unwrap_err().to_string();
    assert!(
        message.starts_with(&format!(
            "authentication failed for {}@127.0.0.1",
            sshd.user()
        )),
        "{message}"
    );
    assert!(message.contains("wrong passphrase"), "{message}");
    assert!(
        message.contains(&sshd.keys.ed25519_encrypted.display().to_string()),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unauthorized_key_fails_naming_what_was_tried() {
    let sshd = Sshd::start().unwrap();
    let mut target = sshd.target();
    target.identity_files = vec![sshd.keys.unauthorized.clone()];
    let (session, _) = connect(&sshd, &target, ScriptedInteraction::refusing()).await;
    let error = session.unwrap_err();
    assert!(matches!(error, SshError::AuthFailed { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!(
            "authentication failed for {}@127.0.0.1: tried publickey ({}). Check the user name, add \
             a key the server accepts (identity file or ssh-agent), or enter the right password.",
            sshd.user(),
            sshd.keys.unauthorized.display()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn password() {
    let sshd = Sshd::start_with(SshdConfig {
        password: true,
        ..Default::default()
    })
    .unwrap();
    let target = sshd.target_without_keys();
    let interaction = ScriptedInteraction::refusing().with_password(TEST_PASSWORD);
    let (session, asked) = connect(&sshd, &target, interaction).await;
    let session = session.unwrap_or_else(|e| panic!("{e}\nsshd log:\n{}", sshd.log()));
    assert_eq!(whoami(&session).await, sshd.user());
    assert_eq!(
        asked.asked(),
        vec![format!("password {}@127.0.0.1", sshd.user())]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_password_fails() {
    let sshd = Sshd::start_with(SshdConfig {
        password: true,
        ..Default::default()
    })
    .unwrap();
    let target = sshd.target_without_keys();
    let interaction = ScriptedInteraction::refusing().with_password("nope");
    let (session, _) = connect(&sshd, &target, interaction).await;
    let message = session.unwrap_err().to_string();
    assert!(message.contains("tried password"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyboard_interactive() {
    let sshd = Sshd::start_with(SshdConfig {
        keyboard_interactive: true,
        no_publickey: true,
        ..Default::default()
    })
    .unwrap();
    let target = sshd.target_without_keys();
    let interaction = ScriptedInteraction::refusing().with_keyboard_interactive(TEST_PASSWORD);
    let (session, asked) = connect(&sshd, &target, interaction).await;
    let session = session.unwrap_or_else(|e| panic!("{e}\nsshd log:\n{}", sshd.log()));
    assert_eq!(whoami(&session).await, sshd.user());
    let asked = asked.asked();
    assert!(
        asked
            .iter()
            .any(|q| q.starts_with("keyboard-interactive") && q.contains("assword")),
        "{asked:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ssh_agent() {
    let sshd = Sshd::start().unwrap();
    let agent = SshAgent::start().unwrap();
    agent.add(&sshd.keys.ecdsa).unwrap();
    let previous = std::env::var_os("SSH_AUTH_SOCK");
    // SAFETY: only this test sets SSH_AUTH_SOCK; Rust's env access is locked, and no C code in
    // this process reads the environment concurrently (addresses are IP literals).
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("SSH_AUTH_SOCK", agent.socket());
    }
    let interaction = Arc::new(ScriptedInteraction::refusing());
    let mut options = sshd.options().unwrap();
    options.use_agent = true;
    let result = tokio::time::timeout(
        QUICK,
        SshSession::connect(&sshd.target_without_keys(), &options, interaction.clone()),
    )
    .await
    .expect("connect hung");
    #[allow(unsafe_code)]
    unsafe {
        match previous {
            Some(value) => std::env::set_var("SSH_AUTH_SOCK", value),
            None => std::env::remove_var("SSH_AUTH_SOCK"),
        }
    }
    let session = result.unwrap_or_else(|e| panic!("{e}\nsshd log:\n{}", sshd.log()));
    assert_eq!(whoami(&session).await, sshd.user());
    drop(agent);
}

/// An agent that takes the connection and never answers (a locked password manager) is
/// skipped after the agent's time limit: the key file logs in, and without one the error names
/// the agent that did not answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_agent_is_skipped() {
    let sshd = Sshd::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("silent.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    // Accepts and holds every connection, answering nothing, until the test ends.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            match stream {
                Ok(stream) => held.push(stream),
                Err(_) => break,
            }
        }
    });
    let interaction = Arc::new(ScriptedInteraction::refusing());
    let mut options = sshd.options().unwrap();
    options.use_agent = true;
    options.agent = Some(kaiport_core::ssh::agent::AgentSource::Socket(
        socket.clone(),
    ));

    let session = tokio::time::timeout(
        QUICK,
        SshSession::connect(&sshd.target(), &options, interaction.clone()),
    )
    .await
    .expect("the silent agent held up the login")
    .unwrap_or_else(|e| panic!("{e}\nsshd log:\n{}", sshd.log()));
    assert_eq!(whoami(&session).await, sshd.user());
    session.disconnect().await;

    let failed = tokio::time::timeout(
        QUICK,
        SshSession::connect(&sshd.target_without_keys(), &options, interaction),
    )
    .await
    .expect("the silent agent held up the login");
    match failed {
        Err(error @ SshError::AuthFailed { .. }) => {
            let message = error.to_string();
            assert!(message.contains("did not answer"), "{message}");
            assert!(message.contains("silent.sock"), "{message}");
        }
        Err(other) => panic!("not an authentication failure: {other}"),
        Ok(_) => panic!("logged in with no key and a silent agent"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_host_key_accepted_is_recorded() {
    let sshd = Sshd::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let known_hosts = dir.path().join("known_hosts");
    let mut options = sshd.options().unwrap();
    options.known_hosts = known_hosts.clone();

    let interaction = Arc::new(ScriptedInteraction::accepting());
    let session = SshSession::connect(&sshd.target(), &options, interaction.clone())
        .await
        .unwrap();
    session.disconnect().await;
    let asked = interaction.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].starts_with(&format!("host 127.0.0.1:{} ", sshd.port())),
        "{asked:?}"
    );
    assert!(asked[0].contains(" SHA256:"), "{asked:?}");
    let recorded = std::fs::read_to_string(&known_hosts).unwrap();
    assert!(
        recorded.starts_with(&format!("[127.0.0.1]:{} ", sshd.port())),
        "{recorded}"
    );
    assert_eq!(recorded.lines().count(), 1);

    // Now it is known: no question, even from a refusing user.
    let again = Arc::new(ScriptedInteraction::refusing());
    let session = SshSession::connect(&sshd.target(), &options, again.clone())
        .await
        .unwrap();
    assert_eq!(again.asked(), Vec::<String>::new());
    assert_eq!(whoami(&session).await, sshd.user());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_host_key_refused_is_a_clear_error() {
    let sshd = Sshd::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let known_hosts = dir.path().join("known_hosts");
    let mut options = sshd.options().unwrap();
    options.known_hosts = known_hosts.clone();
    let interaction = Arc::new(ScriptedInteraction::refusing());
    let error = SshSession::connect(&sshd.target(), &options, interaction)
        .await
        .unwrap_err();
    assert!(
        matches!(error, SshError::HostKeyNotAccepted { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "host key for 127.0.0.1:{} is not trusted",
            sshd.port()
        )),
        "{message}"
    );
    assert!(
        message.contains(&known_hosts.display().to_string()),
        "{message}"
    );
    assert!(
        !known_hosts.exists(),
        "nothing may be recorded for a refused key"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changed_host_key_is_refused_naming_the_line() {
    let sshd = Sshd::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let known_hosts = dir.path().join("known_hosts");
    // A different key of every type the server has, on lines 2..=4, recorded for this host.
    let mut text = String::from("# kaiport test\n");
    for key in [&sshd.keys.unauthorized, &sshd.keys.rsa, &sshd.keys.ecdsa] {
        let public = std::fs::read_to_string(format!("{}.pub", key.display())).unwrap();
        let mut fields = public.split_whitespace();
        let (algo, blob) = (fields.next().unwrap(), fields.next().unwrap());
        text.push_str(&format!("[127.0.0.1]:{} {algo} {blob}\n", sshd.port()));
    }
    std::fs::write(&known_hosts, &text).unwrap();
    let mut options = sshd.options().unwrap();
    options.known_hosts = known_hosts.clone();
    let interaction = Arc::new(ScriptedInteraction::accepting());
    let error = SshSession::connect(&sshd.target(), &options, interaction.clone())
        .await
        .unwrap_err();
    let SshError::HostKeyChanged {
        line, ref key_type, ..
    } = error
    else {
        panic!("expected HostKeyChanged, got {error:?}");
    };
    let message = error.to_string();
    assert!((2..=4).contains(&line), "{message}");
    assert!(
        message.starts_with(&format!(
            "host key for 127.0.0.1:{} changed: line {line} of {} holds the {key_type} key SHA256:",
            sshd.port(),
            known_hosts.display()
        )),
        "{message}"
    );
    assert!(
        message.contains("but the server now shows SHA256:"),
        "{message}"
    );
    assert!(message.contains("replace the stored key"), "{message}");
    assert_eq!(
        interaction.asked(),
        Vec::<String>::new(),
        "a changed key is never offered for trust"
    );
    assert_eq!(
        std::fs::read_to_string(&known_hosts).unwrap(),
        text,
        "known_hosts unchanged"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jump_host() {
    let (jump, target_server) = Sshd::start_pair().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let known_hosts = dir.path().join("known_hosts");
    jump.trust_in(&known_hosts).unwrap();
    target_server.trust_in(&known_hosts).unwrap();
    let mut options = target_server.options().unwrap();
    options.known_hosts = known_hosts;

    let mut target = target_server.target();
    target.jump_hosts = vec![jump.target()];
    let interaction = Arc::new(ScriptedInteraction::refusing());
    let session = tokio::time::timeout(QUICK, SshSession::connect(&target, &options, interaction))
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("{e}\njump log:\n{}", jump.log()));
    assert_eq!(whoami(&session).await, target_server.user());
    // The target saw a connection forwarded by the jump host's sshd, not ours directly.
    let out = session.exec("echo $SSH_CONNECTION").await.unwrap();
    let conn = String::from_utf8(out.stdout).unwrap();
    assert!(
        conn.trim()
            .ends_with(&format!("127.0.0.1 {}", target_server.port())),
        "{conn}"
    );
    assert!(jump.log().contains("Accepted publickey"), "{}", jump.log());

    // Losing the jump host loses the session behind it.
    let mut jump = jump;
    jump.kill();
    tokio::time::timeout(QUICK, session.closed())
        .await
        .expect("closed() did not resolve");
    assert!(session.is_closed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_returns_stdout_stderr_and_status() {
    let sshd = Sshd::start().unwrap();
    let (session, _) = connect(&sshd, &sshd.target(), ScriptedInteraction::refusing()).await;
    let session = session.unwrap();
    let out = session
        .exec("echo out; echo err >&2; exit 3")
        .await
        .unwrap();
    assert_eq!(
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.exit_status
        ),
        ("out\n".to_owned(), "err\n".to_owned(), Some(3))
    );
    // Several exec channels at once on one connection.
    let clone = session.clone();
    let (a, b) = tokio::join!(session.exec("printf a"), clone.exec("printf b"));
    assert_eq!(
        (a.unwrap().stdout, b.unwrap().stdout),
        (b"a".to_vec(), b"b".to_vec())
    );
    // A larger output arrives whole.
    let big = session.exec("head -c 3000000 /dev/zero").await.unwrap();
    assert_eq!((big.stdout.len(), big.exit_status), (3_000_000, Some(0)));
}

/// Reads shell output until `needle` appears; returns everything read.
async fn read_until(io: &mut ShellIo, needle: &str) -> String {
    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + QUICK;
    while !seen.contains(needle) {
        match tokio::time::timeout_at(deadline, io.output.recv()).await {
            Ok(Some(ShellOutput::Data(bytes))) => seen.push_str(&String::from_utf8_lossy(&bytes)),
            Ok(Some(ShellOutput::Closed(why))) => {
                panic!("shell closed ({why:?}) before {needle:?}; got {seen:?}")
            }
            Ok(None) => panic!("shell output ended before {needle:?}; got {seen:?}"),
            Err(_) => panic!("timed out waiting for {needle:?}; got {seen:?}"),
        }
    }
    seen
}

/// Reads until the shell's final `Closed` message.
async fn read_until_closed(io: &mut ShellIo) -> ShellClosed {
    let deadline = tokio::time::Instant::now() + QUICK;
    loop {
        match tokio::time::timeout_at(deadline, io.output.recv()).await {
            Ok(Some(ShellOutput::Data(_))) => {}
            Ok(Some(ShellOutput::Closed(why))) => return why,
            Ok(None) => panic!("output ended without Closed"),
            Err(_) => panic!("shell did not report Closed in time"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_echo_round_trip_resize_and_exit() {
    let sshd = Sshd::start().unwrap();
    let (session, _) = connect(&sshd, &sshd.target(), ScriptedInteraction::refusing()).await;
    let session = session.unwrap();
    let mut io = session.open_shell("xterm-256color", 100, 30).await.unwrap();
    io.input
        .send(ShellInput::Data(b"echo kaiport-$((40+2))\n".to_vec()))
        .await
        .unwrap();
    read_until(&mut io, "kaiport-42").await;
    io.input
        .send(ShellInput::Data(
            b"echo size-$(stty size | tr ' ' x)\n".to_vec(),
        ))
        .await
        .unwrap();
    read_until(&mut io, "size-30x100").await;
    io.input
        .send(ShellInput::Resize {
            cols: 120,
            rows: 40,
        })
        .await
        .unwrap();
    io.input
        .send(ShellInput::Data(
            b"echo size-$(stty size | tr ' ' x)\n".to_vec(),
        ))
        .await
        .unwrap();
    read_until(&mut io, "size-40x120").await;
    io.input
        .send(ShellInput::Data(b"echo $TERM; exit 7\n".to_vec()))
        .await
        .unwrap();
    read_until(&mut io, "xterm-256color").await;
    assert_eq!(
        read_until_closed(&mut io).await,
        ShellClosed::Exited { status: Some(7) }
    );
    assert!(
        !session.is_closed(),
        "only the shell ended, not the connection"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_sshd_closes_session_and_shell_promptly() {
    let mut sshd = Sshd::start().unwrap();
    let (session, _) = connect(&sshd, &sshd.target(), ScriptedInteraction::refusing()).await;
    let session = session.unwrap();
    let mut io = session.open_shell("xterm-256color", 80, 24).await.unwrap();
    io.input
        .send(ShellInput::Data(b"echo ready-$((1+1))\n".to_vec()))
        .await
        .unwrap();
    read_until(&mut io, "ready-2").await;

    sshd.kill();
    tokio::time::timeout(Duration::from_secs(10), session.closed())
        .await
        .expect("closed() did not resolve after sshd was killed");
    let why = read_until_closed(&mut io).await;
    assert!(matches!(why, ShellClosed::ConnectionLost { .. }), "{why:?}");
    assert!(session.is_closed());
    let error = session.exec("true").await.unwrap_err();
    assert!(
        matches!(error, SshError::ConnectionLost { .. }),
        "{error:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_server_times_out() {
    // A TCP server on 127.0.0.1 that accepts and never speaks SSH.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Held open far longer than the connect timeout, so only the timeout can end the wait.
    let holder = std::thread::spawn(move || {
        listener.accept().map(|(stream, _)| {
            std::thread::sleep(Duration::from_secs(15));
            drop(stream);
        })
    });
    let dir = tempfile::tempdir().unwrap();
    let mut options =
        kaiport_core::ssh::SshOptions::with_known_hosts(dir.path().join("known_hosts"));
    options.connect_timeout = Duration::from_secs(1);
    options.use_agent = false;
    let target = SshTarget::new("127.0.0.1", port, "nobody");
    let error = tokio::time::timeout(
        Duration::from_secs(12),
        SshSession::connect(&target, &options, Arc::new(ScriptedInteraction::refusing())),
    )
    .await
    .expect("the connect timeout did not end the wait")
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "connection to 127.0.0.1:{port} timed out after 1 s. Check the address and the network \
             (a firewall may drop the packets), or raise the connect timeout."
        )
    );
    // Not joined: the holder sleeps on after the test has its answer.
    drop(holder);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_port_is_a_clear_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let dir = tempfile::tempdir().unwrap();
    let options = kaiport_core::ssh::SshOptions::with_known_hosts(dir.path().join("known_hosts"));
    let target = SshTarget::new("127.0.0.1", port, "nobody");
    let error = SshSession::connect(&target, &options, Arc::new(ScriptedInteraction::refusing()))
        .await
        .unwrap_err();
    assert!(matches!(error, SshError::Connect { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with(&format!("cannot connect to 127.0.0.1:{port}: ")),
        "{error}"
    );
}
