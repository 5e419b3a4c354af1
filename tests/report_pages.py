"""Reports for the HTML page's tests and its benchmark: N rows built through the real report
builder (summaries, gate, JSON), one in four failing, with texts, evidence and, on demand,
a hostile corpus in every field the page shows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ground_gate.config.model import Threshold
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.leaves.usage import Usage
from ground_gate.report.json_report import build_report, row_text
from ground_gate.verdict.dataset_scores import summarise
from ground_gate.verdict.gate import evaluate
from tests.records import run_record

# Each would run a script, load a resource or change the page if it were not escaped.
HOSTILE = (
    "<script>window.__pwned = 1</script>",
    '<img src="http://198.51.100.7/x.png" onerror="window.__pwned = 2">',
    "</style><style>body{background:url(http://198.51.100.7/bg)}</style>",
    '<a href="javascript:window.__pwned=3">click</a>',
    '<meta http-equiv="Content-Security-Policy" content="script-src \'unsafe-inline\'">',
    '"><svg onload="window.__pwned=4">',
    "</textarea></details></td></tr></tbody></table><h1>forged</h1>",
    "\u202eevil\u202c and \u2066isolated\u2069 bidi",
    "{{7*7}} ${7*7} \u2028 \u2029",
)
SOURCE = (
    "The X200 laptop weighs 1.2 kg and has a 14-inch display. Its 56 Wh battery lasts up to "
    "10 hours of video playback.\n\nWith the included 65 W adapter it charges to 80% in 60 "
    "minutes. The X200 has two USB-C ports and one HDMI port. Customers may return unused "
    "products within 30 days of delivery for a full refund."
)
SUPPORTED = "The X200 weighs 1.2 kg."
CONTRADICTED = "Its battery lasts up to 20 hours of video playback."
INVENTED = "It comes with a three-year warranty covering accidental damage."
EVIDENCE = "Its 56 Wh battery lasts up to 10 hours of video playback."
THRESHOLDS = {"groundedness": Threshold(min=0.8), "faithfulness": Threshold(min=0.75)}


def _names(hostile: bool) -> list[str]:
    """The two datasets' names; a config's names reach the page too."""
    return ["support", "laptops" + (f" {HOSTILE[3]}" if hostile else "")]


def _row(index: int, hostile: bool) -> tuple[RowResult, tuple[str, str, str | None]]:
    failing = index % 4 == 1
    row_id = f"row-{index:04d}" + (f" {HOSTILE[index % len(HOSTILE)]}" if hostile else "")
    sentences = [SUPPORTED, CONTRADICTED if failing else "It has one HDMI port."]
    if failing and index % 8 == 1:
        sentences.append(INVENTED)
    junk = " ".join(HOSTILE) if hostile else ""
    response = " ".join(sentences) + (f" {junk}" if hostile else "")
    units = [UnitResult(SUPPORTED, 0.97, "supported", detail={"p_supported": 0.97})]
    if failing:
        # the judge's quote for the contradicted sentence is in the source (evidence: shown)
        units.append(UnitResult(CONTRADICTED, 0.05, "contradicted", evidence=EVIDENCE))
        if index % 8 == 1:
            # a judge's reply is untrusted too
            quote = HOSTILE[1] if hostile else "NOTHING FOUND"
            units.append(UnitResult(INVENTED, 0.1, "unsupported", evidence=quote))
    else:
        units.append(UnitResult("It has one HDMI port.", 0.9, "supported"))
    if hostile:
        units.append(UnitResult(junk, 0.9 if not failing else 0.2, "supported"))
    grounded = sum(u.score or 0 for u in units) / len(units)
    metrics = (
        MetricResult(
            "groundedness",
            "ok",
            {"groundedness": round(grounded, 4)},
            tuple(units),
            usage=Usage(calls=len(units)),
        ),
        MetricResult(
            "faithfulness",
            "ok",
            {"faithfulness": 0.5 if index % 8 == 1 else 1.0},  # half the failing rows
            (UnitResult("The X200 weighs 1.2 kg", 1.0, "supported"),),
            usage=Usage(calls=1),
        ),
    )
    source = SOURCE + (f"\n\n{junk}" if hostile else "")
    question = "What does the X200 offer?" + (f" {HOSTILE[0]}" if hostile else "")
    dataset = _names(hostile)[index % 2]
    return RowResult(dataset, row_id, metrics, 0.5), (source, question, response)


def synthetic_report(rows: int, hostile: bool = False) -> dict[str, Any]:
    """A run's report of `rows` rows over two datasets; every fourth row fails groundedness
    with a contradicted sentence whose evidence quote is in the source."""
    built = [_row(i, hostile) for i in range(rows)]
    results = [r for r, _ in built]
    names = _names(hostile)
    scores = {"groundedness": ("groundedness",), "faithfulness": ("faithfulness",)}
    thresholds = {name: THRESHOLDS for name in names}
    record = run_record(
        results,
        datasets=[(n, sum(1 for r in results if r.dataset == n)) for n in names],
        thresholds=thresholds,
        usage={"groundedness": Usage(calls=3 * rows), "faithfulness": Usage(calls=rows)},
        seconds=12.0,
        evidence_policy="shown",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        texts={(r.dataset, r.sample_id): row_text(*t) for r, t in built},
    )
    report = build_report(record, evaluate(summarise(results, names, scores), thresholds, "fail"))
    return dict(report)
