//! `kaiport` on the command line: the headless front end of the kaiport engine.
//!
//! - `kaiport` / `kaiport shell [CONNECTION]`: an interactive terminal tab in this terminal
//!   (the local shell by default), driven through the engine like any other front end.
//! - `kaiport tools [--json]`: the tools of this build, with their parameter schemas.
//! - `kaiport tool CONNECTION TOOL JSON_ARGS`: one tool call through the whole pipeline (policy,
//!   approval, audit), printing the result object the model would get.
//! - `kaiport changes CONNECTION`: the changes kaiport made to files there, with their backups;
//!   `kaiport undo CONNECTION [CHANGE-ID]`: put one back (diff, confirmation; `--yes`).
//! - `kaiport view CONNECTION VIEW [--container|--unit|--path X] [--json]`: one server view
//!   (show_view without a model) as tables, or as the protocol's JSON.
//! - `kaiport policy check …`: the decision for a command or tool call under given rules;
//!   `kaiport policy explain …`: which program spec and option decided it.
//! - `kaiport pilot CONNECTION "task"`: Pilot working on a task, with approvals at the prompt.
//! - `kaiport models show | set-key | forget-key`: Pilot's model settings and API keys.
//! - `kaiport serve [--open]`: the UI in a browser, over a WebSocket to this engine.
//! - `kaiport forward CONNECTION -L/-R/-D …`: port forwards until Ctrl-C;
//! - `kaiport fleet run GROUP|CONNECTION… -- 'command'`: one line on many saved connections;
//!   `kaiport snippets list | run NAME --connection CONN [--var k=v]…`: the user's snippets,
//!   a run going the way of a fleet run on that one connection;
//!   `kaiport known-hosts replace HOST[:PORT] --fingerprint SHA256:…`: a changed host key.
//!
//! This binary only adapts the engine's ops and events to a terminal; it knows nothing about
//! SSH, terminals or policy.

/// `eprintln!` that survives a closed stderr: a prompt or note that cannot be shown is lost,
/// but an EPIPE is never a crash (`kaiport tool … 2>&-`, a log pipe that ended).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that survives a closed stderr (see [`say!`]).
macro_rules! say_inline {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stderr = std::io::stderr();
        let _ = write!(stderr, $($arg)*);
        let _ = stderr.flush();
    }};
}

/// `println!` that survives a closed stdout (`kaiport audit | head`): the reader has gone, so
/// the rest is not wanted.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod audit_cmd;
mod changes_cmd;
mod connection;
mod connections;
mod fleet_cmd;
mod forward;
mod models;
mod pilot;
mod policy_cmd;
mod prompts;
mod serve;
mod shell;
mod snippets_cmd;
mod tool;
mod view_cmd;

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
        #[command(flatten)]
        forwards: forward::ForwardOptions,
    },
    /// Port forwards on an SSH connection (-L, -R, -D as in ssh), until Ctrl-C.
    Forward(forward::ForwardArgs),
    /// The known_hosts file: replace a server's changed host key, deliberately.
    #[command(subcommand, name = "known-hosts")]
    KnownHosts(forward::KnownHostsCommand),
    /// List the tools of this build.
    Tools {
        /// Print the tools with their JSON schemas, as sent to the model.
        #[arg(long)]
        json: bool,
    },
    /// Run one tool call through the whole pipeline and print its result as JSON.
    Tool(tool::ToolArgs),
    /// Show one server view (processes, disk, ports, logs, …) as tables or JSON, without a model.
    View(view_cmd::ViewArgs),
    /// Show the audit log: every tool call, its decision and how it ended.
    Audit(audit_cmd::AuditArgs),
    /// The changes kaiport made to files on a server, with their backups.
    Changes(changes_cmd::ChangesArgs),
    /// Put a file back as it was before a change (shows the diff, asks; --yes for scripts).
    Undo(changes_cmd::UndoArgs),
    /// Saved connections and their passwords.
    #[command(subcommand)]
    Connections(connections::ConnectionsCommand),
    /// One command line on many saved connections and tags, each under its own rules.
    #[command(subcommand)]
    Fleet(fleet_cmd::FleetCommand),
    /// Snippets: list them, or expand one and run it on a saved connection under its rules.
    #[command(subcommand)]
    Snippets(snippets_cmd::SnippetsCommand),
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
    /// Serve the UI to a browser on this computer (prints the URL with its token first).
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    kaiport_hub::init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            say!("kaiport: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let command = cli.command.unwrap_or(Command::Shell {
        connection: "local".to_owned(),
        options: connection::ConnectionOptions::default(),
        forwards: forward::ForwardOptions::default(),
    });
    let result = match command {
        Command::Tools { json } => tool::list_tools(json),
        Command::Connections(command) => connections::run(command),
        Command::Audit(args) => audit_cmd::run(args),
        Command::Tool(args) => runtime.block_on(tool::run(args)),
        Command::Changes(args) => runtime.block_on(changes_cmd::changes(args)),
        Command::Undo(args) => runtime.block_on(changes_cmd::undo(args)),
        Command::View(args) => runtime.block_on(view_cmd::run(args)),
        Command::Policy { command } => policy_cmd::run(command),
        Command::Pilot(args) => runtime.block_on(pilot::run(args)),
        Command::Models(command) => models::run(command),
        Command::Serve(args) => runtime.block_on(serve::run(args)),
        Command::Forward(args) => runtime.block_on(forward::run(args)),
        Command::Fleet(command) => runtime.block_on(fleet_cmd::run(command)),
        Command::Snippets(command) => runtime.block_on(snippets_cmd::run(command)),
        Command::KnownHosts(command) => runtime.block_on(forward::known_hosts(command)),
        Command::Shell {
            connection,
            options,
            forwards,
        } => runtime.block_on(shell::run(&connection, &options, &forwards)),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            say!("kaiport: {error:#}");
            ExitCode::from(tool::EXIT_FAILED)
        }
    }
}
