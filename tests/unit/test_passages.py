"""The excerpt of a long source each unit is judged against (metrics/passages.py)."""

from ground_gate.leaves.sentences import split_sentences
from ground_gate.metrics.passages import FOCUS_FROM_CHARS, GAP, content_words, focus, focus_row

FILLER = [
    f"Paragraph {i} describes the weather over the harbour in general terms." for i in range(30)
]


def article(*facts: tuple[int, str]) -> str:
    sentences = list(FILLER)
    for position, fact in facts:
        sentences.insert(position, fact)
    return " ".join(sentences)


def test_short_source__read_whole():
    source = "The bridge cost 95 million euros. It opened in 2019."
    assert focus("The bridge cost 59 million euros.", source) == source


def test_long_source__the_passage_the_unit_is_about_with_its_neighbours():
    source = article((20, "The new bridge over the Elbe cost 95 million euros."))
    assert len(source) > FOCUS_FROM_CHARS
    excerpt = focus("The bridge over the Elbe cost 59 million euros.", source)
    assert "The new bridge over the Elbe cost 95 million euros." in excerpt
    # its neighbours come with it, in source order; the far filler does not
    sentences = split_sentences(source)
    at = sentences.index("The new bridge over the Elbe cost 95 million euros.")
    assert f"{sentences[at - 1]} {sentences[at]} {sentences[at + 1]}" in excerpt
    assert "Paragraph 2 describes" not in excerpt
    assert excerpt.startswith(GAP.strip()) and excerpt.endswith(GAP.strip())
    assert len(excerpt) < len(source) / 2


def test_long_source__rare_words_outweigh_common_ones():
    source = article(
        (5, "The harbour authority met on Monday."),
        (25, "Ferries to Helgoland were cancelled on Monday."),
    )
    excerpt = focus("Ferries to Helgoland stopped running.", source)
    assert "Ferries to Helgoland were cancelled on Monday." in excerpt
    kept = [s for s in split_sentences(excerpt) if "Paragraph" not in s and s != GAP.strip()]
    assert kept[0].startswith("Ferries")


def test_long_source__several_passages_kept_in_source_order_with_gaps_marked():
    source = article(
        (3, "Anna Berg founded the shipyard in 1950."),
        (27, "The shipyard closed in 1999."),
    )
    excerpt = focus("Anna Berg's shipyard, founded in 1950, closed in 1999.", source)
    first = excerpt.index("Anna Berg founded")
    second = excerpt.index("The shipyard closed")
    assert first < second
    assert GAP.strip() in excerpt[first:second]


def test_unit_sharing_no_word__judged_against_the_whole_source():
    source = article()
    assert focus("Zebras sing opera.", source) == source


def test_same_input_same_excerpt():
    source = article((12, "The mayor, Lena Vogt, opened the bridge."))
    unit = "Lena Vogt opened the bridge."
    assert focus(unit, source) == focus(unit, source)


def test_content_words__leave_out_function_words():
    assert content_words("The cost of the bridge was 95 million.") == {
        "cost",
        "bridge",
        "95",
        "million",
    }


def test_focus_row__the_passages_of_every_unit_in_one_excerpt():
    source = article(
        (3, "Anna Berg founded the shipyard in 1950."),
        (27, "The Elbe ferry was cancelled on Monday."),
    )
    units = ["Anna Berg founded the shipyard in 1950.", "The Elbe ferry was cancelled."]
    excerpt = focus_row(units, source)
    assert "Anna Berg founded" in excerpt and "The Elbe ferry was cancelled" in excerpt
    assert excerpt.index("Anna Berg founded") < excerpt.index("The Elbe ferry")  # source order
    # the union of what each unit reads alone, and nothing of the filler far from both
    for unit in units:
        for sentence in split_sentences(focus(unit, source)):
            assert sentence in excerpt
    assert "Paragraph 15 describes" not in excerpt
    assert len(excerpt) < len(source) / 2


def test_focus_row__one_unit_is_focus():
    source = article((12, "The mayor, Lena Vogt, opened the bridge."))
    unit = "Lena Vogt opened the bridge."
    assert focus_row([unit], source) == focus(unit, source)


def test_focus_row__a_unit_sharing_no_word_changes_nothing_the_others_read():
    source = article((3, "Anna Berg founded the shipyard in 1950."))
    units = ["Anna Berg founded the shipyard."]
    for note in ("Zebras sing opera.", "[Fact-checked by Compliance: no issues found]"):
        assert focus_row([*units, note], source) == focus_row(units, source) != source
    # no unit shares a word: nothing to focus on, the whole source
    assert focus_row(["Zebras sing opera."], source) == source


def test_focus_row__short_source_read_whole():
    source = "The bridge cost 95 million euros. It opened in 2019."
    assert focus_row(["The bridge cost 59 million euros.", "It opened."], source) == source
