"""bench/peers/gg_rows.py: the method's scores and the variants, from one calibrate report."""

import pytest

from bench.peers.gg_rows import files


def unit(score: float, **detail: object) -> dict[str, object]:
    return {"score": score, "verdict": "x", "detail": detail}


REPORT = {
    "judge": {"model": "m"},
    "rows_scored": [
        {
            "id": "a",
            "group": "set",
            "label": 0,
            "status": {"faithfulness": "ok", "summary_accuracy": "ok"},
            "scores": {"faithfulness": 0.5, "agreement": 0.0, "summary_hallucination": 1.0,
                       "summary_contradiction": 0.0},
            "usage": {"faithfulness": {"calls": 0, "seconds": 0, "prompt_tokens": 0,
                                       "completion_tokens": 0}},
            "cost": {
                "faithfulness": {"calls": 3, "seconds": 2.5, "prompt_tokens": 900,
                                 "completion_tokens": 40},
                "summary_accuracy": {"calls": 4, "seconds": 3.0, "prompt_tokens": 1000,
                                     "completion_tokens": 60},
            },
            "units": {
                "faithfulness": [unit(1.0, p_supported=0.9), unit(0.0, p_supported=0.2)],
                "summary_accuracy": [
                    unit(0.0, p_summary={"yes": 1.0, "no": 0.0, "unknown": 0.0},
                         p_document={"yes": 0.0, "no": 0.25, "unknown": 0.75}),
                ],
            },
        },
        {
            "id": "b",
            "group": "set",
            "label": 1,
            "status": {"faithfulness": "no_claims", "summary_accuracy": "error"},
            "scores": {},
            "usage": {},
            "cost": {
                "faithfulness": {"calls": 1, "seconds": 1.0, "prompt_tokens": 100,
                                 "completion_tokens": 1, "unrecorded": 2},
                "summary_accuracy": {"calls": 1, "seconds": 1.0, "prompt_tokens": 100,
                                     "completion_tokens": 1},
            },
            "units": {"faithfulness": [], "summary_accuracy": []},
        },
    ],
}  # fmt: skip


def test_gg_rows__method_scores_with_recorded_cost_and_failures():
    out = files(REPORT, variants=False)
    assert set(out) == {
        "ground-gate-faithfulness", "ground-gate-agreement",
        "ground-gate-summary_hallucination", "ground-gate-summary_contradiction",
    }  # fmt: skip
    a, b = out["ground-gate-faithfulness"]
    assert (a["score"], a["calls"], a["prompt_tokens"], a["seconds"]) == (0.5, 3, 900, 2.5)
    assert (b["score"], b["error"], b["cost_recorded"]) == (None, "no_claims", False)
    assert a["cost_recorded"] is True
    # 1 - value: higher = grounded
    assert out["ground-gate-summary_hallucination"][0]["score"] == 0.0


def test_gg_rows__variants_recomputed_from_unit_probabilities():
    out = files(REPORT, variants=True)
    assert out["ground-gate-faithfulness-probability"][0]["score"] == pytest.approx(0.55)
    assert out["ground-gate-faithfulness-probability-min"][0]["score"] == pytest.approx(0.2)
    assert out["ground-gate-hallucination-probability"][0]["score"] == pytest.approx(0.25)
    assert out["ground-gate-contradiction-probability"][0]["score"] == pytest.approx(0.75)
    assert out["ground-gate-agreement-probability"][0]["score"] == pytest.approx(0.0)
    assert out["ground-gate-agreement-probability"][1]["error"] == "error"
    assert "ground-gate-groundedness-min" not in out  # groundedness did not run
