"""Numbers and verdicts in words, the same in the markdown and the HTML page: a threshold,
a change against the baseline, a row's value per score. Plain text (no markup, no escaping):
each renderer escapes for its own format."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ground_gate.config.model import LOWER_IS_BETTER, METRIC_OF_SCORE
from ground_gate.report.types import BaselineEntry, ThresholdBounds

PASS, FAIL, WARN = "\u2705", "\u274c", "\u26a0\ufe0f"
UP, DOWN, WORSE = "\u25b2", "\u25bc", "\u2757"
SCORES_OF_METRIC: Mapping[str, tuple[str, ...]] = {
    metric: tuple(s for s, m in METRIC_OF_SCORE.items() if m == metric)
    for metric in set(METRIC_OF_SCORE.values())
}


def threshold_text(threshold: ThresholdBounds | None) -> str:
    if not threshold:
        return ""
    parts = []
    if "min" in threshold:
        parts.append(f"\u2265 {threshold['min']:.2f}")
    if "max" in threshold:
        parts.append(f"\u2264 {threshold['max']:.2f}")
    if "max_drop" in threshold:
        parts.append(f"drop \u2264 {threshold['max_drop']:.2f}")
    return " (" + ", ".join(parts) + ")"


def signed(delta: float) -> str:
    """A change to 2 decimals with its arrow: '\u25bc -0.12', '\u00b10.00'."""
    if round(delta, 2) == 0:
        return "\u00b10.00"
    return f"{UP if delta > 0 else DOWN} {delta:+.2f}"


def delta_text(score: str, now: float | None, before: float | None) -> str:
    """The change of the mean, for a report built without the paired comparison."""
    if now is None or before is None:
        return ""
    delta = round(now - before, 2)
    better = (delta < 0) if score in LOWER_IS_BETTER else (delta > 0)
    mark = "" if better or delta == 0 else " " + WORSE
    return f" {signed(delta)}{mark}"


def change_text(change: BaselineEntry) -> str:
    """The paired change with its interval: '\u25bc -0.10 [-0.13, -0.07] \u2757', or
    'within noise' when the interval includes 0."""
    delta, interval = change["delta"], change["interval"]
    if delta is None or interval is None:
        return f" {WARN} not compared" if change["max_drop"] is not None else ""
    mark = {"worse": " " + WORSE, "noise": " within noise"}.get(change["direction"] or "", "")
    return f" {signed(delta)} [{interval[0]:+.2f}, {interval[1]:+.2f}]{mark}"


def row_values(row: Mapping[str, Any], scores: Sequence[str]) -> list[str]:  # a RowEntry
    values: dict[str, str] = {}
    for name, metric in row["metrics"].items():
        for score, value in metric["scores"].items():
            mark = FAIL + " " if score in row["failing"] else ""
            values[score] = f"{mark}{value:.2f}"
        if metric["status"] != "ok":
            word = "error" if metric["status"] == "error" else "no claims"
            mark = FAIL + " " if metric["status"] == "error" else ""
            for score in SCORES_OF_METRIC.get(name, ()):
                values[score] = f"{mark}{word}"
    return [values.get(score, "") for score in scores]
