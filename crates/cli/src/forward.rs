//! `kaiport forward CONNECTION -L … -R … -D …`: port forwards on an SSH connection, up until
//! Ctrl-C, printing each forward's changes; the `-L/-R/-D` options `kaiport shell` shares; and
//! `kaiport known-hosts replace`. The forwards run in the engine (`kaiport_core::forward`);
//! this file only asks for them and prints what they do.

use crate::connection::{ConnectionOptions, open_tab, parse_target};
use anyhow::{Context, bail};
use kaiport_core::forward::{is_loopback, spec};
use kaiport_core::{Engine, EngineConfig};
use kaiport_protocol::{
    ConnectionState, Event, ForwardKind, ForwardReport, ForwardSpec, ForwardStatus, Op, TabTarget,
};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

const TAB: &str = "forward";
/// The longest wait between two attempts to reconnect a dropped connection.
const MAX_RECONNECT_WAIT: Duration = Duration::from_secs(30);

/// `-L`, `-R`, `-D`, as `ssh` takes them.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ForwardOptions {
    /// Local forward: listen here (127.0.0.1 unless BIND is given), connect from the server to
    /// HOST:HOSTPORT (repeatable).
    #[arg(short = 'L', value_name = "[BIND:]PORT:HOST:HOSTPORT", value_parser = local)]
    pub local: Vec<ForwardSpec>,
    /// Remote forward: the server listens (on its loopback unless BIND is given), connections
    /// come here to HOST:HOSTPORT (repeatable).
    #[arg(short = 'R', value_name = "[BIND:]PORT:HOST:HOSTPORT", value_parser = remote)]
    pub remote: Vec<ForwardSpec>,
    /// Dynamic forward: a SOCKS5 proxy here (127.0.0.1 unless BIND is given) whose connections
    /// the server makes (repeatable).
    #[arg(short = 'D', value_name = "[BIND:]PORT", value_parser = dynamic)]
    pub dynamic: Vec<ForwardSpec>,
}

fn local(text: &str) -> Result<ForwardSpec, String> {
    spec::parse(ForwardKind::Local, text).map_err(|e| e.why)
}

fn remote(text: &str) -> Result<ForwardSpec, String> {
    spec::parse(ForwardKind::Remote, text).map_err(|e| e.why)
}

fn dynamic(text: &str) -> Result<ForwardSpec, String> {
    spec::parse(ForwardKind::Dynamic, text).map_err(|e| e.why)
}

impl ForwardOptions {
    /// Every forward asked for, in the order local, remote, dynamic.
    pub fn all(&self) -> Vec<ForwardSpec> {
        let mut all = self.local.clone();
        all.extend(self.remote.iter().cloned());
        all.extend(self.dynamic.iter().cloned());
        all
    }

    /// Says so for every listener on this computer that other computers can reach.
    pub fn warn_if_exposed(&self) {
        for forward in self.all() {
            if forward.kind == ForwardKind::Remote {
                continue;
            }
            if let Some(bind) = forward.bind_address.as_deref().filter(|b| !is_loopback(b)) {
                say!(
                    "kaiport: warning: {} listens on {}, reachable from other computers: anyone \
                     who can reach it can use this SSH connection",
                    spec::describe(&forward),
                    spec::host_port(bind, forward.listen_port)
                );
            }
        }
    }

    /// Asks the engine for every forward on `tab`.
    pub async fn open(&self, engine: &Engine, tab: &str) {
        for forward in self.all() {
            engine
                .handle(Op::OpenForward {
                    tab: tab.to_owned(),
                    forward,
                })
                .await;
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct ForwardArgs {
    /// `ssh://user@host:port`, `user@host`, or a saved connection (whose forwards open too).
    connection: String,
    #[command(flatten)]
    forwards: ForwardOptions,
    #[command(flatten)]
    options: ConnectionOptions,
}

/// A forward's state in one line, e.g. `forward 1 (-L 8080:localhost:80): listening on
/// 127.0.0.1:8080, 1 open, 3 in all, 1.2 kB sent, 48 B received`.
pub fn describe_report(report: &ForwardReport) -> String {
    let status = match &report.status {
        ForwardStatus::Starting => "starting".to_owned(),
        ForwardStatus::Listening { address } => format!("listening on {address}"),
        ForwardStatus::Waiting => "waiting for the connection to come back".to_owned(),
        ForwardStatus::Failed { error } => format!("failed: {error}"),
        ForwardStatus::Closed => "closed".to_owned(),
    };
    format!(
        "forward {} ({}): {status}, {} open, {} in all, {} B sent, {} B received",
        report.id,
        spec::describe(&report.spec),
        report.open_connections,
        report.total_connections,
        report.bytes_sent,
        report.bytes_received
    )
}

pub async fn run(args: ForwardArgs) -> anyhow::Result<ExitCode> {
    let target = parse_target(&args.connection, &args.options)?;
    let wanted = args.forwards.all();
    match &target {
        TabTarget::Ssh { .. } => {}
        TabTarget::Profile { .. } => {}
        TabTarget::Local | TabTarget::Storage { .. } => {
            bail!("forwards need an SSH connection, not {}", args.connection)
        }
    }
    if wanted.is_empty() && !matches!(target, TabTarget::Profile { .. }) {
        bail!("say what to forward: -L, -R or -D (see kaiport forward --help)");
    }
    args.forwards.warn_if_exposed();
    let (engine, mut events, answerer) =
        open_tab(&args.connection, &args.options, TAB, None, false).await?;
    let mut opened = false;
    // What was last printed of each forward, so only changes are printed.
    let mut shown: HashMap<u32, (ForwardStatus, u32)> = HashMap::new();
    let mut ever_listened: HashMap<u32, bool> = HashMap::new();
    let mut reconnect_wait = Duration::from_secs(1);
    let mut reconnect_at: Option<tokio::time::Instant> = None;
    loop {
        let reconnect = async {
            match reconnect_at {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {
                say!("kaiport: closing the forwards");
                engine.handle(Op::CloseTab { tab: TAB.to_owned() }).await;
                return Ok(ExitCode::SUCCESS);
            }
            () = reconnect => {
                reconnect_at = None;
                engine.handle(Op::ReconnectTab { tab: TAB.to_owned() }).await;
            }
            event = events.recv() => {
                let Some(event) = event else { bail!("the engine stopped unexpectedly") };
                match event {
                    Event::ConnectionState { state: ConnectionState::Connected, .. } => {
                        say!("kaiport: connected to {}", args.connection);
                        reconnect_wait = Duration::from_secs(1);
                        if !opened {
                            opened = true;
                            args.forwards.open(&engine, TAB).await;
                        }
                    }
                    Event::ConnectionState { state: ConnectionState::Failed { error }, .. } => {
                        // The engine's own reconnect gives up only on what waiting cannot mend
                        // (a changed host key, a refused login).
                        if !opened || engine.config().reconnect.automatic {
                            say!("kaiport: could not connect to {}: {error}", args.connection);
                            engine.handle(Op::CloseTab { tab: TAB.to_owned() }).await;
                            return Ok(ExitCode::FAILURE);
                        }
                        say!("kaiport: reconnecting failed: {error}; trying again in {} s", reconnect_wait.as_secs());
                        reconnect_at = Some(tokio::time::Instant::now() + reconnect_wait);
                        reconnect_wait = (reconnect_wait * 2).min(MAX_RECONNECT_WAIT);
                    }
                    Event::ConnectionState {
                        state: ConnectionState::Reconnecting { in_ms, reason, .. },
                        ..
                    } => {
                        say!("kaiport: {reason}; reconnecting in {} s", in_ms.div_ceil(1000));
                    }
                    Event::ConnectionState { state: ConnectionState::Disconnected { reason }, .. } => {
                        say!("kaiport: {reason}; reconnecting");
                        reconnect_at = Some(tokio::time::Instant::now() + reconnect_wait);
                    }
                    Event::ForwardState { forward, .. } => {
                        let now = (forward.status.clone(), forward.open_connections);
                        if shown.get(&forward.id) != Some(&now) {
                            say!("kaiport: {}", describe_report(&forward));
                            shown.insert(forward.id, now);
                        }
                        let listened = ever_listened.entry(forward.id).or_default();
                        match forward.status {
                            ForwardStatus::Listening { .. } => *listened = true,
                            ForwardStatus::Failed { .. } if !*listened => {
                                engine.handle(Op::CloseTab { tab: TAB.to_owned() }).await;
                                return Ok(ExitCode::FAILURE);
                            }
                            _ => {}
                        }
                    }
                    Event::PromptRequested { .. } => {
                        answerer.respond(&engine, &event).await;
                    }
                    Event::Error { message, .. } => {
                        say!("kaiport: {message}");
                        // A forward that cannot open (a port in use) ends the command, as
                        // nothing would do what was asked.
                        engine.handle(Op::CloseTab { tab: TAB.to_owned() }).await;
                        return Ok(ExitCode::FAILURE);
                    }
                    _ => {}
                }
            }
        }
    }
}

#[derive(Debug, clap::Subcommand)]
pub enum KnownHostsCommand {
    /// Replace the stored host key of HOST[:PORT] with the one the server shows now, after
    /// checking it with the server's administrator. Nothing is replaced unless --fingerprint is
    /// the whole SHA256 fingerprint of the key the server presents now.
    Replace {
        /// `host`, `host:port` or `[v6 address]:port`.
        host: String,
        /// The new key's fingerprint, `SHA256:…`, as the refusal showed it.
        #[arg(long, value_name = "SHA256:…")]
        fingerprint: String,
        /// known_hosts file to change (default: ~/.ssh/known_hosts).
        #[arg(long, value_name = "FILE")]
        known_hosts: Option<PathBuf>,
        /// Write the audit log here instead of the app's data folder.
        #[arg(long, value_name = "FILE")]
        audit: Option<PathBuf>,
    },
}

pub async fn known_hosts(command: KnownHostsCommand) -> anyhow::Result<ExitCode> {
    let KnownHostsCommand::Replace {
        host,
        fingerprint,
        known_hosts,
        audit,
    } = command;
    if !fingerprint.starts_with("SHA256:") {
        bail!("--fingerprint takes the whole fingerprint, SHA256:…, as the refusal showed it");
    }
    let (host, port) = split_host_port(&host)?;
    let mut config = EngineConfig::from_environment()?;
    if let Some(known_hosts) = known_hosts {
        config.known_hosts = known_hosts;
    }
    if let Some(audit) = audit {
        config.audit_path = audit;
    }
    let (engine, mut events) = Engine::new(config).context("cannot start the engine")?;
    engine
        .handle(Op::ReplaceHostKey {
            tab: None,
            host,
            port,
            confirmation: fingerprint,
        })
        .await;
    while let Some(event) = events.recv().await {
        match event {
            Event::HostKeyReplaced {
                host,
                port,
                fingerprint,
                old_fingerprint,
                known_hosts,
                line,
                ..
            } => {
                out!(
                    "replaced the stored key of {host}:{port}: {old_fingerprint} → {fingerprint} \
                     (line {line} of {known_hosts})"
                );
                return Ok(ExitCode::SUCCESS);
            }
            Event::Error { message, .. } => {
                say!("kaiport: {message}");
                return Ok(ExitCode::FAILURE);
            }
            _ => {}
        }
    }
    bail!("the engine stopped unexpectedly")
}

/// `host`, `host:port`, `[addr]:port` or a bare IPv6 address.
fn split_host_port(text: &str) -> anyhow::Result<(String, u16)> {
    let port = |p: &str| {
        p.parse::<u16>()
            .with_context(|| format!("{text:?}: {p:?} is not a port"))
    };
    if let Some(rest) = text.strip_prefix('[') {
        let Some((host, after)) = rest.split_once(']') else {
            bail!("{text:?}: an unclosed [");
        };
        return Ok(match after.strip_prefix(':') {
            Some(p) => (host.to_owned(), port(p)?),
            None => (host.to_owned(), kaiport_core::ssh::DEFAULT_PORT),
        });
    }
    match text.split_once(':') {
        Some((host, p)) if !p.contains(':') => Ok((host.to_owned(), port(p)?)),
        _ => Ok((text.to_owned(), kaiport_core::ssh::DEFAULT_PORT)),
    }
}

#[cfg(test)]
mod tests {
    use super::split_host_port;

    #[test]
    fn hosts_and_ports() {
        let split = |t| split_host_port(t).unwrap();
        assert_eq!(split("h"), ("h".to_owned(), 22));
        assert_eq!(split("h:2222"), ("h".to_owned(), 2222));
        assert_eq!(split("[::1]:2222"), ("::1".to_owned(), 2222));
        assert_eq!(split("::1"), ("::1".to_owned(), 22));
        assert!(split_host_port("h:x").is_err());
    }
}
