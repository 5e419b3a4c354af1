"""Markdown for the pull-request comment and the job summary, rendered from the JSON report.

Rendering from the JSON (not from live objects) means a baseline report read from disk and
the current run go through the same code, and the comment can be re-rendered from an
artifact. The verdict and one table (datasets x scores, each against its threshold and its
baseline), the checks that failed and which part of each, then what the pull request broke
(markdown_rows.py), the worst rows, and collapsed reference tables (markdown_tables.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from tabulate import tabulate

from ground_gate.config.model import SCORE_NAMES
from ground_gate.metrics.invisible import INVISIBLE
from ground_gate.report import markdown_rows
from ground_gate.report.answers import answer_counts, answer_parts, stated_nothing
from ground_gate.report.baseline_rows import is_compared
from ground_gate.report.escape import cell, code, ident
from ground_gate.report.formatting import (
    FAIL,
    PASS,
    WARN,
    failure_text,
    score_cell,
)
from ground_gate.report.markdown_tables import score_details, usage
from ground_gate.report.selection import DEFAULT_WORST_ROWS
from ground_gate.report.targets import target_lines
from ground_gate.report.types import Report, RowEntry, ScoreEntry

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
COMPARED_NOTE = (
    "Each score reads `baseline \u2192 now` over the rows in both runs; a failed check says "
    "which part failed: its level (against min or max) or its drop (against max_drop)."
)

# A report.types.Report, built by json_report or read back from a file (a baseline), held as
# the plain dict it is; its entries are typed below.


def _cell(entry: ScoreEntry, unverified: bool = False) -> str:
    passed = PASS + " " if not unverified else ""  # never a check mark for a claimed pass
    mark = {True: passed, False: FAIL + " ", None: ""}[entry["passed"]]
    text = mark + score_cell(entry)
    change = entry.get("baseline")
    if change is not None and change["max_drop"] is not None and change["direction"] is None:
        text += f" {WARN} not compared"
    if entry["n_error"]:
        text += f" {WARN} {entry['n_error']} error(s)"
    return text


def _table(report: Report, unverified: bool = False) -> str:
    entries = {(e["dataset"], e["score"]): e for e in report["scores"]}
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
            line.append(_cell(entry, unverified) if entry else "")
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


def _summary_line(report: Report, page_url: str | None) -> str:
    rows = sum(d["scored"] for d in report["datasets"])
    checked = [e for e in report["scores"] if e["passed"] is not None]
    missed = sum(1 for e in checked if e["passed"] is False)
    model = code(str(report["judge"].get("model", "?")), 80)
    page = (
        f" [Open the report page]({page_url}): every row, its sentences and its source."
        if page_url
        else ""
    )
    return (
        f"{rows} row(s) in {len(report['datasets'])} dataset(s), judged by `{model}`; "
        f"{missed} of {len(checked)} check(s) failed.{page}"
    )


def _answer_lines(report: Report, unverified: bool = False) -> list[str]:
    """Per dataset with the answers metric, its declines and answers in words, marked with
    the verdict of its answer checks (no pass marked for a report this job did not run)."""
    lines = []
    for counts in answer_counts(report):
        checks = {
            e["score"]: e["passed"] for e in report["scores"] if e["dataset"] == counts.dataset
        }
        marks = {True: "" if unverified else PASS + " ", False: FAIL + " ", None: ""}
        said = "; ".join(
            marks[checks.get(score) if score else None] + cell(text, 200)
            for score, text in answer_parts(counts)
        )
        lines.append(f"- **{cell(counts.dataset, 60)}** {said}")
    return lines


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
    lines += _hidden_line(report["rows"])
    silent = stated_nothing(report)
    if silent:
        lines.append(
            f"- {WARN} {len(silent)} row(s) stated nothing to judge (a decline, a greeting, no "
            "word at all): in no score's mean; `metrics: {answers: {}}` counts them as declines"
        )
    for e in report["scores"]:
        # ground-gate's own words, but a forged report's are anyone's
        name, score = cell(e["dataset"], 60), ident(e["score"])
        if e["passed"] is False:
            lines.append(f"- {FAIL} **{name}** {score} \u2014 {cell(failure_text(e), 300)}")
        change = e.get("baseline")
        if change and change["max_drop"] is not None and change["passed"] is None:
            lines.append(f"- {WARN} **{name}** {score}: {cell(change['reason'], 200)}")
    return lines


def render_markdown(
    report: Report,
    *,
    worst_rows: int = DEFAULT_WORST_ROWS,
    unverified: bool = False,
    page_url: str | None = None,
) -> str:
    """The report as markdown, its rows beside the baseline's when the report was compared
    with one (`report_files.judged`, where a report is finished). `unverified`: the report comes
    from a run this job does not trust (a fork's artifact): the headline says whose claim it
    is and no pass is marked. `page_url`: where the run's HTML page is (the comment then
    links to it and each worst row to its anchor); None: the page is not mentioned."""
    parts: list[str] = [
        *_headline(report, unverified),
        "",
        _summary_line(report, page_url),
        "",
        _table(report, unverified),
        "",
    ]
    if any("baseline" in e for e in report["scores"]) or is_compared(report):
        parts += [COMPARED_NOTE, ""]
    answers = _answer_lines(report, unverified)
    if answers:
        parts += [*answers, ""]
    reasons = _reasons(report)
    if reasons:
        parts += [*reasons, ""]
    broken = markdown_rows.what_broke(report, page_url)
    if broken:
        parts += [*broken, ""]
    worst = markdown_rows.worst_rows(report, worst_rows, page_url)
    if worst:
        parts += [*worst, ""]
    parts += [*markdown_rows.rows_table(report), ""]
    parts += [*score_details(report), ""]
    parts += target_lines(report)
    parts += usage(report)
    return "\n".join(parts) + "\n"


__all__: Sequence[str] = ["render_markdown"]


def _hidden_line(rows: Sequence[RowEntry]) -> list[str]:
    """One line for the rows that held text no reader sees: how many, and the first passage
    (the first row that hid words, else the first with invisible characters)."""
    hid = [r for r in rows if r.get("hidden_text")]
    if not hid:
        return []
    words = [(r, h) for r in hid for h in r["hidden_text"] if h["kind"] != INVISIBLE]
    row, first = words[0] if words else (hid[0], hid[0]["hidden_text"][0])
    counted = "; in a response each passage counts as unsupported" if words else ""
    return [
        f"- {WARN} {len(hid)} row(s) held text no reader sees, taken out before judging "
        f"(first: {cell(row['dataset'], 60)} / {cell(row['id'], 80)}, {cell(first['kind'], 40)}: "
        f"{cell(first['text'], 120)}){counted}"
    ]
