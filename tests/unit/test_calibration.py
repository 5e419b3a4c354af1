import json

import pytest

from ground_gate.config.model import Threshold
from ground_gate.leaves.errors import DatasetError
from ground_gate.stages.labels import read_labelled
from ground_gate.verdict.agreement import Labelled, agreement, best_threshold, good_label


def test_best_threshold__separable_scores_reach_full_balanced_accuracy():
    cut, accuracy = best_threshold("groundedness", [0.9, 0.8, 0.4, 0.2], [1, 1, 0, 0])
    assert (cut, accuracy) == (0.6, 1.0)


def test_best_threshold__lower_is_better_scores_cut_from_above():
    cut, accuracy = best_threshold("hallucination", [0.0, 0.1, 0.5, 0.7], [1, 1, 0, 0])
    assert (cut, accuracy) == (0.3, 1.0)


def test_agreement__figures_at_threshold_best_and_by_type():
    rows = [
        Labelled(0.9, 1), Labelled(0.85, 1), Labelled(0.7, 1),
        Labelled(0.75, 0, ("baseless",)), Labelled(0.3, 0, ("contradiction",)), Labelled(0.1, 0, ("baseless",)),
    ]  # fmt: skip
    result = agreement(
        "groundedness", rows, n_missing=2, threshold=Threshold(min=0.8), resamples=50
    )
    assert result.n == 6 and result.n_missing == 2
    assert result.auc == pytest.approx(8 / 9)
    # at 0.8: grounded 2/3 right, not grounded 3/3 right
    assert result.balanced_accuracy == pytest.approx((2 / 3 + 1) / 2)
    assert result.f1_not_grounded == pytest.approx(2 * 3 / (2 * 3 + 1))
    assert result.best_balanced_accuracy == pytest.approx((2 / 3 + 1) / 2)
    assert result.type_auc == {"baseless": pytest.approx(5 / 6), "contradiction": 1.0}
    lo, hi = result.threshold_interval
    assert lo <= result.best_threshold <= hi


def test_agreement__no_rows_gives_no_figures():
    result = agreement("rating", [], n_missing=3, threshold=None)
    assert (result.auc, result.best_threshold, result.balanced_accuracy) == (None, None, None)


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_read_labelled__groups_limit_and_types(tmp_path):
    records = [
        {"id": f"{g}-{i}", "dataset": g, "source": "S.", "question": None, "response": "R.",
         "label": i % 2, "hallucination_types": ["baseless"] if i % 2 == 0 else []}
        for g in ("A", "B") for i in range(3)
    ]  # fmt: skip
    rows = read_labelled(write(tmp_path / "l.jsonl", records), limit_per_group=2)
    assert [(r.group, r.sample.id, r.label, r.types) for r in rows] == [
        ("A", "A-0", 0, ("baseless",)), ("A", "A-1", 1, ()),
        ("B", "B-0", 0, ("baseless",)), ("B", "B-1", 1, ()),
    ]  # fmt: skip


def test_read_labelled__a_bad_label_names_file_and_line(tmp_path):
    path = write(tmp_path / "l.jsonl", [{"id": "a", "source": "S", "response": "R", "label": 1},
                                        {"id": "b", "source": "S", "response": "R", "label": "yes"}])  # fmt: skip
    with pytest.raises(
        DatasetError, match=r"l.jsonl:2: label: expected 1 \(grounded\) or 0 \(not\), got 'yes'"
    ):
        read_labelled(path)


def test_read_labelled__answer_labels_and_the_judge_asked_for_answerability(tmp_path):
    records = [
        {"id": "a", "source": "S.", "question": "Q?", "response": "R.", "answered": 1,
         "answerable": 0},
        {"id": "b", "source": "S.", "question": "Q?", "response": "Sorry.", "answered": False},
        {"id": "c", "source": "S.", "question": None, "response": "R.", "label": 1},
    ]  # fmt: skip
    rows = read_labelled(write(tmp_path / "l.jsonl", records))
    assert [dict(r.labels) for r in rows] == [
        {"answered": 1, "answerable": 0},
        {"answered": 0},
        {"label": 1},
    ]
    assert [r.label for r in rows] == [None, None, 1]
    # a labelled answerable is the judge's to find: the sample does not state it
    assert rows[0].sample.answerable is None


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"answered": 2}, "l.jsonl:1: answered: expected 1 (answered) or 0 (not), got 2"),
        (  # the row's reader reads the column first, as any dataset's
            {"answerable": 2},
            "l.jsonl:1: 'answerable' (whether the source answers the question): expected true "
            "or false, got 2",
        ),
        ({"label": True}, "l.jsonl:1: label: expected 1 (grounded) or 0 (not), got True"),
        ({}, "l.jsonl:1: no label: expected at least one of label, answered, answerable (1 or 0)"),
    ],
)
def test_read_labelled__a_row_without_a_usable_label_names_it(tmp_path, record, message):
    path = write(tmp_path / "l.jsonl", [{"id": "a", "source": "S.", "response": "R.", **record}])
    with pytest.raises(DatasetError) as caught:
        read_labelled(path)
    assert str(caught.value) == f"{tmp_path}/{message}"


def test_good_label__each_score_held_to_its_own_label_on_its_good_side():
    labels = {"label": 0, "answered": 1, "answerable": 0}
    assert good_label(labels, "groundedness") == 0
    assert good_label(labels, "hallucination") == 0  # flipped by agreement, not here
    assert good_label(labels, "answered") == 1
    assert good_label(labels, "answered_anyway") == 0  # its good side: a decline
    assert good_label(labels, "context_relevance") == 0
    assert good_label({"label": 1}, "answered") is None
