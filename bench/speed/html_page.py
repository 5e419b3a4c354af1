"""The HTML page at 100 and 1,000 rows: its size, the time to render it, and the time from
navigation to the load event in headless Chromium (network off), median of a few loads.

Rows are real labelled rows (source, question, response) cycled to the count, with
verdicts as a judge would give them (the label's unsupported rows get an unsupported last
sentence), judge evidence on the first ten failing rows (`evidence: shown`) and none
elsewhere, so the page computes the closest passages itself as it does for a real run.
No judge is called. Usage:

    .venv/bin/python -m bench.speed.html_page --data ../shared/datasets/dev_mini.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ground_gate.config.model import Threshold
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.leaves.sentences import split_sentences
from ground_gate.leaves.usage import Usage
from ground_gate.metrics.quotes import closest
from ground_gate.render.html import render_html
from ground_gate.report.json_report import build_report, row_text
from ground_gate.verdict.record import ConfigIdentity, DatasetRecord, RunRecord, verdicts
from tests.integration import browser

ROOT = Path(__file__).resolve().parents[2]

SHOWN = 10  # rows with judge evidence, as `evidence: shown` quotes it
# The filters at work: failing rows only, then a search (the first reads every row's text),
# then the search cleared; seconds each, by the page's clock, layout included.
FILTER = """
const t = [];
function step(id, value, kind) {
  const e = document.getElementById(id), s = performance.now();
  e.value = value; e.dispatchEvent(new Event(kind));
  document.body.offsetHeight;
  t.push((performance.now() - s) / 1000);
}
step('f-status', 'fail', 'change');
step('f-search', 'bridge', 'input');
step('f-search', '', 'input');
return t;
"""


def _row(index: int, record: dict[str, Any], quoted: bool) -> RowResult:
    sentences = split_sentences(record["response"]) or [record["response"]]
    bad = record["label"] == 0
    units = []
    for i, sentence in enumerate(sentences):
        unsupported = bad and i == len(sentences) - 1
        evidence = closest(sentence, record["source"]) if quoted and unsupported else None
        units.append(
            UnitResult(
                sentence,
                0.1 if unsupported else 0.92,
                "unsupported" if unsupported else "supported",
                evidence=evidence,
                detail={"p_supported": 0.1 if unsupported else 0.92},
            )
        )
    score = sum(u.score or 0 for u in units) / len(units)
    metric = MetricResult(
        "groundedness", "ok", {"groundedness": round(score, 4)}, tuple(units), usage=Usage()
    )
    return RowResult("news", f"{record['id']}-{index}", (metric,), 1.0)


def build(records: list[dict[str, Any]], count: int) -> dict[str, Any]:
    picked = [records[i % len(records)] for i in range(count)]
    failing = [i for i, r in enumerate(picked) if r["label"] == 0][:SHOWN]
    rows = [_row(i, r, i in failing) for i, r in enumerate(picked)]
    thresholds = {"news": {"groundedness": Threshold(min=0.8)}}
    record = RunRecord(
        config=ConfigIdentity("bench.yml", "sha256:0"),
        judge={"provider": "local", "model": "bench", "prompt_version": "bench"},
        datasets=(DatasetRecord("news", count),),
        rows=tuple(rows),
        scores_by_metric={"groundedness": ("groundedness",)},
        thresholds=thresholds,
        on_error="fail",
        incomplete=None,
        usage={"groundedness": Usage()},
        seconds=0.0,
        evidence_policy="shown",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        texts={
            ("news", row.sample_id): row_text(r["source"], r.get("question"), r["response"])
            for row, r in zip(rows, picked, strict=True)
        },
    )
    report = build_report(record, verdicts(record))
    return dict(report)


def measure(report: dict[str, Any], loads: int, folder: Path) -> dict[str, Any]:
    started = time.perf_counter()
    page = render_html(report)
    render_s = time.perf_counter() - started
    path = folder / f"page-{len(report['rows'])}.html"
    path.write_text(page, encoding="utf-8")
    times = []
    with browser.chromium() as driver:
        for _ in range(loads):
            driver.get(path.as_uri())
            times.append(browser.load_seconds(driver))
            shown = driver.execute_script("return document.querySelectorAll('tbody.row').length")
            assert shown == len(report["rows"]), shown
        filter_s = driver.execute_script(FILTER)
        requests = [u for u in browser.requests(driver) if u != path.as_uri()]
    return {
        "rows": len(report["rows"]),
        "json_bytes": len(json.dumps(report, ensure_ascii=False).encode()),
        "html_bytes": len(page.encode()),
        "render_s": round(render_s, 3),
        "load_s": [round(t, 3) for t in times],
        "load_median_s": round(statistics.median(times), 3),
        "filter_s": [round(t, 3) for t in filter_s],
        "other_requests": requests,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/datasets/dev_mini.jsonl")
    parser.add_argument("--rows", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "bench/out/html_page.json")
    args = parser.parse_args()
    if (why := browser.missing()) is not None:
        sys.exit(f"bench/speed/html_page.py: {why}")
    records = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines()]
    with tempfile.TemporaryDirectory() as folder:
        results = [measure(build(records, n), args.loads, Path(folder)) for n in args.rows]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    for r in results:
        print(
            f"{r['rows']} rows: HTML {r['html_bytes'] / 1e6:.2f} MB "
            f"(JSON {r['json_bytes'] / 1e6:.2f} MB), rendered in {r['render_s']:.2f} s, "
            f"load event after {r['load_median_s']:.3f} s, filters {r['filter_s']} s"
            f" (median of {len(r['load_s'])}: {r['load_s']}), other requests: {r['other_requests']}"
        )


if __name__ == "__main__":
    main()
