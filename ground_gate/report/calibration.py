"""Markdown and JSON for `ground-gate calibrate`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from tabulate import tabulate

from ground_gate.calibration import Agreement
from ground_gate.judge.base import Usage
from ground_gate.results import MetricCost


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _suggestion(a: Agreement) -> str:
    if a.best_threshold is None:
        return "n/a"
    interval = a.threshold_interval
    spread = f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else ""
    return f"{a.best_threshold:.2f}{spread}"


def agreement_table(agreements: Sequence[Agreement]) -> str:
    rows = []
    for a in agreements:
        types = ", ".join(f"{k} {_num(v, 2)}" for k, v in a.type_auc.items())
        rows.append(
            [
                a.score,
                f"{a.n}" + (f" (+{a.n_missing} missing)" if a.n_missing else ""),
                _num(a.auc),
                _num(a.balanced_accuracy),
                _num(a.f1_not_grounded),
                _num(a.best_balanced_accuracy),
                _suggestion(a),
                types,
            ]
        )
    headers = [
        "score", "rows", "ROC AUC", "bal. acc. at threshold", "F1 not grounded",
        "best bal. acc.", "suggested threshold [90% CI]", "AUC by error type",
    ]  # fmt: skip
    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)


def cost_table(
    cost: Mapping[str, MetricCost], usage: Mapping[str, Usage], rows: int, seconds: float
) -> str:
    """Per-row cost of the scores as computed (cache hits count what they cost when made),
    beside what this run itself called, so a resumed run still shows the true cost."""
    body = []
    for metric, c in sorted(cost.items()):
        now = usage.get(metric, Usage())
        body.append(
            [
                metric,
                f"{c.per_row('calls'):.1f}",
                f"{c.per_row('prompt_tokens'):.0f}",
                f"{c.per_row('completion_tokens'):.0f}",
                f"{c.per_row('seconds'):.1f}",
                f"{c.total.retries + c.total.parse_failures}",
                f"{now.calls} / {now.cache_hits}",
            ]
        )
    headers = [
        "metric", "calls/row", "prompt tok/row", "completion tok/row", "judge s/row",
        "retries + repairs", "this run: calls / cache hits",
    ]  # fmt: skip
    table = tabulate(body, headers=headers, tablefmt="github", disable_numparse=True)
    rows = max(rows, 1)
    notes = [
        f"Wall time of this run {seconds:.1f} s for {rows} row(s): {seconds / rows:.1f} s/row."
    ]
    unrecorded = max((c.unrecorded_rows for c in cost.values()), default=0)
    if unrecorded:
        notes.append(
            f"Up to {unrecorded} row(s) were served from cache entries written before costs "
            "were recorded; the per-row cost is over the other rows."
        )
    return table + "\n\n" + "\n".join(notes)


def render(
    groups: Mapping[str, Sequence[Agreement]],
    cost: Mapping[str, MetricCost],
    usage: Mapping[str, Usage],
    rows: int,
    seconds: float,
    model: str,
) -> str:
    parts = [f"## ground-gate calibration ({rows} labelled rows, judge `{model}`)", ""]
    for group, agreements in groups.items():
        parts += [f"### {group}", "", agreement_table(agreements), ""]
    parts += ["### Cost", "", cost_table(cost, usage, rows, seconds), ""]
    return "\n".join(parts)


def as_json(
    groups: Mapping[str, Sequence[Agreement]],
    cost: Mapping[str, MetricCost],
    usage: Mapping[str, Usage],
    rows: int,
    seconds: float,
) -> dict[str, Any]:
    return {
        "rows": rows,
        "seconds": seconds,
        "groups": {g: [asdict(a) for a in agreements] for g, agreements in groups.items()},
        "cost": {
            m: {**c.total.as_dict(), "rows": c.rows, "unrecorded_rows": c.unrecorded_rows}
            for m, c in sorted(cost.items())
        },
        "usage": {m: u.as_dict() for m, u in sorted(usage.items())},
    }
