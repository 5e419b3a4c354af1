"""assert_grounded and the `ground_gate` fixture's object: what a test calls. Imports pytest and
the standard library only; the session's modules are imported by the first assertion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest

from ground_gate.asserting.state import State, active

if TYPE_CHECKING:
    from ground_gate.asserting.session import Checked, GroundSession
    from ground_gate.asserting.settings import Settings


class GroundednessError(AssertionError):
    """An answer not grounded enough in its source: the message says each threshold it missed
    and the sentences behind it, with the source's words."""

    __module__ = "ground_gate.pytest_plugin"  # where a test imports it from, as pytest shows it


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
    state = active()
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
    only = report_only if report_only is not None else marked.get("report_only")
    _ended(checked, state, only if only is not None else session.settings.report_only)
    return _scores(session, item.nodeid, state.index)


def _ended(checked: Checked, state: State, report_only: bool) -> None:
    """How the assertion ends, raised: a skip (no judge), a failure (no recorded verdict in
    replay), GroundednessError; a failure in report-only mode is kept for the summary."""
    __tracebackhide__ = True
    from ground_gate.leaves.masking import mask

    if checked.kind == "passed":
        return
    message = mask(checked.message)
    if checked.kind == "unreachable":
        if state.grounding().settings.unreachable == "fail":
            pytest.fail(f"ground-gate: the judge cannot be reached: {message}", pytrace=False)
        pytest.skip(f"ground-gate: the judge cannot be reached: {message}")
    if checked.kind == "not recorded":
        pytest.fail(message, pytrace=False)
    if not report_only:
        raise GroundednessError(message)
    state.reported.append(message)
    if state.item is not None:
        state.item.user_properties.append(("ground-gate", message))


class Grounding:
    """The `ground_gate` fixture: the session's judge, on the config the CLI reads."""

    @property
    def config(self) -> Any:
        """The config (ground_gate.config.model.Config), read once for the session."""
        return active().grounding().config

    @property
    def settings(self) -> Settings:
        """The plugin's settings: the config's path, the mode, the store, the report."""
        return active().grounding().settings

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


def _scores(session: GroundSession, test: str, index: int) -> dict[str, float]:
    from ground_gate.asserting.collected import row_name

    found = session.collected.rows.get(row_name(test, index))
    if found is None:
        return {}
    return {name: value for m in found.row.metrics for name, value in m.scores.items()}
