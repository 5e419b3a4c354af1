"""The rows' filters: the form the page's script reads (html_assets.py), hidden with
JavaScript off. With a baseline that the pull request broke rows of, the verdict filter
starts at the rows newly failing since the baseline, the rest one choice away. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from ground_gate.render.html_page import esc
from ground_gate.report.types import Report
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
    statuses = [("all", "all"), ("fail", "failing"), ("pass", "passing")]
    if review.compared:
        statuses[2:2] = [
            ("new", "newly failing since the baseline"),
            ("before", "failing in the baseline too"),
            ("fixed", "fixed since the baseline"),
        ]
    start = start_status(review)
    status_options = "".join(
        f'<option value="{v}"{" selected" * (v == start)}>{w}</option>' for v, w in statuses
    )
    sorts = "".join(
        f'<option value="{esc(s)}-{d}">{esc(s)} {w}</option>'
        for s in scores
        for d, w in (("asc", "low to high"), ("desc", "high to low"))
    )
    return [
        '<form id="filters" hidden>',
        f'<label>dataset <select id="f-dataset"><option value="">all</option>{datasets}'
        "</select></label>",
        f'<label>score <select id="f-score"><option value="">all</option>{score_options}'
        "</select></label>",
        f'<label>verdict <select id="f-status">{status_options}</select></label>',
        f'<label>sort <select id="f-sort"><option value="">worst first</option>{sorts}'
        "</select></label>",
        '<label>search <input id="f-search" type="search" placeholder="id or text"></label>',
        '<output id="f-count"></output></form>',
    ]
