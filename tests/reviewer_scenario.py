"""A reviewer's pull request, as reports: a baseline run of 200 rows and a pull-request run
that broke about a fifth of them, built through the real report builder (summaries, gate,
JSON). No judge is called; the verdicts are what a judge would give.

What it holds on purpose (issue 24's findings):
- news hallucination's mean is 0.1008 against `max: 0.10`; a support row is at 0.084 against
  `max: 0.08`; news groundedness passes its level but fails its `max_drop`;
- a row fails on contradiction alone (0.21 against 0.20) while both its sentences are
  "supported";
- rows whose response the pull request changed: one sentence replaced by a contradicted or
  an invented one, the rest unchanged; a few rows only reworded;
- a sentence the judge found nowhere in the source (evidence NOTHING FOUND) beside a
  supported sentence whose evidence is quoted;
- rows that already failed in the baseline, and rows the pull request fixed.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ground_gate.config.model import Threshold
from ground_gate.leaves.provenance import Source
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.leaves.usage import Usage
from ground_gate.report.json_report import build_report, row_text
from ground_gate.report.readback import baseline_scores
from ground_gate.verdict.dataset_scores import summarise
from ground_gate.verdict.gate import evaluate
from tests.records import run_record

NEWS, SUPPORT = "news", "support"
NEWS_ROWS, SUPPORT_ROWS = 160, 40
THRESHOLDS = {
    NEWS: {
        "groundedness": Threshold(min=0.75, max_drop=0.02),
        "hallucination": Threshold(max=0.10),
        "contradiction": Threshold(max=0.20),
    },
    SUPPORT: {
        "groundedness": Threshold(min=0.80),
        "hallucination": Threshold(max=0.08),
        "contradiction": Threshold(max=0.20),
    },
}
BRIDGES = ("Øresund", "Millau", "Tagus", "Rion", "Storseisund", "Pelješac", "Vasco", "Humber")
CONTRADICTION_ONLY = "news-0007"  # fails contradiction alone, both sentences supported
NOTHING_FOUND_ROW = "news-0001"  # an invented sentence the judge found nowhere
AT_0084 = "support-0003"  # hallucination 0.084 against max 0.08
SHIFT = 0.00486  # news: brings its hallucination mean to 0.1008
GOOD = (0.93, 0.03, 0.04)  # P(supported), P(contradicted), P(not in source)


def _news(i: int) -> dict[str, Any]:
    name = BRIDGES[i % len(BRIDGES)]
    year, cost, length = 1990 + i % 30, 40 + 5 * (i % 17), 800 + 37 * (i % 50)
    facts = [
        f"The {name} bridge opened in {year}.",
        f"It cost {cost} million euros to build.",
        f"It is {length} metres long.",
        f"About {20 + i % 40} thousand vehicles cross it every day.",
    ]
    return {
        "source": " ".join(facts) + " Tolls pay for its upkeep.",
        "sentences": facts[:3],
        "contradicted": f"It cost {cost + 19} million euros to build.",
        "invented": f"It won a European design award in {year + 2}.",
        "reworded": f"Building it cost {cost} million euros.",
        "shift": SHIFT,
    }


def _support(i: int) -> dict[str, Any]:
    days = 3 + i % 9
    facts = [
        f"Refunds reach the customer's card within {days} business days.",
        "Orders over 50 euros ship for free.",
        "Returns are accepted within 30 days of delivery.",
    ]
    return {
        "source": " ".join(facts) + " Gift cards cannot be refunded.",
        "sentences": facts[:2],
        "contradicted": f"Refunds reach the customer's card within {days + 10} business days.",
        "invented": "Every order includes a free gift card.",
        "reworded": "Shipping is free for orders above 50 euros.",
        "shift": 0.0,
    }


def _unit(text: str, p: tuple[float, float, float], evidence: str | None = None) -> UnitResult:
    verdict = ("supported", "contradicted", "not in source")[max(range(3), key=lambda k: p[k])]
    detail = {"p_supported": p[0], "p_contradicted": p[1], "p_absent": p[2], "chunk": 0}
    return UnitResult(text, p[0], verdict, evidence, detail)


def _metric(units: Sequence[UnitResult]) -> MetricResult:
    def mean(key: str) -> float:
        return round(sum(u.detail[key] for u in units) / len(units), 4)

    scores = {
        "groundedness": mean("p_supported"),
        "hallucination": mean("p_absent"),
        "contradiction": mean("p_contradicted"),
    }
    return MetricResult("groundedness", "ok", scores, tuple(units), usage=Usage(calls=len(units)))


# What the pull request did to a row: its index -> (kind, which sentence). Kinds: "invent"
# (a sentence the source does not hold), "contradict", "reword" (still supported), "fix".
def _news_changes() -> dict[int, tuple[str, int]]:
    changes = {i: ("invent" if i % 4 else "contradict", 1 + i % 2) for i in range(1, 160, 5)}
    changes[7] = ("contradiction-only", 0)
    changes.update({i: ("reword", 1) for i in (12, 52, 92)})
    changes.update({i: ("fix", 1) for i in (150, 155)})
    return changes


def _support_changes() -> dict[int, tuple[str, int]]:
    changes: dict[int, tuple[str, int]] = {i: ("invent", 1) for i in (5, 21)}
    changes[3] = ("slight", 1)
    changes[30] = ("fix", 1)
    return changes


BROKEN_BEFORE = {NEWS: {150, 155, 40, 80}, SUPPORT: {30, 17}}  # failing in the baseline


def _units(
    texts: dict[str, Any], kind: str | None, which: int, i: int, broken_before: bool
) -> tuple[list[UnitResult], str]:
    sentences = list(texts["sentences"])
    shift = 0.01 * (i % 3) + texts["shift"]
    good = (round(GOOD[0] - shift, 4), GOOD[1], round(GOOD[2] + shift, 4))
    ps = [good] * len(sentences)
    evidence: list[str | None] = [None] * len(sentences)
    if broken_before:  # the baseline's own failure: an invented last sentence
        sentences[-1], ps[-1] = texts["invented"], (0.08, 0.04, 0.88)
    if kind == "invent":
        sentences[which], ps[which] = texts["invented"], (0.06, 0.03, 0.91)
        evidence[which] = "NOTHING FOUND"
        evidence[0] = texts["sentences"][0]  # the supported sentence's quote
    elif kind == "contradict":
        sentences[which], ps[which] = texts["contradicted"], (0.05, 0.9, 0.05)
    elif kind == "reword":
        sentences[which] = texts["reworded"]
    elif kind == "slight":
        ps[which] = (0.85, 0.022, 0.128)
    elif kind == "contradiction-only":
        sentences, ps = sentences[:2], [(0.97, 0.01, 0.02), (0.55, 0.41, 0.04)]
        evidence = [None, None]
    units = [_unit(t, p, e) for t, p, e in zip(sentences, ps, evidence, strict=True)]
    return units, " ".join(sentences)


def _rows(pull_request: bool) -> list[tuple[RowResult, tuple[str, str | None, str]]]:
    built = []
    for dataset, count, texts_of, changes in (
        (NEWS, NEWS_ROWS, _news, _news_changes()),
        (SUPPORT, SUPPORT_ROWS, _support, _support_changes()),
    ):
        for i in range(count):
            texts = texts_of(i)
            kind, which = changes.get(i, (None, 0))
            before = i in BROKEN_BEFORE[dataset]
            if pull_request:
                before = before and kind != "fix"
            else:
                kind = None if kind != "contradiction-only" else "reword"
                kind = None if kind == "reword" and i == 7 else kind
            units, response = _units(texts, kind, which, i, before)
            row = RowResult(dataset, f"{dataset}-{i:04d}", (_metric(units),), 0.8)
            question = "How much did the bridge cost?" if dataset == NEWS else None
            built.append((row, (texts["source"], question, response)))
    return built


def _report(pull_request: bool, baseline: dict[str, Any] | None) -> dict[str, Any]:
    built = _rows(pull_request)
    rows = [r for r, _ in built]
    names = [NEWS, SUPPORT]
    scores = {"groundedness": ("groundedness", "hallucination", "contradiction")}
    gate = evaluate(
        summarise(rows, names, scores),
        THRESHOLDS,
        "fail",
        rows=rows,
        baseline=None if baseline is None else baseline_scores(baseline),
    )
    record = run_record(
        rows,
        datasets=[(NEWS, NEWS_ROWS), (SUPPORT, SUPPORT_ROWS)],
        thresholds=THRESHOLDS,
        usage={"groundedness": Usage(calls=3 * len(rows))},
        seconds=95.0,
        evidence_policy="shown",
        created_at=datetime(2026, 11, 24, 9 if pull_request else 8, tzinfo=UTC),
        texts={(r.dataset, r.sample_id): row_text(*t) for r, t in built},
        source=SOURCES[pull_request],
    )
    report = build_report(record, gate)
    return dict(report)


# where each run was made: the baseline on main, the pull request's on its branch
SOURCES = {
    False: Source(
        "4f2c9e1d7a3b5c6e8f90a1b2c3d4e5f6a7b8c9d0",
        "main",
        "https://github.com/octo-org/octo-repo/actions/runs/812",
    ),
    True: Source(
        "9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b",
        "shorter-answers",
        "https://github.com/octo-org/octo-repo/actions/runs/815",
    ),
}


def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
    """(baseline report, pull-request report): the pull request's was gated against the
    baseline, as `run --baseline` does."""
    baseline = _report(pull_request=False, baseline=None)
    return baseline, _report(pull_request=True, baseline=baseline)


def every_score(report: dict[str, Any]) -> dict[str, Any]:
    """The report with every score a config can ask for as a column (faithfulness, summary
    accuracy's three, rating; no threshold): the page's rows table at its widest."""
    extra = {
        "faithfulness": ("faithfulness",),
        "summary_accuracy": ("agreement", "summary_hallucination", "summary_contradiction"),
        "rating": ("rating",),
    }
    out = copy.deepcopy(report)
    usage = out["rows"][0]["metrics"]["groundedness"]["usage"]
    for row in out["rows"]:
        for metric, scores in extra.items():
            row["metrics"][metric] = {
                "status": "ok",
                "scores": dict.fromkeys(scores, 0.9),
                "error": None,
                "units": [],
                "usage": usage,
            }
    for dataset in out["datasets"]:
        out["scores"] += [
            {
                "dataset": dataset["name"],
                "score": score,
                "mean": 0.9,
                "n": dataset["scored"],
                "n_error": 0,
                "n_no_claims": 0,
                "ci95": [0.9, 0.9],
                "threshold": None,
                "passed": None,
                "reason": "no threshold",
            }
            for scores in extra.values()
            for score in scores
        ]
    return out
