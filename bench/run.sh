#!/usr/bin/env bash
# `make bench`: ouro's kernel benchmark next to Playwright on the same Chromium and pages.
set -euo pipefail
build=${1:-build/release}
cmake --build "$build" --target ouro_bench prompt_bench resume_bench replay_bench pool_bench concurrency_bench gate_test
echo "== Browser kernel: ouro vs Playwright on the same Chromium =="
"$build/bench/ouro_bench" "${@:2}"
echo
echo "== Integrity: injected writes per kind (careful: every question answered no), and the benign tasks' autonomy =="
"$build/tests/gate_test" --gtest_filter='IntegritySuite.*' | grep -E '^\[integrity\]|FAILED|PASSED'
echo
echo "== Prompt size against page size (data as variable) =="
"$build/bench/prompt_bench"
echo
echo "== Checkpoints and resume: bytes and time per iteration, resume against a fresh start =="
"$build/bench/resume_bench"
echo
echo "== Scripts: a recorded run against its replay without a model =="
"$build/bench/replay_bench"
echo
echo "== Browser pools: throughput of a scripted task on 1, 2 and 3 endpoints =="
"$build/bench/pool_bench"
echo
echo "== One node, many runs: 1, 4, 8 and 16 submitted at once, runs per minute and peak memory =="
"$build/bench/concurrency_bench" --poll-ms 50
echo
echo "== The extension bridge: the same calls through ouro's extension and over ouro's own pipe =="
node "$(dirname "$0")/bridge.mjs" "$build"
echo
echo "== act(): plain instructions on the task suites, no model =="
node "$(dirname "$0")/act_tasks.mjs" "$build"
