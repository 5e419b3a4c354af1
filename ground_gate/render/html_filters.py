"""The rows' filters: the form the page's script reads (html_assets.py), hidden with
JavaScript off. With a baseline that the pull request broke rows of, the verdict filter
starts at the rows newly failing since the baseline, the rest one choice away. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from ground_gate.render.html_page import esc
from ground_gate.report.types import Report
from ground_gate.review import words
from ground_gate.review.review import Review


def start_status(review: Review) -> str:
    """The rows the filter starts at: those the pull request broke when there are some (the
    rest one choice away), else all."""
    return "new" if review.broke else "all"


def filters(report: Report, review: Review, scores: Sequence[str]) -> list[str]:
    """The form: dataset, score, verdict (against the baseline too when compared), sort,
    search; the verdict starting at `start_status`."""
    datasets = "".join(f'<option value="{esc(d["name"])}">{esc(d["name"])}</option>'
                       for d in report["datasets"])  # fmt: skip
    score_options = "".join(f'<option value="{esc(s)}">{esc(s)}</option>' for s in scores)
    statuses = list(words.FILTER_STATUSES)
    if review.compared:
        statuses[2:2] = words.FILTER_STANDINGS
    start = start_status(review)
    status_options = "".join(
        f'<option value="{v}"{" selected" * (v == start)}>{w}</option>' for v, w in statuses
    )
    sorts = "".join(
        f'<option value="{esc(s)}-{d}">{esc(s)} {w}</option>'
        for s in scores
        for d, w in words.SORTS
    )
    label, every = words.FILTER_LABELS, f'<option value="">{words.ANY}</option>'
    return [
        '<form id="filters" hidden>',
        f'<label>{label["dataset"]} <select id="f-dataset">{every}{datasets}</select></label>',
        f'<label>{label["score"]} <select id="f-score">{every}{score_options}</select></label>',
        f'<label>{label["status"]} <select id="f-status">{status_options}</select></label>',
        f'<label>{label["sort"]} <select id="f-sort"><option value="">{words.WORST_FIRST}'
        f"</option>{sorts}</select></label>",
        f'<label>{words.SEARCH} <input id="f-search" type="search" '
        f'placeholder="{words.SEARCH_HINT}"></label>',
        '<output id="f-count"></output></form>',
    ]
