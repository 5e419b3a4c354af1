"""The comment's collapsed reference tables: every score in detail (mean, interval, counts,
the paired change against the baseline) and what the judge's calls spent."""

from __future__ import annotations

from tabulate import tabulate

from ground_gate.render.escape import cell, ident
from ground_gate.report.types import Report, ScoreEntry, UsageCounts
from ground_gate.review import words
from ground_gate.review.figures import interval_level, mean_places, mean_text, threshold_text


def _baseline_cells(entry: ScoreEntry, places: int) -> list[str]:
    change = entry.get("baseline")
    if change is None:
        return ["", "", "", ""]
    delta, interval, before = change["delta"], change["interval"], change["before"]
    return [
        "n/a" if before is None else f"{before:.{places}f}",
        "n/a" if delta is None else _delta(delta),
        "n/a"
        if interval is None
        else f"{interval[0]:+.3f} \u2013 {interval[1]:+.3f} "
        f"({interval_level(change['confidence'])})",
        f"{change['paired']} / {change['in_baseline']}",
    ]


def _delta(delta: float) -> str:
    """'+0.039', '-0.055'; 'no change' where three decimals show none (never '-0.000')."""
    return "no change" if round(delta, 3) == 0 else f"{delta:+.3f}"


def score_details(report: Report) -> list[str]:
    """Every score: its mean (spelt as the summary spells it), the 95% interval of the mean,
    the rows behind it; against a baseline, the baseline's mean and the change with its
    interval at its true level."""
    compared = any("baseline" in e for e in report["scores"])
    rows = []
    for e in report["scores"]:
        ci, places = e["ci95"], mean_places(e)
        line = [
            cell(e["dataset"], 60),
            ident(e["score"]),
            threshold_text(e["threshold"]).strip(" ()") or "none",
            mean_text(e),
            f"{ci[0]:.{places}f} \u2013 {ci[1]:.{places}f}" if ci else "n/a",
            str(e["n"]),
            str(e["n_error"]),
            str(e["n_no_claims"]),
        ]
        if compared:
            line += _baseline_cells(e, places)
        rows.append(line)
    headers = [*words.DETAIL_HEADERS, *words.DETAIL_HEADERS_MORE]
    if compared:
        headers += words.CHANGE_HEADERS
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    note = ["", words.CHANGE_NOTE] if compared else []
    summary = f"<details><summary>{words.SCORES_IN_DETAIL}</summary>"
    return [summary, "", table, *note, "", "</details>"]


USAGE_HEADERS = (
    "metric",
    "judge calls",
    "cache hits",
    "prompt tokens",
    "completion tokens",
    "retries",
)


def usage(report: Report) -> list[str]:
    rows = [_usage_cells(name, u) for name, u in _usage_rows(report)]
    table = tabulate(rows, headers=USAGE_HEADERS, tablefmt="github", disable_numparse=True)
    return [
        "<details><summary>Judge usage</summary>",
        "",
        table,
        "",
        f"Wall time {report['seconds']:.1f} s.{cost_text(report)}",
        "",
        "</details>",
    ]


def _usage_cells(name: str, u: UsageCounts) -> list[object]:
    """A metric's row of the usage table, in USAGE_HEADERS' order."""
    return [
        ident(name),
        u["calls"],
        u["cache_hits"],
        u["prompt_tokens"],
        u["completion_tokens"],
        u["retries"],
    ]


def _usage_rows(report: Report) -> list[tuple[str, UsageCounts]]:
    return [*report["usage"]["by_metric"].items(), ("total", report["usage"]["total"])]


def cost_text(report: Report) -> str:
    """The judge's cost at judge.prices, and judge.budget's use, when known."""
    text = ""
    cost = report["usage"]["total"].get("cost_usd")
    if cost is not None and report["judge"].get("provider") != "local":  # free: nothing to say
        text += words.COST.format(cost=f"{cost:.4f}")
    budget = report.get("budget")
    if budget:
        limits = budget["limits"]
        of = (
            words.OF_LIMIT.format(limit=limits["max_calls"])
            if limits["max_calls"] is not None
            else ""
        )
        text += words.BUDGET.format(calls=budget["spent"]["calls"], limit=of)
        text += f", {budget['exceeded']}." if budget["exceeded"] else "."
    return text
