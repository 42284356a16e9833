//! Package managers: apt, apt-get, apt-cache, apt-mark, aptitude, dpkg, dpkg-query, dnf, yum,
//! rpm, apk, pacman, snap, zypper.
//!
//! Installing and removing packages is their own effect (an allowed `apt-get install` covers it);
//! removing the SSH server is dangerous; `-o DPkg::Pre-Invoke=…`-style hooks run programs (asked),
//! and settings that point apt or dpkg at other programs or roots ask.
//!
//! Every program but apk and snap lists its options (from its help and manual; yum is dnf's). The programs other
//! than apt and apt-get keep their own reading of the words: an option none of their lists has
//! asks, and options that point them at other roots or run programs ask.

use super::args::Call;
use super::common::{has_any, is_ssh_package, listed_options, positional};
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
               -u, --show-upgraded
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
        names: &["apt-cache"],
        family: "packages",
        text: "@read-only
               @opaque
               -p, --pkg-cache
               -s, --src-cache
               -q, --quiet
               -i, --important
               --no-pre-depends, --no-depends, --no-recommends, --no-suggests, --no-conflicts, --no-breaks, --no-replaces, --no-enhances
               --implicit
               -f, --full
               -a, --all-versions
               -g, --generate
               --names-only, -n
               --all-names
               --recurse
               --installed
               --with-source=X
               -h, --help
               -v, --version
               -c, --config-file
               -o, --option
               -t X, --target-release=X
               --no-all-versions
               --no-generate
               --no-all-names
               --no-recurse
               --no-installed
               -qq",
        hook: Some(apt_hook),
    },
    Spec {
        names: &["apt-mark"],
        family: "packages",
        text: "@read-only
               @opaque
               -f X, --file=X
               -h, --help
               -v, --version
               -c, --config-file
               -o, --option
               -q, --quiet
               -qq
               -s, --simulate, --just-print, --dry-run, --recon, --no-act",
        hook: Some(apt_hook),
    },
    Spec {
        names: &["aptitude"],
        family: "packages",
        text: "@read-only
               @opaque
               -h
               --no-gui
               -s
               -d
               -P
               -y
               -F X
               -O X
               -w X
               -f
               -V, --show-versions
               -D, --show-deps
               -Z
               -v
               -t
               -q
               -o X
               --with
               -S X
               -u
               -i
               --add-user-tag=X
               --add-user-tag-to=X
               --allow-new-upgrades
               --allow-new-installs
               --allow-untrusted
               --disable-columns
               --full-resolver
               --group-by=X
               --log-file=X : writes
               --log-level=X
               --log-resolver
               --no-new-installs
               --no-new-upgrades
               --no-show-resolver-actions
               --purge-unused
               -R, --without-recommends
               -r, --with-recommends
               --remove-user-tag=X
               --remove-user-tag-from=X
               --safe-resolver
               --schedule-only
               --show-package-names=X
               --show-resolver-actions
               --show-summary[=X]
               --version
               --visual-preview
               -W, --show-why
               --autoclean-on-startup
               --clean-on-startup
               --help
               --assume-yes
               --simulate
               --download-only
               --display-format=X
               --width=X
               --sort=X
               --target-release=X
               --prompt
               --verbose
               --quiet
               --arch-only
               --config-file=X
               --option=X",
        hook: Some(apt_hook),
    },
    Spec {
        names: &["dpkg"],
        family: "packages",
        text: "@read-only
               @opaque
               -i, --install
               -a, --pending
               --unpack
               -A, --record-avail
               --configure
               --triggers-only
               -r, --remove
               -P, --purge
               -V, --verify[=X]
               --get-selections[=X]
               --set-selections
               --clear-selections
               --update-avail[=X]
               --merge-avail[=X]
               --clear-avail
               --forget-old-unavail
               -s, --status[=X]
               -p, --print-avail[=X]
               -L X, --listfiles=X
               -l, --list[=X]
               -S X, --search=X
               -C, --audit[=X]
               --yet-to-unpack
               --predep-package
               --add-architecture=X
               --remove-architecture=X
               --print-architecture
               --print-foreign-architectures
               --assert-help
               --assert=X
               --validate=X
               --compare-versions=X
               --force-help
               -?, --help
               --version
               -f, --field, -x, --extract, -X, --vextract, --ctrl-tarfile, --fsys-tarfile
               --admindir=X
               --root=X
               --instdir=X
               --pre-invoke=X
               --post-invoke=X
               --path-exclude=X
               --path-include=X
               -O, --selected-only
               -E, --skip-same-version
               -G, --refuse-downgrade
               -B, --auto-deconfigure
               --triggers
               --verify-format=X
               --no-pager
               --no-debsig
               --no-act, --dry-run, --simulate
               --status-fd=X
               --status-logger=X
               --log=X
               --ignore-depends=X
               --force=X
               --no-force=X
               --refuse=X
               --abort-after=X
               --robot
               --assert-feature
               --validate-thing=X
               -R, --recursive
               --no-triggers
               -D X, --debug=X
               --force-all, --no-force-all, --refuse-all
               --force-security-mac, --no-force-security-mac, --refuse-security-mac
               --force-downgrade, --no-force-downgrade
               --force-configure-any, --no-force-configure-any, --refuse-configure-any
               --force-hold, --no-force-hold, --refuse-hold
               --force-not-root, --no-force-not-root, --refuse-not-root
               --force-bad-path, --no-force-bad-path, --refuse-bad-path
               --force-bad-verify, --no-force-bad-verify, --refuse-bad-verify
               --force-bad-version, --no-force-bad-version, --refuse-bad-version
               --force-statoverride-add, --no-force-statoverride-add, --refuse-statoverride-add
               --force-statoverride-remove, --no-force-statoverride-remove, --refuse-statoverride-remove
               --force-overwrite, --no-force-overwrite, --refuse-overwrite
               --force-overwrite-diverted, --no-force-overwrite-diverted, --refuse-overwrite-diverted
               --force-overwrite-dir, --no-force-overwrite-dir, --refuse-overwrite-dir
               --force-unsafe-io, --no-force-unsafe-io, --refuse-unsafe-io
               --force-script-chrootless, --no-force-script-chrootless, --refuse-script-chrootless
               --force-confnew, --no-force-confnew, --refuse-confnew
               --force-confold, --no-force-confold, --refuse-confold
               --force-confdef, --no-force-confdef, --refuse-confdef
               --force-confmiss, --no-force-confmiss, --refuse-confmiss
               --force-confask, --no-force-confask, --refuse-confask
               --force-architecture, --no-force-architecture, --refuse-architecture
               --force-breaks, --no-force-breaks, --refuse-breaks
               --force-conflicts, --no-force-conflicts, --refuse-conflicts
               --force-depends, --no-force-depends, --refuse-depends
               --force-depends-version, --no-force-depends-version, --refuse-depends-version
               --force-remove-reinstreq, --no-force-remove-reinstreq, --refuse-remove-reinstreq
               --force-remove-protected, --no-force-remove-protected, --refuse-remove-protected
               --force-remove-essential, --no-force-remove-essential, --refuse-remove-essential",
        hook: Some(dpkg),
    },
    Spec {
        names: &["dpkg-query"],
        family: "packages",
        text: "@read-only
               @opaque
               -s, --status[=X]
               -p, --print-avail[=X]
               -L X, --listfiles=X
               -l, --list[=X]
               -W, --show[=X]
               -S X, --search=X
               --control-list=X
               --control-show=X
               -c X, --control-path=X
               -?, --help
               --version
               --admindir=X
               --root=X
               --load-avail
               --no-pager
               -f X, --showformat=X",
        hook: Some(dpkg),
    },
    Spec {
        names: &["rpm"],
        family: "packages",
        text: "@read-only
               @opaque
               -a, --all
               -f, --file
               --path
               -g, --group
               -p, --package
               --pkgid
               --hdrid
               -q, --query
               --triggeredby
               --whatconflicts
               --whatrequires
               --whatobsoletes
               --whatprovides
               --whatrecommends
               --whatsuggests
               --whatsupplements
               --whatenhances
               --nomanifest
               -c, --configfiles
               -d, --docfiles
               -L, --licensefiles
               -A, --artifactfiles
               --noghost
               --noconfig
               --noartifact
               --dump
               -l, --list
               --queryformat=X, --qf=X
               -V, --verify
               -R
               --triggerscripts
               --nover
               --nomd5
               -s, --state
               --nofiledigest
               --nofiles
               --nodeps
               --noscript
               --allfiles
               --allmatches
               --badreloc
               -e X, --erase=X
               --excludedocs
               --excludepath=X
               --force
               --force-debian
               -F X, --freshen=X
               -h, --hash
               --ignorearch
               --ignoreos
               --ignoresize
               --noverify
               -i, --install
               --justdb
               --nodb
               --nocontexts
               --nocaps
               --noorder
               --noscripts
               --notriggers
               --oldpackage
               --percent
               --prefix=X
               --relocate=X
               --replacefiles
               --replacepkgs
               --test
               -U X, --upgrade=X
               --reinstall=X
               --restore=X
               -D X, --define=X
               --undefine=X
               -E X, --eval=X
               --target=X
               --macros=X
               --load=X
               --noplugins
               --nodigest
               --nosignature
               --rcfile=X
               -r X, --root=X
               --dbpath=X
               --querytags
               --showrc
               --quiet
               -v, --verbose
               --version
               --scripts
               --conflicts
               --obsoletes
               --provides
               --requires
               --recommends
               --suggests
               --supplements
               --enhances
               --info
               --changelog
               --changes
               --xml
               --triggers
               --filetriggers
               --last
               --dupes
               --filesbypkg
               --fileclass
               --filecolor
               --fileprovide
               --filerequire
               --filecaps
               -?, --help
               --usage
               -vv
               --pipe=X
               --excludeartifacts
               --includedocs
               --nopre, --nopost, --nopreun, --nopostun, --nopretrans, --noposttrans
               --notriggerprein, --notriggerin, --notriggerun, --notriggerpostun
               --querybynumber=X
               --specfile=X
               --tid=X
               --nolinkto
               --nosize
               --nouser
               --nogroup
               --nomtime
               --nomode
               --nordev
               --httpproxy=X
               --httpport=X",
        hook: Some(other),
    },
    Spec {
        names: &["dnf", "yum"],
        family: "packages",
        text: "@read-only
               @opaque
               -c, --config[=X]
               -q, --quiet
               -v, --verbose
               --version
               --installroot[=X]
               --nodocs
               --noplugins
               --enableplugin[=X]
               --disableplugin[=X]
               --releasever=X
               --setopt=X
               --skip-broken
               -h, --help, --help-cmd
               --allowerasing
               -b, --best
               --nobest
               -C, --cacheonly
               -R, --randomwait[=X]
               -d, --debuglevel[=X]
               --debugsolver
               --showduplicates
               -e X, --errorlevel=X
               --obsoletes
               --rpmverbosity[=X]
               -y, --assumeyes
               --assumeno
               --enablerepo[=X]
               --disablerepo[=X]
               --repo[=X], --repoid[=X]
               --enable
               --disable
               -x, --exclude[=X], --excludepkgs[=X]
               --disableexcludes[=X], --disableexcludepkgs[=X]
               --repofrompath[=X]
               --noautoremove
               --nogpgcheck
               --color=X
               --refresh
               --destdir=X, --downloaddir=X
               --downloadonly
               --comment=X
               --bugfix
               --enhancement
               --newpackage
               --security
               --advisory=X, --advisories=X
               --bz=X, --bzs=X
               --cve=X, --cves=X
               --sec-severity=X, --secseverity=X
               --forcearch=X
               --enable-resolving
               --disable-resolving
               --enabled
               --disabled
               --installed
               --profile
               --available
               --all
               --arch=X, --archlist=X
               --duplicates
               --unneeded
               --disable-modular-filtering
               --extras
               -f X, --file=X
               --installonly
               --latest-limit=X
               --recent
               --unsatisfied
               --upgrades
               --userinstalled
               --whatdepends=X
               --whatconflicts=X
               --whatenhances=X
               --whatobsoletes=X
               --whatprovides=X
               --whatrecommends=X
               --whatrequires=X
               --whatsuggests=X
               --whatsupplements=X
               --alldeps
               --exactdeps
               --srpm=X
               -i, --info
               -l, --list
               -s, --source
               --changelogs
               --conflicts
               --depends
               --enhances
               --location
               --provides
               --recommends
               --requires
               --requires-pre
               --suggests
               --supplements
               --deplist
               --nvr
               --nevra
               --envra
               --qf=X, --queryformat=X
               --recursive
               --resolve
               -disableexcludes X",
        hook: Some(other),
    },
    Spec {
        names: &["pacman"],
        family: "packages",
        text: "@read-only
               @opaque
               -b X, --dbpath=X
               -c, --changelog
               -d, --deps
               -e, --explicit
               -g, --groups
               -i, --info
               -k, --check
               -l, --list
               -m, --foreign
               -n, --native
               -o X, --owns=X
               -p X, --file=X
               -q, --quiet
               -r X, --root=X
               -s X, --search=X
               -t, --unrequired
               -u, --upgrades
               -v, --verbose
               --arch=X
               --cachedir=X : writes-into
               --color=X
               --config=X
               --confirm
               --debug
               --disable-download-timeout
               --gpgdir=X
               --hookdir=X : unprovable runs the hooks in a folder
               --logfile=X : writes
               --noconfirm
               --sysroot
               -w, --downloadonly
               -y, --refresh
               --asdeps
               --asexplicit
               --assume-installed=X
               --dbonly
               --ignore=X
               --ignoregroup=X
               --needed
               --noprogressbar
               --noscriptlet
               --overwrite=X
               --print-format=X
               # The actions' own options (the spec's code judges the action).
               --print
               --nodeps
               --cascade
               --nosave : deletes removes the packages' saved configuration files
               --recursive
               --unneeded
               --clean : deletes removes packages from the cache
               --sysupgrade
               -x, --regex
               --machinereadable
               -D, --database
               -Q, --query
               -R, --remove
               -S, --sync
               -T, --deptest
               -U, --upgrade
               -F, --files
               -V, --version
               -h, --help",
        hook: Some(other),
    },
    Spec {
        names: &["zypper"],
        family: "packages",
        text: "@read-only
               @opaque
               --help, -h
               --version, -V
               --promptids
               --config=X, -c X
               --userdata=X
               --quiet, -q
               --verbose, -v
               --color
               --no-color
               --no-abbrev, -A
               --table-style=X, -s X
               --non-interactive, -n
               --non-interactive-include-reboot-patches
               --xmlout, -x
               --ignore-unknown, -i
               --terse, -t
               --reposd-dir=X, -D X
               --cache-dir=X, -C X
               --raw-cache-dir=X
               --solv-cache-dir=X
               --pkg-cache-dir=X
               --no-gpg-checks
               --gpg-auto-import-keys
               --plus-repo=X, -p X
               --plus-content=X
               --disable-repositories
               --no-refresh
               --no-cd
               --no-remote
               --releasever
               --root=X, -R X
               --installroot=X
               --disable-system-resolvables
               -r X, --repo=X
               -k, --keep-packages
               -K, --no-keep-packages
               -g, --gpgcheck
               --gpgcheck-strict
               --gpgcheck-allow-unsigned
               --gpgcheck-allow-unsigned-repo
               --gpgcheck-allow-unsigned-package
               -G, --no-gpgcheck
               --default-gpgcheck
               -e, --enable
               -d, --disable
               -f, --refresh
               -m, --metadata
               -M, --raw-metadata
               -a, --all
               --from=X
               --details
               --replacefiles
               -l, --auto-agree-with-licenses
               -y, --no-confirm
               --download=X
               --debug-solver
               --force-resolution
               --solver-focus=X
               --recommends
               --no-recommends
               --allow-downgrade
               --no-allow-downgrade
               --allow-name-change
               --no-allow-name-change
               --allow-arch-change
               --no-allow-arch-change
               --allow-vendor-change
               --no-allow-vendor-change
               --all-matches
               --provides
               --requires
               --conflicts
               --obsoletes
               --supplements
               --suggests
               --oldpackage
               --allow-unsigned-rpm
               --severity=X
               --date=X
               -b, --bugzilla[=X]
               --cve[=X]
               --issue[=X]
               --with-optional
               --without-optional
               --best-effort
               --local=X, --medium-type=X
               -I X, --ar-to-disable=X
               -j X, --rr-to-enable=X
               -J X, --rr-to-disable=X
               --orphaned
               --suggested
               --recommended
               --unneeded
               -N, --sort-by-name
               -u, --not-installed-only
               --updatestack-only
               --with-update
               --with-interactive
               --skip-interactive
               --xmlfwd=X
               --print=X
               -B, --build-only
               -U, --no-clean-deps
               --loose-auth
               --loose-query
               -E, --show-enabled-only
               -P, --sort-by-priority
               --match-substrings
               --match-words
               --provides-pkg
               --requires-pkg
               --recommends-pkg
               --supplements-pkg
               --conflicts-pkg
               --obsoletes-pkg
               --suggests-pkg
               --sort-by-repo
               --delete
               --no-delete
               --status
               --eval=X
               --download-only
               --clean-deps",
        hook: Some(other),
    },
    Spec {
        names: &["apk"],
        family: "packages",
        text: include_str!("apk.spec"),
        hook: Some(removes_ssh_hook),
    },
    Spec {
        names: &["snap"],
        family: "packages",
        text: include_str!("snap.spec"),
        hook: Some(snap),
    },
];

/// apk: its table says what each command and option does; removing the SSH server asks.
fn removes_ssh_hook(call: &Call<'_>, verdict: &mut Verdict) {
    removes_ssh(call, verdict);
}

/// snap: `export-snapshot ID FILE` writes FILE; removing the SSH server asks.
fn snap(call: &Call<'_>, verdict: &mut Verdict) {
    if call.sub(0) == "export-snapshot"
        && let Some(file) = call.operand_texts().get(1)
    {
        verdict.output(file, "snap export-snapshot", false);
    }
    removes_ssh(call, verdict);
}

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
    if call.root.opaque {
        listed_options(call, verdict, &[]);
    }
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
    listed_options(call, verdict, &[]);
    removes_ssh(call, verdict);
    for (index, arg) in args.iter().enumerate() {
        let (option, value) = match arg.split_once('=') {
            Some((option, value)) => (option, Some(value.to_owned())),
            None => (arg.as_str(), args.get(index + 1).cloned()),
        };
        match option {
            "--log" => {
                if let Some(value) = value {
                    verdict.output(&value, "dpkg --log", false);
                }
            }
            "--pre-invoke" | "--post-invoke" | "--status-logger" => {
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

/// Options of rpm, dnf, pacman and zypper that run code or point them at another system.
const ELSEWHERE: &[&str] = &[
    "--eval",
    "-E",
    "--define",
    "-D",
    "--macros",
    "--rcfile",
    "--pipe",
    "--load",
    "--root",
    "--dbpath",
    "--installroot",
    "--setopt",
    "--config",
    "--hookdir",
    "--sysroot",
    "--reposd-dir",
    "--pluginpath",
];

fn other(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    if !call.root.loose {
        listed_options(call, verdict, &[]);
        for arg in args {
            let name = arg.split('=').next().unwrap_or(arg);
            if ELSEWHERE.contains(&name) && !(call.name == "pacman" && matches!(name, "-D" | "-E"))
            {
                verdict.unprovable(format!(
                    "`{} {name}` runs code or points {} at another system",
                    call.name, call.name
                ));
            }
        }
    }
    removes_ssh(call, verdict);
    if call.name == "pacman" {
        pacman_letters(call, verdict);
    }
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

/// pacman's letters mean one thing per action, so the table files `-c` under `--changelog` and
/// `-n` under `--native`; with `-S`, `-c` is `--clean` and with `-R`, `-n` is `--nosave`, which
/// delete like their long spellings.
fn pacman_letters(call: &Call<'_>, verdict: &mut Verdict) {
    let clusters: Vec<&str> = call
        .args
        .iter()
        .filter(|arg| arg.starts_with('-') && !arg.starts_with("--"))
        .map(|arg| &arg[1..])
        .collect();
    let action = clusters
        .iter()
        .flat_map(|cluster| cluster.chars())
        .find(char::is_ascii_uppercase);
    let letters: String = clusters.concat();
    let deletes = match action {
        Some('S') if letters.contains('c') => Some("-c removes packages from the cache"),
        Some('R') if letters.contains('n') => {
            Some("-n removes the packages' saved configuration files")
        }
        _ => None,
    };
    if let Some(what) = deletes {
        verdict.dangerous(&call.display(), &format!("pacman {what}"));
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
                // A hook runs any program: analysed as typed, and it always asks.
                fx.unprovable(format!(
                    "`{name} -o {key}=…` runs a command as an apt hook; what it does cannot be checked, so it asks"
                ));
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
