"""Evidence anchored to the source's own words."""

import pytest

from ground_gate.metrics.quotes import anchor, closest, locate

SOURCE = (
    "The X200 laptop weighs 1.2 kg and has a 14-inch display.\n"
    "Its battery lasts up to 10 hours of video playback. It costs 899 euros."
)


@pytest.mark.parametrize(
    ("quote", "expected"),
    [
        # in the source: the source's own span, whitespace and case as the source has them
        ("the X200 laptop  weighs 1.2 KG", "The X200 laptop weighs 1.2 kg"),
        ("It costs 899 euros", "It costs 899 euros."),
        ("14-inch display. Its battery", "14-inch display.\nIts battery"),
        # a paraphrase: the source sentence it stands for
        (
            "The X200 weighs 1.2 kilograms.",
            "The X200 laptop weighs 1.2 kg and has a 14-inch display.",
        ),
        # invented, or too loose: nothing
        ("The price is 2,499 dollars.", None),
        ("It costs 899 EUR and it is cheap.", None),
        ("...", None),
    ],
)
def test_anchor__keeps_only_what_the_source_says(quote, expected):
    found = anchor(quote, SOURCE)
    assert found == (None if expected is None else " ".join(expected.split()))


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # a conflicting sentence: the source sentence about the same thing
        (
            "The X200 charges to 80% in 20 minutes.",
            "With the included 65 W adapter it charges to 80% in 60 minutes.",
        ),
        ("It costs 1,299 euros.", "It costs 899 euros."),
        # an invented one shares too little with any source sentence
        ("The X200 comes with a three-year warranty that covers accidental damage.", None),
        ("The the of and.", None),
    ],
)
def test_closest__the_source_sentence_about_the_same_thing(sentence, expected):
    source = SOURCE + " With the included 65 W adapter it charges to 80% in 60 minutes."
    assert closest(sentence, source) == expected


def test_locate__the_offsets_of_an_anchored_passage_in_the_source():
    source = "Intro.  The bridge cost 95\n million euros, paid by the city. End."
    passage = closest("It cost 59 million euros.", source) or ""
    start, end = locate(passage, source) or (0, 0)
    assert source[start:end] == "The bridge cost 95\n million euros, paid by the city."
    assert locate(anchor("the BRIDGE cost 95 million", source) or "", source) == (8, 35)
    assert locate("not there", source) is None
    assert locate("", source) is None
