"""bench/quality/label_strength.py: rows labelled not grounded, by how strongly annotators
agreed."""

import pytest

from bench.quality.label_strength import auc, strength, table


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        ([{"raw_label": ["not_supported"] * 3}], "all"),
        ([{"raw_label": ["partially", "not_supported", "not_supported"]}], "a majority"),
        ([{"raw_label": ["partially", "supported", "not_supported"]}], "fewer"),
        (
            [
                {"raw_label": ["partially", "supported", "not_supported"]},
                {"raw_label": ["not_supported"] * 3},
            ],
            "all",  # the strongest span decides
        ),
        ([{"raw_label": ["not_supported"]}], "all"),  # one annotator
        ([{"raw_label": ["not_supported"] * 3 + ["supported"]}], "a majority"),  # 3 of 4
        ([{"raw_label": ["not_supported", "supported"]}], "fewer"),  # half is no majority
        ([{"raw_label": None}], "no raw labels"),
        ([], "no raw labels"),
    ],
)
def test_strength__the_strongest_span_decides(spans, expected):
    assert strength(spans) == expected


def test_auc__ties_count_half_and_an_empty_side_has_none():
    assert auc([0.9, 0.5], [0.5, 0.1]) == pytest.approx(0.875)
    assert auc([], [0.1]) is None


def test_table__each_class_against_the_grounded_rows_of_its_group():
    def row(i, label, g):
        return {"id": i, "group": "G", "label": label, "scores": {"groundedness": g}}

    report = {"rows_scored": [row("p", 1, 0.8), row("a", 0, 0.2), row("b", 0, 0.9)]}
    labels = {
        "p": {},
        "a": {"hallucinated_spans": [{"raw_label": ["not_supported"] * 3}]},
        "b": {"hallucinated_spans": [{"raw_label": ["partially", "supported", "x"]}]},
    }
    lines = table(report, labels)
    assert lines[2:] == ["| G | all | 1 | 1.000 | - | - |", "| G | fewer | 1 | 0.000 | - | - |"]
