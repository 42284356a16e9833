//! updates: the upgradable packages as the package manager's cache knows them, **never
//! refreshing the lists** (no `apt update`, dnf only from its cache with `-C`, `pacman -Qu` on
//! the local database). apt marks security updates by their suite; they lead the summary.

use super::text::{Summary, clean_line};
use super::{Built, Runner};
use kaiport_protocol::{PackageManager, UpdateRow, UpdatesView, ViewData};

const APT: &str = "apt list --upgradable";
const DNF: &str = "dnf -C -q check-update";
const APK: &str = "apk list -u";
const PACMAN: &str = "pacman -Qu";
/// dnf check-update's status when there are updates.
const DNF_HAS_UPDATES: u32 = 100;

pub(super) async fn build(runner: &Runner<'_>) -> Built {
    let commands = [APT, DNF, APK, PACMAN].map(str::to_owned);
    let ran = runner.run_all(&commands).await;
    let found = [
        (PackageManager::Apt, &ran[0]),
        (PackageManager::Dnf, &ran[1]),
        (PackageManager::Apk, &ran[2]),
        (PackageManager::Pacman, &ran[3]),
    ]
    .into_iter()
    .find(|(_, out)| !out.missing());
    let Some((manager, out)) = found else {
        return Built::unavailable("no apt, dnf, apk or pacman");
    };
    // pacman -Qu exits 1 when nothing is upgradable.
    let fine = out.ok()
        || (manager == PackageManager::Dnf && out.exit == Some(DNF_HAS_UPDATES))
        || (manager == PackageManager::Pacman && out.exit == Some(1) && out.stdout.is_empty());
    if !fine {
        runner.gap(out.gap("the list of updates"));
    }
    let mut updates = match manager {
        PackageManager::Apt => parse_apt(&out.stdout),
        PackageManager::Dnf => parse_dnf(&out.stdout),
        PackageManager::Apk => parse_apk(&out.stdout),
        PackageManager::Pacman => parse_pacman(&out.stdout),
    };
    updates.sort_by(|a, b| (!a.security, &a.package).cmp(&(!b.security, &b.package)));
    let summary = summarise(manager, &updates);
    Built::new(ViewData::Updates(UpdatesView { manager, updates }), summary)
}

/// `name/suite1,suite2 version arch [upgradable from: old]`.
pub(super) fn parse_apt(output: &str) -> Vec<UpdateRow> {
    output
        .lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once('/')?;
            let mut words = rest.split_whitespace();
            let suites = words.next()?;
            let version = words.next()?;
            let installed = line
                .split_once("[upgradable from: ")
                .and_then(|(_, old)| old.strip_suffix(']'))
                .map(clean_line);
            Some(UpdateRow {
                package: clean_line(name),
                version: clean_line(version),
                installed,
                source: Some(clean_line(suites)),
                security: suites.split(',').any(|suite| suite.contains("security")),
            })
        })
        .collect()
}

/// `name.arch  version  repo` rows until the "Obsoleting Packages" section.
fn parse_dnf(output: &str) -> Vec<UpdateRow> {
    output
        .lines()
        .take_while(|line| !line.starts_with("Obsoleting"))
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let [name, version, repo] = words.as_slice() else {
                return None;
            };
            if line.starts_with("Last metadata") {
                return None;
            }
            Some(UpdateRow {
                package: clean_line(name),
                version: clean_line(version),
                installed: None,
                source: Some(clean_line(repo)),
                security: repo.contains("security"),
            })
        })
        .collect()
}

/// `name-1.2-r0 x86_64 {origin} (license) [upgradable from: name-1.1-r0]`.
fn parse_apk(output: &str) -> Vec<UpdateRow> {
    output
        .lines()
        .filter(|line| line.contains("[upgradable from:"))
        .filter_map(|line| {
            let full = line.split_whitespace().next()?;
            // The version starts at the second-last '-' (name-version-release).
            let mut dashes = full.rmatch_indices('-').map(|(at, _)| at);
            let at = dashes.nth(1)?;
            Some(UpdateRow {
                package: clean_line(&full[..at]),
                version: clean_line(&full[at + 1..]),
                installed: line
                    .split_once("[upgradable from: ")
                    .and_then(|(_, old)| old.strip_suffix(']'))
                    .map(clean_line),
                source: None,
                security: false,
            })
        })
        .collect()
}

/// `name old -> new`.
fn parse_pacman(output: &str) -> Vec<UpdateRow> {
    output
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let [name, old, "->", new, ..] = words.as_slice() else {
                return None;
            };
            Some(UpdateRow {
                package: clean_line(name),
                version: clean_line(new),
                installed: Some(clean_line(old)),
                source: None,
                security: false,
            })
        })
        .collect()
}

fn summarise(manager: PackageManager, updates: &[UpdateRow]) -> Summary {
    let mut summary = Summary::default();
    let security: Vec<&UpdateRow> = updates.iter().filter(|u| u.security).collect();
    let name = match manager {
        PackageManager::Apt => "apt",
        PackageManager::Dnf => "dnf",
        PackageManager::Apk => "apk",
        PackageManager::Pacman => "pacman",
    };
    summary.line(format!(
        "{name}: {} upgradable packages, {} security updates (from the cached package lists; not refreshed)",
        updates.len(),
        security.len()
    ));
    let row = |u: &UpdateRow| {
        format!(
            "  {} {}{}",
            u.package,
            u.installed
                .as_deref()
                .map(|old| format!("{old} -> "))
                .unwrap_or_default(),
            u.version
        )
    };
    if !security.is_empty() {
        summary.line("Security:");
        security.iter().for_each(|u| summary.line(row(u)));
    }
    summary.line("Others:");
    updates
        .iter()
        .filter(|u| !u.security)
        .for_each(|u| summary.line(row(u)));
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn package_lists_parse() {
        let apt = "Listing...\nlibssl3/stable-security,stable 3.0.19-1 amd64 [upgradable from: 3.0.17-1]\nvim/stable 2:9.0 amd64 [upgradable from: 2:8.2]\n";
        let rows = parse_apt(apt);
        assert_eq!(rows.len(), 2);
        assert!(rows[0].security);
        assert_eq!(rows[0].installed.as_deref(), Some("3.0.17-1"));
        assert!(!rows[1].security);
        assert_eq!(parse_pacman("linux 6.1-1 -> 6.2-1\n")[0].version, "6.2-1");
        assert_eq!(parse_dnf("Last metadata expiration check: 0:01:00 ago on x.\n\nkernel.x86_64  5.14.0-1  baseos\n").len(), 1);
        let apk = parse_apk("musl-1.2.4-r3 x86_64 {musl} (MIT) [upgradable from: musl-1.2.4-r2]\n");
        assert_eq!(
            (apk[0].package.as_str(), apk[0].version.as_str()),
            ("musl", "1.2.4-r3")
        );
        let text = summarise(PackageManager::Apt, &rows).finish();
        assert!(
            text.contains("2 upgradable packages, 1 security updates"),
            "{text}"
        );
    }
}
