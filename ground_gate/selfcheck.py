"""`python -m ground_gate.selfcheck`: prove an installation can run offline, or fail loudly.

The action's Dockerfile runs it at build time, so an image that cannot import a module (a
missing shared library such as libgomp for llama.cpp), or that would need a download to split
sentences, fails to build instead of failing a user's pull request. It checks every
ground-gate module, the local judge's server module, and the Punkt splitter on a hard case.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys

import ground_gate
from ground_gate.leaves.sentences import split_sentences
from ground_gate.local.server import SERVER_MODULE

# the pytest plugin's modules import pytest, which loads them: checked where pytest is installed
# (the action's image has none)
NEEDS_PYTEST = frozenset(
    {"ground_gate.pytest_plugin", "ground_gate.asserting.state", "ground_gate.asserting.api"}
)
HARD_CASE = "Dr. Smith met the U.S. envoy at 3.5 p.m. on Friday. He left."
EXPECTED = ["Dr. Smith met the U.S. envoy at 3.5 p.m. on Friday.", "He left."]


def problems() -> list[str]:
    """What cannot load or work, one line each; empty when all is well."""
    found = []
    modules = [m.name for m in pkgutil.walk_packages(ground_gate.__path__, "ground_gate.")]
    if importlib.util.find_spec("pytest") is None:
        modules = [name for name in modules if name not in NEEDS_PYTEST]
    for name in [*modules, "llama_cpp", f"{SERVER_MODULE}.app"]:
        if name == __name__ or name.endswith(".__main__"):
            continue
        try:
            importlib.import_module(name)
        except Exception as exc:  # any failure to load is what this check is for
            found.append(f"cannot import {name}: {type(exc).__name__}: {exc}")
    try:
        got = split_sentences(HARD_CASE)
    except Exception as exc:
        found.append(f"sentence splitting failed: {type(exc).__name__}: {exc}")
    else:
        if got != EXPECTED:
            found.append(f"sentence splitting: expected {EXPECTED}, got {got}")
    return found


def main() -> int:
    found = problems()
    for line in found:
        print(f"ground-gate selfcheck: {line}", file=sys.stderr)
    if not found:
        print(f"ground-gate selfcheck: {ground_gate.__version__} ready, offline")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
