"""The HTML page of a run: one self-contained file rendered from the JSON report alone.

What it shows: the verdict (with each dataset's declines in words, for the answers metric);
per dataset each score against its threshold (the part that
failed named, the baseline's value beside it); per dataset and score the distribution of row
scores in bins of 0.05 aligned on the threshold, the bins past it drawn failing (bins of 0.1
hid a 0.08 threshold inside one bar); every row, failing first, with its anchor, its changed
sentences, its units and its evidence (html_rows.py, html_evidence.py). The page's safety (escaping,
its Content-Security-Policy) is html_page.py's; its stylesheet and script html_assets.py's.
With JavaScript off every row is shown and the filters are hidden. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from ground_gate.config.model import LOWER_IS_BETTER
from ground_gate.numbers import bound, holds
from ground_gate.report.answers import answer_counts, answer_words
from ground_gate.report.baseline_rows import is_compared
from ground_gate.report.formatting import (
    before_now,
    bounds_of,
    change_text,
    failing_parts,
    failure_text,
    threshold_text,
    value_text,
)
from ground_gate.report.html_assets import SCRIPT, STYLE
from ground_gate.report.html_evidence import marked, source_marks
from ground_gate.report.html_page import content_security_policy, esc, page
from ground_gate.report.html_rows import rows_section
from ground_gate.report.svg import FINE, Line, histogram, threshold_bins
from ground_gate.report.types import BaselineEntry, Report, ScoreEntry


def _headline(report: Report) -> list[str]:
    status = report["status"]
    mark = {"passed": "\u2714", "failed": "\u2718", "incomplete": "\u26a0"}.get(status, "?")
    rows = sum(d["scored"] for d in report["datasets"])
    checked = [e for e in report["scores"] if e["passed"] is not None]
    missed = sum(1 for e in checked if e["passed"] is False)
    lines = [
        f'<header><h1 class="{esc(status)}">{mark} ground-gate: {esc(status)}</h1>',
        f"<p>{rows} row(s) in {len(report['datasets'])} dataset(s), judged by "
        f"<code>{esc(str(report['judge'].get('model', '?')))}</code>; {missed} of "
        f"{len(checked)} check(s) failed. Report of {esc(report['created_at'])}, "
        f"ground-gate {esc(report['tool']['version'])}.</p>",
    ]
    if is_compared(report):
        base = report["baseline"]
        lines.append(
            f"<p>Compared with the baseline of {esc(base['created_at'])} ({base['rows']} "
            f"row(s), {esc(base['status'])}): values read <i>baseline \u2192 now</i>.</p>"
        )
    if "shard" in report:
        shard = report["shard"]
        lines.append(
            f'<p class="warn">Shard {shard["index"]} of {shard["count"]}: these scores cover '
            "this shard's rows only.</p>"
        )
    if report["incomplete"]:
        lines.append(f'<p class="warn">The run did not finish: {esc(report["incomplete"])}</p>')
    lines += _answers(report)
    lines.append("</header>")
    return lines


def _answers(report: Report) -> list[str]:
    """Per dataset with the answers metric, its declines in words."""
    return [
        f'<p class="answers"><b>{esc(c.dataset)}</b> {esc(answer_words(c))}</p>'
        for c in answer_counts(report)
    ]


def _verdict_cell(entry: ScoreEntry) -> str:
    passed = entry["passed"]
    if passed is None:
        return '<td class="muted" data-label="verdict">no threshold</td>'
    if passed:
        return '<td class="passed" data-label="verdict">pass</td>'
    mean = "" if entry["mean"] is None else value_text(entry["mean"], entry["threshold"]) + " "
    parts = [p if p.startswith("drop") else mean + p for p in failing_parts(entry)]
    said = f": {esc('; '.join(parts))}" if parts else ""
    return f'<td class="failed" data-label="verdict">FAIL{said}</td>'


def _interval(ci: Sequence[float] | None) -> str:
    return f"{ci[0]:.3f} \u2013 {ci[1]:.3f}" if ci else "n/a"


def _baseline_text(entry: ScoreEntry, change: BaselineEntry) -> str:
    """'0.908 → 0.853, -0.055 [-0.070, -0.040] at 95%, worse (160 paired row(s))'."""
    parts = []
    if (
        change["direction"] is not None
        and change["before"] is not None
        and entry["mean"] is not None
    ):
        parts.append(before_now(entry["mean"], change["before"], entry["threshold"], 3))
    parts.append(change_text(change) or "too few paired rows to compare")
    return f"{', '.join(parts)} ({change['paired']} paired row(s))"


def _scores_table(report: Report) -> list[str]:
    compared = any("baseline" in e for e in report["scores"])
    head = "<th>dataset</th><th>score</th><th>mean</th><th>95% CI</th><th>threshold</th>"
    head += "<th>verdict</th><th>rows</th>" + ("<th>against the baseline</th>" if compared else "")
    out = [
        '<section id="scores"><h2>Scores</h2><div class="scroll"><table class="cards">',
        f"<thead><tr>{head}</tr></thead><tbody>",
    ]
    for e in report["scores"]:
        mean = "n/a" if e["mean"] is None else value_text(e["mean"], e["threshold"], 3)
        rows = f"{e['n']}" + (f", {e['n_error']} error(s)" if e["n_error"] else "")
        threshold = threshold_text(e["threshold"]).strip(" ()")
        line = (
            f'<tr><td data-label="dataset">{esc(e["dataset"])}</td>'
            f'<td data-label="score">{esc(e["score"])}</td>'
            f'<td class="num" data-label="mean">{mean}</td>'
            f'<td class="num" data-label="95% CI">{_interval(e["ci95"])}</td>'
            f'<td data-label="threshold">{esc(threshold)}</td>'
            f'{_verdict_cell(e)}<td data-label="rows">{rows}</td>'
        )
        if compared:
            change = e.get("baseline")
            said = esc(_baseline_text(e, change)) if change else ""
            line += f'<td data-label="against the baseline">{said}</td>'
        out.append(line + "</tr>")
    out.append("</tbody></table></div>")
    reasons = [e for e in report["scores"] if e["passed"] is False]
    if reasons:
        out.append("<ul>")
        out += [
            f"<li><b>{esc(e['dataset'])}</b> {esc(e['score'])} \u2014 {esc(failure_text(e))}</li>"
            for e in reasons
        ]
        out.append("</ul>")
    out.append("</section>")
    return out


def row_scores(report: Report, dataset: str, score: str) -> list[float]:
    return [
        m["scores"][score]
        for r in report["rows"]
        if r["dataset"] == dataset
        for m in r["metrics"].values()
        if m["status"] == "ok" and score in m["scores"]
    ]


def _threshold_lines(entry: ScoreEntry) -> list[Line]:
    lines = [Line(v, f"{k} {bound(v)}", "threshold") for k, v in bounds_of(entry["threshold"])]
    if entry["mean"] is not None:
        lines.append(Line(entry["mean"], f"mean {entry['mean']:.2f}", "mean"))
    return lines


def _caption(entry: ScoreEntry, values: Sequence[float]) -> str:
    direction = "lower is better" if entry["score"] in LOWER_IS_BETTER else "higher is better"
    said = [direction, f"{len(values)} row(s)"]
    if entry["mean"] is not None:
        said.append(f"mean {entry['mean']:.2f} (dotted)")
    for kind, limit in bounds_of(entry["threshold"]):
        past = sum(1 for v in values if not holds(v, kind, limit))
        said.append(f"{past} past {kind} {bound(limit)} (red bars; bins of {FINE:g} from it)")
    return " \u00b7 ".join(said)


def _distributions(report: Report) -> list[str]:
    out = ['<section id="distributions"><h2>Distributions of row scores</h2>']
    for dataset in report["datasets"]:
        entries = [e for e in report["scores"] if e["dataset"] == dataset["name"]]
        if not entries:
            continue
        out.append(f'<h3>{esc(dataset["name"])}</h3><div class="charts">')
        for e in entries:
            values = row_scores(report, e["dataset"], e["score"])
            title = f"{e['dataset']} {e['score']}: {len(values)} row(s)"
            bins = threshold_bins(bounds_of(e["threshold"]))
            chart = histogram([(e["score"], values)], _threshold_lines(e), title, bins)
            out.append(
                f'<figure><figcaption>{esc(e["score"])}<br><span class="muted">'
                f"{esc(_caption(e, values))}</span></figcaption>{chart}</figure>"
            )
        out.append("</div>")
    out.append("</section>")
    return out


def render_html(report: Report) -> str:
    """The run's page (`run --output-html`, `ground-gate report --html`), its rows beside the
    baseline's when the report was compared with one (`report_files.judged`)."""
    body = [*_headline(report), *_scores_table(report), *_distributions(report)]
    body += rows_section(report)
    return page(f"ground-gate: {report['status']}", body)


__all__: Sequence[str] = [
    "SCRIPT",
    "STYLE",
    "content_security_policy",
    "esc",
    "marked",
    "page",
    "render_html",
    "source_marks",
]
