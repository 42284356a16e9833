//! The OpenSSH spellings of a forward: `-L [bind:]port:host:hostport`, `-R …` the same,
//! `-D [bind:]port`, and the `LocalForward` / `RemoteForward` / `DynamicForward` lines of an SSH
//! config (`[bind:]port host:hostport`). IPv6 addresses go in brackets (`[::1]:8080`).

use kaiport_protocol::{ForwardKind, ForwardSpec};

/// A forward that does not parse; the message says what is wrong and how it should look.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("forward {given:?}: {why}")]
pub struct SpecError {
    pub given: String,
    pub why: String,
}

/// Parses the argument of `-L`, `-R` or `-D`.
pub fn parse(kind: ForwardKind, text: &str) -> Result<ForwardSpec, SpecError> {
    let fail = |why: &str| SpecError {
        given: text.to_owned(),
        why: why.to_owned(),
    };
    let parts = split_colons(text).ok_or_else(|| fail("an unclosed [ around an address"))?;
    let port = |part: &str, what: &str| -> Result<u16, SpecError> {
        part.parse::<u16>().map_err(|_| {
            fail(&format!(
                "{what} {part:?} is not a port number (0 to 65535)"
            ))
        })
    };
    let spec = match kind {
        ForwardKind::Dynamic => {
            let (bind, listen) = match parts.as_slice() {
                [listen] => (None, listen),
                [bind, listen] => (Some(bind.clone()), listen),
                _ => return Err(fail("takes [BIND_ADDRESS:]PORT")),
            };
            ForwardSpec {
                kind,
                bind_address: bind.filter(|b| !b.is_empty()),
                listen_port: port(listen, "the port")?,
                to_host: None,
                to_port: None,
            }
        }
        ForwardKind::Local | ForwardKind::Remote => {
            let (bind, listen, host, to) = match parts.as_slice() {
                [listen, host, to] => (None, listen, host, to),
                [bind, listen, host, to] => (Some(bind.clone()), listen, host, to),
                _ => return Err(fail("takes [BIND_ADDRESS:]PORT:HOST:HOSTPORT")),
            };
            if host.is_empty() {
                return Err(fail("the destination host is empty"));
            }
            ForwardSpec {
                kind,
                bind_address: bind.filter(|b| !b.is_empty()),
                listen_port: port(listen, "the port")?,
                to_host: Some(host.clone()),
                to_port: Some(port(to, "the destination port")?),
            }
        }
    };
    if spec.kind != ForwardKind::Remote && spec.listen_port == 0 {
        return Err(fail("a local listener needs a port other than 0"));
    }
    Ok(spec)
}

/// Parses a forward with its flag, as a command line gives it: `-L 8080:localhost:80`,
/// `-R9000:localhost:3000`, `-D 1080`.
pub fn parse_flagged(text: &str) -> Result<ForwardSpec, SpecError> {
    let text = text.trim();
    let kind = match text.get(..2) {
        Some("-L") => ForwardKind::Local,
        Some("-R") => ForwardKind::Remote,
        Some("-D") => ForwardKind::Dynamic,
        _ => {
            return Err(SpecError {
                given: text.to_owned(),
                why: "starts with -L, -R or -D, e.g. `-L 8080:localhost:80`".to_owned(),
            });
        }
    };
    parse(kind, text[2..].trim_start())
}

/// Parses the arguments of an SSH config's `LocalForward`, `RemoteForward` (two words, or one
/// with a colon-joined destination) or `DynamicForward` line.
pub fn parse_config(kind: ForwardKind, args: &[String]) -> Result<ForwardSpec, SpecError> {
    parse(kind, &args.join(":"))
}

/// The forward as `-L`/`-R`/`-D` would take it, e.g. `-L 127.0.0.1:8080:localhost:80`.
pub fn describe(spec: &ForwardSpec) -> String {
    let flag = match spec.kind {
        ForwardKind::Local => "-L",
        ForwardKind::Remote => "-R",
        ForwardKind::Dynamic => "-D",
    };
    let mut text = format!("{flag} ");
    if let Some(bind) = &spec.bind_address {
        text.push_str(&bracketed(bind));
        text.push(':');
    }
    text.push_str(&spec.listen_port.to_string());
    if let (Some(host), Some(port)) = (&spec.to_host, spec.to_port) {
        text.push_str(&format!(":{}:{port}", bracketed(host)));
    }
    text
}

/// `host:port` as a socket address is written (IPv6 in brackets).
pub fn host_port(host: &str, port: u16) -> String {
    format!("{}:{port}", bracketed(host))
}

fn bracketed(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    }
}

/// Splits on `:` outside brackets, dropping the brackets; `None` for an unclosed one.
fn split_colons(text: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut in_brackets = false;
    for c in text.chars() {
        match c {
            '[' if !in_brackets => in_brackets = true,
            ']' if in_brackets => in_brackets = false,
            ':' if !in_brackets => parts.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    if in_brackets {
        return None;
    }
    parts.push(current);
    Some(parts)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn spec(
        kind: ForwardKind,
        bind: Option<&str>,
        port: u16,
        to: Option<(&str, u16)>,
    ) -> ForwardSpec {
        ForwardSpec {
            kind,
            bind_address: bind.map(str::to_owned),
            listen_port: port,
            to_host: to.map(|(host, _)| host.to_owned()),
            to_port: to.map(|(_, port)| port),
        }
    }

    #[test]
    fn openssh_spellings() {
        use ForwardKind::*;
        assert_eq!(
            parse(Local, "8080:localhost:80").unwrap(),
            spec(Local, None, 8080, Some(("localhost", 80)))
        );
        assert_eq!(
            parse(Local, "0.0.0.0:8080:10.0.0.5:80").unwrap(),
            spec(Local, Some("0.0.0.0"), 8080, Some(("10.0.0.5", 80)))
        );
        assert_eq!(
            parse(Remote, "[::1]:9000:[fe80::1]:22").unwrap(),
            spec(Remote, Some("::1"), 9000, Some(("fe80::1", 22)))
        );
        assert_eq!(parse(Remote, "0:localhost:22").unwrap().listen_port, 0);
        assert_eq!(
            parse(Dynamic, "1080").unwrap(),
            spec(Dynamic, None, 1080, None)
        );
        assert_eq!(
            parse(Dynamic, "127.0.0.2:1080").unwrap(),
            spec(Dynamic, Some("127.0.0.2"), 1080, None)
        );
        assert_eq!(
            parse_config(Local, &["8080".into(), "db:5432".into()]).unwrap(),
            spec(Local, None, 8080, Some(("db", 5432)))
        );
        let round = parse(Remote, "[::1]:9000:[fe80::1]:22").unwrap();
        assert_eq!(describe(&round), "-R [::1]:9000:[fe80::1]:22");
        assert_eq!(parse(Remote, &describe(&round)[3..]).unwrap(), round);
        assert_eq!(parse_flagged(&describe(&round)).unwrap(), round);
        assert_eq!(
            parse_flagged(" -L8080:localhost:80").unwrap(),
            spec(Local, None, 8080, Some(("localhost", 80)))
        );
        assert_eq!(
            parse_flagged("-D 1080").unwrap(),
            spec(Dynamic, None, 1080, None)
        );
    }

    #[test]
    fn mistakes_say_what_is_wrong() {
        use ForwardKind::*;
        let why = |kind, text| parse(kind, text).unwrap_err().to_string();
        assert!(why(Local, "8080").contains("[BIND_ADDRESS:]PORT:HOST:HOSTPORT"));
        assert!(why(Local, "http:localhost:80").contains("\"http\" is not a port"));
        assert!(why(Local, "8080:localhost:99999").contains("destination port"));
        assert!(why(Dynamic, "a:b:c").contains("[BIND_ADDRESS:]PORT"));
        assert!(why(Local, "0:localhost:80").contains("other than 0"));
        assert!(why(Local, "[::1:8080:h:1").contains("unclosed"));
        assert!(
            parse_flagged("8080:localhost:80")
                .unwrap_err()
                .why
                .contains("-L, -R or -D")
        );
    }
}
