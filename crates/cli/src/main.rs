//! `kaiport` on the command line: the headless front end of the kaiport engine.
//!
//! - `kaiport` / `kaiport shell [CONNECTION]`: an interactive terminal tab in this terminal
//!   (the local shell by default), driven through the engine like any other front end.
//! - `kaiport tools [--json]`: the tools of this build, with their parameter schemas.
//! - `kaiport tool CONNECTION TOOL JSON_ARGS`: one tool call through the whole pipeline (policy,
//!   approval, audit), printing the result object the model would get.
//! - `kaiport policy check …`: the decision for a command or tool call under given rules.
//! - `kaiport pilot CONNECTION "task"`: Pilot working on a task, with approvals at the prompt.
//! - `kaiport models show | set-key | forget-key`: Pilot's model settings and API keys.
//!
//! This binary only adapts the engine's ops and events to a terminal; it knows nothing about
//! SSH, terminals or policy.

mod audit_cmd;
mod connection;
mod connections;
mod models;
mod pilot;
mod policy_cmd;
mod prompts;
mod shell;
mod tool;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "kaiport",
    version,
    about = "SSH terminals and storage with an AI assistant that follows your rules"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Open an interactive terminal tab here (default: the local shell). Leave with `exit`.
    Shell {
        /// `local`, `ssh://user@host:port`, or `user@host`.
        #[arg(default_value = "local")]
        connection: String,
        #[command(flatten)]
        options: connection::ConnectionOptions,
    },
    /// List the tools of this build.
    Tools {
        /// Print the tools with their JSON schemas, as sent to the model.
        #[arg(long)]
        json: bool,
    },
    /// Run one tool call through the whole pipeline and print its result as JSON.
    Tool(tool::ToolArgs),
    /// Show the audit log: every tool call, its decision and how it ended.
    Audit(audit_cmd::AuditArgs),
    /// Saved connections and their passwords.
    #[command(subcommand)]
    Connections(connections::ConnectionsCommand),
    /// Explain the approval rules: `kaiport policy check [--forbidden P]… -- 'command'`.
    Policy {
        #[command(subcommand)]
        command: policy_cmd::PolicyCommand,
    },
    /// Let Pilot work on a task in a connection, here in this terminal.
    Pilot(pilot::PilotArgs),
    /// Pilot's model settings and API keys (kept in the OS keychain).
    #[command(subcommand)]
    Models(models::ModelsCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("kaiport: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let command = cli.command.unwrap_or(Command::Shell {
        connection: "local".to_owned(),
        options: connection::ConnectionOptions::default(),
    });
    let result = match command {
        Command::Tools { json } => tool::list_tools(json),
        Command::Connections(command) => connections::run(command),
        Command::Audit(args) => audit_cmd::run(args),
        Command::Tool(args) => runtime.block_on(tool::run(args)),
        Command::Policy { command } => policy_cmd::run(command),
        Command::Pilot(args) => runtime.block_on(pilot::run(args)),
        Command::Models(command) => models::run(command),
        Command::Shell {
            connection,
            options,
        } => runtime.block_on(shell::run(&connection, &options)),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("kaiport: {error:#}");
            ExitCode::from(tool::EXIT_FAILED)
        }
    }
}

fn init_tracing() {
    // Logs go to stderr, quiet by default; KAIPORT_LOG=debug for details.
    let filter = tracing_subscriber::EnvFilter::try_from_env("KAIPORT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
