"""ground-gate's pytest plugin (entry point `pytest11`, installed with the package): assert that
an answer is grounded in its source where a suite's other assertions live, on the config,
judge, cache and report `ground-gate run` uses.

    from ground_gate.pytest_plugin import assert_grounded

    def test_refund_answer():
        answer = my_app.ask("How long do refunds take?")
        assert_grounded(answer, source=REFUND_POLICY, question="How long do refunds take?")

This module imports pytest and the standard library only: a suite that never asserts
groundedness loads nothing of ground-gate's (bench/speed/plugin_import.py measures it). The
session (ground_gate/asserting/) is made on the first assertion.

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
import shlex
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ground_gate.asserting.session import GroundSession
    from ground_gate.asserting.settings import Settings

MARKER = (
    "grounded(thresholds=None, metrics=None, report_only=False): ground-gate's thresholds "
    "(score -> {min, max, allow_empty}), metrics and report-only switch for this test's "
    "assert_grounded calls"
)
CHOICES = {"gg_mode": ("auto", "replay", "record"), "gg_unreachable": ("skip", "fail")}
OUTSIDE = (
    "assert_grounded runs inside a pytest session with ground-gate's plugin (installed with "
    "ground-gate; not disabled by -p no:ground_gate)"
)


class GroundednessError(AssertionError):
    """An answer not grounded enough in its source: the message says each threshold it missed
    and the sentences behind it, with the source's words."""


class _State:
    """The plugin's state in one pytest process: its settings, the session (made on the first
    assertion), the test running and its assertions so far, what workers sent."""

    def __init__(self, config: pytest.Config) -> None:
        self.pytest_config = config
        self.session: GroundSession | None = None
        self.item: pytest.Item | None = None
        self.index = 0
        self.exports: list[str] = []
        self.notes: list[str] = []
        self.reported: list[str] = []  # report-only failures, said in the summary
        self.shared_dir: str | None = None
        self.counts: dict[str, int] = {}

    def option(self, name: str) -> Any:
        """A command-line value, else the ini file's."""
        value = self.pytest_config.getoption(name)
        if value is None or value is False:
            value = self.pytest_config.getini(name)
        return value

    def path(self, name: str, default: Path | None) -> Path | None:
        """A path option: the command line's relative to the working directory, the ini
        file's to the rootdir."""
        given = self.pytest_config.getoption(name)
        if given:
            return Path(given).absolute()
        written = self.pytest_config.getini(name)
        return self.pytest_config.rootpath / written if written else default

    def settings(self) -> Settings:
        from ground_gate.asserting.settings import DEFAULT_CONFIG, DEFAULT_STORE, Settings

        rootpath = self.pytest_config.rootpath
        config = self.path("gg_config", rootpath / DEFAULT_CONFIG) or rootpath / DEFAULT_CONFIG
        store = self.path("gg_store", None) or config.parent / DEFAULT_STORE
        report = self.pytest_config.getoption("gg_report")
        worker: Mapping[str, Any] = getattr(self.pytest_config, "workerinput", {})
        shared = worker.get("gg_shared_dir")
        return Settings(
            config=config,
            mode=self.option("gg_mode") or "auto",
            store=store,
            report=Path(report).absolute() if report else None,
            unreachable=self.option("gg_unreachable") or "skip",
            report_only=bool(self.option("gg_report_only")),
            shared_dir=Path(shared) if shared else None,
            owner_pid=worker.get("gg_owner_pid"),
        )

    def grounding(self) -> GroundSession:
        if self.session is None:
            from ground_gate.asserting.session import GroundSession

            self.session = GroundSession(self.settings(), os.environ, self.notes.append)
        return self.session


_ACTIVE: list[_State] = []


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
                f"ini {name} = {written!r}: expected one of {', '.join(choices)}"
            )
    _ACTIVE.append(_State(config))


def _state() -> _State:
    if not _ACTIVE:
        raise RuntimeError(OUTSIDE)
    return _ACTIVE[-1]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller: every worker is told the directory its judge server is shared in
    and the process that owns it (this one)."""
    state = _state()
    if state.shared_dir is None:
        state.shared_dir = tempfile.mkdtemp(prefix="ground-gate-xdist-")
    node.workerinput["gg_shared_dir"] = state.shared_dir
    node.workerinput["gg_owner_pid"] = os.getpid()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist's controller: a worker's rows, counts and notes, kept for the report."""
    output = getattr(node, "workeroutput", {})
    state = _state()
    if rows := output.get("gg_rows"):
        state.exports.append(rows)
    for name, count in output.get("gg_counts", {}).items():
        state.counts[name] = state.counts.get(name, 0) + count
    state.notes += [n for n in output.get("gg_notes", []) if n not in state.notes]
    state.reported += output.get("gg_reported", [])


def pytest_runtest_setup(item: pytest.Item) -> None:
    state = _state()
    state.item, state.index = item, 0
    if state.session is not None:
        state.session.collected.restart(item.nodeid)


def pytest_runtest_teardown(item: pytest.Item) -> None:
    _state().item = None


def assert_grounded(
    answer: str,
    source: str | Sequence[str],
    question: str | None = None,
    *,
    thresholds: Mapping[str, Any] | None = None,
    metrics: str | Sequence[str] | None = None,
    report_only: bool | None = None,
) -> dict[str, float]:
    """Fail the running test unless `answer` is grounded in `source` (one text or its
    passages), by the config's judge and metrics, held to the config's thresholds (each
    replaced by this test's `grounded` marker's, then by `thresholds`: score -> {min, max,
    allow_empty}, or a number for a min). Returns the row's scores.

    A verdict recorded for the same answer, source, question, judge, prompts and settings is
    replayed with no judge call; else the judge is asked and the verdict recorded. No judge
    reachable: the test is skipped with the reason (`--gg-unreachable=fail` fails it).
    """
    __tracebackhide__ = True
    state = _state()
    item = state.item
    if item is None:
        raise RuntimeError("assert_grounded is called from a test, not from a fixture or hook")
    from ground_gate.leaves.errors import GroundGateError
    from ground_gate.leaves.masking import mask

    marker = item.get_closest_marker("grounded")
    marked: Mapping[str, Any] = marker.kwargs if marker is not None else {}
    state.index += 1
    session = state.grounding()
    limits = {**(marked.get("thresholds") or {}), **(thresholds or {})}
    try:
        checked = session.check(
            item.nodeid, state.index, answer, source, question,
            metrics=metrics if metrics is not None else marked.get("metrics"),
            thresholds=limits or None,
        )  # fmt: skip
    except GroundGateError as exc:  # a config or a recorded verdict it cannot read
        problem: str | None = mask(f"ground-gate: {exc}")
    else:
        problem = None
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    scores = _scores(session, item.nodeid, state.index)
    if checked.kind == "passed":
        return scores
    message = mask(checked.message)
    if checked.kind == "unreachable":
        if session.settings.unreachable == "fail":
            pytest.fail(f"ground-gate: the judge cannot be reached: {message}", pytrace=False)
        pytest.skip(f"ground-gate: the judge cannot be reached: {message}")
    if checked.kind == "not recorded":
        pytest.fail(message, pytrace=False)
    only = report_only if report_only is not None else marked.get("report_only")
    if only if only is not None else session.settings.report_only:
        state.reported.append(message)
        item.user_properties.append(("ground-gate", message))
        return scores
    raise GroundednessError(message)


class Grounding:
    """The `ground_gate` fixture: the session's judge, on the config the CLI reads."""

    @property
    def config(self) -> Any:
        """The config (ground_gate.config.model.Config), read once for the session."""
        return _state().grounding().config

    @property
    def settings(self) -> Settings:
        """The plugin's settings: the config's path, the mode, the store, the report."""
        return _state().grounding().settings

    def assert_grounded(
        self,
        answer: str,
        source: str | Sequence[str],
        question: str | None = None,
        **options: Any,
    ) -> dict[str, float]:
        """assert_grounded, as the module-level function."""
        __tracebackhide__ = True
        return assert_grounded(answer, source, question, **options)


@pytest.fixture(scope="session")
def ground_gate() -> Grounding:
    """ground-gate's judge for this session: `ground_gate.assert_grounded(answer, source)`;
    `ground_gate.config` is the config the CLI reads (--gg-config)."""
    return Grounding()


def _scores(session: GroundSession, test: str, index: int) -> dict[str, float]:
    from ground_gate.asserting.collected import row_name

    found = session.collected.rows.get(row_name(test, index))
    if found is None:
        return {}
    return {name: value for m in found.row.metrics for name, value in m.scores.items()}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = _state()
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
    if report:
        _write_report(state, Path(report))


def _write_report(state: _State, path: Path) -> None:
    from ground_gate.leaves.errors import GroundGateError
    from ground_gate.leaves.masking import mask

    ground = state.grounding()
    try:
        for exported in state.exports:
            ground.collected.merge(exported)
        baseline = state.pytest_config.getoption("gg_baseline")
        outcome = ground.collected.write(
            ground.config,
            path.absolute(),
            state.notes.append,
            Path(baseline).absolute() if baseline else None,
        )
    except GroundGateError as exc:
        state.notes.append(mask(f"ground-gate: error: the report was not written: {exc}"))
        return
    rows = len(ground.collected.rows)
    state.notes.append(
        f"ground-gate: {path}: {rows} assertion{'s' if rows != 1 else ''}, report "
        f"{outcome.report['status']} (`ground-gate report {shlex.quote(str(path))}` renders it)"
    )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    state = _state()
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
    state = _ACTIVE.pop() if _ACTIVE else None
    if state is None or state.shared_dir is None:
        return
    if os.path.exists(os.path.join(state.shared_dir, "server.json")):
        from ground_gate.local.shared import stop_shared

        stop_shared(Path(state.shared_dir))
    shutil.rmtree(state.shared_dir, ignore_errors=True)
