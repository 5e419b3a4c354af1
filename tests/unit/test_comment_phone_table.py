"""The comment's table of checks on a phone (issue 44, item 7): whatever the number of
datasets, it keeps at most three columns, and its text fits the 354 px a comment's body has
at 420 px (GitHub's margins and padding taken off) once each cell wraps between its words."""

from __future__ import annotations

import re

import pytest

from bench.views.scenarios import datasets_report
from tests.rendered import render_markdown

# A comment's body at 420 px holds about 44 characters of 14 px text; the table's cells
# pad 26 px each: three columns leave room for 38 characters, the longest word of each.
ROOM = 38
NAMES = ("billing", "devices", "shipping", "returns", "warranty", "accounts")


def _score_table(markdown: str) -> list[list[str]]:
    """The comment's first table: its lines split into cells (the separator left out)."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    first = []
    for line in lines:
        if first and not line.startswith("|"):
            break
        first.append(line)
    block = markdown[markdown.index(first[0]) :].split("\n\n")[0].splitlines()
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in block]
    return [r for r in rows if not all(re.fullmatch(r":?-+:?", c) for c in r)]


def _longest_words(table: list[list[str]]) -> list[int]:
    """Per column, the longest run of text a browser cannot wrap (markdown's marks left out)."""
    return [
        max(len(word) for row in table for word in row[i].replace("**", "").split() or [""])
        for i in range(len(table[0]))
    ]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 6])
def test_score_table__at_most_three_columns_whatever_the_datasets(count):
    datasets = NAMES[:count]
    baseline = datasets_report(0.0, 8, None, datasets=datasets, rows=10)
    markdown = render_markdown(datasets_report(0.8, 9, baseline, datasets=datasets, rows=10))
    table = _score_table(markdown)
    assert len(table[0]) <= 3, table[0]
    assert all(len(row) == len(table[0]) for row in table)
    assert sum(_longest_words(table)) <= ROOM, _longest_words(table)


def test_score_table__three_datasets_a_row_per_dataset_and_score_each_named_once():
    datasets = NAMES[:3]
    report = datasets_report(0.0, 9, None, datasets=datasets, rows=10)
    table = _score_table(render_markdown(report))
    assert table[0] == ["dataset", "score", "check"]
    assert [row[0] for row in table[1:] if row[0]] == [f"**{n}** (10 rows)" for n in datasets]
    # a score shown only (no threshold, no error) is not in it
    checks = [e for e in report["scores"] if e["threshold"] or e["passed"] is not None]
    assert len(table) - 1 == len(checks)  # every check, once
    assert [row[1] for row in table[1:]].count("groundedness") == 3
