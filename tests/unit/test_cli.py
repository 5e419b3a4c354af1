"""CLI acceptance through click's CliRunner: exit codes, one-line errors, no tracebacks."""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli

BADINPUT = Path(__file__).parent.parent / "badinput"
# Cases with an environment or files made at test time run in tests/unit/test_badinput.py.
CASES = sorted(
    p.name
    for p in BADINPUT.iterdir()
    if (p / "expected.txt").is_file()
    and not (p / "env.json").exists()
    and not (p / "build.py").exists()
)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_cli__bad_input_exits_2_with_the_message_and_no_traceback(case, command, monkeypatch):
    monkeypatch.chdir(BADINPUT / case)
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    expected = (BADINPUT / case / "expected.txt").read_text(encoding="utf-8").rstrip("\n")
    result = CliRunner().invoke(
        cli, [command, "-c", "config.yml"], env={"OPENAI_API_KEY": "sk-test"}
    )
    assert result.exit_code == 2, result.output
    assert result.stderr == f"ground-gate: error: {expected}\n"
    assert "Traceback" not in result.output
    assert "sk-test" not in result.output


def test_cli__validate_example_config_counts_rows():
    result = CliRunner().invoke(cli, ["validate", "-c", "configs/demo.yml"])
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "demo: 10 row(s) OK (examples/demo/demo.jsonl)\n"
        "configs/demo.yml: valid; metrics: groundedness, answers\n"
    )


def validate_warnings(tmp_path: Path, config: str) -> list[str]:
    """`validate` of `config` written as tmp_path/gate.yml: it passes; the lines it warns."""
    (tmp_path / "gate.yml").write_text(config)
    result = CliRunner().invoke(
        cli, ["validate", "-c", str(tmp_path / "gate.yml")], env={"OPENAI_API_KEY": "sk-t"}
    )
    assert result.exit_code == 0, result.output
    return result.stderr.splitlines()


def test_cli__validate_warns_of_a_dataset_gated_on_the_rating_read_whole_alone(tmp_path):
    rows = Path("examples/demo/demo.jsonl").resolve()
    (warning,) = validate_warnings(
        tmp_path,
        "version: 1\n"
        "judge: {provider: openai, model: m}\n"
        "datasets:\n"
        f"  - {{name: rated, path: '{rows}'}}\n"
        f"  - {{name: both, path: '{rows}', thresholds: {{groundedness: {{min: 0.7}}}}}}\n"
        "metrics: {groundedness: {}, rating: {unit: answer}, answers: {}}\n"
        "thresholds: {rating: {min: 0.6}, answered: {min: 0.6}}\n",
    )
    assert warning.startswith(f"warning: {tmp_path / 'gate.yml'}: dataset 'rated' is gated on")
    assert "groundedness (or faithfulness) too" in warning


def test_cli__validate_says_nothing_of_the_rating_read_one_sentence_at_a_time(tmp_path):
    rows = Path("examples/demo/demo.jsonl").resolve()
    assert (
        validate_warnings(
            tmp_path,
            "version: 1\n"
            "judge: {provider: openai, model: m}\n"
            "datasets:\n"
            f"  - {{name: rated, path: '{rows}'}}\n"
            "metrics: {rating: {}, answers: {}}\n"
            "thresholds: {rating: {min: 0.6}, answered: {min: 0.6}}\n",
        )
        == []
    )


@pytest.mark.parametrize(
    ("metrics", "thresholds", "warned"),
    [
        ("{groundedness: {}}", "{groundedness: {min: 0.7}}", "asks questions but the answers"),
        ("{groundedness: {}, answers: {}}", "{groundedness: {min: 0.7}}", "gates neither"),
        ("{groundedness: {}, answers: {}}", "{answered: {max_drop: 0.1}}", None),
    ],
)
def test_cli__validate_warns_of_questions_whose_answers_are_not_gated(
    tmp_path, metrics, thresholds, warned
):
    rows = Path("examples/demo/demo.jsonl").resolve()  # every QA row has a question
    warnings = validate_warnings(
        tmp_path,
        "version: 1\n"
        "judge: {provider: openai, model: m}\n"
        f"datasets: [{{name: qa, path: '{rows}'}}]\n"
        f"metrics: {metrics}\n"
        f"thresholds: {thresholds}\n",
    )
    if warned is None:
        assert warnings == []
    else:
        (warning,) = warnings
        assert warning.startswith(f"warning: {tmp_path / 'gate.yml'}: dataset 'qa' {warned}")


def test_cli__validate_warns_of_a_targets_retrieved_contexts_not_gated(tmp_path):
    (tmp_path / "q.jsonl").write_text('{"id": "a", "question": "Q?"}\n', encoding="utf-8")
    (warning,) = validate_warnings(
        tmp_path,
        "version: 1\n"
        "judge: {provider: openai, model: m}\n"
        "datasets:\n"
        "  - name: app\n"
        "    path: q.jsonl\n"
        "    target: {http: {url: 'http://127.0.0.1:9/answer', response: answer, contexts: docs}}\n"
        "metrics: {groundedness: {}, answers: {}}\n"
        "thresholds: {answered: {min: 0.8}}\n",
    )
    assert "its http target may return the contexts it retrieved, and context_relevance" in warning


@pytest.mark.parametrize("config", ["configs/demo.yml", "configs/demo-all-methods.yml"])
def test_cli__validate_gives_no_advice_on_the_demo_config(config):
    result = CliRunner().invoke(cli, ["validate", "-c", config])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_cli__schema_prints_the_published_json_schema():
    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["$schema"].startswith("https://json-schema.org/draft/2020-12")
    assert "judge" in schema["properties"]


def test_cli__unknown_option_is_a_usage_error():
    result = CliRunner().invoke(cli, ["run", "--bogus"])
    assert result.exit_code == 2
    # click words it "No such option '--bogus'." since 8.2.2, "No such option: --bogus" before
    said = r"^ground-gate: error: No such option:? '?--bogus'?\.?\nTry '\S+ run -h' for help\.\n$"
    assert re.search(said, result.stderr), result.stderr
    assert "Usage:" not in result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["run", "--limit", "abc"], "Invalid value for '--limit'"),
        (["nosuch"], "No such command 'nosuch'"),
        (["report"], "Missing argument 'REPORT"),
    ],
)
def test_cli__click_errors_print_as_every_error_does(args: list[str], said: str):
    """One way to say an error: click's own (a bad value, an unknown command) as the
    project's, one line and exit 2, never click's "Error:" under a usage block."""
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first.startswith("ground-gate: error: ") and said in first, result.stderr
    assert "Error:" not in result.stderr
