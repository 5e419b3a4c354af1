"""End to end with the real llama.cpp server and the real 1.5B model (verified GGUF); the
0.5B file ranks too weakly for the assertions below to hold reliably.

One run of the whole pipeline over clear-cut rows with every metric; the assertions are on
what a user relies on: valid scores, grounded rows above invented ones, reports written, the
exit code, and no server process left behind.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ground_gate.commands.run import RunOptions, execute
from ground_gate.stages.report_files import ReportFiles

pytestmark = pytest.mark.e2e

MODEL = os.environ.get("GROUND_GATE_E2E_MODEL", "qwen2.5-coder-1.5b")

SOURCE = (
    "The X200 laptop weighs 1.2 kg and has a 14-inch display. Its battery lasts up to 10 hours "
    "of video playback. It has two USB-C ports and one HDMI port. It costs 899 euros."
)
ROWS = [
    {
        "id": "grounded-weight",
        "question": "How heavy is the X200?",
        "context": SOURCE,
        "answer": "The X200 weighs 1.2 kg.",
    },
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


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
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
  summary_accuracy: {{n_questions: 3}}
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
    said: list[str] = []
    result = execute(options, {}, said.append)
    assert [m for m in said if "starting the local judge" in m]  # a cold run starts it
    return result, root


def _score(report, row_id: str, score: str) -> float:
    row = next(r for r in report["rows"] if r["id"] == row_id)
    for metric in row["metrics"].values():
        if score in metric["scores"]:
            return metric["scores"][score]
    raise AssertionError(f"{row_id} has no {score}: {row}")


def test_e2e__every_metric_scores_every_row(outcome):
    result, _ = outcome
    report = result.report
    assert report["incomplete"] is None
    for row in report["rows"]:
        for name, metric in row["metrics"].items():
            assert metric["status"] in ("ok", "no_claims"), (row["id"], name, metric["error"])
            for value in metric["scores"].values():
                assert 0.0 <= value <= 1.0
    assert len(report["rows"]) == len(ROWS)
    assert report["usage"]["total"]["calls"] > 0


@pytest.mark.parametrize("score", ["groundedness", "faithfulness", "rating"])
def test_e2e__grounded_rows_score_above_invented_ones(outcome, score):
    report = outcome[0].report
    grounded = min(_score(report, r, score) for r in ("grounded-weight", "grounded-ports"))
    ungrounded = max(_score(report, r, score) for r in ("invented-colour", "contradicted-price"))
    assert grounded > ungrounded, (score, grounded, ungrounded)


@pytest.mark.parametrize(
    ("row", "score"),
    [("contradicted-price", "contradiction"), ("invented-colour", "hallucination")],
)
def test_e2e__groundedness_verdicts_tell_contradicted_from_invented(outcome, row, score):
    report = outcome[0].report
    grounded = max(_score(report, r, score) for r in ("grounded-weight", "grounded-ports"))
    assert _score(report, row, score) > grounded, (row, score, grounded)


def test_e2e__a_swapped_number_reads_contradicted_quoting_the_sources_value(outcome):
    report = outcome[0].report
    row = next(r for r in report["rows"] if r["id"] == "contradicted-price")
    (unit,) = row["metrics"]["groundedness"]["units"]
    said = unit["detail"].get("swapped_fact", "")
    assert unit["verdict"] == "contradicted", unit
    # the price and the weight are asked blanked out; the source states 899 and 1.2
    assert "the source says 899" in said or "the source says 1.2" in said, said
    assert unit["evidence"] in SOURCE, unit


def test_e2e__reports_written_and_exit_code_follows_the_gate(outcome):
    result, root = outcome
    assert json.loads((root / "report.json").read_text(encoding="utf-8")) == result.report
    assert (root / "report.md").read_text(encoding="utf-8") == result.markdown
    # the invented rows pull mean groundedness under 0.7 only if they are caught
    assert result.exit_code in (0, 1)
    assert result.exit_code == (0 if result.report["passed"] else 1)


def test_e2e__a_rerun_is_served_from_the_cache_without_starting_the_server(outcome):
    _, root = outcome
    said: list[str] = []
    again = execute(RunOptions(config_path=root / "gate.yml"), {}, said.append)
    assert not [m for m in said if "starting the local judge" in m]
    assert "model_file" not in again.report["judge"]
    usage = again.report["usage"]["total"]
    assert usage["calls"] == 0
    assert usage["cache_hits"] > 0
    assert again.report["scores"] == outcome[0].report["scores"]


def test_e2e__no_llama_server_outlives_the_run(outcome):
    found = subprocess.run(
        ["pgrep", "-f", "llama_cpp.server", "-P", str(os.getpid())], capture_output=True, text=True
    )
    assert found.stdout.strip() == ""
