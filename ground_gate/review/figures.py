"""Numbers beside their bounds, the same in the comment, the page, the terminal and JUnit: a
score against its threshold and its baseline, a row's values. Every figure beside a bound has
the decimals that make the comparison read true (leaves/numbers.py): "0.101 > 0.10", never
"0.10" for a mean above 0.10. Plain text: each renderer escapes for its own format; the
sentences around the figures are review/words.py's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ground_gate.config.model import Threshold
from ground_gate.config.scores import METRIC_OF_SCORE
from ground_gate.leaves.numbers import bound, decimals, figure, holds, relation
from ground_gate.report.types import (
    Report,
    RowEntry,
    ScoreEntry,
    ThresholdBounds,
)
from ground_gate.verdict.gate import percent, worse_by

PASS, FAIL, WARN, NOISE = "\u2705", "\u274c", "\u26a0\ufe0f", "\U0001f7e1"
ARROW = "\u2192"


SCORES_OF_METRIC: Mapping[str, tuple[str, ...]] = {
    metric: tuple(s for s, m in METRIC_OF_SCORE.items() if m == metric)
    for metric in set(METRIC_OF_SCORE.values())
}


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


def baseline_mean(entry: ScoreEntry) -> float | None:
    """The baseline's mean over the paired rows; None without a baseline, or when too few
    rows were paired to compare (the cell then says "not compared")."""
    change = entry.get("baseline")
    if change is None or change["direction"] is None:
        return None
    return change["before"]


def worse_than_baseline(entry: ScoreEntry) -> float | None:
    """How much worse than the baseline the score got over the paired rows (negative:
    better); None when it was not compared."""
    change = entry.get("baseline")
    if change is None or change["delta"] is None:
        return None
    return worse_by(entry["score"], change["delta"])


def drop_text(entry: ScoreEntry) -> str:
    """'drop 0.055 > 0.02': how much worse than the baseline, against max_drop; '' when it
    got no worse (or was not compared)."""
    change, worse = entry.get("baseline"), worse_than_baseline(entry)
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


def mean_places(entry: ScoreEntry) -> int:
    """The decimals of a score's mean, and of its baseline's, wherever a report shows them:
    enough for each to read true against its bounds, and for the two to differ by the drop
    as it is said; the same in every table, line and renderer (one spelling per number)."""
    mean, was = entry["mean"], baseline_mean(entry)
    if mean is None:
        return 2
    limits = [v for _, v in bounds_of(entry["threshold"])]
    least = _drop_places(mean, was, worse_than_baseline(entry)) if drop_text(entry) else 2
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
    places, was = mean_places(entry), baseline_mean(entry)
    text = f"{mean:.{places}f}" if was is None else f"{was:.{places}f} {ARROW} {mean:.{places}f}"
    level = missed(mean, entry["threshold"]) if entry["passed"] is False else []
    return text + "".join(f" {m}" for m in level)


def interval_level(confidence: float) -> str:
    """The two-sided level of a change's interval, whose ends are one-sided bounds at
    `confidence` (gate.judge_change): 0.95 -> '90%'."""
    return percent(round(2 * confidence - 1, 6))


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
