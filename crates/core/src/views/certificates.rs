//! certificates: subject, names, issuer and validity of X.509 certificates read with `openssl
//! x509` on the server: the files under a path the call names (a file, or a folder two levels
//! deep), or else `/etc/letsencrypt/live/*/cert.pem` and the `ssl_certificate` files nginx's
//! configuration names. Expired and soon-expiring certificates lead the summary.

use super::text::{Summary, clean_line, quote};
use super::{Built, Runner, websites};
use chrono::{DateTime, NaiveDateTime, Utc};
use kaiport_protocol::{CERTIFICATE_WARNING_DAYS, CertificateRow, CertificatesView, ViewData};

/// Most files one view reads.
const MAX_FILES: usize = 40;

pub(super) async fn build(runner: &Runner<'_>, path: Option<&str>) -> Built {
    let list = match path {
        Some(path) => format!(
            "find -L {} -maxdepth 2 -type f -size -256k 2>&1",
            quote(path)
        ),
        None => {
            let named = match websites::read_config(runner).await {
                Some(config) => websites::parse_nginx(&config.text)
                    .into_iter()
                    .filter_map(|site| site.certificate)
                    .collect::<Vec<_>>(),
                None => Vec::new(),
            };
            let mut list =
                "{ find -L /etc/letsencrypt/live -maxdepth 2 -name cert.pem 2>/dev/null".to_owned();
            if !named.is_empty() {
                let words: Vec<String> = named.iter().map(|name| quote(name)).collect();
                list.push_str(&format!("; printf '%s\\n' {}", words.join(" ")));
            }
            list.push_str("; } | sort -u");
            list
        }
    };
    let command = format!(
        "{list} | head -n {MAX_FILES} | while IFS= read -r f; do printf '\\001%s\\002\\n' \"$f\"; \
         openssl x509 -noout -subject -issuer -startdate -enddate -ext subjectAltName -nameopt RFC2253 -in \"$f\" 2>&1; done"
    );
    let ran = runner.run(&command).await;
    if ran.stdout.contains("openssl: not found")
        || ran.stdout.contains("openssl: command not found")
    {
        return Built::unavailable("there is no `openssl` command");
    }
    if !ran.ok() {
        runner.gap(ran.gap("some certificates"));
    }
    let now = Utc::now();
    let mut skipped = Vec::new();
    let mut certificates = Vec::new();
    for (file, output) in split_files(&ran.stdout) {
        match parse_x509(&file, &output, now) {
            Some(row) => certificates.push(row),
            None => skipped.push((file, output)),
        }
    }
    // `find` on a path that does not exist or cannot be read prints its error as the list.
    for line in ran
        .stdout
        .lines()
        .take_while(|line| !line.starts_with('\u{1}'))
    {
        if line.contains("find:") {
            skipped.push((String::new(), line.to_owned()));
        }
    }
    certificates.sort_by(|a, b| {
        a.days_left
            .cmp(&b.days_left)
            .then_with(|| a.path.cmp(&b.path))
    });
    let mut summary = summarise(&certificates);
    let unreadable: Vec<String> = skipped
        .iter()
        .filter(|(_, output)| output.to_lowercase().contains("permission denied"))
        .map(|(file, _)| clean_line(file))
        .collect();
    if !unreadable.is_empty() || ran.stdout.contains("Permission denied") {
        runner.gap(kaiport_protocol::ViewGap {
            what: "certificates the login user may not read".to_owned(),
            reason: kaiport_protocol::GapReason::Permission,
            detail: first_error(&ran.stdout),
        });
    }
    let not_certificates = skipped.len() - unreadable.len();
    if not_certificates > 0 {
        summary.line(format!(
            "{not_certificates} files are not certificates (keys, other files) or could not be found"
        ));
    }
    Built::new(
        ViewData::Certificates(CertificatesView { certificates }),
        summary,
    )
}

fn first_error(output: &str) -> String {
    output
        .lines()
        .find(|line| line.contains("Permission denied"))
        .map(clean_line)
        .unwrap_or_default()
}

fn split_files(output: &str) -> Vec<(String, String)> {
    output
        .split('\u{1}')
        .skip(1)
        .filter_map(|part| {
            let (name, rest) = part.split_once("\u{2}\n")?;
            Some((name.to_owned(), rest.to_owned()))
        })
        .collect()
}

/// One file's `openssl x509 -noout -subject -issuer -startdate -enddate -ext subjectAltName`.
pub(super) fn parse_x509(path: &str, output: &str, now: DateTime<Utc>) -> Option<CertificateRow> {
    let mut subject = None;
    let mut issuer = None;
    let mut not_before = None;
    let mut not_after = None;
    let mut names = Vec::new();
    let mut lines = output.lines();
    while let Some(line) = lines.next() {
        if let Some(value) = line.strip_prefix("subject=") {
            subject = Some(clean_line(value.trim()));
        } else if let Some(value) = line.strip_prefix("issuer=") {
            issuer = Some(clean_line(value.trim()));
        } else if let Some(value) = line.strip_prefix("notBefore=") {
            not_before = parse_time(value);
        } else if let Some(value) = line.strip_prefix("notAfter=") {
            not_after = parse_time(value);
        } else if line.contains("Subject Alternative Name")
            && let Some(list) = lines.next()
        {
            names = list
                .split(',')
                .map(|name| clean_line(name.trim()))
                .filter(|name| !name.is_empty())
                .collect();
        }
    }
    let not_after = not_after?;
    let days_left = (not_after - now).num_days();
    Some(CertificateRow {
        path: clean_line(path),
        subject: subject?,
        issuer: issuer.unwrap_or_default(),
        names,
        not_before: not_before
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_default(),
        not_after: not_after.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        days_left,
        expired: not_after <= now,
    })
}

/// `Jan  2 10:52:00 2027 GMT`, as openssl prints validity dates.
fn parse_time(value: &str) -> Option<DateTime<Utc>> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let text = words.join(" ");
    NaiveDateTime::parse_from_str(&text, "%b %d %H:%M:%S %Y GMT")
        .ok()
        .map(|t| t.and_utc())
}

fn summarise(certificates: &[CertificateRow]) -> Summary {
    let mut summary = Summary::default();
    let expired = certificates.iter().filter(|c| c.expired).count();
    let soon = certificates
        .iter()
        .filter(|c| !c.expired && c.days_left < CERTIFICATE_WARNING_DAYS)
        .count();
    for cert in certificates {
        let state = if cert.expired {
            format!("EXPIRED {} days ago", -cert.days_left)
        } else if cert.days_left < CERTIFICATE_WARNING_DAYS {
            format!("EXPIRES in {} days", cert.days_left)
        } else {
            continue;
        };
        summary.line(format!(
            "{state}: {} ({}) {}",
            cert.subject,
            cert.names.join(", "),
            cert.path
        ));
    }
    summary.line(format!(
        "{} certificates: {expired} expired, {soon} expiring within {CERTIFICATE_WARNING_DAYS} days",
        certificates.len()
    ));
    for cert in certificates
        .iter()
        .filter(|c| c.days_left >= CERTIFICATE_WARNING_DAYS)
    {
        summary.line(format!(
            "  {} days left: {} ({}) {}",
            cert.days_left,
            cert.subject,
            cert.names.join(", "),
            cert.path
        ));
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn openssl_output_becomes_a_row() {
        let output = "subject=CN=example.org\nissuer=CN=R3,O=Let's Encrypt,C=US\nnotBefore=Dec  1 00:00:00 2026 GMT\n\
                      notAfter=Dec  8 12:00:00 2026 GMT\nX509v3 Subject Alternative Name: \n    DNS:example.org, DNS:www.example.org\n";
        let now = NaiveDateTime::parse_from_str("2026-12-03 12:00:00", "%Y-%m-%d %H:%M:%S")
            .unwrap()
            .and_utc();
        let row = parse_x509("/etc/x/cert.pem", output, now).unwrap();
        assert_eq!(row.days_left, 5);
        assert!(!row.expired);
        assert_eq!(row.names, vec!["DNS:example.org", "DNS:www.example.org"]);
        assert_eq!(row.not_after, "2026-12-08T12:00:00Z");
        let text = summarise(&[row]).finish();
        assert!(
            text.starts_with("EXPIRES in 5 days: CN=example.org"),
            "{text}"
        );
        assert!(parse_x509("/k", "Could not read certificate from /k\n", now).is_none());
        assert_eq!(
            split_files("\u{1}/a b\u{2}\nsubject=x\n\u{1}/c\u{2}\n"),
            vec![
                ("/a b".into(), "subject=x\n".into()),
                ("/c".into(), String::new())
            ]
        );
    }
}
