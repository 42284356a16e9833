//! OpenSSH `known_hosts` files: looking up a server's host key and recording a newly trusted one.
//!
//! Supports plain host patterns (with `*`/`?` wildcards and `!` negation), hashed `|1|salt|hash`
//! entries, `[host]:port` for ports other than 22, and the `@revoked` marker (a revoked key is
//! refused even when it also appears as trusted). `@cert-authority` lines are skipped: kaiport does
//! not accept host certificates by CA.
//!
//! This module never decides to trust a key on its own: it reports [`HostKeyStatus`] and the caller
//! (the SSH connect path) asks the user about unknown keys and refuses changed or revoked ones.
//! [`append`] only adds a line at the end. Only [`replace`] removes one: the line holding a
//! host's changed key, and only after the user confirmed the new key's fingerprint (see
//! `Op::ReplaceHostKey`); every other line stays as it was.

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use data_encoding::BASE64;
use hmac::{Hmac, KeyInit, Mac};
use russh::keys::ssh_key::{self, Algorithm, PublicKey};
use sha1::Sha1;

/// The default SSH port: hosts on it are written without `[...]:port`.
pub const DEFAULT_SSH_PORT: u16 = 22;

/// What a `known_hosts` file says about one server key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostKeyStatus {
    /// The key is recorded for this host on `line` (1-based).
    Known { line: usize },
    /// No entry for this host with a key of this type: ask the user.
    Unknown,
    /// The host is recorded on `line` with a different key of the same type: refuse.
    Changed { line: usize, key_type: String },
    /// The key is marked `@revoked` on `line`: refuse.
    Revoked { line: usize },
}

/// Errors reading or appending to a `known_hosts` file.
#[derive(Debug, thiserror::Error)]
pub enum KnownHostsError {
    #[error("cannot read known_hosts file {path}: {source}. Check that it is readable.")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "cannot add a host key to {path}: {source}. Check that the file and its folder are writable."
    )]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot encode the host key for {host}: {source}")]
    Encode {
        host: String,
        #[source]
        source: ssh_key::Error,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    None,
    Revoked,
    CertAuthority,
}

#[derive(Debug)]
struct Entry {
    line: usize,
    marker: Marker,
    hosts: String,
    key: PublicKey,
}

/// The name a host is recorded under: `host` on port 22, `[host]:port` otherwise.
pub fn host_entry_name(host: &str, port: u16) -> String {
    if port == DEFAULT_SSH_PORT {
        host.to_owned()
    } else {
        format!("[{host}]:{port}")
    }
}

/// A complete `known_hosts` line (plain, not hashed) recording `key` for `host:port`.
pub fn known_hosts_line(host: &str, port: u16, key: &PublicKey) -> Result<String, KnownHostsError> {
    let bare = PublicKey::new(key.key_data().clone(), "");
    let encoded = bare
        .to_openssh()
        .map_err(|source| KnownHostsError::Encode {
            host: host_entry_name(host, port),
            source,
        })?;
    Ok(format!(
        "{} {}",
        host_entry_name(host, port),
        encoded.trim()
    ))
}

/// A short human name for a key's type, as OpenSSH prints it: `ED25519`, `ECDSA`, `RSA`, ….
pub fn key_type_label(key: &PublicKey) -> String {
    match key.algorithm() {
        Algorithm::Ed25519 => "ED25519".to_owned(),
        Algorithm::Ecdsa { .. } => "ECDSA".to_owned(),
        Algorithm::Rsa { .. } => "RSA".to_owned(),
        other => other.as_str().to_uppercase(),
    }
}

/// The OpenSSH-style SHA-256 fingerprint of a key: `SHA256:…`.
pub fn fingerprint_sha256(key: &PublicKey) -> String {
    key.fingerprint(ssh_key::HashAlg::Sha256).to_string()
}

/// Looks `key` up for `host:port` in the `known_hosts` file at `path`. A missing file counts as
/// empty. Malformed lines are skipped, as OpenSSH does.
pub fn check(
    path: &Path,
    host: &str,
    port: u16,
    key: &PublicKey,
) -> Result<HostKeyStatus, KnownHostsError> {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(KnownHostsError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    Ok(check_text(&text, host, port, key))
}

/// [`check`] on the contents of a `known_hosts` file.
pub fn check_text(text: &str, host: &str, port: u16, key: &PublicKey) -> HostKeyStatus {
    let name = host_entry_name(host, port);
    let entries: Vec<Entry> = parse(text)
        .into_iter()
        .filter(|entry| hosts_match(&entry.hosts, &name))
        .collect();

    // A revoked key is refused whatever else the file says.
    if let Some(entry) = entries
        .iter()
        .find(|e| e.marker == Marker::Revoked && e.key.key_data() == key.key_data())
    {
        return HostKeyStatus::Revoked { line: entry.line };
    }
    let plain: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.marker == Marker::None)
        .collect();
    if let Some(entry) = plain.iter().find(|e| e.key.key_data() == key.key_data()) {
        return HostKeyStatus::Known { line: entry.line };
    }
    if let Some(entry) = plain.iter().find(|e| same_key_type(&e.key, key)) {
        return HostKeyStatus::Changed {
            line: entry.line,
            key_type: key_type_label(&entry.key),
        };
    }
    HostKeyStatus::Unknown
}

/// Appends a plain line recording `key` for `host:port` to the file at `path`, creating the file
/// (and its folder) when missing.
pub fn append(path: &Path, host: &str, port: u16, key: &PublicKey) -> Result<(), KnownHostsError> {
    let line = known_hosts_line(host, port, key)?;
    let write_err = |source| KnownHostsError::Write {
        path: path.to_owned(),
        source,
    };
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).map_err(write_err)?;
    }
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(write_err)?;
    let mut existing = Vec::new();
    file.read_to_end(&mut existing).map_err(write_err)?;
    let mut out = String::new();
    if !existing.is_empty() && !existing.ends_with(b"\n") {
        out.push('\n');
    }
    out.push_str(&line);
    out.push('\n');
    file.write_all(out.as_bytes()).map_err(write_err)?;
    file.flush().map_err(write_err)?;
    Ok(())
}

/// The key recorded on `line` (1-based) of the file at `path`, if that line holds one.
pub fn key_on_line(path: &Path, line: usize) -> Option<PublicKey> {
    let text = std::fs::read_to_string(path).ok()?;
    parse(&text)
        .into_iter()
        .find(|entry| entry.line == line)
        .map(|entry| entry.key)
}

/// What [`replace`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The line now holding the new key (1-based).
    pub line: usize,
    /// The fingerprints of the keys removed.
    pub removed: Vec<String>,
}

/// Replaces the key `known_hosts` holds for `host:port` with `key`: the lines recording that
/// host alone (plain or hashed) with a different key of the same type are removed, and a line
/// for `key` is added at the end. A line that also names other hosts or patterns is kept (the
/// new line, checked first for an exact key, then vouches for this host). Written to a temp file
/// beside it and renamed, so the file is never half-written.
pub fn replace(
    path: &Path,
    host: &str,
    port: u16,
    key: &PublicKey,
) -> Result<Replaced, KnownHostsError> {
    let read_err = |source| KnownHostsError::Read {
        path: path.to_owned(),
        source,
    };
    let write_err = |source| KnownHostsError::Write {
        path: path.to_owned(),
        source,
    };
    let text = std::fs::read_to_string(path).map_err(read_err)?;
    let name = host_entry_name(host, port);
    let entries = parse(&text);
    let mut stale: Vec<&Entry> = Vec::new();
    for entry in &entries {
        let alone = entry.hosts.starts_with("|1|")
            || entry.hosts.eq_ignore_ascii_case(&name)
            || (port == DEFAULT_SSH_PORT && entry.hosts.eq_ignore_ascii_case(host));
        if entry.marker == Marker::None
            && alone
            && hosts_match(&entry.hosts, &name)
            && same_key_type(&entry.key, key)
            && entry.key.key_data() != key.key_data()
        {
            stale.push(entry);
        }
    }
    let removed: Vec<String> = stale.iter().map(|e| fingerprint_sha256(&e.key)).collect();
    let mut kept: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(index, _)| !stale.iter().any(|e| e.line == index + 1))
        .map(|(_, line)| line)
        .collect();
    let new_line = known_hosts_line(host, port, key)?;
    kept.push(&new_line);
    let line = kept.len();
    let mut out = kept.join("\n");
    out.push('\n');
    let temp = path.with_extension("kaiport-new");
    std::fs::write(&temp, out).map_err(write_err)?;
    // The file keeps its mode (known_hosts may be 0600).
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&temp, meta.permissions());
    }
    std::fs::rename(&temp, path).map_err(write_err)?;
    Ok(Replaced { line, removed })
}

fn same_key_type(a: &PublicKey, b: &PublicKey) -> bool {
    // RSA keys compare as one type whatever signature hash the server negotiated.
    match (a.algorithm(), b.algorithm()) {
        (Algorithm::Rsa { .. }, Algorithm::Rsa { .. }) => true,
        (x, y) => x == y,
    }
}

fn parse(text: &str) -> Vec<Entry> {
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split_whitespace();
        let Some(mut first) = fields.next() else {
            continue;
        };
        let mut marker = Marker::None;
        if let Some(name) = first.strip_prefix('@') {
            marker = match name {
                "revoked" => Marker::Revoked,
                "cert-authority" => Marker::CertAuthority,
                _ => {
                    tracing::debug!(
                        line = index + 1,
                        "known_hosts: unknown marker, line skipped"
                    );
                    continue;
                }
            };
            let Some(next) = fields.next() else { continue };
            first = next;
        }
        let (Some(_key_type), Some(blob)) = (fields.next(), fields.next()) else {
            tracing::debug!(line = index + 1, "known_hosts: malformed line skipped");
            continue;
        };
        let Ok(key) = russh::keys::parse_public_key_base64(blob) else {
            tracing::debug!(
                line = index + 1,
                "known_hosts: unreadable key, line skipped"
            );
            continue;
        };
        entries.push(Entry {
            line: index + 1,
            marker,
            hosts: first.to_owned(),
            key,
        });
    }
    entries
}

/// Whether a host field (comma-separated patterns, or one hashed entry) matches `name`.
fn hosts_match(field: &str, name: &str) -> bool {
    if let Some(hashed) = field.strip_prefix("|1|") {
        return hashed_match(hashed, name);
    }
    let mut matched = false;
    for pattern in field.split(',') {
        if let Some(negated) = pattern.strip_prefix('!') {
            if wildcard_match(&negated.to_ascii_lowercase(), &name.to_ascii_lowercase()) {
                return false;
            }
        } else if wildcard_match(&pattern.to_ascii_lowercase(), &name.to_ascii_lowercase()) {
            matched = true;
        }
    }
    matched
}

fn hashed_match(salt_and_hash: &str, name: &str) -> bool {
    let Some((salt, hash)) = salt_and_hash.split_once('|') else {
        return false;
    };
    let (Ok(salt), Ok(hash)) = (
        BASE64.decode(salt.as_bytes()),
        BASE64.decode(hash.as_bytes()),
    ) else {
        return false;
    };
    let Ok(mut mac) = <Hmac<Sha1> as KeyInit>::new_from_slice(&salt) else {
        return false;
    };
    mac.update(name.as_bytes());
    mac.verify_slice(&hash).is_ok()
}

/// `*` matches any run of characters, `?` exactly one; everything else literally.
pub(crate) fn wildcard_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == '?' || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Builds a hashed host field `|1|salt|hash` for `name` with the given salt (tests and tools).
pub fn hashed_host_field(salt: &[u8], name: &str) -> Option<String> {
    let mut mac = <Hmac<Sha1> as KeyInit>::new_from_slice(salt).ok()?;
    mac.update(name.as_bytes());
    let hash = mac.finalize().into_bytes();
    Some(format!(
        "|1|{}|{}",
        BASE64.encode(salt),
        BASE64.encode(&hash)
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    // Throwaway public keys made with ssh-keygen.
    const ED_A: &str = "AAAAC3NzaC1lZDI1NTE5AAAAIJdD7y3aLq454yWBdwLWbieU1ebz9/cu7/QEXn9OIeZJ";
    const ED_B: &str = "AAAAC3NzaC1lZDI1NTE5AAAAIFBHe+GKvB6LRuNgWg7wORV/tqgqytzcLytb31uJfAEr";
    const ECDSA: &str = "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBJSscY+Wb6dkG06PNdYtQhuQxvUc6TnY1TVj2Cq3gsr16MfUcDOMAizSGuNkbpHQFIE3IsCxfnsfMCiHaWAejWc=";

    fn key(b64: &str) -> PublicKey {
        russh::keys::parse_public_key_base64(b64).unwrap()
    }

    #[test]
    fn plain_entry_on_default_port_is_known() {
        let text = format!("# comment\n\nexample.org,10.0.0.1 ssh-ed25519 {ED_A}\n");
        assert_eq!(
            check_text(&text, "example.org", 22, &key(ED_A)),
            HostKeyStatus::Known { line: 3 }
        );
        assert_eq!(
            check_text(&text, "10.0.0.1", 22, &key(ED_A)),
            HostKeyStatus::Known { line: 3 }
        );
        assert_eq!(
            check_text(&text, "other.org", 22, &key(ED_A)),
            HostKeyStatus::Unknown
        );
    }

    #[test]
    fn non_default_port_needs_bracketed_entry() {
        let text =
            format!("example.org ssh-ed25519 {ED_A}\n[example.org]:2222 ssh-ed25519 {ED_B}\n");
        assert_eq!(
            check_text(&text, "example.org", 2222, &key(ED_B)),
            HostKeyStatus::Known { line: 2 }
        );
        // The port-22 entry does not vouch for port 2222, but the bracketed one has another key.
        assert_eq!(
            check_text(&text, "example.org", 2222, &key(ED_A)),
            HostKeyStatus::Changed {
                line: 2,
                key_type: "ED25519".into()
            }
        );
        assert_eq!(
            check_text(&text, "example.org", 2200, &key(ED_A)),
            HostKeyStatus::Unknown
        );
    }

    #[test]
    fn replace_removes_only_the_changed_line_and_adds_the_new_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("known_hosts");
        let text = format!(
            "# kept\nother ssh-ed25519 {ED_B}\n[h]:2222 ssh-ed25519 {ED_B}\n[h]:2222 ecdsa-sha2-nistp256 {ECDSA}\nh,g ssh-ed25519 {ED_B}\n"
        );
        std::fs::write(&path, &text).unwrap();
        assert_eq!(
            check(&path, "h", 2222, &key(ED_A)).unwrap(),
            HostKeyStatus::Changed {
                line: 3,
                key_type: "ED25519".into()
            }
        );
        assert_eq!(
            fingerprint_sha256(&key_on_line(&path, 3).unwrap()),
            fingerprint_sha256(&key(ED_B))
        );
        let replaced = replace(&path, "h", 2222, &key(ED_A)).unwrap();
        assert_eq!(replaced.removed, vec![fingerprint_sha256(&key(ED_B))]);
        let after = std::fs::read_to_string(&path).unwrap();
        assert_eq!(replaced.line, 5);
        assert_eq!(
            after,
            format!(
                "# kept\nother ssh-ed25519 {ED_B}\n[h]:2222 ecdsa-sha2-nistp256 {ECDSA}\nh,g ssh-ed25519 {ED_B}\n[h]:2222 ssh-ed25519 {ED_A}\n"
            )
        );
        assert_eq!(
            check(&path, "h", 2222, &key(ED_A)).unwrap(),
            HostKeyStatus::Known { line: 5 }
        );
    }

    #[test]
    fn changed_key_names_the_line() {
        let text = format!("a ssh-ed25519 {ED_B}\nhost1 ssh-ed25519 {ED_B}\n");
        assert_eq!(
            check_text(&text, "host1", 22, &key(ED_A)),
            HostKeyStatus::Changed {
                line: 2,
                key_type: "ED25519".into()
            }
        );
    }

    #[test]
    fn other_key_type_is_unknown_not_changed() {
        let text = format!("host1 ecdsa-sha2-nistp256 {ECDSA}\n");
        assert_eq!(
            check_text(&text, "host1", 22, &key(ED_A)),
            HostKeyStatus::Unknown
        );
        assert_eq!(
            check_text(&text, "host1", 22, &key(ECDSA)),
            HostKeyStatus::Known { line: 1 }
        );
    }

    #[test]
    fn hashed_entries_match() {
        let field = hashed_host_field(b"0123456789abcdefghij", "[127.0.0.1]:2222").unwrap();
        let text = format!("{field} ssh-ed25519 {ED_A}\n");
        assert_eq!(
            check_text(&text, "127.0.0.1", 2222, &key(ED_A)),
            HostKeyStatus::Known { line: 1 }
        );
        assert_eq!(
            check_text(&text, "127.0.0.1", 22, &key(ED_A)),
            HostKeyStatus::Unknown
        );
        assert_eq!(
            check_text(&text, "127.0.0.1", 2222, &key(ED_B)),
            HostKeyStatus::Changed {
                line: 1,
                key_type: "ED25519".into()
            }
        );
    }

    #[test]
    fn openssh_hashed_entry_matches() {
        // Made with `ssh-keygen -H` from a plain `[127.0.0.1]:2222` line.
        let text = format!(
            "|1|PhywoJTRii7I4bcG/0sHTFMD7P8=|SkxH5p5gAEujCL9KK6+xILJdzNE= ssh-ed25519 {ED_A}\n"
        );
        assert_eq!(
            check_text(&text, "127.0.0.1", 2222, &key(ED_A)),
            HostKeyStatus::Known { line: 1 }
        );
        assert_eq!(
            check_text(&text, "127.0.0.2", 2222, &key(ED_A)),
            HostKeyStatus::Unknown
        );
    }

    #[test]
    fn revoked_key_is_refused_even_if_also_trusted() {
        let text = format!("host1 ssh-ed25519 {ED_A}\n@revoked * ssh-ed25519 {ED_A}\n");
        assert_eq!(
            check_text(&text, "host1", 22, &key(ED_A)),
            HostKeyStatus::Revoked { line: 2 }
        );
    }

    #[test]
    fn cert_authority_lines_do_not_vouch() {
        let text = format!("@cert-authority *.example.org ssh-ed25519 {ED_A}\n");
        assert_eq!(
            check_text(&text, "h.example.org", 22, &key(ED_A)),
            HostKeyStatus::Unknown
        );
    }

    #[test]
    fn wildcards_and_negation() {
        let text = format!("*.example.org,!bad.example.org ssh-ed25519 {ED_A}\n");
        assert_eq!(
            check_text(&text, "w.example.org", 22, &key(ED_A)),
            HostKeyStatus::Known { line: 1 }
        );
        assert_eq!(
            check_text(&text, "bad.example.org", 22, &key(ED_A)),
            HostKeyStatus::Unknown
        );
        assert!(wildcard_match("h?st*", "host-1"));
        assert!(!wildcard_match("h?st", "hoost"));
    }

    #[test]
    fn malformed_lines_are_skipped() {
        let text = format!(
            "garbage\nhost1 ssh-ed25519 not-base64!\n@weird host1 ssh-ed25519 {ED_B}\nhost1 ssh-ed25519 {ED_A}\n"
        );
        assert_eq!(
            check_text(&text, "host1", 22, &key(ED_A)),
            HostKeyStatus::Known { line: 4 }
        );
    }

    #[test]
    fn append_adds_a_line_that_checks_as_known() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("known_hosts");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("other ssh-ed25519 {ED_B}")).unwrap();
        append(&path, "127.0.0.1", 2222, &key(ED_A)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            format!("other ssh-ed25519 {ED_B}\n[127.0.0.1]:2222 ssh-ed25519 {ED_A}\n")
        );
        assert_eq!(
            check(&path, "127.0.0.1", 2222, &key(ED_A)).unwrap(),
            HostKeyStatus::Known { line: 2 }
        );
    }

    #[test]
    fn missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            check(&dir.path().join("nope"), "h", 22, &key(ED_A)).unwrap(),
            HostKeyStatus::Unknown
        );
    }

    #[test]
    fn fingerprint_is_openssh_style() {
        assert!(fingerprint_sha256(&key(ED_A)).starts_with("SHA256:"));
        assert_eq!(key_type_label(&key(ECDSA)), "ECDSA");
    }
}
