//! `kaiport snippets list` and `kaiport snippets run` against a real sshd: a snippet expanded
//! with its variables and run on a saved connection through the fleet path, refused where the
//! connection forbids the line, run and audited where its rules allow it, and refused before
//! anything runs when a variable is unknown or missing.

use super::forward_cli::audit;
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn kaiport(home: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kaiport"));
    command
        .args(args)
        .env("KAIPORT_HOME", home)
        .env("HOME", home)
        .env_remove("SSH_AUTH_SOCK")
        .stdin(Stdio::null());
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The run failed (exit 1) and said `words` on stderr.
fn fails_saying(output: &Output, words: &str) {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(words), "{stderr}");
}

/// `kaiport snippets run mark --connection CONNECTION` with `extra` arguments.
fn run_mark(home: &Path, connection: &str, extra: &[&str]) -> Output {
    let mut args = vec!["snippets", "run", "mark", "--connection", connection];
    args.extend(extra);
    kaiport(home, &args)
}

#[test]
fn a_snippet_runs_under_the_connections_rules_and_is_audited() {
    let sshd = Sshd::start().unwrap();
    let folder = sshd.writable_folder().unwrap();
    let home = tempfile::tempdir().unwrap();
    // The engine's known_hosts is ~/.ssh/known_hosts by default.
    std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
    sshd.trust_in(&home.path().join(".ssh/known_hosts"))
        .unwrap();
    let profile = |name: &str, rule: &str| {
        format!(
            "[[connection]]\nname = \"{name}\"\nkind = \"ssh\"\nhost = \"127.0.0.1\"\nport = {}\n\
             user = \"{}\"\nidentity_files = [\"{}\"]\ntags = [\"web\"]\n\
             [connection.settings]\n{rule} = [\"touch\"]\n",
            sshd.port(),
            sshd.user(),
            sshd.keys.ed25519.display()
        )
    };
    std::fs::write(
        home.path().join("connections.toml"),
        profile("locked", "forbidden_commands") + &profile("open", "allowed_commands"),
    )
    .unwrap();
    std::fs::write(
        home.path().join("snippets.toml"),
        "[[snippet]]\nname = \"mark\"\ndescription = \"Leave a mark\"\n\
         command = \"touch {{dir}}/{{file:mark}}-{{user}}\"\ngroup = \"web\"\n\
         [[snippet]]\nname = \"elsewhere\"\ncommand = \"true\"\nconnection = \"db1\"\n",
    )
    .unwrap();
    let dir = folder.path().display().to_string();
    let dir_var = format!("dir={dir}");
    let marked = folder.path().join(format!("mark-{}", sshd.user()));

    // Listed for a connection: its group's snippet, not another connection's.
    let listed = kaiport(home.path(), &["snippets", "list", "--connection", "open"]);
    let stdout = text(&listed.stdout);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert!(
        stdout.contains("mark (group web)") && stdout.contains("Leave a mark"),
        "{stdout}"
    );
    assert!(!stdout.contains("elsewhere"), "{stdout}");

    // Unknown and missing variables are refused before anything runs.
    let unknown = run_mark(home.path(), "open", &["--var", &dir_var, "--var", "nope=1"]);
    fails_saying(&unknown, "snippet \"mark\" has no variable \"nope\"");
    fails_saying(
        &run_mark(home.path(), "open", &[]),
        "needs a value for \"dir\"",
    );
    let other = kaiport(
        home.path(),
        &["snippets", "run", "elsewhere", "--connection", "open"],
    );
    fails_saying(&other, "is for connection db1");
    assert!(audit(home.path()).is_empty());

    // Forbidden on "locked": refused there, nothing made, audited as a deny.
    let refused = run_mark(home.path(), "locked", &["--var", &dir_var, "--yes"]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stderr));
    assert!(
        text(&refused.stdout).contains("refused"),
        "{}",
        text(&refused.stdout)
    );
    assert!(!marked.exists());

    // Allowed on "open": it runs without asking, and is audited.
    let ran = run_mark(home.path(), "open", &["--var", &dir_var]);
    assert!(
        ran.status.success(),
        "{}\n{}",
        text(&ran.stdout),
        text(&ran.stderr)
    );
    assert!(marked.exists());
    let line = format!("touch {dir}/mark-{}", sshd.user());
    let lines: Vec<(String, String, String, String)> = audit(home.path())
        .iter()
        .map(|entry| {
            (
                entry["connection"].as_str().unwrap_or_default().to_owned(),
                entry["call"].as_str().unwrap_or_default().to_owned(),
                entry["args"]["command"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                entry["decision"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        vec![
            (
                "locked".to_owned(),
                "snippet:mark/locked".to_owned(),
                line.clone(),
                "deny".to_owned()
            ),
            (
                "open".to_owned(),
                "snippet:mark/open".to_owned(),
                line,
                "allow".to_owned()
            ),
        ]
    );
}
