"""Every JSON report a test builds is checked against the published schema.

`build_report` is wrapped once for the session, in its own module and wherever a module
imported it by name (the run command, report_files, the report tests...), so a report built by any
path, the CLI's included, is validated. A report that does not match fails the test that built
it, naming the field: in the call itself, and again at teardown in case the code under test
swallowed the error.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ground_gate.report import json_report
from ground_gate.report.schema import schema_problems
from tests.integration.fake_github import FakeGitHub
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.support_bot import rate

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
