"""Issue 44's four pull requests, as reports a reviewer reads, built once for the shots taken
before and after (bench/views/issue44_shots.py): the same module runs on the tree of either
side, so it imports every name where that tree keeps it (`_first`), and renders through
`Renderers`, which calls the renderers as their tree takes them (a report alone before the
review was one object; `(report, review)` since).

- declining: 3 datasets x 100 rows; the pull request makes 80% of rows answer "The
  documentation does not say." where the baseline answered from the source;
- mixed: tests/reviewer_scenario.py's pull request (rows broke, rows fixed, rows still failing);
- passing: the declining pull request's three datasets with no row changed;
- empty: the passing run with a threshold on a score no row produced (`not checked`).

No judge is called: each row's verdicts are what a judge would give.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

NAMES = ("declining", "mixed", "passing", "empty")
DATASETS = ("billing", "devices", "shipping")
ROWS = 100
DECLINE = "The documentation does not say."
SCORES = {
    "groundedness": ("groundedness", "hallucination", "contradiction"),
    "answers": ("answered", "answered_anyway", "context_relevance"),
}


def _first(attribute: str, *modules: str) -> Any:
    """`attribute` from the first of `modules` that exists (the tree after, then before)."""
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:  # not in this tree; anything else is a fault
            if error.name is None or not name.startswith(error.name):
                raise
            continue
        if hasattr(module, attribute):
            return getattr(module, attribute)
    raise ImportError(f"{attribute} in none of {modules}")


def _names() -> dict[str, Any]:
    return {
        "Threshold": _first("Threshold", "ground_gate.config.model"),
        "RowResult": _first("RowResult", "ground_gate.leaves.results", "ground_gate.results"),
        "MetricResult": _first("MetricResult", "ground_gate.leaves.results", "ground_gate.results"),
        "UnitResult": _first("UnitResult", "ground_gate.leaves.results", "ground_gate.results"),
        "Usage": _first("Usage", "ground_gate.leaves.usage", "ground_gate.usage"),
        "verdicts": _first("verdicts", "ground_gate.verdict.record", "ground_gate.record"),
        "RowTexts": _first("RowTexts", "ground_gate.verdict.record", "ground_gate.record"),
        "build_report": _first("build_report", "ground_gate.report.json_report"),
        "baseline_scores": _first("baseline_scores", "ground_gate.report.readback"),
        "run_record": _first("run_record", "tests.records"),
    }


@dataclass(frozen=True)
class Scenario:
    name: str
    report: dict[str, Any]
    baseline: dict[str, Any] | None
    exit_code: int


def _fact(dataset: str, i: int) -> tuple[str, str, str]:
    """(source, question, the answer it supports) of row i."""
    days = 2 + i % 11
    things = {"billing": "an invoice", "devices": "a battery", "shipping": "a parcel"}
    thing = things.get(dataset, "an order")
    source = (
        f"Replacing {thing} takes {days} business days. The request is made from the account "
        "page. Requests made on a weekend start on the Monday after."
    )
    question = f"How long does replacing {thing} take?"
    return source, question, f"Replacing {thing} takes {days} business days."


def _row(n: dict[str, Any], dataset: str, i: int, declines: bool) -> tuple[Any, Any]:
    source, question, answer = _fact(dataset, i)
    shift = 0.01 * (i % 4)
    if declines:
        grounded = n["MetricResult"]("groundedness", "no_claims", {}, ())
        p_answered, response = 0.04, DECLINE
        verdict = "declined"
    else:
        p = (round(0.94 - shift, 4), 0.02, round(0.04 + shift, 4))
        unit = n["UnitResult"](
            answer,
            p[0],
            "supported",
            answer,
            {"p_supported": p[0], "p_contradicted": p[1], "p_absent": p[2], "chunk": 0},
        )
        scores = {"groundedness": p[0], "hallucination": p[2], "contradiction": p[1]}
        grounded = n["MetricResult"]("groundedness", "ok", scores, (unit,), usage=n["Usage"](1))
        p_answered, response, verdict = 0.95, answer, "answered"
    answers = n["MetricResult"](
        "answers",
        "ok",
        {"answered": p_answered, "context_relevance": 0.92},
        (
            n["UnitResult"](response, p_answered, verdict, detail={"p_answered": p_answered}),
            n["UnitResult"]("q", 0.92, "source answers it", detail={"p_answerable": 0.92}),
        ),
        usage=n["Usage"](2),
    )
    row = n["RowResult"](dataset, f"{dataset}-{i:03d}", (grounded, answers), 0.7)
    return row, n["RowTexts"](source, question, response)


def datasets_report(
    declined: float,
    created: int,
    baseline: dict[str, Any] | None,
    empty: bool = False,
    datasets: Sequence[str] = DATASETS,
    rows: int = ROWS,
) -> dict[str, Any]:
    """`datasets` (three) of `rows` rows, `declined` of each declining, gated against
    `baseline`; `empty`: with a threshold on a score no row produced."""
    n = _names()
    built = [_row(n, d, i, i < declined * rows) for d in datasets for i in range(rows)]
    threshold = n["Threshold"]
    thresholds = {
        d: {
            "groundedness": threshold(min=0.8, max_drop=0.03),
            "hallucination": threshold(max=0.15),
            "answered": threshold(min=0.7),
        }
        for d in datasets
    }
    scores = dict(SCORES)
    if empty:  # a threshold on a score no row produced: the check cannot be made
        scores["faithfulness"] = ("faithfulness",)
        thresholds[datasets[1 % len(datasets)]]["faithfulness"] = threshold(min=0.8)
    record = n["run_record"](
        [r for r, _ in built],
        datasets=[(d, rows) for d in datasets],
        scores_by_metric=scores,
        thresholds=thresholds,
        usage={"groundedness": n["Usage"](calls=len(built))},
        seconds=120.0,
        texts={(r.dataset, r.sample_id): t for r, t in built},
        created_at=datetime(2026, 11, 24, created, tzinfo=UTC),
    )
    before = None if baseline is None else n["baseline_scores"](baseline)
    return dict(n["build_report"](record, n["verdicts"](record, before)))


def scenario(name: str) -> Scenario:
    """The pull request called `name` (one of NAMES): its report, its baseline, its exit code."""
    if name == "mixed":
        baseline, report = _first("scenario", "tests.reviewer_scenario")()
        return Scenario(name, report, baseline, 1)
    baseline = datasets_report(0.0, 8, None)
    declined = 0.8 if name == "declining" else 0.0
    report = datasets_report(declined, 9, baseline, empty=name == "empty")
    return Scenario(name, report, baseline, 0 if report["status"] == "passed" else 1)


class Renderers:
    """The tree's renderers (the comment, the page, the terminal), each called as that tree
    takes it: the report compared with its baseline first (`compare_rows`, where the tree
    has it), then `(report)` before the review was an object, `(report, review)` after."""

    def __init__(self) -> None:
        self.markdown = _first(
            "render_markdown", "ground_gate.render.markdown", "ground_gate.report.markdown"
        )
        self.html = _first("render_html", "ground_gate.render.html", "ground_gate.report.html")
        self.terminal = _first(
            "render_terminal", "ground_gate.render.terminal", "ground_gate.report.terminal"
        )
        self.compare = _first(
            "compare_rows", "ground_gate.review.baseline_rows", "ground_gate.report.baseline_rows"
        )
        try:
            self.review_of: Callable[[Any], Any] | None = _first(
                "review_of", "ground_gate.review.review"
            )
        except ImportError:
            self.review_of = None

    def _args(self, renderer: Callable[..., Any], s: Scenario) -> list[Any]:
        report = s.report if s.baseline is None else self.compare(s.report, s.baseline)
        if "review" in inspect.signature(renderer).parameters and self.review_of is not None:
            return [report, self.review_of(report)]
        return [report]

    def comment(self, s: Scenario, page_url: str | None = None) -> str:
        return str(self.markdown(*self._args(self.markdown, s), page_url=page_url))

    def page(self, s: Scenario) -> str:
        return str(self.html(*self._args(self.html, s)))

    def text(self, s: Scenario, width: int = 80) -> str:
        args = self._args(self.terminal, s)
        return str(self.terminal(*args, width=width, exit_code=s.exit_code))
