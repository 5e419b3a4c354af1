"""Numbers and verdicts in words, the same in the comment, the page, the terminal and JUnit:
a score against its threshold and its baseline, the part of a check that failed, a row's
values, a unit's probabilities. Plain text (no markup, no escaping): each renderer escapes
for its own format. Every figure beside a bound has the decimals that make the comparison
read true (numbers.py): "0.101 > 0.10", never "0.10" for a mean above 0.10.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ground_gate.config.model import Threshold
from ground_gate.config.scores import METRIC_OF_SCORE
from ground_gate.leaves.numbers import bound, decimals, figure, holds, relation
from ground_gate.leaves.results import (
    ADDRESSED_TO_JUDGE,
    HIDDEN_TEXT,
    OFF_SOURCE,
    SWAPPED_FACT,
    without_judge,
)
from ground_gate.metrics.groundedness import NOTHING_FOUND
from ground_gate.metrics.styles import UNCERTAIN
from ground_gate.report.types import (
    BaselineEntry,
    Report,
    RowEntry,
    ScoreEntry,
    ThresholdBounds,
    UnitEntry,
)
from ground_gate.verdict.gate import describe, percent, worse_by

PASS, FAIL, WARN = "\u2705", "\u274c", "\u26a0\ufe0f"
# a unit of styled text of uncertain visibility that was all the response had, read without it
UNCERTAIN_ALONE = "styled so that a reader may not see it, nothing else surely shown; taken out"
ARROW = "\u2192"
SCORES_OF_METRIC: Mapping[str, tuple[str, ...]] = {
    metric: tuple(s for s, m in METRIC_OF_SCORE.items() if m == metric)
    for metric in set(METRIC_OF_SCORE.values())
}
# A unit's probabilities as the judge gave them (groundedness's verdict method, faithfulness)
# What a judge's NOTHING FOUND means: it found no passage about the unit, not a misquote
NOTHING_SAID = "the source says nothing about this"
PROBABILITIES = (
    ("p_supported", "P(supported)"),
    ("p_contradicted", "P(contradicted)"),
    ("p_absent", "P(not in source)"),
    ("p_informs", "P(holds information)"),  # a sentence or answer asked whether it says anything
    ("p_answered", "P(answered)"),  # the answers metric's
    ("p_answerable", "P(source answers it)"),
)


def bounds_of(threshold: ThresholdBounds | None) -> list[tuple[str, float]]:
    """The min and max of a threshold, as (kind, value)."""
    return [(k, threshold[k]) for k in ("min", "max") if threshold and k in threshold]


def bounds_threshold(threshold: ThresholdBounds | None) -> Threshold:
    """The min and max of a threshold as a config Threshold, for gate.describe."""
    bounds = dict(bounds_of(threshold))
    return Threshold(min=bounds.get("min"), max=bounds.get("max"))


def threshold_text(threshold: ThresholdBounds | None) -> str:
    """' (≥ 0.80, drop ≤ 0.02)': the bounds as written; '' without a threshold."""
    if not threshold:
        return ""
    sign = {"min": "\u2265", "max": "\u2264"}
    parts = [f"{sign[k]} {bound(v)}" for k, v in bounds_of(threshold)]
    if "max_drop" in threshold:
        parts.append(f"drop \u2264 {bound(threshold['max_drop'])}")
    if threshold.get("allow_empty"):
        parts.append("may be empty")
    return " (" + ", ".join(parts) + ")" if parts else ""


def value_text(value: float, threshold: ThresholdBounds | None, least: int = 2) -> str:
    """A score with the decimals its bounds need to be read against."""
    return figure(value, [v for _, v in bounds_of(threshold)], least)


def before_now(
    now: float, before: float | None, threshold: ThresholdBounds | None, least: int = 2
) -> str:
    """'0.91 → 0.853', or the value alone; both sides with the same decimals, enough for
    each to read true against the bounds (`least` at least)."""
    limits = [v for _, v in bounds_of(threshold)]
    if before is None:
        return figure(now, limits, least)
    places = max(decimals(now, limits, least), decimals(before, limits, least))
    return f"{figure(before, limits, places)} {ARROW} {figure(now, limits, places)}"


def changed(now: float, before: float | None, threshold: ThresholdBounds | None) -> str:
    """A row's value beside its baseline's when they differ as printed, else alone."""
    shown = before_now(now, before, threshold)
    sides = shown.split(f" {ARROW} ")
    return sides[-1] if len(sides) == 2 and sides[0] == sides[1] else shown


def _before(entry: ScoreEntry) -> float | None:
    """The baseline's mean over the paired rows; None without a baseline, or when too few
    rows were paired to compare (the cell then says "not compared")."""
    change = entry.get("baseline")
    if change is None or change["direction"] is None:
        return None
    return change["before"]


def _worse(entry: ScoreEntry) -> float | None:
    """How much worse than the baseline the score got over the paired rows (negative:
    better); None when it was not compared."""
    change = entry.get("baseline")
    if change is None or change["delta"] is None:
        return None
    return worse_by(entry["score"], change["delta"])


def _drop(entry: ScoreEntry) -> str:
    """'drop 0.055 > 0.02': how much worse than the baseline, against max_drop; '' when it
    got no worse (or was not compared)."""
    change, worse = entry.get("baseline"), _worse(entry)
    if change is None or change["max_drop"] is None or change["direction"] is None:
        return ""
    if worse is None or worse <= 0:
        return ""
    max_drop = change["max_drop"]
    sign = ">" if worse > max_drop else "\u2264"
    return f"drop {figure(worse, (max_drop,), 3)} {sign} {bound(max_drop)}"


def missed(value: float, threshold: ThresholdBounds | None) -> list[str]:
    """Each bound `value` misses, as the comparison that holds: ["< 0.75"]."""
    return [
        f"{relation(value, k, v)} {bound(v)}"
        for k, v in bounds_of(threshold)
        if not holds(value, k, v)
    ]


def missed_text(value: float, threshold: ThresholdBounds | None) -> str:
    """' > 0.10' after a value that misses its bound; '' when it meets them."""
    return "".join(f" {m}" for m in missed(value, threshold))


def _drop_places(now: float, before: float | None, worse: float | None) -> int:
    """Decimals for `before → now` beside a drop said to 3 decimals: three, or more until
    the two figures differ by the drop as printed (0.9085 → 0.8536 beside a drop of 0.055,
    not 0.908 → 0.854)."""
    if before is None or worse is None:
        return 3
    said = round(abs(worse), 3)
    for places in range(3, 7):
        if round(abs(round(before, places) - round(now, places)), 3) == said:
            return places
    return 3


def failing_parts(entry: ScoreEntry) -> list[str]:
    """The parts of a check that failed, each with its figures: the level ("< 0.75"),
    the drop ("drop 0.055 > 0.02"); empty when it passed or failed for another reason."""
    parts = []
    mean = entry["mean"]
    if mean is not None and entry["passed"] is False:
        parts += missed(mean, entry["threshold"])
    change = entry.get("baseline")
    if change is not None and change["passed"] is False:
        parts.append(_drop(entry))
    return parts


def mean_places(entry: ScoreEntry) -> int:
    """The decimals of a score's mean, and of its baseline's, wherever a report shows them:
    enough for each to read true against its bounds, and for the two to differ by the drop
    as it is said; the same in every table, line and renderer (one spelling per number)."""
    mean, was = entry["mean"], _before(entry)
    if mean is None:
        return 2
    limits = [v for _, v in bounds_of(entry["threshold"])]
    least = _drop_places(mean, was, _worse(entry)) if _drop(entry) else 2
    places = decimals(mean, limits, least)
    return places if was is None else max(places, decimals(was, limits, least))


def mean_text(entry: ScoreEntry) -> str:
    """The score's mean as every renderer spells it (mean_places); 'n/a' without one."""
    mean = entry["mean"]
    return "n/a" if mean is None else f"{mean:.{mean_places(entry)}f}"


def score_cell(entry: ScoreEntry) -> str:
    """A score for the summary table: 'baseline → now' (or now alone), and the bound it
    misses when it misses one: '0.062 → 0.101 > 0.10', '0.908 → 0.854', '0.89'. Why a check
    failed otherwise (its drop, its errors) is said once, below the table (check_lines)."""
    mean = entry["mean"]
    if mean is None:
        return "n/a"
    places, was = mean_places(entry), _before(entry)
    text = f"{mean:.{places}f}" if was is None else f"{was:.{places}f} {ARROW} {mean:.{places}f}"
    level = missed(mean, entry["threshold"]) if entry["passed"] is False else []
    return text + "".join(f" {m}" for m in level)


def drop_said(entry: ScoreEntry) -> str:
    """'dropped 0.055, more than the 0.02 max_drop allows': how much worse than the baseline,
    against max_drop; '' when it got no worse or was not compared."""
    change, worse = entry.get("baseline"), _worse(entry)
    drop = _drop(entry)
    if not drop or change is None or change["max_drop"] is None or worse is None:
        return ""
    amount = figure(worse, (change["max_drop"],), 3)
    if worse > change["max_drop"]:
        return f"dropped {amount}, more than the {bound(change['max_drop'])} max_drop allows"
    return f"dropped {amount}, within the {bound(change['max_drop'])} max_drop allows"


def failure_text(entry: ScoreEntry) -> str:
    """Why a check failed, each failed part in the words of its rule: '0.101 > max 0.10',
    '0.908 → 0.854, 0.055 worse than the baseline ...', or both; else the gate's own reason
    (errors, no rows)."""
    parts = []
    mean, bounds = entry["mean"], bounds_of(entry["threshold"])
    places = mean_places(entry)
    if mean is not None and bounds and any(not holds(mean, k, v) for k, v in bounds):
        parts.append(describe(mean, bounds_threshold(entry["threshold"]), places))
    change = entry.get("baseline")
    if change is not None and change["passed"] is False:
        before = change["before"]
        was = "" if before is None or mean is None else f"{before:.{places}f} {ARROW} "
        now = "" if mean is None else f"{mean:.{places}f}, "
        parts.append(f"{was}{now}{change['reason']}")
    return "; ".join(parts) or entry["reason"]


def plural(count: int, word: str) -> str:
    """'1 row', '36 rows': a count with its noun (a regular plural)."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def interval_level(confidence: float) -> str:
    """The two-sided level of a change's interval, whose ends are one-sided bounds at
    `confidence` (gate.judge_change): 0.95 -> '90%'."""
    return percent(round(2 * confidence - 1, 6))


def change_text(change: BaselineEntry) -> str:
    """The change against the baseline in words: '-0.055 [-0.070, -0.040] (90% interval),
    worse'; 'within noise' when the interval holds 0."""
    delta, interval = change["delta"], change["interval"]
    if delta is None or interval is None:
        return "not compared" if change["max_drop"] is not None else ""
    word = {"worse": "worse", "better": "better", "noise": "within noise"}
    return (
        f"{delta:+.3f} [{interval[0]:+.3f}, {interval[1]:+.3f}] "
        f"({interval_level(change['confidence'])} interval), "
        f"{word.get(change['direction'] or '', '')}"
    ).rstrip(", ")


def row_values(
    row: RowEntry,  # a RowEntry
    scores: Sequence[str],
    thresholds: Mapping[str, ThresholdBounds | None],
    mark: str = FAIL + " ",
) -> list[str]:
    """The row's value per score, with the decimals its threshold needs, `mark` before a
    failing one; 'error' or 'no claims' for a metric that gave no score."""
    values: dict[str, str] = {}
    for name, metric in row["metrics"].items():
        for score, value in metric["scores"].items():
            failing = mark if score in row["failing"] else ""
            values[score] = f"{failing}{value_text(value, thresholds.get(score))}"
        if metric["status"] != "ok":
            word = "error" if metric["status"] == "error" else "no claims"
            failing = mark if metric["status"] == "error" else ""
            for score in SCORES_OF_METRIC.get(name, ()):
                values[score] = f"{failing}{word}"
    return [values.get(score, "") for score in scores]


def row_thresholds(report: Report, dataset: str) -> dict[str, ThresholdBounds | None]:
    """Each score's threshold for one dataset's rows."""
    return {e["score"]: e["threshold"] for e in report["scores"] if e["dataset"] == dataset}


# what a unit decided without a judge call shows where a judged unit shows the judge's
# figures; its verdict (unit_verdict) says why
NOT_JUDGED = "no judge call"


def not_judged(unit: UnitEntry) -> str:
    """NOT_JUDGED for a unit no judge read against the source (taken out before judging:
    addressed to the judge or hidden from its reader; or in none of the source's words), else
    ""."""
    return NOT_JUDGED if without_judge(unit.get("detail") or {}) else ""


def unit_verdict(unit: UnitEntry) -> str:
    """A unit's verdict in words, saying why a unit decided without a judge call was."""
    detail = unit.get("detail") or {}
    if detail.get(ADDRESSED_TO_JUDGE):
        return f"{unit['verdict']}: addressed to the judge, cut"
    if detail.get(HIDDEN_TEXT) == UNCERTAIN:
        return f"{unit['verdict']}: {UNCERTAIN_ALONE}"
    if hidden := detail.get(HIDDEN_TEXT):
        return f"{unit['verdict']}: no reader sees it ({hidden}), taken out"
    if reason := detail.get(OFF_SOURCE):
        return f"{unit['verdict']}: {reason}"
    if swapped := detail.get(SWAPPED_FACT):
        return f"{unit['verdict']}: {swapped}"
    return str(unit["verdict"])


def probabilities(unit: UnitEntry) -> str:
    """The judge's probabilities for a unit where its method gives them:
    'P(supported) 0.05, P(contradicted) 0.90, P(not in source) 0.05'; else its rating; for a
    unit decided without a judge call, that no judge read it."""
    if unjudged := not_judged(unit):
        return unjudged
    detail = unit.get("detail") or {}
    said = [f"{name} {detail[key]:.2f}" for key, name in PROBABILITIES if key in detail]
    if not said and "rating_0_10" in detail:
        said.append(f"rating {detail['rating_0_10']:.1f}/10")
    if not said and "rating_1_5" in detail:
        said.append(f"rating {detail['rating_1_5']:.1f}/5")
    return ", ".join(said)


def is_nothing_found(quote: str | None) -> bool:
    """Whether a unit's evidence is the judge's NOTHING FOUND."""
    return quote is not None and quote.strip().upper().startswith(NOTHING_FOUND)


def uncertain_readings(row: RowEntry) -> str:
    """How a row's styled text of uncertain visibility was judged, in words: 'judged with it
    and without it, each metric keeping the worse: without it for groundedness, rating; with
    it for faithfulness'; '' for a row without such text."""
    by: dict[str, list[str]] = {}
    for name, metric in row["metrics"].items():
        if reading := metric.get("uncertain_text"):
            by.setdefault(reading, []).append(name)
    said = [
        f"{'with it' if reading == 'kept' else 'without it'} for {', '.join(by[reading])}"
        for reading in ("removed", "kept")
        if reading in by
    ]
    if not said:
        return ""
    return f"judged with it and without it, each metric keeping the worse: {'; '.join(said)}"
