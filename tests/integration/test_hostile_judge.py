"""`ground-gate run` against a judge whose every reply breaks a rule of what a reply may hold
(tests/hostile/judge_replies.py): exit 2 with the reason, no traceback, no score written as a
number; and a judge that turns hostile after good answers fails only the rows it touched."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from tests.hostile.judge_replies import CASES, Case
from tests.integration.fake_openai import FAKE_KEY_ENV, FakeOpenAI, Reply, completion, judge_yaml

ROWS = [
    {"id": "r1", "context": "The X200 weighs 1.2 kg.", "response": "It weighs 1.2 kg."},
    {"id": "r2", "context": "It has two USB-C ports.", "response": "It has two USB-C ports."},
]


def write_project(root: Path, url: str, *, retries: int = 0) -> Path:
    (root / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS), "utf-8")
    config = root / "gate.yml"
    judge = judge_yaml(url, max_retries=retries, max_concurrency=1, cache_dir=root / "cache")
    config.write_text(
        f"version: 1\n{judge}datasets:\n  - {{name: rows, path: rows.jsonl}}\n"
        "metrics:\n  groundedness: {evidence: none}\n"
        "thresholds:\n  groundedness: {min: 0.5}\n",
        encoding="utf-8",
    )
    return config


def invoke(config: Path) -> tuple[Any, dict[str, Any]]:
    report = config.parent / "report.json"
    result = CliRunner().invoke(
        cli, ["run", "-c", str(config), "--output-json", str(report), "--output-html",
              str(config.parent / "report.html")], env={FAKE_KEY_ENV: "sk-fake-0123456789"},
    )  # fmt: skip
    assert "Traceback" not in result.output, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    return result, json.loads(report.read_text(encoding="utf-8"))


def numbers(value: Any) -> list[float]:
    """Every float in a JSON value: a score is a float, counts and seconds aside."""
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [n for item in value.values() for n in numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in numbers(item)]
    return []


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_judge__a_reply_that_is_no_verdict_exits_2_and_writes_no_score(
    tmp_path: Path, case: Case
) -> None:
    with FakeOpenAI(handler=lambda body: Reply(body=case.body.encode("utf-8"))) as server:
        result, report = invoke(write_project(tmp_path, server.url))
    assert result.exit_code == 2, result.output
    assert report["status"] == "incomplete" and report["passed"] is False
    assert "it sent no chat completion" in report["incomplete"]
    assert case.message in report["incomplete"], report["incomplete"]
    assert f"ground-gate: error: {report['incomplete']}" in result.stderr
    assert report["rows"] == []
    assert [(d["rows"], d["scored"]) for d in report["datasets"]] == [(2, 0)]
    assert [(row["dataset"], row["id"]) for row in report["not_run"]] == [
        ("rows", "r1"),
        ("rows", "r2"),
    ]
    assert [score["mean"] for score in report["scores"]] == [None, None, None]
    assert all(math.isfinite(n) for n in numbers(report))
    assert (tmp_path / "report.html").is_file()


NAN_VERDICT = Reply(body=CASES[0].body.encode("utf-8"))


def test_hostile_judge__nan_after_good_answers_fails_the_row_it_touched_never_passes_it(
    tmp_path: Path,
) -> None:
    """The first row is judged; the second gets NaN every time: an unusable verdict, retried,
    then an error on that row, which fails the gate (exit 1). It never reads as 'nan >= 0.5'."""
    calls = {"n": 0}

    def handler(body: Any) -> Reply:
        calls["n"] += 1
        if "two USB-C" in body["messages"][-1]["content"]:
            return NAN_VERDICT
        return completion("Yes", logprobs=[{"Yes": math.log(0.95), "No": math.log(0.05)}])

    with FakeOpenAI(handler=handler) as server:
        result, report = invoke(write_project(tmp_path, server.url, retries=1))
    assert result.exit_code == 1, result.output
    rows = {row["id"]: row for row in report["rows"]}
    assert rows["r1"]["metrics"]["groundedness"]["status"] == "ok"
    assert rows["r2"]["metrics"]["groundedness"]["status"] == "error"
    assert "got nan" in rows["r2"]["metrics"]["groundedness"]["error"]
    assert report["status"] == "failed" and report["passed"] is False
    assert all(math.isfinite(n) for n in numbers(report))
    assert "nan" not in (tmp_path / "report.html").read_text(encoding="utf-8").lower().replace(
        "got nan", ""
    )


def test_hostile_judge__lone_surrogates_in_rows_and_replies_reach_every_report_as_fffd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: UnicodeEncodeError after every judge call, and a 0-byte report. Now the rows'
    and the judge's lone surrogates are U+FFFD where they enter, said once each."""
    from tests.integration.test_cli_run import grade

    def handler(body: Any) -> Reply:
        if "Break the sentence below" in body["messages"][-1]["content"]:
            return completion('{"statements": ["It weighs 1.2 kg \\ud800."]}')
        return grade(body)

    rows = [
        '{"id": "s\\ud800", "context": "The X200 weighs 1.2 kg.", "response": "It weighs 1.2 kg\\udfff."}',
        '{"id": "t", "context": "We ship in the EU \\ud83d.", "response": "We ship to Mars."}',
    ]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rows.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    config = tmp_path / "gate.yml"
    with FakeOpenAI(handler=handler) as server:
        config.write_text(
            f"version: 1\njudge: {{provider: openai, base_url: '{server.url}', api_key_env: null,"
            " cache_dir: cache}\ndatasets: [{name: rows, path: rows.jsonl}]\n"
            "metrics: {groundedness: {evidence: none}, faithfulness: {}}\n",
            encoding="utf-8",
        )
        outputs = ["--output-md", "r.md", "--output-junit", "r.xml", "--output-html", "r.html"]
        result = CliRunner().invoke(
            cli, ["run", "-c", str(config), "--output-json", "r.json", *outputs]
        )
    assert "Traceback" not in result.output, result.output
    assert result.exit_code in (0, 1), result.output
    for name in ("r.json", "r.md", "r.xml", "r.html"):
        text = Path(name).read_text(encoding="utf-8")
        assert "\ufffd" in text or "&#65533;" in text or "&#xfffd;" in text.lower(), name
    report = json.loads(Path("r.json").read_text(encoding="utf-8"))
    assert [row["id"] for row in report["rows"]] == ["s\ufffd", "t"]
    assert result.stderr.count("(said once)") == 2
    assert "dataset 'rows'" in result.stderr and "the judge's replies" in result.stderr
