"""Markdown for the pull-request comment and the job summary, rendered from the JSON report.

Rendering from the JSON (not from live objects) means a baseline report read from disk and
the current run go through the same code, and the comment can be re-rendered from an
artifact. One table (datasets x scores), then collapsed details, then judge usage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabulate import tabulate

from ground_gate.config.model import SCORE_NAMES
from ground_gate.gate import percent
from ground_gate.report.escape import cell, code, ident
from ground_gate.report.formatting import (
    FAIL,
    PASS,
    WARN,
    change_text,
    delta_text,
    row_values,
    threshold_text,
)
from ground_gate.report.selection import DEFAULT_WORST_ROWS, ShownRow, shown_rows
from ground_gate.report.targets import target_lines
from ground_gate.report.types import BaselineEntry, ScoreEntry
from ground_gate.results import ADDRESSED_TO_JUDGE

UNVERIFIED_NOTE = (
    "These scores come from the pull request's own run and were not re-verified: the pull "
    "request controls that run (its data, config, code and any baseline it compared with), "
    "so this is what it reported, "
    "not a verdict of this repository."
)
SHARD_NOTE = (
    "These scores cover this shard's rows only; `ground-gate merge` joins the shards' JSON "
    "reports into the run's report and gives the gate's verdict."
)
ROWS_SHOWN = 50

# A report.types.Report, built by json_report or read back from a file (a baseline), held as
# the plain dict it is; its entries are typed below.
Report = Mapping[str, Any]


def _cell(entry: ScoreEntry, before: ScoreEntry | None, unverified: bool = False) -> str:
    mean = entry["mean"]
    passed = PASS + " " if not unverified else ""  # never a check mark for a claimed pass
    mark = {True: passed, False: FAIL + " ", None: ""}[entry["passed"]]
    value = f"{mean:.2f}" if mean is not None else "n/a"
    text = f"{mark}{value}{threshold_text(entry['threshold'])}"
    if "baseline" in entry:
        text += change_text(entry["baseline"])
    elif before is not None:
        text += delta_text(entry["score"], mean, before.get("mean"))
    if entry["n_error"]:
        text += f" {WARN} {entry['n_error']} error(s)"
    return text


def _index(report: Report | None) -> dict[tuple[str, str], ScoreEntry]:
    if report is None:
        return {}
    return {(e["dataset"], e["score"]): e for e in report["scores"]}


def _table(report: Report, baseline: Report | None, unverified: bool = False) -> str:
    entries = _index(report)
    before = _index(baseline)
    scores = [s for s in SCORE_NAMES if any(k[1] == s for k in entries)]
    header = ["dataset", "rows", *scores]
    body = []
    for dataset in report["datasets"]:
        name = dataset["name"]
        rows_text = str(dataset["scored"])
        if dataset["scored"] != dataset["rows"]:
            rows_text += f" of {dataset['rows']}"
        line = [cell(name, 60), rows_text]
        for score in scores:
            entry = entries.get((name, score))
            line.append(_cell(entry, before.get((name, score)), unverified) if entry else "")
        body.append(line)
    return tabulate(body, headers=header, tablefmt="github", disable_numparse=True)


def _headline(report: Report, unverified: bool = False) -> list[str]:
    status = report["status"]
    if unverified:
        return [f"## ground-gate: reported by the pull request's run: {status}", UNVERIFIED_NOTE]
    mark = {"passed": PASS, "failed": FAIL, "incomplete": WARN}[status]
    if "shard" in report:
        shard = report["shard"]
        return [
            f"## {mark} ground-gate: shard {shard['index']} of {shard['count']}: {status}",
            "",
            SHARD_NOTE,
        ]
    return [f"## {mark} ground-gate: {status}"]


def _summary_line(report: Report) -> str:
    rows = sum(d["scored"] for d in report["datasets"])
    checked = [e for e in report["scores"] if e["passed"] is not None]
    missed = sum(1 for e in checked if e["passed"] is False)
    model = code(str(report["judge"].get("model", "?")), 80)
    return (
        f"{rows} row(s) in {len(report['datasets'])} dataset(s), judged by `{model}`; "
        f"{missed} of {len(checked)} check(s) failed."
    )


def _reasons(report: Report) -> list[str]:
    lines = []
    if report["incomplete"]:
        lines.append(f"- {WARN} the run did not finish: {cell(report['incomplete'], 300)}")
    not_run = report.get("not_run") or []
    if not_run:
        listed = ", ".join(f"{cell(r['dataset'], 40)}/{cell(r['id'], 60)}" for r in not_run[:10])
        more = f" and {len(not_run) - 10} more" if len(not_run) > 10 else ""
        lines.append(
            f"- {WARN} {len(not_run)} row(s) not run, so not in the scores: {listed}{more}"
        )
    addressed = [r for r in report["rows"] if r.get("addressed_to_judge")]
    if addressed:
        first = addressed[0]
        example = cell(first["addressed_to_judge"][0]["text"], 120)
        lines.append(
            f"- {WARN} {len(addressed)} row(s) held text addressed to the judge, cut before "
            f"judging (first: {cell(first['dataset'], 60)} / {cell(first['id'], 80)}, "
            f"{example}); in a response it counts as unsupported"
        )
    for e in report["scores"]:
        # ground-gate's own words, but a forged report's are anyone's
        name, score = cell(e["dataset"], 60), ident(e["score"])
        if e["passed"] is False:
            lines.append(f"- {FAIL} **{name}** {score}: {cell(e['reason'], 200)}")
        change = e.get("baseline")
        if change and change["max_drop"] is not None and change["passed"] is None:
            lines.append(f"- {WARN} **{name}** {score}: {cell(change['reason'], 200)}")
    return lines


def _unit_lines(shown: ShownRow) -> list[str]:
    lines = []
    for name, metric in shown.row["metrics"].items():
        if metric["status"] == "error":
            lines.append(f"| {ident(name)} | error | {cell(metric['error'] or '')} | |")
            continue
        for index in shown.units.get(name, ()):
            unit = metric["units"][index]
            evidence = cell(unit["evidence"]) if unit.get("evidence") else ""
            verdict = cell(unit["verdict"], 40)
            if unit["detail"].get(ADDRESSED_TO_JUDGE):
                verdict = f"{verdict}: addressed to the judge, cut"
            lines.append(f"| {ident(name)} | {verdict} | {cell(unit['text'])} | {evidence} |")
    return lines


def _scores_text(row: Mapping[str, Any]) -> str:  # a RowEntry, as ShownRow holds it
    parts = []
    for name, metric in row["metrics"].items():
        if metric["status"] != "ok":
            parts.append(f"{ident(name)} {metric['status'].replace('_', ' ')}")
        parts.extend(f"{ident(k)} {v:.2f}" for k, v in metric["scores"].items())
    return ", ".join(parts)


def _worst_rows(report: Report, limit: int) -> list[str]:
    ranked = shown_rows(report, limit)
    if not ranked:
        return []
    out = [f"<details><summary>Worst rows ({len(ranked)})</summary>", ""]
    for shown in ranked:
        row = shown.row
        failing = ", ".join(ident(s) for s in row["failing"])
        failing = f" \u2014 fails {failing}" if failing else ""
        out.append(
            f"**{cell(row['dataset'], 60)} / {cell(row['id'], 80)}**{failing}: {_scores_text(row)}"
        )
        units = _unit_lines(shown)
        if units:
            out += ["", "| metric | verdict | text | evidence |", "|---|---|---|---|", *units]
        out.append("")
    out.append("</details>")
    return out


def _failing_set(report: Report) -> set[tuple[str, str, str]]:
    return {(r["dataset"], r["id"], s) for r in report["rows"] for s in r["failing"]}


def _baseline_changes(report: Report, baseline: Report) -> list[str]:
    now, before = _failing_set(report), _failing_set(baseline)
    out = []
    for title, items in (("New failures", now - before), ("Fixed", before - now)):
        if items:
            listed = ", ".join(
                f"{cell(d, 40)}/{cell(i, 60)} ({ident(s)})" for d, i, s in sorted(items)[:20]
            )
            more = f" and {len(items) - 20} more" if len(items) > 20 else ""
            out += [f"**{title} since the baseline ({len(items)}):** {listed}{more}", ""]
    return out[:-1] or ["No row changed verdict since the baseline."]


def _rows_table(report: Report, limit: int = ROWS_SHOWN) -> list[str]:
    """Every row's scores (the failing ones first when there are too many to show), then the
    rows not run."""
    rows = list(report["rows"])
    not_run = list(report.get("not_run") or [])
    if not rows and not not_run:
        return []
    if len(rows) > limit:
        rows = sorted(rows, key=lambda r: not r["failing"])[:limit]
    scores = [s for s in SCORE_NAMES if any(e["score"] == s for e in report["scores"])]
    body = [[cell(r["dataset"], 40), cell(r["id"], 80), *row_values(r, scores)] for r in rows]
    body += [
        [cell(r["dataset"], 40), cell(r["id"], 80), *(["not run"] * len(scores))]
        for r in not_run[: max(limit - len(rows), 0)]
    ]
    table = tabulate(
        body, headers=["dataset", "row", *scores], tablefmt="github", disable_numparse=True
    )
    total = len(report["rows"]) + len(not_run)
    shown = f"{len(body)} of {total}" if len(body) < total else str(len(body))
    return [f"<details><summary>Rows ({shown})</summary>", "", table, "", "</details>"]


BASELINE_NOTE = (
    "\u0394: the mean change against the baseline over the rows scored in both runs, paired "
    "by id. Its interval runs between the paired bootstrap's one-sided bounds at the "
    "confidence shown (2000 resamples; at 95% the 5th to the 95th percentile); an interval "
    "that includes 0 is within noise. A score with max_drop fails when it is more than "
    "max_drop worse and the interval's better end is too."
)


def _baseline_cells(change: BaselineEntry | None) -> list[str]:
    if change is None:
        return ["", "", ""]
    delta, interval = change["delta"], change["interval"]
    return [
        "n/a" if delta is None else f"{delta:+.3f}",
        "n/a"
        if interval is None
        else f"{interval[0]:+.3f} \u2013 {interval[1]:+.3f} ({percent(change['confidence'])})",
        f"{change['paired']} / {change['in_baseline']}",
    ]


def _score_details(report: Report) -> list[str]:
    compared = any("baseline" in e for e in report["scores"])
    rows = []
    for e in report["scores"]:
        ci = e["ci95"]
        line = [
            cell(e["dataset"], 60),
            ident(e["score"]),
            "n/a" if e["mean"] is None else f"{e['mean']:.3f}",
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
        headers += ["\u0394 baseline", "\u0394 interval", "paired / in baseline"]
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    note = ["", BASELINE_NOTE] if compared else []
    return ["<details><summary>Scores in detail</summary>", "", table, *note, "", "</details>"]


def _usage(report: Report) -> list[str]:
    rows = []
    for name, u in report["usage"]["by_metric"].items():
        rows.append(
            [
                ident(name),
                u["calls"],
                u["cache_hits"],
                u["prompt_tokens"],
                u["completion_tokens"],
                u["retries"],
            ]
        )
    t = report["usage"]["total"]
    rows.append(
        [
            "total",
            t["calls"],
            t["cache_hits"],
            t["prompt_tokens"],
            t["completion_tokens"],
            t["retries"],
        ]
    )
    table = tabulate(
        rows,
        headers=[
            "metric",
            "judge calls",
            "cache hits",
            "prompt tokens",
            "completion tokens",
            "retries",
        ],
        tablefmt="github",
        disable_numparse=True,
    )
    return [
        "<details><summary>Judge usage</summary>",
        "",
        table,
        "",
        f"Wall time {report['seconds']:.1f} s.{_cost_text(report)}",
        "",
        "</details>",
    ]


def _cost_text(report: Report) -> str:
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


def render_markdown(
    report: Report,
    *,
    baseline: Report | None = None,
    worst_rows: int = DEFAULT_WORST_ROWS,
    unverified: bool = False,
) -> str:
    """The report as markdown. `unverified`: the report comes from a run this job does not
    trust (a fork's artifact): the headline says whose claim it is and no pass is marked."""
    parts: list[str] = [
        *_headline(report, unverified),
        "",
        _summary_line(report),
        "",
        _table(report, baseline, unverified),
        "",
    ]
    reasons = _reasons(report)
    if reasons:
        parts += [*reasons, ""]
    if baseline is not None:
        parts += [*_baseline_changes(report, baseline), ""]
    worst = _worst_rows(report, worst_rows)
    if worst:
        parts += [*worst, ""]
    parts += [*_rows_table(report), ""]
    parts += [*_score_details(report), ""]
    parts += target_lines(report)
    parts += _usage(report)
    return "\n".join(parts) + "\n"


__all__: Sequence[str] = ["render_markdown"]
