"""The comment's collapsed reference tables: every score in detail (mean, interval, counts,
the paired change against the baseline) and what the judge's calls spent."""

from __future__ import annotations

from tabulate import tabulate

from ground_gate.gate import percent
from ground_gate.report.escape import cell, ident
from ground_gate.report.types import BaselineEntry, Report, UsageCounts

BASELINE_NOTE = (
    "\u0394: the mean change against the baseline over the rows scored in both runs, paired "
    "by id. Its interval runs between the paired bootstrap's one-sided bounds at the "
    "confidence shown (2000 resamples; at 95% the 5th to the 95th percentile); an interval "
    "that includes 0 is within noise. A score with max_drop fails when it is more than "
    "max_drop worse and the interval's better end is too."
)


def _baseline_cells(change: BaselineEntry | None) -> list[str]:
    if change is None:
        return ["", "", "", ""]
    delta, interval, before = change["delta"], change["interval"], change["before"]
    return [
        "n/a" if before is None else f"{before:.3f}",
        "n/a" if delta is None else f"{delta:+.3f}",
        "n/a"
        if interval is None
        else f"{interval[0]:+.3f} \u2013 {interval[1]:+.3f} ({percent(change['confidence'])})",
        f"{change['paired']} / {change['in_baseline']}",
    ]


def score_details(report: Report) -> list[str]:
    compared = any("baseline" in e for e in report["scores"])
    rows = []
    for e in report["scores"]:
        ci = e["ci95"]
        line = [
            cell(e["dataset"], 60),
            ident(e["score"]),
            "n/a" if e["mean"] is None else f"{e['mean']:.4f}",
            f"{ci[0]:.3f} \u2013 {ci[1]:.3f}" if ci else "n/a",
            str(e["n"]),
            str(e["n_error"]),
            str(e["n_no_claims"]),
        ]
        if compared:
            line += _baseline_cells(e.get("baseline"))
        rows.append(line)
    headers = ["dataset", "score", "mean", "95% CI", "rows scored", "errors", "no claims"]
    if compared:
        headers += ["baseline", "\u0394 baseline", "\u0394 interval", "paired / in baseline"]
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    note = ["", BASELINE_NOTE] if compared else []
    return ["<details><summary>Scores in detail</summary>", "", table, *note, "", "</details>"]


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
        text += f" Cost ${cost:.4f} at judge.prices."
    budget = report.get("budget")
    if budget:
        limits = budget["limits"]
        calls = f" of {limits['max_calls']}" if limits["max_calls"] is not None else ""
        text += f" Budget: {budget['spent']['calls']}{calls} call(s) spent"
        text += f", {budget['exceeded']}." if budget["exceeded"] else "."
    return text
