"""End to end with the real 1.5B model (verified GGUF) judging, every metric, three clear-cut
rows: one the source states, one it never mentions (invented), one that swaps its numbers
(contradicted). One cold run, one warm run; each test below asserts on the real verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ground_gate.commands.run import RunOptions, execute
from ground_gate.stages.report_files import Outcome, ReportFiles
from tests.e2e.conftest import MODEL, Lending

pytestmark = pytest.mark.e2e

SOURCE = (
    "The X200 laptop weighs 1.2 kg and has a 14-inch display. Its battery lasts up to 10 hours "
    "of video playback. It has two USB-C ports and one HDMI port. It costs 899 euros."
)
ROWS = [
    {
        "id": "grounded-ports",
        "question": "What ports does the X200 have?",
        "context": SOURCE,
        "answer": "The X200 has two USB-C ports and one HDMI port.",
    },
    {
        "id": "invented-colour",
        "question": "What colours does the X200 come in?",
        "context": SOURCE,
        "answer": "The X200 comes in bright orange and forest green, and every colour includes a free stylus.",
    },
    {
        "id": "contradicted-price",
        "question": "How much does the X200 cost?",
        "context": SOURCE,
        "answer": "The X200 costs 2,499 dollars and weighs 3 kg.",
    },
]
UNGROUNDED = ("invented-colour", "contradicted-price")


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory, judge_server: Lending
) -> tuple[Outcome, Path, int, Outcome, int]:
    """The cold run (reports written) and a warm one on its cache, with the servers each
    asked for: (cold, its folder, servers started, warm, servers started)."""
    root = tmp_path_factory.mktemp("e2e")
    (root / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    (root / "gate.yml").write_text(
        f"""version: 1
judge: {{provider: local, model: {MODEL}, cache_dir: {root / "cache"}}}
datasets:
  - {{name: e2e, path: rows.jsonl}}
metrics:
  groundedness: {{unit: sentence}}
  faithfulness: {{}}
  summary_accuracy: {{n_questions: 2}}
  rating: {{}}
thresholds:
  groundedness: {{min: 0.7}}
""",
        encoding="utf-8",
    )
    options = RunOptions(
        config_path=root / "gate.yml",
        files=ReportFiles(json=root / "report.json", markdown=root / "report.md"),
    )
    with judge_server.lent() as lending:
        cold = execute(options, {}, lambda _: None)
        assert lending.stops == lending.starts  # the run gave back the server it started
        cold_starts = lending.starts
    with judge_server.lent() as lending:
        warm = execute(RunOptions(config_path=root / "gate.yml"), {}, lambda _: None)
        warm_starts = lending.starts
    return cold, root, cold_starts, warm, warm_starts


def _score(report: Any, row_id: str, score: str) -> float:
    row = next(r for r in report["rows"] if r["id"] == row_id)
    for metric in row["metrics"].values():
        if score in metric["scores"]:
            return float(metric["scores"][score])
    raise AssertionError(f"{row_id} has no {score}: {row}")


def test_e2e__every_metric_scores_every_row(runs: Any) -> None:
    """Property: the real model's replies are read by every metric, for every row: no parse
    failure, no error row, every score in [0, 1]."""
    report = runs[0].report
    assert report["incomplete"] is None
    assert [r["id"] for r in report["rows"]] == [r["id"] for r in ROWS]
    for row in report["rows"]:
        assert set(row["metrics"]) == {"groundedness", "faithfulness", "summary_accuracy", "rating"}
        for name, metric in row["metrics"].items():
            assert metric["status"] in ("ok", "no_claims"), (row["id"], name, metric["error"])
            for value in metric["scores"].values():
                assert 0.0 <= value <= 1.0
    assert report["usage"]["total"]["calls"] > 0


@pytest.mark.parametrize("score", ["groundedness", "faithfulness", "rating"])
def test_e2e__the_grounded_row_scores_above_the_invented_and_the_contradicted(
    runs: Any, score: str
) -> None:
    """Property: each scoring method ranks a row the source states above both rows it does not."""
    report = runs[0].report
    grounded = _score(report, "grounded-ports", score)
    ungrounded = max(_score(report, r, score) for r in UNGROUNDED)
    assert grounded > ungrounded, (score, grounded, ungrounded)


@pytest.mark.parametrize(
    ("row", "score"),
    [("contradicted-price", "contradiction"), ("invented-colour", "hallucination")],
)
def test_e2e__groundedness_tells_contradicted_from_invented(
    runs: Any, row: str, score: str
) -> None:
    """Property: groundedness's two failure scores are told apart: the swapped row's
    contradiction and the invented row's hallucination each above the grounded row's."""
    report = runs[0].report
    assert _score(report, row, score) > _score(report, "grounded-ports", score), (row, score)


def test_e2e__a_swapped_number_reads_contradicted_quoting_the_sources_value(runs: Any) -> None:
    """Property: a sentence whose numbers differ from the source's reads contradicted, saying
    the source's value, its evidence a passage of the source."""
    report = runs[0].report
    row = next(r for r in report["rows"] if r["id"] == "contradicted-price")
    (unit,) = row["metrics"]["groundedness"]["units"]
    said = unit["detail"].get("swapped_fact", "")
    assert unit["verdict"] == "contradicted", unit
    # the price and the weight are asked blanked out; the source states 899 and 1.2
    assert "the source says 899" in said or "the source says 1.2" in said, said
    assert unit["evidence"] in SOURCE, unit


def test_e2e__the_gate_fails_on_the_caught_rows_and_the_reports_are_the_run_s(runs: Any) -> None:
    """Property: the exit code is the gate's verdict on the real scores: the two rows the
    judge catches pull mean groundedness under 0.7 (were they judged supported, it would
    pass); the files written are the run's report and comment."""
    cold, root, _, _, _ = runs
    (entry,) = [e for e in cold.report["scores"] if e["score"] == "groundedness"]
    assert entry["passed"] is False and entry["mean"] < 0.7, entry
    assert cold.report["passed"] is False and cold.exit_code == 1
    assert json.loads((root / "report.json").read_text(encoding="utf-8")) == cold.report
    assert (root / "report.md").read_text(encoding="utf-8") == cold.markdown


def test_e2e__a_cold_run_asks_for_the_server_and_a_warm_one_is_served_from_the_cache(
    runs: Any,
) -> None:
    """Property: the server starts on a cold run's first miss and is handed back when the run
    ends; a re-run answered by the cache asks for no server and makes no call, with the same
    scores."""
    cold, _, cold_starts, warm, warm_starts = runs
    assert (cold_starts, warm_starts) == (1, 0)
    assert cold.report["judge"]["model_file"].endswith(".gguf")
    assert "model_file" not in warm.report["judge"]
    usage = warm.report["usage"]["total"]
    assert usage["calls"] == 0 and usage["cache_hits"] > 0
    assert warm.report["scores"] == cold.report["scores"]
