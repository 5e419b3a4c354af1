"""Every JSON report a test builds is checked against the published schema; every test starts
with no secret registered for masking; and the session fails if it left anything in the
working tree, ignored folders included (tests write under their temporary directories only).

`build_report` is wrapped once for the session, in its own module and wherever a module
imported it by name (the run command, report_files, the report tests...), so a report built by any
path, the CLI's included, is validated. A report that does not match fails the test that built
it, naming the field: in the call itself, and again at teardown in case the code under test
swallowed the error.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# Hypothesis keeps files of its own (constants it found in the code, Unicode tables) under
# .hypothesis/ in the working directory even with no example database: a temporary folder
# instead, set before it is imported (tests write only under their temporary directories)
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", tempfile.mkdtemp(prefix="hypothesis-"))

from hypothesis import HealthCheck, settings

from ground_gate.leaves import masking
from ground_gate.report import json_report
from ground_gate.report.schema import schema_problems
from tests.examples import examples
from tests.integration.fake_github import FakeGitHub
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.support_bot import rate

ROOT = Path(__file__).resolve().parents[1]
# Property tests: the same examples on every run and machine (derandomize), nothing written to
# the working tree (no example database), no timing that a loaded 2-core machine would trip.
settings.register_profile(
    "ground-gate",
    database=None,
    derandomize=True,
    deadline=None,
    max_examples=examples(100),  # fewer at the floor versions (tests/examples.py)
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ground-gate")
_tree_before: set[str] | None = None


def _tree() -> set[str] | None:
    """Every file `git status --porcelain --ignored` lists one by one, bytecode caches left out
    (Python writes them on import; they are no test's output) and the virtual environments;
    None outside a git checkout."""
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "--ignored", "--untracked-files=all", "--", ".",
             *(f":(exclude){venv}" for venv in (".venv", ".venv-floor", "bench/.venv-peers"))],
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return {line for line in done.stdout.splitlines() if "__pycache__/" not in line}


def _worker(session: pytest.Session) -> bool:
    """A pytest-xdist worker: the controller, which outlives every worker, checks the tree."""
    return hasattr(session.config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    global _tree_before
    if not _worker(session):
        _tree_before = _tree()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A test that wrote into the checkout (a cache, a report, a screenshot) fails the run."""
    if _worker(session):
        return
    after = _tree()
    if _tree_before is None or after is None or after == _tree_before:
        return
    added = sorted(after - _tree_before)
    gone = sorted(_tree_before - after)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = ["the tests changed the working tree (`git status --porcelain --ignored`):"]
    lines += [f"  + {line}" for line in added] + [f"  - {line}" for line in gone]
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line("\n".join(lines), red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


_ORIGINAL = json_report.build_report
_problems: list[str] = []


@functools.wraps(_ORIGINAL)
def _validated(*args: Any, **kwargs: Any) -> Any:
    report = _ORIGINAL(*args, **kwargs)
    problems = schema_problems(report)
    if problems:
        message = "the JSON report does not match report.schema.json:\n  " + "\n  ".join(problems)
        _problems.append(message)
        raise AssertionError(message)
    return report


def _holders() -> list[Any]:
    """Every loaded module holding `build_report` under that name, json_report included."""
    return [
        module
        for module in list(sys.modules.values())
        if getattr(module, "__dict__", {}).get("build_report") is _ORIGINAL
    ]


@pytest.fixture(autouse=True)
def _no_secret_registered() -> Iterator[None]:
    """Every test starts as a process does: no secret registered for masking (a secret an
    earlier test read would be masked in this one's output)."""
    masking.forget_all()
    yield
    masking.forget_all()


@pytest.fixture(scope="session", autouse=True)
def _reports_validated() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for module in _holders():
            patch.setattr(module, "build_report", _validated)
        yield


@pytest.fixture(autouse=True)
def _no_invalid_report() -> Iterator[None]:
    _problems.clear()
    yield
    if _problems:
        pytest.fail(_problems[0], pytrace=False)


class ReportSchema:
    """The schema check, for tests of the check itself (fixture `report_schema`)."""

    problems = staticmethod(schema_problems)

    @staticmethod
    def wrapped(function: Callable[..., Any]) -> bool:
        """Whether `function` is `build_report` with the check on."""
        return function is _validated

    @staticmethod
    def caught() -> list[str]:
        """The reports rejected so far in this test, taken: the test expected them."""
        taken = list(_problems)
        _problems.clear()
        return taken


@pytest.fixture
def report_schema() -> ReportSchema:
    return ReportSchema()


# --- the scripted judge and the fake GitHub API that the end-to-end action tests share ---


@pytest.fixture
def judge() -> Iterator[FakeOpenAI]:
    """The scripted OpenAI-compatible judge rating tests.integration.support_bot's rows."""
    with FakeOpenAI(handler=rate) as server:
        yield server


@pytest.fixture
def github_token() -> str:
    """The token the fake GitHub API accepts; a test module overrides it with its own."""
    return "ghs_faketoken"


@pytest.fixture
def github(github_token: str) -> Iterator[FakeGitHub]:
    """The fake GitHub REST API; every request and response is checked against the OpenAPI."""
    with FakeGitHub(token=github_token) as server:
        yield server
    assert server.violations == []
