"""A target's reply goes through the checks a dataset row gets (issue 31): a lone surrogate
is made writable (the run finishes and writes every file), a NUL, a response or contexts over
the limits are that row's error naming the limit, and JSON giving a key twice is refused.
No traceback, nothing over the limits sent to the judge. Real processes; the judge is
scripted on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from ground_gate.cli import cli
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.target_app import config_text, model_and_judge, write_questions

HOSTILE = Path(__file__).with_name("hostile_command.py")


def _run(tmp_path: Path, mode: str) -> tuple[int, str, FakeOpenAI, dict | None]:
    write_questions(tmp_path)
    argv = json.dumps([sys.executable, str(HOSTILE), mode])
    config = tmp_path / "gate.yml"
    with FakeOpenAI(handler=model_and_judge) as judge:
        config.write_text(config_text(judge.url, tmp_path, f"      command: {argv}"), "utf-8")
        result = CliRunner().invoke(
            cli, ["run", "-c", str(config), "--quiet", "--output-json", str(tmp_path / "r.json")],
            env={"FAKE_KEY": "sk-judge-key"},
        )  # fmt: skip
    assert "Traceback" not in result.output, result.output
    report = tmp_path / "r.json"
    data = json.loads(report.read_text("utf-8")) if report.exists() else None
    return result.exit_code, result.output, judge, data


def test_command_target__each_hostile_reply_is_made_writable_or_its_rows_error(
    tmp_path: Path,
) -> None:
    code, output, judge, report = _run(tmp_path, "limits")
    assert code == 1, output  # rows in error fail the gate (on_error: fail); nothing stopped
    assert report is not None and report["incomplete"] is None
    rows = {row["id"]: row for row in report["rows"]}
    assert rows["q01"]["text"]["response"] == "It weighs 1 kg \ufffd exactly."
    assert rows["q01"]["metrics"]["groundedness"]["status"] == "ok"
    errors = {
        row_id: rows[row_id]["metrics"]["groundedness"]["error"]
        for row_id in ("q02", "q03", "q04", "q05")
    }
    assert errors["q02"] == (
        "target: the target's reply to row 'q02': 'response' holds a NUL character (a binary file?)"
    )
    assert errors["q03"].startswith(
        "target: the target's reply to row 'q03': 'response' has 2,000,017 characters, over the "
        "limit of 1,000,000 (limits.max_field_chars"
    )
    assert errors["q04"] == (
        "target: the target's reply to row 'q04' has 200,000 contexts, over the limit of 1,000"
    )
    assert errors["q05"].startswith(
        "target: the target's reply to row 'q05': 'contexts' has 7,500,000 characters, over the "
        "limit of 1,000,000 (limits.max_field_chars"
    )
    sent = "".join(json.dumps(r.body) for r in judge.requests)
    assert "very very" not in sent and "x" * 1000 not in sent  # none of it reached the judge
    lines = (tmp_path / "responses.jsonl").read_text("utf-8").splitlines()
    assert len(lines) == 20


def test_command_target__json_giving_a_key_twice_stops_it_naming_the_line(
    tmp_path: Path,
) -> None:
    code, output, _, report = _run(tmp_path, "duplicate-key")
    assert code == 2, output
    assert 'printed on stdout line 6 JSON in which the key "response" is given twice' in output
    assert report is not None and report["incomplete"] is not None
