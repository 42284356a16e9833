//! ports: listening TCP and UDP sockets from `ss -tulpnH`, public (any address but loopback)
//! versus loopback, with the owning program where the login user may see it (only root sees
//! other users' programs; the view says so).

use super::text::{Summary, clean_line};
use super::{Built, Runner};
use kaiport_protocol::{GapReason, PortRow, PortsView, Transport, ViewData, ViewGap};

const SS: &str = "ss -tulpnH";

pub(super) async fn build(runner: &Runner<'_>) -> Built {
    let ran = runner.run(SS).await;
    if ran.missing() {
        return Built::unavailable("there is no `ss` command (iproute2)");
    }
    if !ran.ok() {
        runner.gap(ran.gap("the socket list"));
    }
    let sockets = parse_ss(&ran.stdout);
    let hidden = sockets.iter().filter(|s| s.process.is_none()).count();
    let mut gaps = Vec::new();
    if hidden > 0 {
        gaps.push(ViewGap {
            what: format!("the programs behind {hidden} sockets"),
            reason: GapReason::Permission,
            detail: "ss shows only the login user's own programs to anyone but root".to_owned(),
        });
    }
    let summary = summarise(&sockets);
    Built {
        data: ViewData::Ports(PortsView { sockets }),
        summary,
        gaps,
    }
}

pub(super) fn parse_ss(output: &str) -> Vec<PortRow> {
    let mut rows: Vec<PortRow> = output
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let transport = match *fields.first()? {
                "tcp" => Transport::Tcp,
                "udp" => Transport::Udp,
                _ => return None,
            };
            let local = fields.get(4)?;
            let (address, port) = local.rsplit_once(':')?;
            let port: u16 = port.parse().ok()?;
            let users = fields
                .get(6..)
                .map(|rest| rest.join(" "))
                .unwrap_or_default();
            let (process, pid) = first_user(&users);
            Some(PortRow {
                transport,
                public: !is_loopback(address),
                address: clean_line(address),
                port,
                process,
                pid,
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        (b.public, a.port, a.address.as_str()).cmp(&(a.public, b.port, b.address.as_str()))
    });
    rows.dedup();
    rows
}

/// The first program of `users:(("name",pid=1,fd=3),…)`.
fn first_user(users: &str) -> (Option<String>, Option<u32>) {
    let Some(start) = users.find("((\"") else {
        return (None, None);
    };
    let rest = &users[start + 3..];
    let Some(end) = rest.find("\",pid=") else {
        return (None, None);
    };
    let name = clean_line(&rest[..end]);
    let pid = rest[end + 6..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|digits| digits.parse().ok());
    (Some(name), pid)
}

fn is_loopback(address: &str) -> bool {
    let bare = address.split('%').next().unwrap_or(address);
    let bare = bare.trim_start_matches('[').trim_end_matches(']');
    bare.starts_with("127.") || bare == "::1" || bare.starts_with("::ffff:127.")
}

fn summarise(sockets: &[PortRow]) -> Summary {
    let mut summary = Summary::default();
    let public: Vec<&PortRow> = sockets.iter().filter(|s| s.public).collect();
    summary.line(format!(
        "{} listening sockets: {} public, {} loopback only",
        sockets.len(),
        public.len(),
        sockets.len() - public.len()
    ));
    let row = |s: &PortRow| {
        format!(
            "  {} {}:{} {}",
            match s.transport {
                Transport::Tcp => "tcp",
                Transport::Udp => "udp",
            },
            s.address,
            s.port,
            s.process.as_deref().unwrap_or("(program hidden)")
        )
    };
    summary.line("Public:");
    public.iter().for_each(|s| summary.line(row(s)));
    summary.line("Loopback:");
    sockets
        .iter()
        .filter(|s| !s.public)
        .for_each(|s| summary.line(row(s)));
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn ss_lines_become_public_and_loopback_sockets() {
        let output = "udp   UNCONN 0      0      127.0.0.53%lo:53        0.0.0.0:*    users:((\"systemd-resolve\",pid=500,fd=13))\n\
                      tcp   LISTEN 0      128          0.0.0.0:22        0.0.0.0:*    users:((\"sshd\",pid=77,fd=3),(\"sshd\",pid=78,fd=3))\n\
                      tcp   LISTEN 0      511             [::]:80           [::]:*\n\
                      tcp   LISTEN 0      4096         [::1]:631          [::]:*\n";
        let rows = parse_ss(output);
        assert_eq!(
            rows.iter()
                .map(|r| (r.address.as_str(), r.port, r.public, r.pid))
                .collect::<Vec<_>>(),
            vec![
                ("0.0.0.0", 22, true, Some(77)),
                ("[::]", 80, true, None),
                ("127.0.0.53%lo", 53, false, Some(500)),
                ("[::1]", 631, false, None),
            ]
        );
        assert_eq!(rows[0].process.as_deref(), Some("sshd"));
    }
}
