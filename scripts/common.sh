# Shared by run.sh and test.sh: make sure the Rust toolchain and the system packages kaiport
# builds with are present. Sourced, not run.

export PATH="$HOME/.cargo/bin:$PATH"
export DEBIAN_FRONTEND=noninteractive

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Install Debian packages that are missing (by package name), with one apt-get update at most.
apt_install_missing() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "kaiport: installing ${missing[*]}"
        as_root apt-get update -qq
        as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
}

ensure_build_tools() {
    apt_install_missing ca-certificates gcc g++ make pkg-config git
    if ! command -v cargo >/dev/null 2>&1; then
        # No rustup download here: take Debian's toolchain (edition 2024 needs Rust 1.85 or later).
        apt_install_missing cargo rustc
    fi
    local version
    version=$(rustc --version | awk '{print $2}')
    if [ "$(printf '%s\n1.85.0\n' "$version" | sort -V | head -n 1)" != "1.85.0" ]; then
        echo "kaiport: Rust $version is too old; kaiport needs 1.85 or later (rustup.rs)" >&2
        exit 1
    fi
}

# The UI (ui/) builds with Node.js 20 or later and npm, which this machine must already have
# (Debian's own nodejs is too old for Vite 8).
ensure_node() {
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        echo "kaiport: the UI needs Node.js 20 or later with npm (https://nodejs.org)" >&2
        exit 1
    fi
    local version
    version=$(node --version | tr -d v)
    if [ "$(printf '%s\n20.19.0\n' "$version" | sort -V | head -n 1)" != "20.19.0" ]; then
        echo "kaiport: Node.js $version is too old; the UI needs 20.19 or later" >&2
        exit 1
    fi
}

# Install the UI's packages (exactly as package-lock.json says) and build ui/dist, which
# `kaiport serve` embeds: run before building kaiport.
build_ui() {
    ensure_node
    npm --prefix ui ci --no-audit --no-fund
    npm --prefix ui run build
}
