"""Ids that differ only in whitespace or invisible characters are shown apart (issue 43, item
9): `7` and `7 ` were one row to a reader of the comment, the page, the terminal and JUnit.
escape.shown_id is the one function every renderer shows an id through; generated ids (alike
but for whitespace, invisible or blank characters, or arbitrary) are shown apart by it, read
back from what it shows, and shown apart in each renderer's output of a report holding both."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ground_gate.render.escape import SPACE_SHOWN, cell, id_cell, shown_id
from tests.examples import examples
from tests.rendered import render_html, render_junit, render_markdown, render_terminal
from tests.report_pages import synthetic_report

# What a reader cannot tell apart: spaces of every kind, line breaks, invisible characters,
# characters that render blank
UNSEEN = [" ", "  ", "\t", "\n", "\r", "\u00a0", "\u2002", "\u2003", "\u2009", "\u202f", "\u3000",
          "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u034f", "\u180e",
          "\u2800", "\u3164", "\ufe0f", "\u202e", "\x00", "\x1b", "\x85", "\u2028"]  # fmt: skip
BASE = st.text(st.characters(codec="utf-8"), max_size=12)


@st.composite
def alike(draw: st.DrawFn) -> tuple[str, str]:
    """Two distinct ids that differ only in what no reader sees."""
    base = draw(BASE)
    a, b = base, base
    while a == b:
        at = draw(st.integers(0, len(base)))
        unseen = draw(st.sampled_from(UNSEEN))
        other = draw(st.sampled_from(["", *UNSEEN]))
        a, b = base[:at] + other + base[at:], base[:at] + unseen + base[at:]
    return a, b


PAIRS = st.one_of(alike(), st.tuples(BASE, BASE).filter(lambda p: p[0] != p[1]))


def read_back(shown: str) -> str:
    """The id a shown form stands for: the inverse of shown_id (uncut)."""
    if not shown.startswith('"'):
        return shown
    body, out, i = shown[1:-1], [], 0
    while i < len(body):
        if body[i] == SPACE_SHOWN:
            out.append(" ")
            i += 1
        elif body[i] != "\\":
            out.append(body[i])
            i += 1
        elif body[i + 1] in "ntr":
            out.append({"n": "\n", "t": "\t", "r": "\r"}[body[i + 1]])
            i += 2
        elif body[i + 1] in "uU":
            digits = 4 if body[i + 1] == "u" else 8
            out.append(chr(int(body[i + 2 : i + 2 + digits], 16)))
            i += 2 + digits
        else:
            out.append(body[i + 1])
            i += 2
    return "".join(out)


@given(st.text(st.characters(codec="utf-8"), max_size=30))
@example("7 ").via("a trailing space")
@example('"7\\u0020"').via("an id that looks like a shown one")
def test_shown_id__reads_back_to_the_id_and_nothing_in_it_folds(text: str) -> None:
    shown = shown_id(text)
    assert read_back(shown) == text
    # nothing a renderer folds or hides: no space at an end or beside another, every
    # character printable and not blank
    assert shown == " ".join(shown.split()) and shown.strip() != ""
    assert all(ch.isprintable() and ch not in "\u2800\u3164\u200b" for ch in shown)


@given(PAIRS)
@example(("7", "7 ")).via("the issue's pair")
@example(("7", "7\u00a0")).via("a no-break space")
@example(("a b", "a  b")).via("two spaces")
@example(("7\u200b", "7\u200c")).via("two invisible characters")
def test_shown_id__distinct_ids_are_shown_apart(pair: tuple[str, str]) -> None:
    a, b = pair
    assert shown_id(a) != shown_id(b)
    assert id_cell(a) != id_cell(b)  # as a markdown cell, cut to its column
    assert shown_id(a + "x" * 100, 40) != shown_id(b + "x" * 100, 40)


@given(st.from_regex(r"[A-Za-z0-9_./:#-]+( [A-Za-z0-9_./:#-]+)*", fullmatch=True))
def test_shown_id__an_ordinary_id_is_shown_as_it_is(text: str) -> None:
    assert shown_id(text) == text
    if len(text) <= 80:  # longer, a table's cell is cut with the digest
        assert id_cell(text) == cell(text, 80)


def _report(a: str, b: str) -> dict[str, Any]:
    """Six rows, two failing (rows 1 and 5, both in 'laptops'), which hold the two ids."""
    report = synthetic_report(6)
    report["rows"][1]["id"], report["rows"][5]["id"] = a, b
    return report


def _markdown_names(markdown: str) -> set[str]:
    return set(re.findall(r"^\*\*laptops / (.*)\*\* \u2014 fails", markdown, re.MULTILINE))


def _table_names(markdown: str) -> set[str]:
    """The row column of the rows table's failing rows (dataset, row, two scores)."""
    lines = [line for line in markdown.splitlines() if "\u274c" in line]
    cells = [re.split(r"(?<!\\)\|", line) for line in lines]
    return {c[2].strip() for c in cells if len(c) == 6 and c[1].strip() == "laptops"}


@settings(max_examples=examples(40))  # four renderers of a report per example
@given(PAIRS)
@example(("7", "7 ")).via("the issue's pair")
@example(("r-1", "r-1\u200b")).via("a zero-width space")
def test_renderers__two_rows_whose_ids_differ_only_unseen_are_shown_apart(
    pair: tuple[str, str],
) -> None:
    report = _report(*pair)
    markdown = render_markdown(report)
    assert len(_markdown_names(markdown)) == 2, markdown
    assert len(_table_names(markdown)) == 2
    page = render_html(report)
    cells = re.findall(r'<td class="id" data-label="row">(.*?)</td>', page)
    assert len({html.unescape(c) for c in cells[1::4] + cells[5::4]}) == 2
    anchors = re.findall(r'<tbody class="row" id="([^"]*)"', page)
    assert len(set(anchors)) == len(anchors) == 6
    terminal = render_terminal(report, width=400, exit_code=1)
    shown = re.findall(r"\u274c laptops/(.*): fails ", terminal)
    assert len(set(shown)) == 2, terminal
    cases = ET.fromstring(render_junit(report)).iter("testcase")
    names = [c.get("name") for c in cases if c.get("classname") == "laptops"]
    assert len(set(names)) == len(names) == 5  # three rows, two thresholds
