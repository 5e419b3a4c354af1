"""The report's verdict keys, the rows reused from the baseline and the rows not judged: a
record's `ReuseRecord` written into a report (`add_reuse`) and read back (`reuse_of`)."""

from __future__ import annotations

from typing import cast

from ground_gate.report.types import Report, VerdictKey
from ground_gate.verdict.record import ReuseRecord


def add_reuse(report: Report, reuse: ReuseRecord | None) -> None:
    """`reuse` written into `report` (built by json_report.build_report, its rows in place)."""
    if reuse is None:
        return
    report["verdict_key"] = cast(VerdictKey, dict(reuse.parts))
    for entry in report["rows"]:
        place = (entry["dataset"], entry["id"])
        if place in reuse.keys:
            entry["key"] = reuse.keys[place]
        if place in reuse.context_keys:
            entry["context_key"] = reuse.context_keys[place]
        if place in reuse.reused:
            entry["reused"] = True
    if reuse.asked:
        report["reuse"] = {"rows": len(reuse.reused), "none_because": reuse.none_because}
    if reuse.not_judged:
        report["settled"] = {
            "judged": reuse.judged,
            "not_judged": [{"dataset": d, "id": i} for d, i in reuse.not_judged],
        }


def reuse_of(report: Report) -> ReuseRecord | None:
    """The `ReuseRecord` a report was written with; None for one written before keys were."""
    parts = report.get("verdict_key")
    if parts is None:
        return None
    rows = report["rows"]
    reuse = report.get("reuse")
    settled = report.get("settled")
    return ReuseRecord(
        parts={
            "judge": parts["judge"],
            "prompts": parts["prompts"],
            "method": parts["method"],
            "scorer": parts["scorer"],
        },
        keys={(r["dataset"], r["id"]): r["key"] for r in rows if "key" in r},
        context_keys={
            (r["dataset"], r["id"]): r["context_key"] for r in rows if "context_key" in r
        },
        reused=frozenset((r["dataset"], r["id"]) for r in rows if r.get("reused")),
        asked=reuse is not None,
        none_because=reuse["none_because"] if reuse is not None else None,
        not_judged=tuple((n["dataset"], n["id"]) for n in settled["not_judged"]) if settled else (),
        judged=settled["judged"] if settled else sum(1 for r in rows if not r.get("reused")),
    )
