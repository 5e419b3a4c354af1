"""ground-gate's pytest plugin (entry point `pytest11`, installed with the package): assert that
an answer is grounded in its source where a suite's other assertions live, on the config,
judge, cache and report `ground-gate run` uses.

    from ground_gate.pytest_plugin import assert_grounded

    def test_refund_answer():
        answer = my_app.ask("How long do refunds take?")
        assert_grounded(answer, source=REFUND_POLICY, question="How long do refunds take?")

This module imports pytest, the standard library and the plugin's state and API
(ground_gate/asserting/state.py, api.py: as light): a suite that never asserts groundedness
loads nothing else of ground-gate's (bench/speed/plugin_import.py measures it). The session
(ground_gate/asserting/session.py) is made on the first assertion.

Options (each also an ini key: gg_config, gg_mode, gg_store, gg_unreachable, gg_report_only):
  --gg-config PATH        the config (default: ground-gate.yml in the rootdir)
  --gg-mode MODE          auto: replay recorded verdicts, judge and record the rest (default);
                          replay: judge nothing, an answer with no recorded verdict fails;
                          record: judge every assertion again and record it
  --gg-store DIR          where verdicts are recorded (default: ground-gate-verdicts beside
                          the config)
  --gg-report PATH        the asserted rows written as a ground-gate JSON report
  --gg-baseline PATH      that report compared with an earlier one (what broke, max_drop)
  --gg-unreachable WHAT   skip (default) or fail an assertion that needs a judge it cannot reach
  --gg-report-only        failures are reported (the summary, the report), never raised
Marker: @pytest.mark.grounded(thresholds={...}, metrics=[...], report_only=True).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from ground_gate.asserting.api import GroundednessError, Grounding, assert_grounded
from ground_gate.asserting.state import begin, end, state_of, write_report

__all__ = ["GroundednessError", "Grounding", "assert_grounded"]

MARKER = (
    "grounded(thresholds=None, metrics=None, report_only=False): ground-gate's thresholds "
    "(score -> {min, max, allow_empty}), metrics and report-only switch for this test's "
    "assert_grounded calls"
)
CHOICES = {"gg_mode": ("auto", "replay", "record"), "gg_unreachable": ("skip", "fail")}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ground-gate", "groundedness assertions (ground-gate)")
    group.addoption(
        "--gg-config", dest="gg_config", metavar="PATH",
        help="ground-gate's config (default: ground-gate.yml in the rootdir)",
    )  # fmt: skip
    group.addoption(
        "--gg-mode", dest="gg_mode", choices=CHOICES["gg_mode"],
        help="auto: replay recorded verdicts, judge and record the rest (default); replay: "
        "judge nothing, fail an answer with no recorded verdict; record: judge all again",
    )  # fmt: skip
    group.addoption(
        "--gg-store", dest="gg_store", metavar="DIR",
        help="where verdicts are recorded (default: ground-gate-verdicts beside the config)",
    )  # fmt: skip
    group.addoption(
        "--gg-report", dest="gg_report", metavar="PATH",
        help="write the asserted rows as a ground-gate JSON report (`ground-gate report` reads it)",
    )  # fmt: skip
    group.addoption(
        "--gg-baseline", dest="gg_baseline", metavar="PATH",
        help="compare --gg-report with this earlier report (what broke, max_drop checks)",
    )  # fmt: skip
    group.addoption(
        "--gg-unreachable", dest="gg_unreachable", choices=CHOICES["gg_unreachable"],
        help="skip (default) or fail an assertion that needs a judge it cannot reach",
    )  # fmt: skip
    group.addoption(
        "--gg-report-only", dest="gg_report_only", action="store_true", default=False,
        help="report groundedness failures (summary, report) without failing the tests",
    )  # fmt: skip
    parser.addini("gg_config", "ground-gate's config, relative to the rootdir")
    parser.addini("gg_mode", "auto, replay or record (see --gg-mode)")
    parser.addini("gg_store", "where verdicts are recorded, relative to the rootdir")
    parser.addini("gg_unreachable", "skip or fail (see --gg-unreachable)")
    parser.addini("gg_report_only", "report failures without failing", type="bool", default=False)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    for name, choices in CHOICES.items():
        written = config.getini(name)
        if written and written not in choices:
            raise pytest.UsageError(
                f"{config.inipath or 'the ini file'}: {name} = {written!r}: expected one of "
                + ", ".join(choices)
            )
    begin(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller: every worker is told the directory its judge server is shared in
    and the process that owns it (this one)."""
    state = state_of(node.config)
    if state is None:
        return
    if state.shared_dir is None:
        state.shared_dir = tempfile.mkdtemp(prefix="ground-gate-xdist-")
    node.workerinput["gg_shared_dir"] = state.shared_dir
    node.workerinput["gg_owner_pid"] = os.getpid()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist's controller: a worker's rows, counts and notes, kept for the report."""
    output = getattr(node, "workeroutput", {})
    state = state_of(node.config)
    if state is None:
        return
    if rows := output.get("gg_rows"):
        state.exports.append(rows)
    for name, count in output.get("gg_counts", {}).items():
        state.counts[name] = state.counts.get(name, 0) + count
    state.notes += [n for n in output.get("gg_notes", []) if n not in state.notes]
    state.reported += output.get("gg_reported", [])


def pytest_runtest_setup(item: pytest.Item) -> None:
    state = state_of(item.config)
    if state is None:
        return
    state.item, state.index = item, 0
    if state.session is not None:
        state.session.collected.restart(item.nodeid)


def pytest_runtest_teardown(item: pytest.Item) -> None:
    state = state_of(item.config)
    if state is not None:
        state.item = None


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = state_of(session.config)
    if state is None:
        return
    ground = state.session
    worker = getattr(session.config, "workeroutput", None)
    if ground is not None:
        ground.close()
        for name, count in ground.counts.items():
            state.counts[name] = state.counts.get(name, 0) + count
    if worker is not None:  # an xdist worker: the controller reports
        if ground is not None:
            worker["gg_rows"] = ground.collected.exported()
        worker["gg_counts"] = state.counts
        worker["gg_notes"] = state.notes
        worker["gg_reported"] = state.reported
        return
    report = session.config.getoption("gg_report")
    written = write_report(state, Path(report)) if report else True
    if not written and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED  # the report asked for is missing


def pytest_terminal_summary(terminalreporter: Any) -> None:
    state = state_of(terminalreporter.config)
    if state is None:
        return
    counts = state.counts
    if not (counts or state.notes or state.reported):
        return
    terminalreporter.section("ground-gate")
    if counts:
        said = ", ".join(f"{counts.get(n, 0)} {n}" for n in ("judged", "replayed", "recorded"))
        terminalreporter.write_line(f"groundedness assertions: {said}")
    for note in state.notes:
        terminalreporter.write_line(note)
    for message in state.reported:
        terminalreporter.write_line(f"reported, not failed (report-only):\n{message}")


def pytest_unconfigure(config: pytest.Config) -> None:
    state = end(config)
    if state is None or state.shared_dir is None:
        return
    if os.path.exists(os.path.join(state.shared_dir, "server.json")):
        from ground_gate.local.shared import stop_shared

        stop_shared(Path(state.shared_dir))
    shutil.rmtree(state.shared_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def ground_gate() -> Grounding:
    """ground-gate's judge for this session: `ground_gate.assert_grounded(answer, source)`;
    `ground_gate.config` is the config the CLI reads (--gg-config)."""
    return Grounding()
