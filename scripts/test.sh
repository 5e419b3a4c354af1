#!/usr/bin/env bash
# Quick start, part 2: set up with the test tools and run lint, type checks and every test,
# the end-to-end tests with the real local model included.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh local,dev
# the e2e tests judge with the 1.5B model; the local-server test uses the 0.5B one
.venv/bin/ground-gate models pull qwen2.5-coder-1.5b >/dev/null
.venv/bin/ground-gate models pull qwen2.5-coder-0.5b >/dev/null

.venv/bin/ruff check ground_gate tests bench
.venv/bin/ruff format --check ground_gate tests bench
.venv/bin/mypy ground_gate
[ ! -x scripts/lint.sh ] || scripts/lint.sh
.venv/bin/pytest -q -p no:cacheprovider "$@"
# the unit tests again on the lowest versions pyproject.toml allows (about a minute)
scripts/test-floor.sh
# The action's images, built and run as GitHub runs them: about 5-12 minutes for the first
# build on 2 cores (llama.cpp compiles in the base image), seconds after that. Asked for with
# GROUND_GATE_CONTAINER_TESTS=1 so that .ci/run keeps within its time; CI on GitHub runs it.
if [ "${GROUND_GATE_CONTAINER_TESTS:-0}" = 1 ]; then
  scripts/test-container.sh
fi
