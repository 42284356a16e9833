//! Pilot's system prompt in tokens (BENCHMARKS.md, "Pilot: the prompt"): the full and the compact
//! form for an SSH terminal tab on a Debian host in ask mode, with the tool schemas the model is
//! sent beside it, counted with OpenAI's o200k and cl100k tokenizers (tiktoken-rs).
//!
//! Run with `cargo bench -p kaiport-tests --features tokens --bench prompt`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use anyhow::Result;
use kaiport_core::agent::ledger::Ledger;
use kaiport_core::agent::prompt::{Style, system_prompt, tab_now};
use kaiport_core::agent::{LiveFacts, TabInfo, tool_schemas};
use kaiport_protocol::{ConnectionSettings, HostFacts, Mode, TabKind};
use tokio_util::sync::CancellationToken;

/// A nonce as a conversation's frame makes them (32 hex digits).
const NONCE: &str = "5f0c2a9e41d7b3866e19fa20c4d85b17";

fn tab(kind: TabKind) -> TabInfo {
    TabInfo {
        kind,
        connection: "ssh://alice@web1:22".to_owned(),
        mode: Mode::Ask,
        settings: ConnectionSettings {
            forbidden_commands: vec!["reboot".to_owned()],
            allowed_commands: vec!["systemctl status".to_owned(), "df".to_owned()],
            ..ConnectionSettings::default()
        },
        closing: CancellationToken::new(),
        host: Some(HostFacts {
            os: Some("Debian GNU/Linux 12 (bookworm)".to_owned()),
            kernel: Some("Linux 6.1.0-18-amd64 x86_64".to_owned()),
            hostname: Some("web1".to_owned()),
            user: Some("alice".to_owned()),
            uid: Some(1000),
            groups: vec!["alice".to_owned(), "sudo".to_owned()],
            may_sudo: Some(true),
            login_shell: Some("/bin/bash".to_owned()),
            init: Some("systemd".to_owned()),
            package_manager: Some("apt".to_owned()),
            userland: Some("GNU".to_owned()),
            container: Some("none".to_owned()),
            server_time: Some("2026-12-05 03:10:00 +0000 UTC".to_owned()),
            probe_error: None,
        }),
        live: LiveFacts {
            connected: true,
            reconnecting: false,
            shell: Some("bash"),
            integration: true,
            cwd: Some("/home/alice".to_owned()),
            size: Some((120, 40)),
            busy: false,
            alternate_screen: false,
            watched: true,
        },
        plan: None,
        snippets: Vec::new(),
    }
}

fn main() -> Result<()> {
    let o200k = tiktoken_rs::o200k_base()?;
    let cl100k = tiktoken_rs::cl100k_base()?;
    let count = |text: &str| {
        (
            o200k.encode_with_special_tokens(text).len(),
            cl100k.encode_with_special_tokens(text).len(),
        )
    };
    println!("| tab | prompt | bytes | tokens (o200k) | tokens (cl100k) |");
    println!("|---|---|---|---|---|");
    for kind in [TabKind::Terminal, TabKind::Storage] {
        let info = tab(kind);
        let tools = tool_schemas(kind);
        let schemas = serde_json::to_string(&tools)?;
        for (name, style) in [("full", Style::Full), ("compact", Style::Compact)] {
            let prompt = system_prompt(&info, &tools, NONCE, style);
            let (o, c) = count(&prompt);
            println!(
                "| {kind:?} | system prompt, {name} | {} | {o} | {c} |",
                prompt.len()
            );
        }
        // Sent after the newest message of every request (no plan, nothing changed yet).
        let now = tab_now(&info, &Ledger::default());
        let (o, c) = count(&now);
        println!(
            "| {kind:?} | tab now, each step | {} | {o} | {c} |",
            now.len()
        );
        let (o, c) = count(&schemas);
        println!(
            "| {kind:?} | tool schemas ({} tools) | {} | {o} | {c} |",
            tools.len(),
            schemas.len()
        );
    }
    Ok(())
}
