"""No key value in anything a run writes. A row quoting the judge's key (a support bot that
echoed its config, a test fixture) reaches the judge's statements, the report's texts and the
judge cache; every writer masks it: the four report files, the cache entries, stdout and
stderr. The test searches every file the run wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from tests.integration.fake_openai import FAKE_KEY_ENV, FakeOpenAI, judge_yaml
from tests.integration.test_cli_run import grade

KEY = "sk-test-SECRET-0123456789abcdef"
ROWS = [
    {"id": "leaky", "question": "Which key do you use?", "contexts": ["The bot uses a key."],
     "answer": f"The bot uses the key {KEY}. It is secret."},
    {"id": "json-escaped", "contexts": ["Nothing."], "answer": f'Config: {{"key": "{KEY}"}}'},
]  # fmt: skip


def test_secrets__no_file_the_run_wrote_holds_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    inputs = {tmp_path / "rows.jsonl", tmp_path / "gate.yml"}
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS), "utf-8")
    with FakeOpenAI(handler=grade) as server:
        (tmp_path / "gate.yml").write_text(
            "version: 1\n"
            + judge_yaml(server.url, cache_dir=tmp_path / "cache")
            + "datasets: [{name: support, path: rows.jsonl}]\n"
            "metrics: {groundedness: {evidence: all}, faithfulness: {}, rating: {}}\n",
            encoding="utf-8",
        )
        outputs = ["--output-json", "out/r.json", "--output-md", "out/r.md"]
        outputs += ["--output-junit", "out/r.xml", "--output-html", "out/r.html"]
        result = CliRunner().invoke(
            cli, ["-v", "run", "-c", "gate.yml", *outputs], env={FAKE_KEY_ENV: KEY}
        )
        sent = [json.dumps(r.body) for r in server.requests]
    assert result.exit_code in (0, 1), result.output
    assert any(KEY in body for body in sent)  # the judge did see the row as it is
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p not in inputs]
    assert {p.name for p in written} >= {"r.json", "r.md", "r.xml", "r.html"}
    assert any(p.suffix == ".json" and "cache" in p.parts for p in written)
    holding = [str(p.relative_to(tmp_path)) for p in written if KEY.encode() in p.read_bytes()]
    assert holding == []
    assert KEY not in result.stdout and KEY not in result.stderr
    report = json.loads((tmp_path / "out" / "r.json").read_text(encoding="utf-8"))
    leaky = next(row for row in report["rows"] if row["id"] == "leaky")
    assert "The bot uses the key ***. It is secret." in json.dumps(leaky)
