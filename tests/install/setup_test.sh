#!/usr/bin/env bash
# What scripts/setup.sh fetches for each make step, in a copy of the checkout with no npm packages
# yet: plain (make build, run, install) asks apt for the build's packages only and runs no npm;
# --test (make test) adds the tests' apt packages and installs tests/web, tests/mcp/node and
# tests/session/browserless. dpkg-query, apt-get, sudo and npm are stand-ins that record their
# calls (the real ones would change this machine and download); every package reads as missing.
# Usage: setup_test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/tree/scripts" "$work/tree/tests/web" "$work/tree/tests/mcp/node" "$work/tree/tests/session/browserless" "$work/bin"
cp "$src/scripts/setup.sh" "$work/tree/scripts/"
log="$work/calls"
for tool in apt-get npm sudo; do
  printf '#!/bin/sh\necho "%s $(pwd): $*" >> "%s"\n[ "%s" = sudo ] && exec "$@"\nexit 0\n' "$tool" "$log" "$tool" > "$work/bin/$tool"
done
printf '#!/bin/sh\necho "not installed"\n' > "$work/bin/dpkg-query"
chmod +x "$work/bin/"*

run() { : > "$log"; PATH="$work/bin:$PATH" bash "$work/tree/scripts/setup.sh" "$@" >/dev/null 2>&1 || fail "setup.sh $* failed"; cat "$log"; }

plain=$(run)
grep -q "apt-get .*install.* chromium" <<<"$plain" || fail "plain setup did not install the build's packages: $plain"
grep -q "^npm " <<<"$plain" && fail "plain setup (make install) ran npm: $plain"
grep -q "postgresql-15" <<<"$plain" && fail "plain setup installed the tests' PostgreSQL: $plain"
echo "ok: make build/run/install fetch the build's apt packages only"

tested=$(run --test)
grep -q "postgresql-15" <<<"$tested" || fail "setup --test did not install PostgreSQL: $tested"
for d in tests/web tests/mcp/node tests/session/browserless; do
  grep -q "^npm $work/tree/$d: install" <<<"$tested" || fail "setup --test did not install $d: $tested"
done
echo "ok: make test fetches the tests' apt and npm packages"

bench=$(run --bench)
grep -q "^npm .*/tests/" <<<"$bench" && fail "setup --bench installed the tests' npm packages: $bench"
echo "ok: make bench fetches no test packages"
