"""The HTML page of a run: one self-contained file rendered from the JSON report alone.

What it shows: the verdict (with each dataset's declines in words, for the answers metric);
with a baseline, what the pull request broke, grouped by cause (html_broke.py); per dataset
each score's check in the words of the rule that decided it, against its threshold and the
baseline (html_scores.py); per dataset and score the distribution of row scores in bins of
0.05 aligned on the threshold, the bins past it drawn failing (bins of 0.1 hid a 0.08
threshold inside one bar); every row, failing first, with its anchor, its changed sentences,
its units and the source passages that explain them (html_rows.py, html_evidence.py). The
page's safety (escaping, its Content-Security-Policy) is html_page.py's; its stylesheet and
script html_assets.py's. With JavaScript off every row is shown and the filters are hidden.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from ground_gate.config.scores import LOWER_IS_BETTER
from ground_gate.leaves.numbers import bound, holds
from ground_gate.render.escape import shown_id
from ground_gate.render.html_assets import SCRIPT, STYLE
from ground_gate.render.html_broke import broke_section
from ground_gate.render.html_evidence import marked, source_marks
from ground_gate.render.html_page import content_security_policy, esc, page
from ground_gate.render.html_rows import rows_section
from ground_gate.render.html_scores import scores_section
from ground_gate.render.svg import FINE, Line, histogram, threshold_bins
from ground_gate.report.types import Report, ScoreEntry
from ground_gate.review import words
from ground_gate.review.figures import ARROW, bounds_of, mean_text
from ground_gate.review.review import Review
from ground_gate.review.words import answer_words, plural


def _headline(report: Report, review: Review) -> list[str]:
    status = report["status"]
    mark = {"passed": "\u2714", "failed": "\u2718", "incomplete": "\u26a0"}.get(status, "?")
    rows = sum(d["scored"] for d in report["datasets"])
    summary = words.SUMMARY.format(
        rows=plural(rows, "row"),
        datasets=plural(len(report["datasets"]), "dataset"),
        model=f"<code>{esc(str(report['judge'].get('model', '?')))}</code>",
        checks=esc(review.checks),
        stopped=words.STOPPED if report["incomplete"] else "",
    )
    made = words.REPORT_OF.format(
        created=esc(words.moment(report["created_at"])), version=esc(report["tool"]["version"])
    )
    headline = words.HEADLINE.format(mark=f"{mark} ", status=esc(status))
    lines = [
        f'<header><h1 class="{esc(status)}">{headline}</h1>',
        # an anchor that names no row says so here (the page's script)
        '<p id="notice" class="notice" role="alert" hidden></p>',
        f"<p>{summary} {made}</p>",
    ]
    lines += _baseline(report, review)
    if review.judging is not None:  # how much of it was judged now
        judged = review.judging.lines(
            lambda d, i: f"{esc(d)} / {esc(shown_id(i))}", esc, 50, lambda f: f"<code>{f}</code>"
        )
        lines += [f"<p>{words.sentence(line)}.</p>" for line in judged]
    if "shard" in report:
        shard = report["shard"]
        said = words.SHARD_ROWS.format(index=shard["index"], count=shard["count"])
        lines.append(f'<p class="warn">{said}</p>')
    if report["incomplete"]:
        said = words.sentence(words.NOT_FINISHED.format(reason=esc(report["incomplete"])))
        lines.append(f'<p class="warn">{said}</p>')
    lines += _answers(review)
    lines.append("</header>")
    return lines


def _baseline(report: Report, review: Review) -> list[str]:
    """Which baseline the rows were compared with, as the comment names it (baseline_name.py):
    branch and commit, its run (as text: the page links nowhere outside itself), its age, and
    a warning when another judge scored it."""
    name = review.baseline
    if name is None:
        return []
    where = " @ ".join(f"<code>{esc(p)}</code>" for p in (name.branch, name.commit) if p)
    if where:
        where = words.BASELINE_FROM.format(where=where)
    else:
        where = words.BASELINE_OF.format(
            created=esc(words.moment(report["baseline"]["created_at"]))
        )
    run = f" ({words.BASELINE_RUN} <code>{esc(name.run_url)}</code>)" if name.run_url else ""
    age = words.BASELINE_MADE.format(age=esc(name.age)) if name.age else ""
    compared = words.COMPARED_WITH.format(
        where=where, run=run, age=age, rows=plural(name.rows, "row"), status=esc(name.status)
    )
    reads = words.READS_BEFORE_NOW.format(arrow=f"<i>{words.BEFORE_NOW.format(arrow=ARROW)}</i>")
    lines = [f"<p>{compared} {reads}</p>"]
    if name.other_judge is not None:
        model = esc(str(report["judge"].get("model", "?")))
        said = words.OTHER_JUDGE.format(
            baseline=f"<code>{esc(name.other_judge)}</code>", model=f"<code>{model}</code>"
        )
        lines.append(f'<p class="warn">{said}</p>')
    return lines


def _answers(review: Review) -> list[str]:
    """Per dataset with the answers metric, its declines in words."""
    return [
        f'<p class="answers"><b>{esc(c.dataset)}</b> {esc(answer_words(c))}</p>'
        for c in review.answers
    ]


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
        lines.append(Line(entry["mean"], words.MEAN_AT.format(mean=mean_text(entry)), "mean"))
    return lines


def _caption(entry: ScoreEntry, values: Sequence[float]) -> str:
    past = [
        (sum(1 for v in values if not holds(v, kind, limit)), kind, bound(limit))
        for kind, limit in bounds_of(entry["threshold"])
    ]
    mean = None if entry["mean"] is None else mean_text(entry)
    lower = entry["score"] in LOWER_IS_BETTER
    return words.distribution_caption(lower, len(values), mean, past, FINE)


def _distributions(report: Report) -> list[str]:
    out = [f'<section id="distributions"><h2>{words.DISTRIBUTIONS}</h2>']
    for dataset in report["datasets"]:
        entries = [e for e in report["scores"] if e["dataset"] == dataset["name"]]
        if not entries:
            continue
        out.append(f'<h3>{esc(dataset["name"])}</h3><div class="charts">')
        for e in entries:
            values = row_scores(report, e["dataset"], e["score"])
            title = words.chart_title(e["dataset"], e["score"], len(values))
            bins = threshold_bins(bounds_of(e["threshold"]))
            chart = histogram([(e["score"], values)], _threshold_lines(e), title, bins)
            out.append(
                f'<figure><figcaption>{esc(e["score"])}<br><span class="muted">'
                f"{esc(_caption(e, values))}</span></figcaption>{chart}</figure>"
            )
        out.append("</div>")
    out.append("</section>")
    return out


def render_html(report: Report, review: Review) -> str:
    """The run's page (`run --output-html`, `ground-gate report --html`), its rows beside the
    baseline's when the report was compared with one (`report_files.judged`)."""
    body = [*_headline(report, review), *broke_section(report, review)]
    body += scores_section(report["scores"], review)
    body += _distributions(report)
    body += rows_section(report, review)
    return page(words.HEADLINE.format(mark="", status=report["status"]), body)


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
