//! Parsing what a user types to name an SSH server: `ssh://user@host:port`, `user@host`,
//! `user@host:port`, `host`, with IPv6 literals in brackets (`[::1]:2222`). Also the hop syntax of
//! OpenSSH's `ProxyJump` (`user@host:port`, comma-separated).
//!
//! Parsing only: nothing here resolves names or connects.

use crate::ssh::{DEFAULT_PORT, SshTarget};

/// Why a destination could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DestinationError {
    #[error(
        "{input:?} is not an SSH destination: {reason}. Use user@host, user@host:port or ssh://user@host:port."
    )]
    Invalid { input: String, reason: &'static str },
    #[error(
        "no user name in {input:?} and none could be found for the current account. Write it as user@host."
    )]
    NoUser { input: String },
}

/// The parts of a destination; `user` and `port` only when given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    pub user: Option<String>,
    pub host: String,
    pub port: Option<u16>,
}

/// Parses `ssh://user@host:port`, `user@host[:port]`, `host[:port]`, `[v6]:port`.
pub fn parse_destination(input: &str) -> Result<Destination, DestinationError> {
    let invalid = |reason| DestinationError::Invalid {
        input: input.to_owned(),
        reason,
    };
    let trimmed = input.trim();
    let rest = match trimmed.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("ssh") => rest.trim_end_matches('/'),
        Some(_) => return Err(invalid("only ssh:// URLs are supported")),
        None => trimmed,
    };
    if rest.contains('/') {
        return Err(invalid("a path is not allowed"));
    }
    let (user, hostport) = match rest.rsplit_once('@') {
        Some((user, hostport)) => {
            // ssh://user;fingerprint=…@host (RFC draft) — ignore connection parameters.
            let user = user.split(';').next().unwrap_or(user);
            let user =
                percent_decode(user).ok_or_else(|| invalid("bad %-escape in the user name"))?;
            if user.is_empty() {
                return Err(invalid("the user name is empty"));
            }
            (Some(user), hostport)
        }
        None => (None, rest),
    };
    let (host, port) = if let Some(after) = hostport.strip_prefix('[') {
        let Some((host, tail)) = after.split_once(']') else {
            return Err(invalid("missing ] after an IPv6 address"));
        };
        let port = match tail {
            "" => None,
            t => Some(
                parse_port(
                    t.strip_prefix(':')
                        .ok_or_else(|| invalid("expected :port after ]"))?,
                )
                .ok_or_else(|| invalid("the port must be a number from 1 to 65535"))?,
            ),
        };
        (host.to_owned(), port)
    } else if hostport.matches(':').count() > 1 {
        // A bare IPv6 address without port.
        (hostport.to_owned(), None)
    } else if let Some((host, port)) = hostport.split_once(':') {
        let port =
            parse_port(port).ok_or_else(|| invalid("the port must be a number from 1 to 65535"))?;
        (host.to_owned(), Some(port))
    } else {
        (hostport.to_owned(), None)
    };
    if host.is_empty() {
        return Err(invalid("the host is empty"));
    }
    if host.chars().any(|c| c.is_whitespace() || c == '@') {
        return Err(invalid("the host contains a space or @"));
    }
    Ok(Destination { user, host, port })
}

/// Parses a destination into an [`SshTarget`], with port 22 and the current account's user name
/// (`$USER` / `$USERNAME`) when not given.
pub fn parse_ssh_target(input: &str) -> Result<SshTarget, DestinationError> {
    let destination = parse_destination(input)?;
    let user = match destination.user {
        Some(user) => user,
        None => current_user().ok_or_else(|| DestinationError::NoUser {
            input: input.to_owned(),
        })?,
    };
    Ok(SshTarget::new(
        destination.host,
        destination.port.unwrap_or(DEFAULT_PORT),
        user,
    ))
}

/// The local account's user name, as OpenSSH would use it by default.
pub fn current_user() -> Option<String> {
    ["USER", "USERNAME", "LOGNAME"]
        .iter()
        .filter_map(|var| std::env::var(var).ok())
        .find(|name| !name.is_empty())
}

fn parse_port(text: &str) -> Option<u16> {
    text.parse::<u16>().ok().filter(|&p| p != 0)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn d(user: Option<&str>, host: &str, port: Option<u16>) -> Destination {
        Destination {
            user: user.map(str::to_owned),
            host: host.to_owned(),
            port,
        }
    }

    #[test]
    fn forms() {
        assert_eq!(
            parse_destination("ssh://alice@example.org:2222").unwrap(),
            d(Some("alice"), "example.org", Some(2222))
        );
        assert_eq!(
            parse_destination("ssh://alice@example.org/").unwrap(),
            d(Some("alice"), "example.org", None)
        );
        assert_eq!(
            parse_destination("alice@example.org").unwrap(),
            d(Some("alice"), "example.org", None)
        );
        assert_eq!(
            parse_destination("alice@10.0.0.5:22").unwrap(),
            d(Some("alice"), "10.0.0.5", Some(22))
        );
        assert_eq!(
            parse_destination("example.org").unwrap(),
            d(None, "example.org", None)
        );
        assert_eq!(
            parse_destination("bob@[::1]:2200").unwrap(),
            d(Some("bob"), "::1", Some(2200))
        );
        assert_eq!(
            parse_destination("fe80::1").unwrap(),
            d(None, "fe80::1", None)
        );
        assert_eq!(
            parse_destination("ssh://a%40b@h").unwrap(),
            d(Some("a@b"), "h", None)
        );
        assert_eq!(
            parse_destination("SSH://u;fingerprint=x@h:1").unwrap(),
            d(Some("u"), "h", Some(1))
        );
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(
            parse_destination("http://h").unwrap_err().to_string(),
            "\"http://h\" is not an SSH destination: only ssh:// URLs are supported. Use user@host, user@host:port or ssh://user@host:port."
        );
        assert!(parse_destination("u@h:0").is_err());
        assert!(parse_destination("u@h:99999").is_err());
        assert!(parse_destination("u@").is_err());
        assert!(parse_destination("@h").is_err());
        assert!(parse_destination("ssh://u@h/path").is_err());
        assert!(parse_destination("[::1").is_err());
    }

    #[test]
    fn target_defaults() {
        let t = parse_ssh_target("ssh://carol@host.example:2022").unwrap();
        assert_eq!(t, SshTarget::new("host.example", 2022, "carol"));
        assert_eq!(parse_ssh_target("dave@h").unwrap().port, 22);
    }
}
