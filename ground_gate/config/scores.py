"""The scores: every name a metric can produce, in report order, the metric that produces each,
and which way is worse. Plain names, imported wherever a score is named (config.model re-exports
them for the frozen classes' readers)."""

from __future__ import annotations

from collections.abc import Mapping

# Every score a metric can produce, in report order, with the metric that produces it.
# hallucination and contradiction are groundedness's (method: verdict, the default), one
# per-sentence verdict for every kind of row; Athina's question-based ones are named for it.
SCORE_NAMES: tuple[str, ...] = (
    "groundedness",
    "hallucination",
    "contradiction",
    "answered",
    "answered_anyway",
    "context_relevance",
    "substance",
    "faithfulness",
    "agreement",
    "summary_hallucination",
    "summary_contradiction",
    "rating",
)
METRIC_OF_SCORE: Mapping[str, str] = {
    "groundedness": "groundedness",
    "hallucination": "groundedness",
    "contradiction": "groundedness",
    "answered": "answers",
    "answered_anyway": "answers",
    "context_relevance": "answers",
    "faithfulness": "faithfulness",
    "agreement": "summary_accuracy",
    "summary_hallucination": "summary_accuracy",
    "summary_contradiction": "summary_accuracy",
    "rating": "rating",
}
# The scores groundedness gives with method: verdict; with method: rating (TruLens's 0-10
# rating) it gives groundedness alone.
VERDICT_SCORES: tuple[str, ...] = ("groundedness", "hallucination", "contradiction")
# Scores where higher is worse (a threshold is usually `max`).
LOWER_IS_BETTER: frozenset[str] = frozenset(
    {
        "hallucination",
        "contradiction",
        "answered_anyway",
        "summary_hallucination",
        "summary_contradiction",
    }
)
# The answers metric's scores, each given by some rows only: a row gives answered or
# answered_anyway by whether its source holds the answer, and context_relevance when its
# answerability was judged. A dataset none of whose rows gives one of them has no row of that
# kind: the check is not checked, and fails unless allowed empty (gate.py).
ANSWERED_SIDES: tuple[str, ...] = ("answered", "answered_anyway")
ANSWER_SCORES: tuple[str, ...] = (*ANSWERED_SIDES, "context_relevance")
# The share of a dataset's rows whose response says something: not a decline, an evasion, a
# greeting or markup with no word, the rows every other mean leaves out. dataset_scores.py
# derives it from the metrics' results (no metric of its own, no judge call), so every config
# has it: a pull request must not pass a gate by making its rows say nothing.
SUBSTANCE = "substance"
