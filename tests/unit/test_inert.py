"""Text from outside shown inert (issue 43, item 9): whatever a target writes, what reaches
a terminal or a log holds no control, format or line-separator character but those the caller
keeps, and everything else reads as it was."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from ground_gate.judge.failures import server_message
from ground_gate.leaves.inert import inert

HIDDEN = {"Cc", "Cf", "Cs", "Zl", "Zp"}
# text dense in what a terminal acts on: escape sequences, C1, bidi and zero-width characters
PIECES = ["\x1b[31m", "\x1b]0;title\x07", "\x9b2J", "\r", "\x08", "\u202e", "\u200b", "\u2028",
          "\x00", "\x7f", "\t", "\n"]  # fmt: skip
HOSTILE = st.lists(st.one_of(st.sampled_from(PIECES), st.text())).map("".join)


def _shown(text: str) -> set[str]:
    return {ch for ch in text if unicodedata.category(ch) in HIDDEN}


@given(HOSTILE)
def test_inert__leaves_no_control_format_or_separator_character(text: str) -> None:
    assert _shown(inert(text)) == set()


@given(HOSTILE)
def test_inert__keeps_only_what_the_caller_keeps(text: str) -> None:
    assert _shown(inert(text, keep="\n")) <= {"\n"}
    assert inert(text, keep="\n").count("\n") == text.count("\n")


@given(st.text(st.characters(codec="utf-8")).filter(str.isprintable))
def test_inert__printable_text_is_unchanged(text: str) -> None:
    assert inert(text) == text


def test_inert__each_character_reads_as_its_escape() -> None:
    text = "\x1b[31mred\r\x9b\u202eevil\u2028\U000e0041\tend"
    assert inert(text) == "\\x1b[31mred\\r\\x9b\\u202eevil\\u2028\\U000e0041\\tend"


@given(HOSTILE)
def test_server_message__a_servers_error_text_is_quoted_inert(text: str) -> None:
    """A judge's, a prompt target's model's or an app's error body reaches the terminal."""
    said = server_message({"error": {"message": "boom " + text}}, None)
    assert _shown(said) == set()
    assert said.startswith("boom")
