"""Each row beside itself in the baseline: what it failed there, its scores there, its
response there when it differs, and the sentences the pull request changed in its response,
old and new, each with its verdict.

Written into the JSON report (`row.baseline`, the report's `baseline`) when a run or a merge
is compared with a baseline, so that every renderer (the comment, the page, the terminal)
and a later `ground-gate report` read the comparison from the report alone. Pure.

The answer's diff: when a row's response differs from the baseline's (the normal case once
the pull request's code produces the answers), the units of one metric (groundedness's
sentences or claims, else faithfulness's statements) are aligned by their text
(difflib), and each run of changed units is kept with the baseline's units it replaced.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

from ground_gate.report.types import (
    ChangedUnit,
    Report,
    RowBaseline,
    RowEntry,
    SentenceChange,
    UnitEntry,
)
from ground_gate.verdict.gate import lost_the_answer

DIFF_METRICS = ("groundedness", "faithfulness")  # units that are parts of the response
CHANGES_PER_ROW = 10  # runs of changed units kept per row; a rewritten answer is one run
BASELINE_RESPONSE_CHARS = 2_000  # of the baseline's response, kept when it differs


def _key(row: RowEntry) -> tuple[str, str]:
    return (row["dataset"], row["id"])


def _scores(row: RowEntry) -> dict[str, float]:
    return {
        score: value
        for metric in row["metrics"].values()
        if metric["status"] == "ok"
        for score, value in metric["scores"].items()
    }


def _flat(text: str) -> str:
    return " ".join(text.split())


def _units(row: RowEntry, metric: str) -> list[UnitEntry] | None:
    entry = row["metrics"].get(metric)
    if entry is None or entry["status"] == "error":
        return None
    return list(entry["units"])


def _changed_unit(unit: UnitEntry) -> ChangedUnit:
    return {"text": unit["text"], "verdict": unit["verdict"], "score": unit["score"]}


def _responses_differ(row: RowEntry, before: RowEntry, metric: str) -> bool:
    """The responses when both reports kept them; else the metric's units' texts."""
    now_text, old_text = row.get("text"), before.get("text")
    if now_text and old_text:
        return _flat(now_text["response"]) != _flat(old_text["response"])
    now, old = _units(row, metric) or [], _units(before, metric) or []
    return [_flat(u["text"]) for u in now] != [_flat(u["text"]) for u in old]


def sentence_changes(row: RowEntry, before: RowEntry) -> list[SentenceChange]:
    """The runs of units that differ between the baseline's row and this one, in order; empty
    when the response did not change or no metric of both has units to compare."""
    metric = next(
        (m for m in DIFF_METRICS if _units(row, m) is not None and _units(before, m) is not None),
        None,
    )
    if metric is None or not _responses_differ(row, before, metric):
        return []
    now, old = _units(row, metric) or [], _units(before, metric) or []
    matcher = difflib.SequenceMatcher(
        None, [_flat(u["text"]) for u in old], [_flat(u["text"]) for u in now], autojunk=False
    )
    changes: list[SentenceChange] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        changes.append(
            {
                "metric": metric,
                "before": [_changed_unit(u) for u in old[i1:i2]],
                "after": [_changed_unit(u) for u in now[j1:j2]],
            }
        )
    return changes[:CHANGES_PER_ROW]


def row_baseline(row: RowEntry, before: RowEntry) -> RowBaseline:
    entry: RowBaseline = {
        "failing": sorted(before["failing"]),
        "scores": _scores(before),
        "changes": sentence_changes(row, before),
    }
    now_text, old_text = row.get("text"), before.get("text")
    if now_text and old_text and _flat(now_text["response"]) != _flat(old_text["response"]):
        entry["response"] = old_text["response"][:BASELINE_RESPONSE_CHARS]
    return entry


def compare_rows(report: Report, baseline: Report) -> Report:
    """A copy of `report` whose rows found in `baseline` (by dataset and id) carry their
    `baseline`, and which names the baseline it was compared with."""
    before = {_key(r): r for r in baseline["rows"]}
    rows: list[RowEntry] = []
    for row in report["rows"]:
        old = before.get(_key(row))
        rows.append(row.copy() if old is None else _beside(row, old))
    compared = report.copy()
    compared["rows"] = rows
    compared["baseline"] = {
        "created_at": baseline["created_at"],
        "status": baseline["status"],
        "rows": len(baseline["rows"]),
        "judge": {
            "provider": str(baseline["judge"].get("provider", "")),
            "model": str(baseline["judge"].get("model", "")),
        },
    }
    if "source" in baseline:
        compared["baseline"]["source"] = baseline["source"]
    return compared


def _beside(row: RowEntry, old: RowEntry) -> RowEntry:
    """The row with its baseline; a context regression (gate.context_regressions: its source
    held the answer in the baseline and no longer does) fails its context_relevance."""
    lost = lost_the_answer(_scores(row), _scores(old))
    failing = sorted({*row["failing"], "context_relevance"}) if lost else row["failing"]
    return {**row, "failing": failing, "baseline": row_baseline(row, old)}


def is_compared(report: Report) -> bool:
    """Whether the report's rows were compared with a baseline (`compare_rows`)."""
    return "baseline" in report


def failing_before(row: RowEntry) -> list[str]:
    """The scores the row failed in the baseline; empty when it was not in it."""
    before = row.get("baseline")
    return before["failing"] if before else []


def scores_before(row: RowEntry) -> dict[str, float]:
    """The row's scores in the baseline; empty when it was not in it."""
    before = row.get("baseline")
    return before["scores"] if before else {}


def changes_of(row: RowEntry) -> list[SentenceChange]:
    """The sentences the pull request changed in the row's response; empty when none did."""
    before = row.get("baseline")
    return before["changes"] if before else []


def response_before(row: RowEntry) -> str | None:
    """The baseline's response, when it differs from the row's."""
    before = row.get("baseline")
    return before.get("response") if before else None


def changed_sentences(row: RowEntry, said: Callable[[ChangedUnit], str]) -> list[str]:
    """Each run of sentences the pull request changed in the row's response, in words: 'was
    X → now Y', 'added Y' or 'removed X', each unit worded by `said` (a renderer's)."""
    out = []
    for change in changes_of(row):
        before = "; ".join(said(u) for u in change["before"])
        after = "; ".join(said(u) for u in change["after"])
        if before and after:
            out.append(f"was {before} \u2192 now {after}")
        elif after:
            out.append(f"added {after}")
        else:
            out.append(f"removed {before}")
    return out


def rows_with_changes(report: Report) -> Sequence[RowEntry]:
    return [r for r in report["rows"] if changes_of(r)]
