#!/usr/bin/env bash
# Installs what the build and the tests need, skipping whatever is present:
# the wasm32 target, the exact wasm-bindgen-cli of Cargo.lock, Debian's
# chromium + chromium-driver, and the npm dev dependencies. Only the package
# registries are used; nothing downloads a prebuilt binary.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ] || ! command -v wasm-bindgen-test-runner >/dev/null; then
  log "installing wasm-bindgen-cli $want (a few minutes, once)"
  # --locked failed for some versions (a locked dependency is no longer served).
  cargo install wasm-bindgen-cli --version "$want" --locked --force \
    || cargo install wasm-bindgen-cli --version "$want" --force
fi

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  log "installing Debian's chromium and chromium-driver"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver
fi

stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  log "installing npm dev dependencies"
  # npm ci refuses a lock file without the optional packages of other
  # platforms (rollup's), which this registry does not serve: then install
  # what the lock file names with npm install, leaving it unchanged.
  if ! npm ci --no-audit --no-fund; then
    log "npm ci refused the lock file; installing from it with npm install"
    npm install --no-audit --no-fund --no-save
  fi
fi
