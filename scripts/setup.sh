#!/usr/bin/env bash
# Installs what the build and the tests need, skipping whatever is present:
# the wasm32 target, the exact wasm-bindgen-cli of Cargo.lock, Debian's
# chromium + chromium-driver, and the npm dev dependencies. Only the package
# registries are used; nothing downloads a prebuilt binary.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*"; }

# What this script cannot install: Rust through rustup, and Node with npm
# (this script runs under npm already, but may be run alone).
for tool in rustup cargo node npm; do
  if ! command -v "$tool" >/dev/null; then
    log "$tool is missing: install Rust 1.81 or later through rustup (Debian: apt-get install rustup, then rustup default stable) and Node 20 or later with npm, then run this again"
    exit 1
  fi
done

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

# The dev dependencies are installed again when package.json or the lock
# file changed since the last install (by content: a fresh clone's or a
# checkout's file dates say nothing).
stamp=node_modules/.content-repo-setup
digest=$(cat package.json package-lock.json | cksum)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$digest" ]; then
  log "installing npm dev dependencies"
  npm ci --no-audit --no-fund
  printf '%s\n' "$digest" > "$stamp"
fi
