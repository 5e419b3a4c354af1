"""Which rows and units the report shows: the one owner of that choice.

The markdown's "Worst rows" section renders exactly this selection, and the pipeline asks the
judge for evidence quotes for exactly the groundedness units in it (`evidence: shown`), so the
two can never disagree. Pure: reads the JSON report, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ground_gate.config.scores import LOWER_IS_BETTER
from ground_gate.metrics import answers
from ground_gate.report.types import MetricEntry, Report, RowEntry, UnitEntry

BAD_VERDICTS = frozenset(
    {"unsupported", "not in source", "hallucinated", "contradicted"} | answers.BAD_VERDICTS
)
DEFAULT_WORST_ROWS = 10
UNITS_PER_METRIC = 3


@dataclass(frozen=True)
class ShownRow:
    """One row of the Worst rows section.

    units: metric name -> indices (into that metric's `units`) of the units shown, in order;
        only metrics that did not error (an errored metric is shown as its error).
    """

    row: RowEntry
    units: Mapping[str, tuple[int, ...]]

    @property
    def key(self) -> tuple[str, str]:
        return (self.row["dataset"], self.row["id"])

    @property
    def errors(self) -> tuple[str, ...]:
        return tuple(n for n, m in self.row["metrics"].items() if m["status"] == "error")

    def has_details(self) -> bool:
        return bool(self.errors) or any(self.units.values())


def row_score(row: RowEntry) -> float:
    """Lower is worse: the row's lowest 'higher is better' score (hallucination inverted)."""
    values = []
    for metric in row["metrics"].values():
        if metric["status"] == "error":
            return -1.0
        for score, value in metric["scores"].items():
            values.append(1 - value if score in LOWER_IS_BETTER else value)
    return min(values) if values else 2.0


# The unit that carries a failing score: the one with the most of what the score measures
# (the judge's probability in the unit's detail), or the lowest-scored one.
CARRIER_KEYS = {"hallucination": "p_absent", "contradiction": "p_contradicted"}
# A score read off one unit of its row (the answers metric's): that unit carries it.
SOLE_UNIT_KEYS = {
    "answered": "p_answered",
    "answered_anyway": "p_answered",
    "context_relevance": "p_answerable",
}


def carrier(metric: MetricEntry, score: str) -> int | None:
    """The index of the unit that weighs most in a failing score: for hallucination the
    highest P(not in source), for contradiction the highest P(contradicted), else the
    lowest unit score; for an answers score, the one unit it is read off. A row failing
    contradiction at 0.21 with every sentence "supported" still shows the sentence that
    carries its 0.21."""
    units = metric["units"]
    if score in SOLE_UNIT_KEYS:
        sole = [i for i, u in enumerate(units) if SOLE_UNIT_KEYS[score] in u["detail"]]
        return sole[0] if sole else None
    key = CARRIER_KEYS.get(score)
    if key is not None:
        weighed = [(u["detail"][key], i) for i, u in enumerate(units) if key in u["detail"]]
        return max(weighed)[1] if weighed else None
    scored = [(u["score"], i) for i, u in enumerate(units) if u["score"] is not None]
    return min(scored)[1] if scored else None


def carriers(row: RowEntry, scores: Sequence[str]) -> list[tuple[str, UnitEntry]]:
    """(score, unit) for each of `scores` the row has, the unit that carries it."""
    out = []
    for score in scores:
        for metric in row["metrics"].values():
            if metric["status"] != "error" and score in metric["scores"]:
                found = carrier(metric, score)
                if found is not None:
                    out.append((score, metric["units"][found]))
    return out


def shown_units(row: RowEntry, limit: int = UNITS_PER_METRIC) -> dict[str, tuple[int, ...]]:
    """Per metric that did not error, the indices of its first `limit` bad units, and for
    each score the row fails the unit that carries it (`carrier`), in the units' order."""
    shown: dict[str, tuple[int, ...]] = {}
    for name, metric in row["metrics"].items():
        if metric["status"] == "error":
            continue
        bad = [i for i, u in enumerate(metric["units"]) if u["verdict"] in BAD_VERDICTS]
        picked = set(bad[:limit])
        for score in row["failing"]:
            if score in metric["scores"]:
                found = carrier(metric, score)
                picked |= set() if found is None else {found}
        shown[name] = tuple(sorted(picked))
    return shown


def worst_first(row: RowEntry) -> tuple[bool, float]:
    """The sort key of the report's row order: failing rows first, then by the lowest score."""
    return (not row["failing"], row_score(row))


def ranked_rows(report: Report) -> list[RowEntry]:
    """Every row, worst first (the HTML page's table; stable, so ties keep the input order)."""
    return sorted(report["rows"], key=worst_first)


def shown_rows(report: Report, limit: int = DEFAULT_WORST_ROWS) -> list[ShownRow]:
    """The rows the report details, worst first: failing rows, then rows with bad units or
    errors, each group by its lowest score; at most `limit`."""
    candidates = [ShownRow(r, shown_units(r)) for r in report["rows"]]
    ranked = sorted(
        (s for s in candidates if s.row["failing"] or s.has_details()),
        key=lambda s: worst_first(s.row),
    )
    return ranked[:limit]
