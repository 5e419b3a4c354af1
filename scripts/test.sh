#!/usr/bin/env bash
# Quick start, part 2: set up with the test tools and run lint, type checks and every test,
# the end-to-end tests with the real local model included (docs/testing.md).
#   scripts/test.sh [PYTEST_ARGS]          everything, as CI runs it
#   scripts/test.sh --fast [PYTEST_ARGS]   the inner loop: lint, types and every test but the
#                                          real model's (pytest -m "not e2e"), no floor run
set -euo pipefail
cd "$(dirname "$0")/.."

fast=0
if [ "${1:-}" = --fast ]; then
  fast=1
  shift
fi

if [ "$fast" = 0 ]; then
  # the floor's venv installs beside the project's (pip keeps one core of two busy) and its
  # unit tests run at the end (beside the other tests they made both slower: 421 s for the
  # two, against 294 s one after the other; beside the e2e tests, even at nice 19, the e2e
  # tests 100 s slower)
  floor_log=$(mktemp)
  scripts/test-floor.sh --install >"$floor_log" 2>&1 &
  floor_install=$!
  # a failure before the floor's turn leaves no install running behind
  trap 'wait "$floor_install" 2>/dev/null; rm -f "$floor_log"' EXIT
fi
scripts/setup.sh local,dev
if [ "$fast" = 0 ]; then
  # the e2e tests judge with the 1.5B model; the logits and local-server tests use the 0.5B
  .venv/bin/ground-gate models pull qwen2.5-coder-1.5b >/dev/null
  .venv/bin/ground-gate models pull qwen2.5-coder-0.5b >/dev/null
fi

.venv/bin/ruff check ground_gate tests bench
.venv/bin/ruff format --check ground_gate tests bench
# mypy's cache beside pip's and the models, not in the checkout: a fresh clone checks only what
# changed (17 s cold on 2 cores, under 1 s warm); mypy checks every entry against its source
MYPY_CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/ground-gate/mypy" .venv/bin/mypy ground_gate
[ ! -x scripts/lint.sh ] || scripts/lint.sh
echo "test.sh: set up and linted at ${SECONDS} s"
# Every test but the real model's on 4 pytest-xdist workers: most integration tests wait (on a
# subprocess, a timeout, a browser), so even 2 cores gain from more workers than cores; a
# worker that runs out of tests takes some of another's (worksteal: 222 s against 307 s with
# xdist's default batches, which left cores idle while one worker ran its last slow tests).
# Then the e2e tests alone, in one process: llama.cpp takes every core, one server serves them.
pytest=(.venv/bin/pytest -q -p no:cacheprovider)
xdist=(-n 4 --dist worksteal)
if [ "$fast" = 1 ]; then
  exec "${pytest[@]}" "${xdist[@]}" -m "not e2e" "$@"
fi
if [ $# -gt 0 ]; then
  "${pytest[@]}" "$@"
else
  # the slowest tests named at the end of each phase: where the ten minutes go
  "${pytest[@]}" "${xdist[@]}" -m "not e2e" --durations=10
  echo "test.sh: every test but the e2e ones done at ${SECONDS} s"
  "${pytest[@]}" -m e2e --durations=0
  echo "test.sh: the e2e tests done at ${SECONDS} s"
fi
if ! wait "$floor_install"; then
  cat "$floor_log" >&2
  echo "test.sh: installing the floor versions failed" >&2
  exit 1
fi
cat "$floor_log"
scripts/test-floor.sh --installed
echo "test.sh: the floor's unit tests done at ${SECONDS} s"
# The action's images, built and run as GitHub runs them: about 5-12 minutes for the first
# build on 2 cores (llama.cpp compiles in the base image), seconds after that. Asked for with
# GROUND_GATE_CONTAINER_TESTS=1 so that .ci/run keeps within its time; CI on GitHub runs it.
if [ "${GROUND_GATE_CONTAINER_TESTS:-0}" = 1 ]; then
  scripts/test-container.sh
fi
