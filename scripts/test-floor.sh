#!/usr/bin/env bash
# The unit tests on the lowest versions pyproject.toml allows: every `name>=X` of the core
# dependencies installed at exactly X in a venv of its own (.venv-floor), ground-gate itself
# from this checkout. A floor that no longer holds (an API the code uses that came later)
# fails here, not in a user's environment that pins an older release.
#   scripts/test-floor.sh            install the floors (if need be) and run the unit tests
#   scripts/test-floor.sh --install  install only (scripts/test.sh does it while lint runs)
#   scripts/test-floor.sh --installed  the unit tests only, the floors installed just before
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-floor
python=${PYTHON:-python3}
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)

floors=$("$venv/bin/python" - <<'PY'
import re, tomllib
with open("pyproject.toml", "rb") as f:
    deps = tomllib.load(f)["project"]["dependencies"]
for dep in deps:
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9.]*)\s*", dep.split(";")[0])
    if not match:
        raise SystemExit(f"test-floor: cannot read a floor from {dep!r}: write it as name>=X")
    print(f"{match[1]}=={match[2]}")
PY
)
# shellcheck disable=SC2086
[ "${1:-}" = --installed ] ||
  "${pip[@]}" install --only-binary :all: $floors pytest pytest-asyncio hypothesis pytest-xdist
[ "${1:-}" != --install ] || exit 0
# the properties were checked over every example in the main run: a tenth of them here
# (tests/examples.py), which still runs every test on the floor versions
GROUND_GATE_FLOOR=1 PYTHONPATH="$PWD" "$venv/bin/python" -m pytest -q -p no:cacheprovider -n 2 tests/unit
