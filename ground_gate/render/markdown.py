"""Markdown for the pull-request comment and the job summary, rendered from the JSON report.

Rendering from the JSON (not from live objects) means a baseline report read from disk and
the current run go through the same code, and the comment can be re-rendered from an
artifact. The verdict and the baseline it was compared with; one table (a row per score, a
column per dataset: baseline -> now, the check's mark, the bound it misses; from three
datasets on, a row per dataset and score, so a phone shows it whole), why each check
that did not simply meet or miss its bound did what it did; then what the pull request broke,
by cause (markdown_broke.py), and folded: the rows still failing, every row, the reference
tables (markdown_rows.py, markdown_tables.py). Each fact is said once.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabulate import tabulate

from ground_gate.config.scores import SCORE_NAMES
from ground_gate.metrics.invisible import INVISIBLE
from ground_gate.metrics.styles import UNCERTAIN
from ground_gate.render import markdown_rows
from ground_gate.render.escape import cell, code, id_cell, ident
from ground_gate.render.markdown_broke import what_broke
from ground_gate.render.markdown_tables import score_details, usage
from ground_gate.render.targets import target_lines
from ground_gate.report.types import DatasetEntry, Report, RowEntry, ScoreEntry
from ground_gate.review import words
from ground_gate.review.answers import stated_nothing
from ground_gate.review.check_status import STATUSES, CheckStatus
from ground_gate.review.figures import ARROW, FAIL, NOISE, PASS, WARN, missed, score_cell
from ground_gate.review.review import Review
from ground_gate.review.words import answer_parts, failure_text, plural, uncertain_readings


def _cell(entry: ScoreEntry, status: CheckStatus, unverified: bool = False) -> str:
    # never a check mark for a pass a fork's run claims: its mark is the words' alone
    marked = status.kind in ("fail", "empty", "noise") or (status.kind == "pass" and not unverified)
    text = (status.mark + " " if marked else "") + score_cell(entry)
    change = entry.get("baseline")
    if change is not None and change["max_drop"] is not None and change["direction"] is None:
        text += f" {WARN} not compared"
    elif status.kind == "unchecked":
        text += f" {WARN} {status.word}"
    elif status.kind == "empty":
        text += " not checked"
    if entry["n_error"]:
        text += f" {WARN} {plural(entry['n_error'], 'error')}"
    return text


# From this many datasets on, a column each would not fit a phone (420 px): the table turns
# to a row per dataset and score, in three columns whatever the count.
TURNED_AT = 3


def _rows_said(dataset: DatasetEntry) -> str:
    rows = str(dataset["scored"])
    if dataset["scored"] != dataset["rows"]:
        rows += f" of {dataset['rows']}"
    return f"{rows} rows"


def _checks(report: Report) -> list[ScoreEntry]:
    """The scores the table shows: the checks (a threshold, or errors, which never pass). A
    score shown only has no row in it (a number with no bound means nothing at a glance): it
    is in the scores in detail, which the legend says."""
    return [e for e in report["scores"] if e["threshold"] or e["passed"] is not None]


def _table(report: Report, review: Review, unverified: bool = False) -> str:
    """The checks. With one or two datasets, one row per score and one column per dataset: a
    score's checks side by side, as narrow as the datasets are few. With more (TURNED_AT),
    one row per dataset and score in three columns (dataset, score, check), the dataset named
    on its first row: as narrow for ten datasets as for three."""
    entries = {(e["dataset"], e["score"]): e for e in _checks(report)}
    scores = [s for s in SCORE_NAMES if any(k[1] == s for k in entries)]
    if len(report["datasets"]) >= TURNED_AT:
        body = []
        for dataset in report["datasets"]:
            named = f"**{cell(dataset['name'], 60)}** ({_rows_said(dataset)})"
            for score in scores:
                entry = entries.get((dataset["name"], score))
                if entry is not None:
                    check = _cell(entry, review.status(entry), unverified)
                    body.append([named, ident(score), check])
                    named = ""
        headers = ["dataset", "score", "check"]
        return tabulate(body, headers=headers, tablefmt="github", disable_numparse=True)
    header = ["score"]
    for dataset in report["datasets"]:
        header.append(f"{cell(dataset['name'], 60)} ({_rows_said(dataset)})")
    body = []
    for score in scores:
        line = [ident(score)]
        for dataset in report["datasets"]:
            entry = entries.get((dataset["name"], score))
            line.append(_cell(entry, review.status(entry), unverified) if entry else "")
        body.append(line)
    return tabulate(body, headers=header, tablefmt="github", disable_numparse=True)


def _headline(report: Report, unverified: bool = False) -> list[str]:
    status = report["status"]
    if unverified:
        return ["## " + words.HEADLINE_UNVERIFIED.format(status=status), words.UNVERIFIED_NOTE]
    mark = {"passed": PASS, "failed": FAIL, "incomplete": WARN}[status]
    if "shard" in report:
        shard = report["shard"]
        return [
            "## "
            + words.HEADLINE_SHARD.format(
                mark=f"{mark} ", index=shard["index"], count=shard["count"], status=status
            ),
            "",
            words.SHARD_NOTE,
        ]
    return ["## " + words.HEADLINE.format(mark=f"{mark} ", status=status)]


def _baseline_lines(report: Report, review: Review) -> list[str]:
    """Which baseline the rows were compared with: branch, commit, run, age, its rows and
    verdict; and a warning when another judge scored it."""
    name = review.baseline
    if name is None:
        return []
    where = ""
    if name.branch or name.commit:
        parts = [f"`{code(name.branch, 80)}`"] if name.branch else []
        if name.commit:  # hexadecimal (the schema's pattern): nothing in it to escape
            sha = name.commit if name.commit.isalnum() else code(name.commit, 12)
            parts.append(f"[`{sha}`]({name.commit_url})" if name.commit_url else f"`{sha}`")
        where = words.BASELINE_FROM.format(where=" @ ".join(parts))
    its_run = f" ([{words.BASELINE_RUN}]({name.run_url}))"
    run = its_run if name.run_url and _is_web(name.run_url) else ""
    age = words.BASELINE_MADE.format(age=name.age) if name.age else ""
    rows = plural(name.rows, "row")
    lines = [
        words.COMPARED_WITH.format(where=where, run=run, age=age, rows=rows, status=name.status)
    ]
    if name.other_judge is not None:
        model = code(str(report["judge"].get("model", "?")), 80)
        other = f"`{code(name.other_judge, 80)}`"
        lines.append(f"{WARN} " + words.OTHER_JUDGE.format(baseline=other, model=f"`{model}`"))
    return lines


def _is_web(url: str) -> bool:
    return url.startswith("https://") and not any(c in url for c in " ()<>[]")


def _legend(report: Report, review: Review) -> str:
    """What the table's signs mean, for the signs it holds."""
    said = []
    if any("baseline" in e for e in report["scores"]):
        said.append(
            words.READS_BEFORE_NOW.format(arrow=f"`{words.BEFORE_NOW.format(arrow=ARROW)}`")
        )
    if any(review.status(e).kind == "noise" for e in report["scores"]):
        said.append(f"{NOISE} {STATUSES['noise'].word}.")
    if len(_checks(report)) < len(report["scores"]):
        said.append(words.SHOWN_ONLY_BELOW)
    return " ".join(said)


def _summary_line(report: Report, review: Review, page_url: str | None) -> str:
    rows = sum(d["scored"] for d in report["datasets"])
    model = code(str(report["judge"].get("model", "?")), 80)
    link = f"[{words.OPEN_PAGE_LINK}]({page_url})"
    page = " " + words.OPEN_PAGE.format(link=link) if page_url else ""
    return (
        words.SUMMARY.format(
            rows=plural(rows, "row"),
            datasets=plural(len(report["datasets"]), "dataset"),
            model=f"`{model}`",
            checks=review.checks,
            stopped=words.STOPPED if report["incomplete"] else "",
        )
        + page
    )


def _check_lines(report: Report, review: Review) -> list[str]:
    """Why each check that did not simply pass or fail on its bound did what it did, once:
    a drop against max_drop (failed, or past it and passing within noise), errors, no rows.
    A failed bound is said in the table's cell ('0.101 > 0.10')."""
    lines = []
    for e in report["scores"]:
        # ground-gate's own words, but a forged report's are anyone's
        name, score = cell(e["dataset"], 60), ident(e["score"])
        status, change, mean = review.status(e), e.get("baseline"), e["mean"]
        drop_failed = change is not None and change["passed"] is False
        in_cell = mean is not None and not drop_failed and missed(mean, e["threshold"])
        if status.kind in ("fail", "empty") and not in_cell:
            lines.append(f"- {FAIL} **{name}** {score}: {cell(failure_text(e), 300)}")
        elif status.kind == "unchecked" and mean is None:
            lines.append(f"- {WARN} **{name}** {score}: {cell(e['reason'], 300)}")
        elif status.kind == "noise" and change is not None:
            lines.append(f"- {NOISE} **{name}** {score}: {cell(change['reason'], 300)}")
        if change and change["max_drop"] is not None and change["passed"] is None:
            lines.append(f"- {WARN} **{name}** {score}: {cell(change['reason'], 200)}")
    return lines


def _answer_lines(report: Report, review: Review, unverified: bool = False) -> list[str]:
    """Per dataset with the answers metric, its declines and answers in words, marked with
    the verdict of its answer checks (no pass marked for a report this job did not run)."""
    lines = []
    for counts in review.answers:
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


def _judging_lines(review: Review) -> list[str]:
    """The rows reused from the baseline, and those judging stopped before."""
    if review.judging is None:
        return []
    lines = review.judging.lines(
        lambda dataset, row_id: f"{cell(dataset, 40)} / {id_cell(row_id, 60)}",
        lambda text: cell(text, 300),
    )
    return [" ".join(f"{line}." for line in lines)] if lines else []


def _reasons(report: Report) -> list[str]:
    lines = []
    if report["incomplete"]:
        lines.append(
            f"- {WARN} " + words.NOT_FINISHED.format(reason=cell(report["incomplete"], 300))
        )
    not_run = report.get("not_run") or []
    if not_run:
        listed = ", ".join(f"{cell(r['dataset'], 40)}/{id_cell(r['id'], 60)}" for r in not_run[:10])
        more = words.AND_MORE.format(count=len(not_run) - 10) if len(not_run) > 10 else ""
        said = words.NOT_RUN.format(count=len(not_run), rows=listed, more=more)
        lines.append(f"- {WARN} {said}")
    addressed = [r for r in report["rows"] if r.get("addressed_to_judge")]
    if addressed:
        first = addressed[0]
        example = cell(first["addressed_to_judge"][0]["text"], 120)
        row = f"{cell(first['dataset'], 60)} / {id_cell(first['id'])}"
        said = words.ADDRESSED.format(count=len(addressed), row=row, text=example)
        lines.append(f"- {WARN} {said}")
    lines += _hidden_line(report["rows"])
    silent = stated_nothing(report)
    if silent:
        lines.append(f"- {WARN} {len(silent)}{words.STATED_NOTHING}")
    return lines


def render_markdown(
    report: Report,
    review: Review,
    *,
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
        _summary_line(report, review, page_url),
        "",
    ]
    named = _baseline_lines(report, review)
    if named:
        parts += [*named, ""]
    parts += [_table(report, review, unverified), ""]
    # how to read the table, then how much of it was judged now (the table stays on the
    # first screen)
    legend = _legend(report, review)
    for lines in ([legend] if legend else [], _judging_lines(review)):
        if lines:
            parts += [*lines, ""]
    # what the pull request broke comes first after the checks: the reviewer's question
    broken = what_broke(report, review, page_url)
    if broken:
        parts += [*broken, ""]
    for lines in (
        _check_lines(report, review),
        _answer_lines(report, review, unverified),
        _reasons(report),
    ):
        if lines:
            parts += [*lines, ""]
    worst = markdown_rows.worst_rows(report, review, page_url)
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
    lines = _uncertain_line(rows)
    hid = [r for r in rows if any(h["kind"] != UNCERTAIN for h in r.get("hidden_text") or [])]
    if not hid:
        return lines
    entries = [(r, h) for r in hid for h in r["hidden_text"] if h["kind"] != UNCERTAIN]
    named = [(r, h) for r, h in entries if h["kind"] != INVISIBLE]
    row, first = named[0] if named else entries[0]
    said = words.NO_READER_SEES.format(
        count=len(hid),
        row=f"{cell(row['dataset'], 60)} / {id_cell(row['id'])}",
        kind=cell(first["kind"], 40),
        text=cell(first["text"], 120),
        counted=words.COUNTS_UNSUPPORTED if named else "",
    )
    return [f"- {WARN} {said}", *lines]


def _uncertain_line(rows: Sequence[RowEntry]) -> list[str]:
    """One line for the rows with styled text a reader may not see: how many, the first
    passage and how its row was judged (with it and without it, the worse kept)."""
    found = [(r, h) for r in rows for h in r.get("hidden_text") or [] if h["kind"] == UNCERTAIN]
    if not found:
        return []
    row, first = found[0]
    count = len({(r["dataset"], r["id"]) for r, _ in found})
    said = words.MAY_NOT_SEE.format(
        count=count,
        row=f"{cell(row['dataset'], 60)} / {id_cell(row['id'])}",
        text=cell(first["text"], 120),
        how=cell(uncertain_readings(row), 200),
    )
    return [f"- {WARN} {said}"]
