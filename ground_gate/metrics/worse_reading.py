"""Text of uncertain visibility, judged both ways: per metric, the reading that scores worse.

A response whose text a reader may or may not see (metrics/styles.py) is judged twice, with
that text kept and with it taken out (metrics/screen.py makes the two readings; the runner
scores both, one memo between them, so a request both make is made once). Per metric the
result kept is the worse: hidden supported padding cannot lift a score, and a claim in a
styled but visible span cannot escape judgement. A row without such text is judged once.

Worse is decided on the metric's scores in report order (config.SCORE_NAMES: groundedness
before hallucination and contradiction, answered or answered_anyway before context_relevance),
each lower, or higher for the LOWER_IS_BETTER scores; a tie on every score keeps the reading
with the text kept (it shows all that was judged). The row shows that reading's units, and
each score the worse of the two readings' (one reading can be worse on groundedness and
better on contradiction): no score of either reading is better than what the row shows. An
error in either reading is the result: the row could not be judged both ways. A reading taken
out that has nothing left to judge (no_claims: a visible decline, say, beside styled text) is
read once more with its uncertain text counted as hidden text (`nothing_visible`), so that
nothing escapes into "no claims"; and then, since the passages of such a response may be
visible or not one by one, each passage is read alone too (`each_alone`) and every score
kept at the worst of all readings: supported padding in one styled passage cannot dilute a
claim in another (a mean over any set of passages is never worse than its worst passage's).
With more passages than MAX_ALONE the metric is an error that says why: it could not be
judged every way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ground_gate.config.scores import LOWER_IS_BETTER, SCORE_NAMES
from ground_gate.datasets import Sample
from ground_gate.leaves.results import MetricResult, Reading
from ground_gate.leaves.usage import Usage
from ground_gate.metrics.declines import says_nothing
from ground_gate.metrics.styles import UNCERTAIN

_TIE = 1e-9
MAX_ALONE = 6  # passages of a response with nothing surely visible, each read alone


def each_alone(removed: Sample) -> list[Sample] | None:
    """With nothing surely visible: the row read with each of its response's passages of
    uncertain visibility alone shown (the others hidden); [] where something is surely
    visible, or with one passage or none (the two readings cover it); None with more than
    MAX_ALONE (too many to read one by one)."""
    passages = _uncertain(removed)
    if not says_nothing(removed.response) or len(passages) < 2:
        return []
    if len(passages) > MAX_ALONE:
        return None
    return [
        replace(
            removed,
            response=passage,
            uncertain_kept=None,
            hidden=tuple(h for h in removed.hidden if h != ("response", UNCERTAIN, passage)),
        )
        for passage in passages
    ]


def _uncertain(row: Sample) -> list[str]:
    return [p for f, kind, p in row.hidden if f == "response" and kind == UNCERTAIN]


def too_many_alone(result: MetricResult, removed: Sample) -> MetricResult:
    """The metric as an error: a response with nothing surely visible and more styled passages
    than can be read one by one cannot be judged every way, so it is not judged at all."""
    passages = len(_uncertain(removed))
    return replace(
        result,
        status="error",
        scores={},
        error=(
            f"{passages} passages of uncertain visibility and nothing surely visible: more "
            f"than the {MAX_ALONE} read one by one, so the row cannot be judged every way"
        ),
    )


def worst_of(result: MetricResult, alone: Sequence[MetricResult]) -> MetricResult:
    """`result` with each score the worst of its own and each passage's read alone, carrying
    what they cost; a passage that could not be judged makes the result an error."""
    usage, cost = Usage(), Usage()
    scores = dict(result.scores)
    for each in (result, *alone):
        usage.add(each.usage)
        cost.add(each.cost)
    failed = next((each for each in alone if each.status == "error"), None)
    if failed is not None:
        return replace(failed, usage=usage, cost=cost, uncertain_text=result.uncertain_text)
    for each in alone:
        for name, value in each.scores.items():
            if name in scores:
                low = name not in LOWER_IS_BETTER
                scores[name] = min(scores[name], value) if low else max(scores[name], value)
    return replace(result, scores=scores, usage=usage, cost=cost)


def nothing_visible(removed: Sample) -> Sample:
    """The reading with the uncertain text taken out, when what is left says nothing: no
    response surely visible, so its uncertain passages count as hidden text
    (metrics/base.py's `addressed_units`)."""
    return replace(removed, response="", uncertain_kept=None)


def judged_on(sample: Sample, result: MetricResult) -> Sample:
    """The reading of `sample` that `result` was judged on (its evidence is quoted from the
    same reading: a focused source's passages follow the response's sentences)."""
    if result.uncertain_text == "kept" and sample.uncertain_kept is not None:
        return sample.uncertain_kept
    return sample


def needs_second_look(kept: MetricResult, removed: MetricResult) -> bool:
    """Whether the reading taken out escaped into "no claims" where the kept one was judged."""
    return removed.status == "no_claims" and kept.status == "ok"


def worse(kept: MetricResult, removed: MetricResult, *spent: MetricResult) -> MetricResult:
    """Of one metric's results on the two readings, the one that scores the row worse, marked
    with its reading, each of its scores the worse of the two readings' (a reading worse on
    groundedness may be better on contradiction), carrying what both (and `spent`, a reading
    read again) cost."""
    chosen: Reading = "kept" if _kept_is_worse(kept, removed) else "removed"
    result = kept if chosen == "kept" else removed
    usage, cost = Usage(), Usage()
    for each in (kept, removed, *spent):
        usage.add(each.usage)
        cost.add(each.cost)
    scores = dict(result.scores)
    if kept.status == removed.status == "ok":
        for name, value in (removed if chosen == "kept" else kept).scores.items():
            if name in scores:
                low = name not in LOWER_IS_BETTER
                scores[name] = min(scores[name], value) if low else max(scores[name], value)
    return replace(result, scores=scores, usage=usage, cost=cost, uncertain_text=chosen)


def _kept_is_worse(kept: MetricResult, removed: MetricResult) -> bool:
    if "error" in (kept.status, removed.status):
        return kept.status == "error" and removed.status != "error"
    if kept.status != removed.status:
        return kept.status == "ok"  # judged beats "nothing to judge": it cannot escape
    for name in SCORE_NAMES:
        if name not in kept.scores or name not in removed.scores:
            continue
        gap = kept.scores[name] - removed.scores[name]
        if abs(gap) > _TIE:
            return gap > 0 if name in LOWER_IS_BETTER else gap < 0
    return True
