"""The rows and units the report shows: one selection for the markdown and for evidence."""

import re

from ground_gate.config.model import Threshold
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.report.json_report import build_report
from ground_gate.review.selection import DEFAULT_WORST_ROWS, shown_rows
from ground_gate.verdict.dataset_scores import summarise
from ground_gate.verdict.gate import evaluate
from tests.records import run_record
from tests.rendered import render_markdown

THRESHOLDS = {"d": {"groundedness": Threshold(min=0.8)}}


def grounded(row: str, verdicts: str, score: float) -> MetricResult:
    """verdicts: one letter per unit, s = supported, u = unsupported."""
    units = tuple(
        UnitResult(
            f"{row} unit {i}", 0.9 if v == "s" else 0.1, {"s": "supported"}.get(v, "unsupported")
        )
        for i, v in enumerate(verdicts)
    )
    return MetricResult("groundedness", "ok", {"groundedness": score}, units)


def report_of(rows: list[RowResult]) -> dict:
    summaries = summarise(rows, ["d"], {"groundedness": ("groundedness",)})
    record = run_record(rows, datasets=[("d", len(rows))], thresholds=THRESHOLDS)
    return build_report(record, evaluate(summaries, THRESHOLDS, "fail"))


def test_shown_rows__failing_first_worst_score_first_and_three_bad_units_per_metric():
    rows = [
        RowResult("d", "passing-clean", (grounded("passing-clean", "ss", 0.9),)),
        RowResult("d", "passing-one-bad", (grounded("passing-one-bad", "ssssu", 0.85),)),
        RowResult("d", "failing-mild", (grounded("failing-mild", "sus", 0.6),)),
        RowResult("d", "failing-bad", (grounded("failing-bad", "uusuuu", 0.1),)),
        RowResult("d", "errored", (MetricResult("groundedness", "error", error="boom"),)),
    ]
    shown = shown_rows(report_of(rows))
    assert [s.key for s in shown] == [
        ("d", "errored"),
        ("d", "failing-bad"),
        ("d", "failing-mild"),
        ("d", "passing-one-bad"),
    ]
    assert [dict(s.units) for s in shown] == [
        {},  # an errored metric shows its error, no unit
        {"groundedness": (0, 1, 3)},
        {"groundedness": (1,)},
        {"groundedness": (4,)},
    ]
    assert shown[0].errors == ("groundedness",)
    assert [s.key for s in shown_rows(report_of(rows), limit=2)] == [
        ("d", "errored"),
        ("d", "failing-bad"),
    ]


def _worst_rows_section(markdown: str) -> dict[str, list[str]]:
    """Row id -> the sentences listed under it, as the markdown shows them."""
    section = markdown.split("<summary>Worst rows")[1].split("</details>")[0]
    shown: dict[str, list[str]] = {}
    current = ""
    for line in section.splitlines():
        header = re.match(r"\*\*d / (\S+)\*\*", line)
        if header:
            current = header.group(1)
            shown[current] = []
        elif line.startswith("- groundedness: \u201c"):
            shown[current].append(line.split("\u201c", 1)[1].split("\u201d")[0])
    return shown


def test_render_markdown__shows_exactly_the_selected_rows_and_units():
    rows = [
        RowResult("d", f"r{i:02d}", (grounded(f"r{i:02d}", "usuuusu"[: 2 + i % 6], i / 20),))
        for i in range(DEFAULT_WORST_ROWS + 6)
    ]
    report = report_of(rows)
    selection = shown_rows(report)
    assert len(selection) == DEFAULT_WORST_ROWS
    expected = {
        s.row["id"]: [
            s.row["metrics"]["groundedness"]["units"][i]["text"] for i in s.units["groundedness"]
        ]
        for s in selection
    }
    assert _worst_rows_section(render_markdown(report)) == expected
    assert any(len(texts) == 3 for texts in expected.values())  # capped at three per metric
