//! Importing hosts from OpenSSH's client config (`~/.ssh/config`) as connection profiles.
//!
//! Every concrete alias of a `Host` line (no `*`, `?` or `!`) becomes one profile named after it.
//! Its options are looked up like `ssh` does: all `Host` blocks matching the alias (including
//! wildcard ones such as `Host *`) in file order, first value wins; `IdentityFile` collects every
//! value. Read: `HostName` (with `%h`), `User`, `Port`, `IdentityFile` (`~` expanded), `ProxyJump`
//! (comma-separated hops, `none`), `Include` (relative to `~/.ssh`, `*`/`?` in file names),
//! `LocalForward` / `RemoteForward` / `DynamicForward` (every one, as the profile's `forwards`;
//! one that does not parse is skipped with a log line), `CertificateFile` (every one),
//! `IdentityAgent` and `ForwardAgent` (`yes` only; an agent path there is taken as
//! `IdentityAgent`).
//! `Match` blocks and other keywords are skipped. The wildcard patterns of the `Host` lines that
//! match an alias (`Host web-*`, not `*` alone nor a negated one) become its tags: the group
//! the config already had in mind.
//!
//! Read-only: this module never writes to the SSH config and never connects.

use std::path::{Path, PathBuf};

use super::destination::current_user;
use super::known_hosts::wildcard_match;
use super::paths::expand_tilde;
use super::profiles::{ConnectionProfile, ProfileKind};
use crate::ssh::DEFAULT_PORT;

/// How deep `Include`s may nest (OpenSSH uses 16).
const MAX_INCLUDE_DEPTH: usize = 16;

/// Errors reading an SSH config file.
#[derive(Debug, thiserror::Error)]
pub enum SshConfigError {
    #[error("cannot read SSH config {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}: {message}", path.display())]
    Malformed {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// `~/.ssh/config`, if there is a home folder.
pub fn default_ssh_config_path() -> Option<PathBuf> {
    dirs::home_dir().map(|home| home.join(".ssh").join("config"))
}

/// Reads the SSH config at `path` (following `Include`s) and returns one profile per concrete
/// host alias, in file order.
pub fn import_ssh_config(path: &Path) -> Result<Vec<ConnectionProfile>, SshConfigError> {
    let mut blocks = vec![Block::global()];
    let base = path.parent().map(Path::to_owned).unwrap_or_default();
    read_file(path, &base, 0, &mut blocks)?;
    Ok(profiles_from(&blocks))
}

/// [`import_ssh_config`] for config text; `Include` lines are ignored.
pub fn parse_ssh_config(text: &str) -> Result<Vec<ConnectionProfile>, SshConfigError> {
    let mut blocks = vec![Block::global()];
    parse_into(text, Path::new("<ssh config>"), None, 0, &mut blocks)?;
    Ok(profiles_from(&blocks))
}

#[derive(Debug)]
struct Block {
    patterns: Vec<String>,
    /// Blocks from `Match` lines are kept only to swallow their options.
    is_match: bool,
    options: Vec<(String, Vec<String>)>,
}

impl Block {
    fn global() -> Block {
        Block {
            patterns: vec!["*".to_owned()],
            is_match: false,
            options: Vec::new(),
        }
    }

    fn matches(&self, alias: &str) -> bool {
        if self.is_match {
            return false;
        }
        let mut matched = false;
        for pattern in &self.patterns {
            if let Some(negated) = pattern.strip_prefix('!') {
                if wildcard_match(negated, alias) {
                    return false;
                }
            } else if wildcard_match(pattern, alias) {
                matched = true;
            }
        }
        matched
    }
}

fn read_file(
    path: &Path,
    base: &Path,
    depth: usize,
    blocks: &mut Vec<Block>,
) -> Result<(), SshConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| SshConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse_into(&text, path, Some(base), depth, blocks)
}

fn parse_into(
    text: &str,
    path: &Path,
    include_base: Option<&Path>,
    depth: usize,
    blocks: &mut Vec<Block>,
) -> Result<(), SshConfigError> {
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let malformed = |message: String| SshConfigError::Malformed {
            path: path.to_owned(),
            line: index + 1,
            message,
        };
        let (keyword, rest) = split_keyword(line);
        let args = split_args(rest).ok_or_else(|| malformed("unbalanced quotes".to_owned()))?;
        match keyword.to_ascii_lowercase().as_str() {
            "host" => {
                if args.is_empty() {
                    return Err(malformed("Host needs at least one pattern".to_owned()));
                }
                blocks.push(Block {
                    patterns: args,
                    is_match: false,
                    options: Vec::new(),
                });
            }
            "match" => blocks.push(Block {
                patterns: Vec::new(),
                is_match: true,
                options: Vec::new(),
            }),
            "include" => {
                let Some(base) = include_base else { continue };
                if depth >= MAX_INCLUDE_DEPTH {
                    return Err(malformed("Include nests too deeply".to_owned()));
                }
                for pattern in &args {
                    for file in expand_include(pattern, base) {
                        read_file(&file, base, depth + 1, blocks)?;
                    }
                }
            }
            key => {
                if let Some(block) = blocks.last_mut() {
                    block.options.push((key.to_owned(), args));
                }
            }
        }
    }
    Ok(())
}

/// `Keyword args` or `Keyword=args` / `Keyword = args`.
fn split_keyword(line: &str) -> (&str, &str) {
    let end = line
        .find(|c: char| c.is_whitespace() || c == '=')
        .unwrap_or(line.len());
    let (keyword, rest) = line.split_at(end);
    let rest = rest.trim_start();
    let rest = rest.strip_prefix('=').unwrap_or(rest).trim_start();
    (keyword, rest)
}

/// Whitespace-separated words; double quotes group words with spaces.
fn split_args(text: &str) -> Option<Vec<String>> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let mut has_word = false;
    for c in text.chars() {
        match c {
            '"' => {
                in_quotes = !in_quotes;
                has_word = true;
            }
            c if c.is_whitespace() && !in_quotes => {
                if has_word {
                    args.push(std::mem::take(&mut current));
                    has_word = false;
                }
            }
            c => {
                current.push(c);
                has_word = true;
            }
        }
    }
    if in_quotes {
        return None;
    }
    if has_word {
        args.push(current);
    }
    Some(args)
}

/// Files named by one `Include` argument: `~` expanded, relative to `base`, `*`/`?` in the last
/// component matched against the folder's entries (sorted, as OpenSSH does).
fn expand_include(pattern: &str, base: &Path) -> Vec<PathBuf> {
    let expanded = expand_tilde(pattern);
    let full = if expanded.is_absolute() {
        expanded
    } else {
        base.join(expanded)
    };
    let Some(name) = full.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
        return Vec::new();
    };
    if !name.contains(['*', '?']) {
        return if full.is_file() {
            vec![full]
        } else {
            Vec::new()
        };
    }
    let Some(dir) = full.parent() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| wildcard_match(&name, n))
        })
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn profiles_from(blocks: &[Block]) -> Vec<ConnectionProfile> {
    let mut profiles: Vec<ConnectionProfile> = Vec::new();
    for block in blocks.iter().filter(|b| !b.is_match) {
        for alias in &block.patterns {
            let concrete = !alias.contains(['*', '?', '!']);
            if !concrete || profiles.iter().any(|p| &p.name == alias) {
                continue;
            }
            profiles.push(profile_for(alias, blocks));
        }
    }
    profiles
}

fn profile_for(alias: &str, blocks: &[Block]) -> ConnectionProfile {
    let mut host_name: Option<String> = None;
    let mut user: Option<String> = None;
    let mut port: Option<u16> = None;
    let mut proxy_jump: Option<Vec<String>> = None;
    let mut identity_files: Vec<String> = Vec::new();
    let mut forwards: Vec<kaiport_protocol::ForwardSpec> = Vec::new();
    let mut tags: Vec<String> = Vec::new();
    let mut certificate_files: Vec<String> = Vec::new();
    let mut identity_agent: Option<String> = None;
    let mut forward_agent: Option<bool> = None;
    for block in blocks.iter().filter(|b| b.matches(alias)) {
        for pattern in &block.patterns {
            let group = pattern != "*" && !pattern.starts_with('!') && pattern.contains(['*', '?']);
            if group && wildcard_match(pattern, alias) && !tags.contains(pattern) {
                tags.push(pattern.clone());
            }
        }
        for (key, args) in &block.options {
            let Some(first) = args.first() else { continue };
            match key.as_str() {
                "hostname" if host_name.is_none() => host_name = Some(first.replace("%h", alias)),
                "user" if user.is_none() => user = Some(first.clone()),
                "port" if port.is_none() => port = first.parse().ok(),
                "identityfile" => {
                    let path = expand_tilde(first).to_string_lossy().into_owned();
                    if !identity_files.contains(&path) {
                        identity_files.push(path);
                    }
                }
                "certificatefile" => {
                    let path = expand_tilde(first).to_string_lossy().into_owned();
                    if !certificate_files.contains(&path) {
                        certificate_files.push(path);
                    }
                }
                "identityagent" if identity_agent.is_none() => identity_agent = Some(first.clone()),
                "forwardagent" if forward_agent.is_none() => {
                    forward_agent = Some(match first.to_ascii_lowercase().as_str() {
                        "yes" => true,
                        "no" => false,
                        // `ForwardAgent PATH` forwards the agent at PATH.
                        _ => {
                            identity_agent.get_or_insert_with(|| first.clone());
                            true
                        }
                    });
                }
                "localforward" | "remoteforward" | "dynamicforward" => {
                    use kaiport_protocol::ForwardKind;
                    let kind = match key.as_str() {
                        "localforward" => ForwardKind::Local,
                        "remoteforward" => ForwardKind::Remote,
                        _ => ForwardKind::Dynamic,
                    };
                    match crate::forward::spec::parse_config(kind, args) {
                        Ok(spec) if !forwards.contains(&spec) => forwards.push(spec),
                        Ok(_) => {}
                        Err(error) => tracing::info!(host = alias, %error, "forward skipped"),
                    }
                }
                "proxyjump" if proxy_jump.is_none() => {
                    proxy_jump = Some(if first.eq_ignore_ascii_case("none") {
                        Vec::new()
                    } else {
                        args.join("")
                            .split(',')
                            .map(str::trim)
                            .filter(|h| !h.is_empty())
                            .map(str::to_owned)
                            .collect()
                    });
                }
                _ => {}
            }
        }
    }
    ConnectionProfile {
        name: alias.to_owned(),
        kind: ProfileKind::Ssh {
            host: host_name.unwrap_or_else(|| alias.to_owned()),
            port: port.unwrap_or(DEFAULT_PORT),
            user: user.or_else(current_user).unwrap_or_default(),
            identity_files,
            proxy_jump: proxy_jump.unwrap_or_default(),
            forwards,
            keep_session: false,
            certificate_files,
            identity_agent: identity_agent.filter(|agent| !agent.eq_ignore_ascii_case("none")),
            forward_agent: forward_agent.unwrap_or(false),
        },
        tags,
        settings: serde_json::Map::new(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn ssh(
        name: &str,
        host: &str,
        port: u16,
        user: &str,
        ids: &[&str],
        jumps: &[&str],
    ) -> ConnectionProfile {
        ConnectionProfile {
            name: name.into(),
            kind: ProfileKind::Ssh {
                host: host.into(),
                port,
                user: user.into(),
                identity_files: ids.iter().map(|s| s.to_string()).collect(),
                proxy_jump: jumps.iter().map(|s| s.to_string()).collect(),
                forwards: Vec::new(),
                keep_session: false,
                certificate_files: Vec::new(),
                identity_agent: None,
                forward_agent: false,
            },
            tags: Vec::new(),
            settings: serde_json::Map::new(),
        }
    }

    #[test]
    fn certificates_agent_and_agent_forwarding_are_imported() {
        let text = "
Host web
  CertificateFile ~/.ssh/web-cert.pub
  CertificateFile /keys/ca-signed-cert.pub
  IdentityAgent ~/.1password/agent.sock
  ForwardAgent yes
Host plain
  ForwardAgent no
  IdentityAgent none
";
        let profiles = parse_ssh_config(text).unwrap();
        let ProfileKind::Ssh {
            certificate_files,
            identity_agent,
            forward_agent,
            ..
        } = &profiles[0].kind
        else {
            panic!("not ssh")
        };
        let home = expand_tilde("~/.ssh/web-cert.pub");
        assert_eq!(
            certificate_files,
            &vec![
                home.to_string_lossy().into_owned(),
                "/keys/ca-signed-cert.pub".to_owned()
            ]
        );
        assert_eq!(identity_agent.as_deref(), Some("~/.1password/agent.sock"));
        assert!(forward_agent);
        let ProfileKind::Ssh {
            identity_agent,
            forward_agent,
            ..
        } = &profiles[1].kind
        else {
            panic!("not ssh")
        };
        assert_eq!(identity_agent, &None);
        assert!(!forward_agent);
    }

    #[test]
    fn forwards_are_imported_every_one() {
        use kaiport_protocol::{ForwardKind, ForwardSpec};
        let text = "
Host web
  LocalForward 8080 localhost:80
  LocalForward 127.0.0.1:5433 db.internal:5432
  RemoteForward 9000 localhost:3000
  DynamicForward 1080
  LocalForward nonsense
Host *
  DynamicForward 1080
";
        let profiles = parse_ssh_config(text).unwrap();
        let ProfileKind::Ssh { forwards, .. } = &profiles[0].kind else {
            panic!("not ssh")
        };
        let spec = |kind, bind: Option<&str>, port, to: Option<(&str, u16)>| ForwardSpec {
            kind,
            bind_address: bind.map(str::to_owned),
            listen_port: port,
            to_host: to.map(|t| t.0.to_owned()),
            to_port: to.map(|t| t.1),
        };
        assert_eq!(
            forwards,
            &vec![
                spec(ForwardKind::Local, None, 8080, Some(("localhost", 80))),
                spec(
                    ForwardKind::Local,
                    Some("127.0.0.1"),
                    5433,
                    Some(("db.internal", 5432))
                ),
                spec(ForwardKind::Remote, None, 9000, Some(("localhost", 3000))),
                spec(ForwardKind::Dynamic, None, 1080, None),
            ]
        );
    }

    #[test]
    fn imports_concrete_hosts_with_first_value_winning() {
        let home = dirs::home_dir().unwrap().to_string_lossy().into_owned();
        let text = r#"
# Options before any Host apply to every host and win (first value wins), like in ssh.
Compression yes

Host bastion
    HostName bastion.example.org
    User ops
    Port 2200

Host web1 web2
    HostName %h.internal
    IdentityFile ~/.ssh/web_key
    IdentityFile "/keys/with space"
    ProxyJump bastion,admin@inner:2222
    User = deploy

Host *.internal !secret.internal
    Port 2022

Host web2
    User ignored-because-first-wins
    Port 4444

Host *
    User fallback
    IdentityFile ~/.ssh/id_ed25519
    ProxyJump none

Match host other
    User matched

Host plain
"#;
        let profiles = parse_ssh_config(text).unwrap();
        assert_eq!(
            profiles,
            vec![
                ssh(
                    "bastion",
                    "bastion.example.org",
                    2200,
                    "ops",
                    &[&format!("{home}/.ssh/id_ed25519")],
                    &[]
                ),
                ssh(
                    "web1",
                    "web1.internal",
                    22,
                    "deploy",
                    &[
                        &format!("{home}/.ssh/web_key"),
                        "/keys/with space",
                        &format!("{home}/.ssh/id_ed25519")
                    ],
                    &["bastion", "admin@inner:2222"],
                ),
                ssh(
                    "web2",
                    "web2.internal",
                    4444,
                    "deploy",
                    &[
                        &format!("{home}/.ssh/web_key"),
                        "/keys/with space",
                        &format!("{home}/.ssh/id_ed25519")
                    ],
                    &["bastion", "admin@inner:2222"],
                ),
                ssh(
                    "plain",
                    "plain",
                    22,
                    "fallback",
                    &[&format!("{home}/.ssh/id_ed25519")],
                    &[]
                ),
            ]
        );
    }

    #[test]
    fn wildcard_host_patterns_that_match_become_tags() {
        let text = "
Host web-* !web-old
  User deploy
Host *-eu web-1
  Port 2200
Host web-1 web-old db-eu
Host *
  User fallback
";
        let tags: Vec<(String, Vec<String>)> = parse_ssh_config(text)
            .unwrap()
            .into_iter()
            .map(|profile| (profile.name, profile.tags))
            .collect();
        let owned = |name: &str, tags: &[&str]| {
            (
                name.to_owned(),
                tags.iter().map(|tag| tag.to_string()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            tags,
            vec![
                owned("web-1", &["web-*"]),
                owned("web-old", &[]),
                owned("db-eu", &["*-eu"]),
            ]
        );
    }

    #[test]
    fn includes_are_followed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("conf.d")).unwrap();
        std::fs::write(dir.path().join("conf.d/a.conf"), "Host inc-a\n  User a\n").unwrap();
        std::fs::write(
            dir.path().join("conf.d/b.conf"),
            "Host inc-b\n  Port 23\n  User b\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("config"),
            "Include conf.d/*.conf\nHost main\n  User m\n",
        )
        .unwrap();
        let names: Vec<String> = import_ssh_config(&dir.path().join("config"))
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, vec!["inc-a", "inc-b", "main"]);
    }

    #[test]
    fn malformed_lines_are_reported_with_line() {
        let error = parse_ssh_config("Host a\n  IdentityFile \"unterminated\n")
            .unwrap_err()
            .to_string();
        assert_eq!(error, "<ssh config>:2: unbalanced quotes");
        let error = parse_ssh_config("\nHost\n").unwrap_err().to_string();
        assert_eq!(error, "<ssh config>:2: Host needs at least one pattern");
    }

    #[test]
    fn missing_file_is_an_error_naming_it() {
        let error = import_ssh_config(Path::new("/nonexistent/kaiport/config"))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("cannot read SSH config /nonexistent/kaiport/config"),
            "{error}"
        );
    }
}
