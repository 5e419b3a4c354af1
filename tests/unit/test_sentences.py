import pytest

from ground_gate.leaves.sentences import split_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Dr. Smith met the U.S. envoy at 3.5 p.m. on Monday. He was late.",
            ["Dr. Smith met the U.S. envoy at 3.5 p.m. on Monday.", "He was late."],
        ),
        (
            "Prices rose 2.5% in Q3, e.g. in Paris. Then fell.",
            ["Prices rose 2.5% in Q3, e.g. in Paris.", "Then fell."],
        ),
        ('"Stop!" she said. Then she left.', ['"Stop!" she said.', "Then she left."]),
        ("Steps:\n1. Open the box\n2. Plug it in", ["Steps:", "1. Open the box", "2. Plug it in"]),
        ("- apples\n- pears", ["- apples", "- pears"]),
        ("First paragraph\n\nSecond paragraph", ["First paragraph", "Second paragraph"]),
        ("这是一支笔。那是一本书。", ["这是一支笔。", "那是一本书。"]),
        (
            "Der Preis stieg um 3 Prozent. Das ist z.B. viel.",
            ["Der Preis stieg um 3 Prozent.", "Das ist z.B. viel."],
        ),
        ("", []),
        ("... --- ...", []),
    ],
)
def test_split_sentences__hard_cases(text, expected):
    assert split_sentences(text) == expected


def test_split_sentences__other_language_model():
    assert split_sentences("Das ist z.B. ein Satz. Und noch einer.", "german") == [
        "Das ist z.B. ein Satz.",
        "Und noch einer.",
    ]


def test_split_sentences__unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match="no Punkt model for language 'klingon'"):
        split_sentences("Hello.", "klingon")
