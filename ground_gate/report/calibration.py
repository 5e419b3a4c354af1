"""Markdown and JSON for `ground-gate calibrate`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from tabulate import tabulate

from ground_gate.calibration import Agreement
from ground_gate.judge.base import Usage


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


def cost_table(usage: Mapping[str, Usage], rows: int, seconds: float) -> str:
    body = []
    for metric, u in sorted(usage.items()):
        body.append(
            [
                metric,
                f"{u.calls / rows:.1f}",
                f"{u.prompt_tokens / rows:.0f}",
                f"{u.completion_tokens / rows:.0f}",
                f"{u.seconds / rows:.1f}",
                f"{u.cache_hits}",
            ]
        )
    headers = [
        "metric",
        "calls/row",
        "prompt tok/row",
        "completion tok/row",
        "judge s/row",
        "cache hits",
    ]
    table = tabulate(body, headers=headers, tablefmt="github", disable_numparse=True)
    per_row = seconds / max(rows, 1)
    return f"{table}\n\nWall time {seconds:.1f} s for {rows} row(s): {per_row:.1f} s/row."


def render(
    groups: Mapping[str, Sequence[Agreement]],
    usage: Mapping[str, Usage],
    rows: int,
    seconds: float,
    model: str,
) -> str:
    parts = [f"## ground-gate calibration ({rows} labelled rows, judge `{model}`)", ""]
    for group, agreements in groups.items():
        parts += [f"### {group}", "", agreement_table(agreements), ""]
    parts += ["### Cost", "", cost_table(usage, rows, seconds), ""]
    return "\n".join(parts)


def as_json(
    groups: Mapping[str, Sequence[Agreement]], usage: Mapping[str, Usage], rows: int, seconds: float
) -> dict[str, Any]:
    return {
        "rows": rows,
        "seconds": seconds,
        "groups": {g: [asdict(a) for a in agreements] for g, agreements in groups.items()},
        "usage": {m: u.as_dict() for m, u in sorted(usage.items())},
    }
