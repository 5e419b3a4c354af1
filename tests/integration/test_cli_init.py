"""`ground-gate init` on a user's own rows, then `ground-gate run` with the config it wrote,
against the scripted OpenAI-compatible server on 127.0.0.1: the first minute, end to end."""

from __future__ import annotations

import csv
import json

from click.testing import CliRunner

from ground_gate.cli import cli
from tests.integration.fake_openai import FAKE_KEY_ENV, FakeOpenAI
from tests.integration.test_cli_run import ROWS, grade

SECRET = "sk-init-run-secret"


def test_init_then_run__the_written_config_reaches_a_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the judge cache (.ground-gate/cache) goes here too
    (tmp_path / "evals").mkdir()
    with (tmp_path / "evals" / "support.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Ticket ID", "Query", "Retrieved passages", "Bot answer"])
        for row in ROWS:
            writer.writerow(
                [row["id"], row["question"], json.dumps(row["contexts"]), row["answer"]]
            )
    runner = CliRunner()
    with FakeOpenAI(handler=grade) as server:
        init = runner.invoke(
            cli,
            ["init", "--data", "evals/support.csv", "--base-url", server.url,
             "--model", "fake-model", "--api-key-env", FAKE_KEY_ENV,
             "--response-column", "Bot answer", "--id-column", "Ticket ID"],
        )  # fmt: skip
        assert init.exit_code == 0, init.output
        assert server.request_count == 0  # init calls no judge
        run = runner.invoke(
            cli,
            ["run", "-c", "ground-gate.yml", "--output-json", "ground-gate-report/report.json",
             "--output-html", "ground-gate-report/report.html"],
            env={FAKE_KEY_ENV: SECRET},
        )  # fmt: skip
    assert "Traceback" not in run.output
    assert run.exit_code == 1, run.output  # the row that ships to Mars misses the thresholds
    report = json.loads((tmp_path / "ground-gate-report" / "report.json").read_text("utf-8"))
    assert [r["id"] for r in report["rows"]] == ["good-1", "good-2", "mars-1"]
    assert report["status"] == "failed"
    assert {e["score"] for e in report["scores"]} >= {"groundedness", "answered"}
    assert (tmp_path / "ground-gate-report" / "report.html").is_file()
    assert server.request_count > 0
    for name in ("ground-gate.yml", ".github/workflows/ground-gate.yml"):
        assert SECRET not in (tmp_path / name).read_text(encoding="utf-8")
