#!/usr/bin/env bash
# `make bench`: ouro's kernel benchmark next to Playwright on the same Chromium and pages.
set -euo pipefail
build=${1:-build/release}
cmake --build "$build" --target ouro_bench
"$build/bench/ouro_bench" "${@:2}"
