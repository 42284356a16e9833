//! Package managers: apt, apt-get, apt-cache, apt-mark, aptitude, dpkg, dpkg-query, dnf, yum,
//! rpm, apk, pacman, snap, zypper.
//!
//! Installing and removing packages is their own effect (an allowed `apt-get install` covers it);
//! removing the SSH server is dangerous; `-o DPkg::Pre-Invoke=…`-style hooks run programs (asked),
//! and settings that point apt or dpkg at other programs or roots ask.
//!
//! apt and apt-get list every option; the others are not complete yet (`@loose`).

use super::args::Call;
use super::common::{has_any, is_ssh_package, positional};
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["apt-get", "apt"],
        family: "packages",
        text: "@anywhere
               @operands args
               -c FILE, --config-file=FILE : unprovable reads settings from a file, which can name commands to run
               -o OPTION, --option=OPTION
               -q, --quiet
               -qq
               -s, --simulate, --just-print, --dry-run, --recon, --no-act
               -y, --yes, --assume-yes
               --assume-no
               -d, --download-only
               -f, --fix-broken
               -m, --ignore-missing, --fix-missing
               --no-download
               --no-show-upgraded
               -V, --verbose-versions
               -a ARCH, --host-architecture=ARCH
               -P PROFILES, --build-profiles=PROFILES
               -b, --compile, --build
               --ignore-hold
               --with-new-pkgs
               --no-upgrade
               --only-upgrade
               --allow-downgrades
               --allow-remove-essential : dangerous lets apt remove packages the system needs
               --allow-change-held-packages
               --force-yes
               --print-uris
               --purge
               --reinstall
               --list-cleanup
               -t RELEASE, --target-release=RELEASE, --default-release=RELEASE
               --trivial-only
               --mark-auto
               --no-remove
               --auto-remove, --autoremove
               --only-source
               --diff-only, --dsc-only, --tar-only
               --arch-only
               --indep-only
               --allow-unauthenticated
               --allow-insecure-repositories
               --allow-releaseinfo-change
               --show-progress
               --no-install-recommends, --install-recommends
               --install-suggests, --no-install-suggests
               -e ANY, --error-on=ANY
               -h, --help
               -v, --version
               --full
               --installed
               --upgradable
               --all-versions
               --manual-installed
               -i, --important
               -n, --names-only
               --solver=SOLVER
               --color, --no-color
               --with-source=FILE : reads
               @sub list, search, show, showsrc, policy, depends, rdepends, changelog, check, download, source, moo, madison, pkgnames : read-only
               @sub update : changes refreshes the package lists
               @sub upgrade, full-upgrade, dist-upgrade, dselect-upgrade : changes upgrades packages
               @sub install, reinstall, build-dep, satisfy : changes installs packages
               @sub remove, purge, autoremove, autopurge : changes removes packages
               @sub clean, autoclean, distclean : changes deletes downloaded packages
               @sub edit-sources : changes edits the package sources
               @sub help : read-only",
        hook: Some(apt_hook),
    },
    Spec {
        names: &["apt-cache", "apt-mark", "aptitude"],
        family: "packages",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(apt_hook),
    },
    Spec {
        names: &["dpkg", "dpkg-query"],
        family: "packages",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(dpkg),
    },
    Spec {
        names: &["dnf", "yum", "rpm", "apk", "pacman", "snap", "zypper"],
        family: "packages",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(other),
    },
];

/// Removing the SSH server package.
fn removes_ssh(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let removes = has_any(
        args,
        &[
            "remove",
            "purge",
            "erase",
            "autoremove",
            "del",
            "-R",
            "-Rs",
            "-Rns",
            "-e",
            "-P",
            "--purge",
            "--remove",
            "autopurge",
        ],
    );
    if removes
        && positional(args)
            .iter()
            .any(|package| is_ssh_package(package))
    {
        verdict.dangerous(&call.display(), "removes the SSH server");
    }
}

fn not_read_only(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.not_read_only(format!(
        "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
        call.display()
    ));
}

fn apt_hook(call: &Call<'_>, verdict: &mut Verdict) {
    apt(call.name, call.args, verdict);
    removes_ssh(call, verdict);
    match call.name {
        "apt-cache" => {}
        "apt-mark" => {
            let first = positional(call.args).first().copied().unwrap_or_default();
            if !matches!(
                first,
                "showauto"
                    | "showmanual"
                    | "showhold"
                    | "showinstall"
                    | "showremove"
                    | "showpurge"
                    | "minimize-manual"
            ) {
                not_read_only(call, verdict);
            }
        }
        "aptitude" => {
            let first = positional(call.args).first().copied().unwrap_or_default();
            if !matches!(first, "search" | "show" | "why" | "why-not" | "versions") {
                not_read_only(call, verdict);
            }
        }
        _ => {}
    }
}

fn dpkg(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    removes_ssh(call, verdict);
    for (index, arg) in args.iter().enumerate() {
        let (option, value) = match arg.split_once('=') {
            Some((option, value)) => (option, Some(value.to_owned())),
            None => (arg.as_str(), args.get(index + 1).cloned()),
        };
        match option {
            "--pre-invoke" | "--post-invoke" => {
                if let Some(value) = value {
                    let any = super::model::Runs::any();
                    verdict.runs_option(&value, &format!("dpkg {option}"), &any, Some(index));
                }
            }
            "--instdir" | "--root" | "--admindir" => verdict.unprovable(format!(
                "`dpkg {option}` points dpkg at another system root"
            )),
            _ => {}
        }
    }
    let reads = call.name == "dpkg-query"
        || args.iter().all(|arg| {
            !arg.starts_with('-')
                || matches!(
                    arg.as_str(),
                    "-l" | "-L"
                        | "-s"
                        | "-S"
                        | "-p"
                        | "--list"
                        | "--listfiles"
                        | "--status"
                        | "--search"
                        | "--print-avail"
                        | "--get-selections"
                        | "--audit"
                        | "--verify"
                        | "-V"
                        | "--print-architecture"
                        | "--print-foreign-architectures"
                        | "--version"
                        | "--help"
                )
        });
    if !reads {
        not_read_only(call, verdict);
    }
}

fn other(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    removes_ssh(call, verdict);
    let first = positional(args).first().copied().unwrap_or_default();
    let reads = match call.name {
        "rpm" => {
            args.iter().any(|arg| {
                arg.starts_with("-q") || arg == "--query" || arg == "-V" || arg == "--verify"
            }) && !has_any(
                args,
                &["-e", "-i", "-U", "-F", "--erase", "--install", "--upgrade"],
            )
        }
        "yum" | "dnf" => matches!(
            first,
            "list"
                | "info"
                | "search"
                | "provides"
                | "repolist"
                | "history"
                | "check-update"
                | "repoquery"
        ),
        "snap" => matches!(
            first,
            "list" | "info" | "find" | "services" | "changes" | "version"
        ),
        "apk" => matches!(
            first,
            "info" | "search" | "list" | "policy" | "stats" | "dot" | "version"
        ),
        "pacman" => args
            .iter()
            .any(|arg| arg.starts_with("-Q") || arg.starts_with("-Ss") || arg.starts_with("-Si")),
        "zypper" => matches!(
            first,
            "search" | "se" | "info" | "if" | "repos" | "lr" | "list-updates" | "lu"
        ),
        _ => false,
    };
    if !reads {
        not_read_only(call, verdict);
    }
}

/// apt-get and friends: `-o Key=Value` settings that run commands (`DPkg::Pre-Invoke`,
/// `APT::Update::Post-Invoke`, `DPkg::Pre-Install-Pkgs`), and settings or files that cannot be
/// followed.
fn apt(name: &str, args: &[String], fx: &mut Verdict) {
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        let setting = if arg == "-o" || arg == "--option" {
            index += 1;
            args.get(index).map(|value| (value.clone(), index))
        } else if let Some(value) = arg.strip_prefix("--option=") {
            Some((value.to_owned(), index))
        } else if let Some(value) = arg.strip_prefix("-o").filter(|value| !value.is_empty()) {
            Some((value.to_owned(), index))
        } else {
            if arg == "-c" || arg.starts_with("--config-file") {
                fx.unprovable(format!(
                    "`{name} {arg}` reads settings from a file, which can name commands to run"
                ));
            }
            None
        };
        if let Some((setting, source)) = setting {
            let (key, value) = setting.split_once('=').unwrap_or((setting.as_str(), ""));
            let lowered = key.to_ascii_lowercase();
            if lowered.contains("invoke")
                || lowered.contains("pre-install-pkgs")
                || lowered.contains("proxy-auto-detect")
            {
                fx.script(value, format!("{name} -o {key}"), Some(source), false);
            } else if lowered.starts_with("dir")
                || lowered.starts_with("dpkg::path")
                || lowered.starts_with("apt::config")
                || lowered.starts_with("dpkg::tools")
                || (lowered.contains("::options")
                    && ["invoke", "--root", "--instdir", "--admindir"]
                        .iter()
                        .any(|word| value.contains(word)))
            {
                fx.unprovable(format!(
                    "`{name} -o {key}=…` changes which programs or files apt uses"
                ));
            }
        }
        index += 1;
    }
}
