#!/usr/bin/env bash
# Installs what the real-server SSH tests (tests/suite/ssh.rs) need on a fresh Debian/Ubuntu machine:
# OpenSSH server and client (sshd, ssh-keygen, ssh-agent, ssh-add), sudo, and passwd/login tools
# (useradd, chpasswd), the programs whose options the policy spec test checks, D-Bus + gnome-keyring for the keychain tests, and Chromium for the browser
# tests (ui/e2e, driven by playwright-core; never a downloaded browser), cron, openssl, nginx and
# docker.io (never started as a service) for the show_view tests; sqlite3, python3, curl, psmisc
# and less for the Pilot scenarios; WebKitGTK, its WebDriver, Xvfb
# and tauri-driver for the desktop app's tests. Idempotent: runs
# `apt-get update` and installs only when something is missing.
# Must run as root. Never starts a system sshd service: the test fixtures start their own.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
    echo "install-test-deps.sh: must run as root (it uses apt-get)" >&2
    exit 1
fi

# command that must exist -> Debian package that provides it
declare -A needed=(
    [/usr/sbin/sshd]=openssh-server
    [/usr/bin/ssh]=openssh-client
    [/usr/bin/ssh-keygen]=openssh-client
    [/usr/bin/ssh-agent]=openssh-client
    [/usr/bin/ssh-add]=openssh-client
    [/usr/bin/sudo]=sudo
    [/usr/sbin/useradd]=passwd
    [/usr/sbin/chpasswd]=passwd
    [/usr/bin/flock]=util-linux
    [/bin/bash]=bash
    # The keychain tests run a real Secret Service on a private session bus.
    [/usr/bin/dbus-run-session]=dbus-daemon
    [/usr/bin/gnome-keyring-daemon]=gnome-keyring
    # The browser tests (ui/e2e).
    [/usr/bin/chromium]=chromium
    # show_view's tests (tests/suite/views.rs): a crontab of the test user, certificates made
    # with openssl, an nginx site read with nginx -T (the package's service is never started:
    # policy-rc.d below; the Pilot scenarios run a private nginx of their own).
    [/usr/bin/crontab]=cron
    [/usr/bin/openssl]=openssl
    [/usr/sbin/nginx]=nginx-light
    # The Pilot scenarios (tests/suite/scenarios.rs): REPLs, a service answering HTTP, a package
    # lock watched with fuser, a pager, processes run as the login user.
    [/usr/bin/sqlite3]=sqlite3
    [/usr/bin/python3]=python3
    [/usr/bin/curl]=curl
    [/usr/bin/fuser]=psmisc
    [/usr/bin/less]=less
    [/usr/bin/setpriv]=util-linux
    # A private Docker engine per test (tests/src/dockerd.rs), images from busybox, never pulled.
    [/usr/sbin/dockerd]=docker.io
    [/bin/busybox]=busybox-static
    # Kept sessions (tests/suite/reconnect.rs): the shell runs inside tmux on the server, or
    # GNU screen where tmux is missing (a test hides tmux from its login's PATH).
    [/usr/bin/tmux]=tmux
    [/usr/bin/screen]=screen
)

missing=()
for path in "${!needed[@]}"; do
    if [ ! -x "$path" ]; then
        missing+=("${needed[$path]}")
    fi
done
# The desktop app (src-tauri): the WebKitGTK and GTK headers it builds against, and for its
# WebDriver test (ui/e2e/desktop.mjs) Debian's WebKitWebDriver, an X server of its own, xdotool
# (keys typed at the window and its dialogs), xmessage (another app's window in front), python3-xlib
# (files dropped on the window: ui/e2e/drop-files.py), and a session bus with dunst as its
# notification service; rpm to read and install the .rpm (scripts/test-deb.sh).
for package in libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libayatana-appindicator3-dev \
    webkit2gtk-driver xvfb xauth xdotool x11-utils python3-xlib dbus dunst rpm; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

# The policy spec test (crates/core/tests/policy_specs.rs) reads the --help and manual page of
# every program with a complete spec and fails on an option its spec does not know; a program
# that is not installed is skipped, so CI installs them all (firewalls and interface tools,
# compilers, editors, snap and the launchers among them). Services these packages bring (atop,
# mdadm's monitor, lvm2, tcpdump's apparmor profile, redis, firewalld, snapd, wpa_supplicant, tor,
# runit's runsvdir, apache2, NetworkManager, polkit, shorewall) are never started: the policy-rc.d
# below refuses every start while apt runs. All are installed without their recommends.
for package in man-db rsync moreutils mariadb-client postgresql-client redis-tools nftables ufw at \
    parallel socat tcpdump ltrace strace ansible-core certbot time zip unzip zstd xz-utils bzip2 \
    curl wget make git iproute2 procps psmisc sysstat lsof lm-sensors kmod pciutils usbutils \
    iotop htop btop atop ripgrep silversearcher-ag tree info colordiff acl jq yq xxd file \
    bsdextrautils diffutils binutils plocate wipe secure-delete sqlite3 torsocks fakeroot entr \
    toybox fdisk gdisk parted lvm2 mdadm dosfstools xfsprogs btrfs-progs e2fsprogs kexec-tools \
    gdb adduser passwd finger iputils-ping iputils-tracepath traceroute mtr-tiny bind9-dnsutils \
    whois net-tools ncat netcat-openbsd sysvinit-utils init-system-helpers \
    iptables ipset firewalld ifupdown isc-dhcp-client netplan.io wpasupplicant \
    gcc g++ clang nano emacs-nox joe micro mc mg jed snapd podman logrotate \
    numactl firejail bubblewrap libcap2-bin cgroup-tools runit daemontools daemonize schedtool \
    cpulimit trickle tor faketime valgrind \
    pigz gawk most screen netcat-traditional s6 opendoas pkexec expect eatmydata nocache \
    proxychains proxychains4 apache2 network-manager glances zypper aptitude \
    pacman-package-manager neovim shorewall shorewall6; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

# tauri-driver (crates.io) drives the desktop window through WebKitWebDriver. Built once into a
# cache outside the work tree (about 2 minutes on 2 cores), reused by every later run.
TOOLS="${KAIPORT_TOOLS:-$HOME/.cache/kaiport-tools}"
if [ ! -x "$TOOLS/bin/tauri-driver" ]; then
    echo "install-test-deps.sh: building tauri-driver into $TOOLS"
    PATH="$HOME/.cargo/bin:$PATH" cargo install tauri-driver --version 2.1.0 --locked --root "$TOOLS" --quiet
fi

# cargo-nextest runs the Rust tests (scripts/test.sh); built the same way where the machine has none.
if ! command -v cargo-nextest >/dev/null 2>&1 && [ ! -x "$TOOLS/bin/cargo-nextest" ]; then
    echo "install-test-deps.sh: building cargo-nextest into $TOOLS"
    PATH="$HOME/.cargo/bin:$PATH" cargo install cargo-nextest --version 0.9.143 --locked --root "$TOOLS" --quiet
fi

# Manual pages alone, for the spec test, of packages whose installing would change how the
# machine starts or resolves names (openrc's rc-service and rc-update, systemd-resolved's
# resolvectl, which points /etc/resolv.conf at a resolver that is not running): unpacked from the
# downloaded package, never installed.
MAN_ONLY=/usr/local/share/kaiport-test/man
man_only() {
    local package=$1
    shift
    local page missing_page=0
    for page in "$@"; do
        [ -e "$MAN_ONLY/${page##*/}" ] || missing_page=1
    done
    [ "$missing_page" -eq 1 ] || return 0
    local tmp
    tmp=$(mktemp -d)
    chmod 755 "$tmp" # apt downloads as its own user
    if ! (cd "$tmp" && apt-get download -qq "$package" 2>/dev/null); then
        apt-get update -qq
        (cd "$tmp" && apt-get download -qq "$package")
    fi
    dpkg-deb -x "$tmp"/*.deb "$tmp/unpacked"
    mkdir -p "$MAN_ONLY"
    for page in "$@"; do
        cp "$tmp/unpacked/$page" "$MAN_ONLY/"
    done
    rm -rf "$tmp"
}
man_only systemd-resolved usr/share/man/man1/resolvectl.1.gz
man_only openrc usr/share/man/man8/rc-service.8.gz usr/share/man/man8/rc-update.8.gz

if [ "${#missing[@]}" -eq 0 ]; then
    echo "install-test-deps.sh: all test dependencies present"
    exit 0
fi

# Deduplicate package names.
mapfile -t packages < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "install-test-deps.sh: installing ${packages[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# policy-rc.d keeps the package's postinst from starting a system-wide sshd on port 22.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy"
    chmod +x "$policy"
    created_policy=1
fi
apt-get install -y -qq --no-install-recommends "${packages[@]}"
if [ "$created_policy" -eq 1 ]; then
    rm -f "$policy"
fi
mkdir -p /run/sshd
echo "install-test-deps.sh: done"
