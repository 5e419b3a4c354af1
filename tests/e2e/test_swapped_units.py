"""End to end with the real 1.5B judge: a fact is its value, its unit, its sign and its scale
(issue 43). Demo-style rows that keep the source's digits and swap what they measure (60
minutes as 60 hours; £1.5m as £1.5bn) read "contradicted: says ...; the source says ...",
and the same quantity spelled otherwise (£1.5 million) stays supported with no fact asked.
Groundedness only, one sentence a row: a verdict call, and a fact call where a part differs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ground_gate.commands.run import RunOptions, execute
from ground_gate.stages.report_files import ReportFiles
from tests.e2e.conftest import MODEL, Lending

pytestmark = pytest.mark.e2e

X200 = (
    "The X200 laptop weighs 1.2 kg and has a 14-inch display. Its 56 Wh battery lasts up to 10 "
    "hours of video playback. With the included 65 W adapter it charges to 80% in 60 minutes. "
    "The X200 has two USB-C ports and one HDMI port."
)
AUCTION = (
    "A Wedgwood tea service owned by the Duke of Kent sold at auction in London for £1.5m on "
    "Tuesday. The buyer, a private collector, outbid three museums. The sale price was 40% "
    "above the estimate."
)
ROWS = [
    {
        "id": "swapped-unit-charging",
        "context": X200,
        "answer": "With the included 65 W adapter, the X200 charges to 80% in 60 hours.",
    },
    {
        "id": "swapped-scale-auction",
        "context": AUCTION,
        "answer": "The Wedgwood tea service sold at auction in London for £1.5bn.",
    },
    {
        "id": "grounded-scale-spelled-auction",
        "context": AUCTION,
        "answer": "The Wedgwood tea service sold at auction in London for £1.5 million.",
    },
]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, judge_server: Lending) -> Any:
    root = tmp_path_factory.mktemp("swapped-units")
    (root / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS), "utf-8")
    (root / "gate.yml").write_text(
        f"""version: 1
judge: {{provider: local, model: {MODEL}, cache_dir: {root / "cache"}, timeout_s: 300}}
datasets:
  - {{name: swaps, path: rows.jsonl}}
metrics:
  groundedness: {{unit: sentence, evidence: none}}
thresholds:
  contradiction: {{max: 0.25}}
""",
        encoding="utf-8",
    )
    files = ReportFiles(json=root / "report.json")
    with judge_server.lent():
        result = execute(RunOptions(config_path=root / "gate.yml", files=files), {}, lambda _: None)
    assert result.report["incomplete"] is None
    return result.report


def _unit(report: Any, row_id: str) -> Any:
    row = next(r for r in report["rows"] if r["id"] == row_id)
    (unit,) = row["metrics"]["groundedness"]["units"]
    return unit


@pytest.mark.parametrize(
    ("row_id", "said"),
    [
        ("swapped-unit-charging", "says 60 hours; the source says 60 minutes"),
        ("swapped-scale-auction", "says £1.5bn; the source says £1.5m"),
    ],
)
def test_e2e__a_unit_or_scale_swap_reads_contradicted_with_the_source_s_quantity(
    report: Any, row_id: str, said: str
) -> None:
    """Property: the source's digits with another unit or scale are another fact: the judge,
    asked the quantity blanked out, makes the sentence contradicted, saying both."""
    unit = _unit(report, row_id)
    assert unit["verdict"] == "contradicted", unit
    assert unit["detail"]["swapped_fact"] == said, unit


def test_e2e__the_same_quantity_spelled_otherwise_stays_supported_with_no_fact_asked(
    report: Any,
) -> None:
    """Property: the same quantity in other words (£1.5 million for £1.5m) is the same fact: no
    fact call, and the judge's verdict supported."""
    unit = _unit(report, "grounded-scale-spelled-auction")
    assert unit["verdict"] == "supported", unit
    row = next(r for r in report["rows"] if r["id"] == "grounded-scale-spelled-auction")
    assert row["metrics"]["groundedness"]["usage"]["calls"] == 1  # the verdict alone
