#!/usr/bin/env bash
# Installs what building and running ouro needs on Debian 12 (apt-get), and nothing when all is there.
# Called by `make build`, `make run` and `make install`; safe to run by hand. Needs root or sudo for
# apt-get. `--test` (from `make test`) adds what only the tests use: a PostgreSQL server, a keyring
# daemon, man, and the npm packages of tests/web, tests/mcp/node and tests/session/browserless.
# `--bench` (from `make bench`) adds the benchmark's npm packages (bench/).
set -euo pipefail

mode="${1:-}"
packages=(
  build-essential cmake ninja-build pkg-config ccache
  libboost1.81-dev libboost-url1.81-dev nlohmann-json3-dev libexpected-dev libfmt-dev libspdlog-dev libcli11-dev
  libsqlite3-dev libpqxx-dev libgtest-dev libgmock-dev libjavascriptcoregtk-4.1-dev libseccomp-dev libcurl4-openssl-dev
  chromium fonts-dejavu-core tzdata
  libsecret-1-dev libedit-dev
)
if [[ "$mode" == "--test" ]]; then
  packages+=(
    gnome-keyring dbus-daemon  # the keyring test runs a Secret Service of its own
    man-db groff-base bsdextrautils  # the install test renders the man page (man -l, col)
    postgresql-15  # the store tests run against a real PostgreSQL too (tests/support/postgres_server.h)
  )
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Everything below is for the tests (`make test`) and the benchmark (`make bench`) only.
here=$(cd "$(dirname "$0")/.." && pwd)
[[ "$mode" == "--test" || "$mode" == "--bench" ]] || exit 0
sudo=""
[[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && sudo="sudo"

if [[ "$mode" == "--test" ]]; then
# `make test` drives `ouro mcp` with the official MCP TypeScript SDK's client and the MCP Inspector CLI (tests/mcp/node);
# it is installed when npm is there, or can be had from apt, and the test is skipped otherwise.
if [[ ! -f "$here/tests/mcp/node/node_modules/@modelcontextprotocol/sdk/package.json" ||
      ! -f "$here/tests/mcp/node/node_modules/@modelcontextprotocol/inspector/package.json" ]]; then
  if ! command -v npm >/dev/null; then
    if [[ $(id -u) -eq 0 || -n "$sudo" ]]; then
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nodejs npm >&2 || true
    fi
  fi
  if command -v npm >/dev/null; then
    (cd "$here/tests/mcp/node" && npm install --no-audit --no-fund --silent) ||
      echo "setup: could not install the MCP SDK and Inspector for tests/mcp (the mcp_client and mcp_inspector tests will be skipped)" >&2
  fi
fi

# The browserless platform (@browserless.io/browserless, the version pinned in tests/session/browserless/package.json),
# run by the browserless test without Docker on the system Chromium; skipped when it could not be installed. Its
# package ships built; no install scripts run, and no browser is downloaded (it is given /usr/bin/chromium).
if [[ ! -f "$here/tests/session/browserless/node_modules/@browserless.io/browserless/build/index.js" ]] && command -v npm >/dev/null; then
  (cd "$here/tests/session/browserless" &&
    PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --silent --ignore-scripts) ||
    echo "setup: could not install browserless for tests/session (the browserless test will be skipped)" >&2
fi

# The Command Center's and the extension's browser tests (tests/web: playwright-core to drive the
# system Chromium, axe-core, ws); skipped when they could not be installed. No browser is downloaded.
if [[ ! -f "$here/tests/web/node_modules/playwright-core/package.json" || ! -f "$here/tests/web/node_modules/axe-core/package.json" ]] &&
   command -v npm >/dev/null; then
  (cd "$here/tests/web" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --silent) ||
    echo "setup: could not install tests/web's packages (the web_* tests will be skipped)" >&2
fi

fi

# The benchmark compares against Playwright; it is installed only when asked for.
if [[ "$mode" == "--bench" ]]; then
  # Every dependency of bench/package.json (Playwright, Playwright MCP, the npm packages that ship
  # the saved real pages); a checkout that had only the earlier ones gets the rest.
  missing=0
  for pkg in $(sed -n '/"dependencies"/,/}/p' "$here/bench/package.json" | grep -o '"[^"]*":' | tr -d '":' | grep -v dependencies); do
    [[ -f "$here/bench/node_modules/$pkg/package.json" ]] || missing=1
  done
  if [[ $missing == 1 ]]; then
    command -v npm >/dev/null || { $sudo apt-get install -y -qq --no-install-recommends nodejs npm; }
    (cd "$here/bench" && npm install --no-audit --no-fund --silent)
  fi
fi
