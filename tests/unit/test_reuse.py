"""Reuse never takes a row whose key differs in any part: over generated rows, each kept or
changed in one field (source, question, answer, what is cut or hidden, the other reading)
and a run changed in one part of its key or none, the baseline's verdicts are taken exactly
for the rows with nothing changed, as the baseline gave them, and for none when a part of
the run differs, saying which."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ground_gate.datasets import HeldAnswer, Sample
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.leaves.usage import Usage
from ground_gate.metrics.answers import HOLDS, LACKS
from ground_gate.report.json_report import metric_entry
from ground_gate.report.types import Report, RowEntry
from ground_gate.stages.reuse import (
    PART_WORDS,
    KeyParts,
    Reuse,
    ReusePlan,
    context_keys_of,
    held_from,
    keys_of,
    reuse_from,
)
from tests.examples import examples

PARTS = KeyParts(judge="sha256:j", prompts="7", method="sha256:m", scorer="0.1.0")
# every field of a row its verdicts depend on
FIELDS = (
    "sources",
    "response",
    "question",
    "answerable",
    "reference",
    "addressed",
    "hidden",
    "uncertain_kept",
)
TEXT = st.text(min_size=0, max_size=12)  # any code point: keys must tell every one apart


@st.composite
def sample(draw: st.DrawFn, row_id: str) -> Sample:
    return Sample(
        id=row_id,
        sources=tuple(draw(st.lists(TEXT, min_size=1, max_size=2))),
        response=draw(TEXT),
        question=draw(st.none() | TEXT),
        answerable=draw(st.sampled_from([None, True, False])),
    )


def _changed(draw: st.DrawFn, row: Sample) -> Sample:
    """`row` changed in exactly one field a verdict depends on (never to the same value)."""
    field = draw(st.sampled_from(FIELDS))
    if field == "sources":
        new: Any = draw(st.lists(TEXT, min_size=1, max_size=2).map(tuple))
    elif field in ("response", "question"):
        new = draw(TEXT)
    elif field == "answerable":
        new = draw(st.sampled_from([None, True, False]))
    elif field == "reference":
        new = (draw(TEXT),)
    elif field == "addressed":
        new = (("response", draw(TEXT)),)
    elif field == "hidden":
        new = (("source", "hidden HTML", draw(TEXT)),)
    else:
        new = replace(row, response=row.response + draw(st.text(min_size=1, max_size=3)))
    if getattr(row, field) == new:
        return _changed(draw, row)
    return replace(row, **{field: new})


def _entry(dataset: str, row: Sample, key: str, error: bool) -> RowEntry:
    unit = UnitResult(row.response, 0.5, "supported", None, {})
    metric = (
        MetricResult("groundedness", "error", error="judge unreachable")
        if error
        else MetricResult(
            "groundedness", "ok", {"groundedness": 0.5}, (unit,), usage=Usage(calls=3)
        )
    )
    return {
        "dataset": dataset,
        "id": row.id,
        "seconds": 4.5,
        "failing": [],
        "metrics": {"groundedness": metric_entry(metric)},
        "key": key,
    }


@st.composite
def scenario(draw: st.DrawFn) -> dict[str, Any]:
    size = draw(st.integers(min_value=1, max_value=6))
    before = [draw(sample(f"r{i}")) for i in range(size)]
    changed = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    failed = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    now = [_changed(draw, r) if c else r for r, c in zip(before, changed, strict=True)]
    part = draw(st.sampled_from([None, *PART_WORDS]))
    parts = PARTS if part is None else replace(PARTS, **{part: "other"})
    return {"before": before, "now": now, "failed": failed, "part": part, "parts": parts}


@settings(max_examples=examples(300), deadline=None)
@given(scenario())
def test_reuse__only_rows_with_every_part_of_their_key_unchanged(case: dict[str, Any]) -> None:
    before, now = case["before"], case["now"]
    keys_before = keys_of(PARTS, [("d", before)])
    report: Report = {  # type: ignore[typeddict-item]  # only what reuse reads
        "verdict_key": PARTS.as_dict(),
        "rows": [
            _entry("d", r, keys_before[("d", r.id)], f)
            for r, f in zip(before, case["failed"], strict=True)
        ],
    }
    reuse = reuse_from(report, case["parts"], keys_of(case["parts"], [("d", now)]))

    unchanged = {
        ("d", b.id)
        for b, n, f in zip(before, now, case["failed"], strict=True)
        if b == n and not f  # a row the judge failed on is judged again
    }
    if case["part"] is not None:
        assert reuse.rows == {}
        assert reuse.none_because == f"the baseline was judged with {PART_WORDS[case['part']]}"
        return
    assert set(reuse.rows) == unchanged
    for place, row in reuse.rows.items():
        assert isinstance(row, RowResult) and row.seconds == 0.0
        (metric,) = row.metrics
        assert metric.scores == {"groundedness": 0.5} and metric.usage == Usage()
        assert metric.units[0].text == next(r.response for r in before if ("d", r.id) == place)
    if not unchanged:
        assert reuse.none_because is not None


def test_reuse__a_baseline_without_keys_reuses_nothing_and_says_why() -> None:
    row = Sample(id="r0", sources=("It is blue.",), response="It is blue.")
    report: Report = {"rows": []}  # type: ignore[typeddict-item]
    reuse = reuse_from(report, PARTS, keys_of(PARTS, [("d", [row])]))
    assert reuse.rows == {}
    assert reuse.none_because is not None and "no verdict keys" in reuse.none_because


def test_reuse__the_same_text_in_another_dataset_or_id_is_another_row() -> None:
    row = Sample(id="r0", sources=("It is blue.",), response="It is blue.")
    keys = keys_of(PARTS, [("d", [row])])
    report: Report = {  # type: ignore[typeddict-item]
        "verdict_key": PARTS.as_dict(),
        "rows": [_entry("e", row, keys[("d", "r0")], False)],
    }
    assert reuse_from(report, PARTS, keys).rows == {}


CONTEXT_FIELDS = ("sources", "question", "answerable", "reference")  # what answerable reads


def _answers_entry(dataset: str, row: Sample, key: str, context_key: str, p: float) -> RowEntry:
    side, verdict = ("answered", HOLDS) if p >= 0.4 else ("answered_anyway", LACKS)
    units = (
        UnitResult(row.response, 1.0, "answered", None, {"p_answered": 1.0}),
        UnitResult(row.question or "", p, verdict, None, {"p_answerable": p, "stated": False}),
    )
    metric = MetricResult("answers", "ok", {side: 1.0, "context_relevance": p}, units)
    return {
        "dataset": dataset,
        "id": row.id,
        "seconds": 1.0,
        "failing": [],
        "metrics": {"answers": metric_entry(metric)},
        "key": key,
        "context_key": context_key,
    }


@settings(max_examples=examples(300), deadline=None)
@given(scenario(), st.lists(st.sampled_from([0.1, 0.39, 0.4, 0.8]), min_size=6, max_size=6))
def test_held__the_answerable_verdict_only_of_rows_whose_question_and_source_are_unchanged(
    case: dict[str, Any], ps: list[float]
) -> None:
    """A row judged again keeps the baseline's answerable verdict exactly when nothing that
    verdict reads changed (its question, sources, the dataset's own context, a stated
    answerable) and the run's parts are the baseline's; never a row reused whole."""
    before, now = case["before"], case["now"]
    keys, contexts = keys_of(PARTS, [("d", before)]), context_keys_of(PARTS, [("d", before)])
    report: Report = {  # type: ignore[typeddict-item]  # only what reuse reads
        "verdict_key": PARTS.as_dict(),
        "rows": [
            _answers_entry("d", r, keys[("d", r.id)], contexts[("d", r.id)], p)
            for r, p in zip(before, ps, strict=False)
            if r.question  # an answerable verdict is judged only for a row that asks one
        ],
    }
    work = [("d", now)]
    reused = reuse_from(report, case["parts"], keys_of(case["parts"], work)).rows
    held = held_from(report, context_keys_of(case["parts"], work), reused)

    def reads_the_same(b: Sample, n: Sample) -> bool:
        return all(getattr(b, f) == getattr(n, f) for f in CONTEXT_FIELDS)

    expected = {
        ("d", n.id): p
        for b, n, p in zip(before, now, ps, strict=False)
        if b.question and reads_the_same(b, n) and ("d", n.id) not in reused
    }
    assert {k: h.p for k, h in held.items()} == ({} if case["part"] else expected)
    for h in held.values():
        assert h.answerable == (h.p >= 0.4) and h.relevance == h.p


def test_held__a_baseline_row_without_a_context_key_or_not_in_this_run_holds_nothing() -> None:
    row = Sample(id="r0", sources=("It is blue.",), response="Blue.", question="What colour?")
    other = replace(row, id="r1")
    contexts = context_keys_of(PARTS, [("d", [row])])
    keyless: RowEntry = _answers_entry("d", row, "sha256:k", "", 0.8)
    del keyless["context_key"]
    elsewhere = _answers_entry("d", other, "sha256:k", contexts[("d", "r0")], 0.8)
    report: Report = {"verdict_key": PARTS.as_dict(), "rows": [keyless, elsewhere]}  # type: ignore[typeddict-item]
    assert held_from(report, contexts, ()) == {}


def test_left__a_held_verdict_goes_with_both_readings_and_only_to_its_row() -> None:
    """The row judged again holds the baseline's verdict in its reading with the response's
    uncertain text taken out and in the one with it kept; a row with none is unchanged, and a
    row reused whole is not judged."""
    kept = Sample(id="r0", sources=("It is blue.",), response="Blue. <span>Red.</span>")
    row = replace(kept, response="Blue.", uncertain_kept=kept)
    plain = Sample(id="r1", sources=("It is blue.",), response="Blue.")
    whole = Sample(id="r2", sources=("It is blue.",), response="Blue.")
    held = HeldAnswer(0.8, True, 0.8)
    reused = {("d", "r2"): RowResult("d", "r2", ())}
    plan = ReusePlan(PARTS, {}, Reuse(reused), held={("d", "r0"): held})
    ((name, rows),) = plan.left([("d", (row, plain, whole))])
    assert name == "d" and [s.id for s in rows] == ["r0", "r1"]
    assert rows[0].held == held and rows[0].uncertain_kept is not None
    assert rows[0].uncertain_kept.held == held
    assert rows[1] is plain and rows[1].held is None
