"""`ground-gate init`: columns guessed or named, a config the project's own loader accepts (and
`validate` gives no advice on), a workflow using only the action's inputs, refusals as one
line with exit 2 and nothing written, no file overwritten without --force, no secret written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ground_gate.cli import cli
from ground_gate.config.advice import advice
from ground_gate.config.loader import load_config
from ground_gate.datasets import iter_samples
from ground_gate.leaves.errors import DatasetError
from ground_gate.stages.starter import Judge, config_text, guess_columns, workflow_text
from ground_gate.stages.starter.text import scalar

ROOT = Path(__file__).parents[2]
ACTION_INPUTS = set(yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"])
SECRET = "sk-init-test-secret"


def guessed(*columns: str, **given: str) -> dict[str, str | None]:
    return guess_columns(list(columns), given, "rows.jsonl")


def test_guess_columns__the_loaders_own_names_ragas_style():
    # RAGAS: the reference is a ground truth, never the response
    got = guessed("user_input", "retrieved_contexts", "response", "reference")
    assert got == {
        "id": None,
        "question": "user_input",
        "context": "retrieved_contexts",
        "response": "response",
    }


def test_guess_columns__athina_style_with_an_id():
    got = guessed("id", "document", "response")
    assert got == {"id": "id", "question": None, "context": "document", "response": "response"}


def test_guess_columns__case_spaces_hyphens_and_common_names():
    got = guessed("Example-ID", "Question", "retrieved passages", "model_answer", "notes")
    assert got == {
        "id": "Example-ID",
        "question": "Question",
        "context": "retrieved passages",
        "response": "model_answer",
    }


def test_guess_columns__an_exact_name_wins_over_a_folded_one():
    got = guessed("Summary", "answer", "article")
    assert got["response"] == "answer"
    assert got["context"] == "article"


def test_guess_columns__a_flag_wins_and_its_column_is_taken():
    got = guessed("question", "query", "context", "answer", question="query")
    assert got["question"] == "query"
    got = guessed("input", "context", "answer", context="input")
    assert got == {"id": None, "question": None, "context": "input", "response": "answer"}


def test_guess_columns__two_candidates_are_refused_with_the_flag_that_settles_it():
    with pytest.raises(DatasetError) as caught:
        guessed("question", "query", "context", "answer")
    assert str(caught.value) == (
        "rows.jsonl: 'question' and 'query' could each be the question; choose one with "
        "--question-column NAME"
    )
    with pytest.raises(DatasetError, match="'prediction' and 'completion' could each be"):
        guessed("context", "prediction", "completion")


def test_guess_columns__a_missing_required_column_names_the_flag_and_the_columns():
    with pytest.raises(DatasetError) as caught:
        guessed("q", "text", "answer")
    assert str(caught.value) == (
        "rows.jsonl: no context column: expected one named like 'contexts', 'context', "
        "'retrieved_contexts', 'documents', 'document', 'sources', 'source', or name it with "
        "--context-column NAME; the rows have 'q', 'text', 'answer'"
    )
    with pytest.raises(DatasetError, match=r"no response column.*target answers them"):
        guessed("question", "context")


def test_guess_columns__a_flags_column_must_exist_and_be_one_field():
    with pytest.raises(DatasetError) as caught:
        guessed("context", "answer", response="reply")
    assert str(caught.value) == (
        "rows.jsonl: no column 'reply' (--response-column); the rows have 'context', 'answer'"
    )
    with pytest.raises(DatasetError, match="named by --context-column and --response-column"):
        guessed("text", context="text", response="text")


@pytest.mark.parametrize(
    "text",
    ["rows", "data/rows.jsonl", "../evals/a b.csv", "yes", "No", "null", "1.5", "0x1F", "a: b",
     "x,y", "{x}", "#c", "'q'", '"q"', "back\\slash", "é", "line\nbreak", "\u2028", "tab\t",
     "emoji \U0001f600", "-x", "2024-01-01", "~"],
)  # fmt: skip
def test_scalar__reads_back_as_the_same_string(text):
    assert yaml.safe_load(f"key: {scalar(text)}") == {"key": text}
    assert yaml.safe_load(f"key: {{a: {scalar(text)}}}") == {"key": {"a": text}}


JUDGES = {
    "local": Judge("local", "qwen2.5-coder-1.5b"),
    "hosted": Judge("openai", "gpt-4o-mini", api_key_env="OPENAI_API_KEY"),
    "server": Judge("openai", "qwen2.5:7b", "http://127.0.0.1:11434/v1", "JUDGE_KEY"),
    "no key": Judge("openai", "m", "http://10.0.0.5:8000/v1", None),
}
ROWS = [
    {"Row ID": "r1", "Question": "Weight?", "passages": ["It weighs 1.2 kg."], "reply": "1.2 kg."},
    {"Row ID": "r2", "Question": "Ports?", "passages": ["Two USB-C ports."], "reply": "Two."},
]


@pytest.mark.parametrize("judge", JUDGES.values(), ids=JUDGES.keys())
@pytest.mark.parametrize("question", [True, False], ids=["question", "no question"])
def test_config_text__the_loader_accepts_it_and_validate_gives_no_advice(tmp_path, judge, question):
    rows = [{k: v for k, v in r.items() if question or k != "Question"} for r in ROWS]
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "my rows.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    columns = {"id": "Row ID", "question": "Question" if question else None}
    columns |= {"context": "passages", "response": "reply"}
    path = tmp_path / "ground-gate.yml"
    path.write_text(config_text(judge, "my: rows", "evals/my rows.jsonl", columns, 2), "utf-8")
    config = load_config(path, {})
    assert config.judge.provider == judge.provider
    assert config.judge.model == judge.model
    assert config.judge.base_url == judge.base_url
    assert config.judge.api_key_env == judge.api_key_env
    [dataset] = config.datasets
    assert dataset.name == "my: rows"
    assert [s.id for s in iter_samples(dataset)] == ["r1", "r2"]
    assert advice(config, {"my: rows": question}) == []
    assert ("answers" in config.metrics.enabled()) is question


@pytest.mark.parametrize("judge", JUDGES.values(), ids=JUDGES.keys())
def test_workflow_text__uses_only_the_actions_inputs_and_names_the_secret(judge):
    text = workflow_text(judge, "evals/gate.yml", "OWNER/ground-gate@v1")
    workflow = yaml.safe_load(text)
    steps = workflow["jobs"]["gate"]["steps"]
    [gate] = [s for s in steps if s.get("uses") == "OWNER/ground-gate@v1"]
    assert set(gate["with"]) <= ACTION_INPUTS
    assert gate["with"]["config"] == "evals/gate.yml"
    key = judge.api_key_env
    assert gate["with"].get("openai-api-key") == (f"${{{{ secrets.{key} }}}}" if key else None)
    caches = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache@")]
    assert len(caches) == (judge.provider == "local")
    assert workflow["jobs"]["gate"]["permissions"]["pull-requests"] == "write"


def init(tmp_path: Path, *args: str, rows: list[dict[str, object]] | None = None):
    """`ground-gate init` in tmp_path on rows.jsonl (ROWS unless given), the judge's key set."""
    data = tmp_path / "rows.jsonl"
    if not data.exists():
        text = "".join(json.dumps(r) + "\n" for r in (ROWS if rows is None else rows))
        data.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["init", "--data", "rows.jsonl", *args], env={"K": SECRET})
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_init__writes_the_config_and_workflow_and_says_what_it_chose(here):
    result = init(here, "--base-url", "http://127.0.0.1:8080/v1", "--model", "m",
                  "--api-key-env", "K")  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:7] == [
        "wrote ground-gate.yml",
        "wrote .github/workflows/ground-gate.yml",
        "  id: column 'Row ID'",
        "  question: column 'Question'",
        "  context: column 'passages'",
        "  response: column 'reply'",
        "  judge: m at http://127.0.0.1:8080/v1, its key in $K",
    ]
    assert "ground-gate run -c ground-gate.yml" in lines[-1]
    config = load_config(here / "ground-gate.yml", {})
    assert config.datasets[0].fields == {
        "id": "Row ID", "question": "Question", "context": "passages", "response": "reply",
    }  # fmt: skip
    for written in (here / "ground-gate.yml", here / ".github/workflows/ground-gate.yml"):
        assert SECRET not in written.read_text(encoding="utf-8")


def test_init__the_local_judge_by_default_and_the_config_beside_the_data_elsewhere(here):
    result = init(here, "-c", "ci/gate.yml", "--no-workflow")
    assert result.exit_code == 0, result.output
    assert not (here / ".github").exists()
    config = load_config(here / "ci" / "gate.yml", {})
    assert config.judge.provider == "local"
    assert config.datasets[0].path == (here / "rows.jsonl").resolve()


@pytest.mark.parametrize(
    ("args", "rows", "message"),
    [
        (["--judge", "local", "--base-url", "http://h/v1"], None,
         "--base-url: the local judge is the embedded model, it takes no --base-url; drop it, "
         "or give --judge openai"),
        (["--api-key-env", "sk-live-123"], None,
         "--api-key-env: expected the NAME of an environment variable (letters, digits and _), "
         "not a key"),
        (["--base-url", "http://h/v1"], None,
         "--base-url: name the model the server serves with --model NAME"),
        (["--base-url", "http://user:pw@h/v1", "--model", "m"], None,
         "--base-url: the URL holds a password: name the key's variable with --api-key-env"),
        (["--base-url", "ftp://h/v1", "--model", "m"], None,
         "--base-url: expected an http:// or https:// URL"),
        (["--no-api-key", "--api-key-env", "K"], None,
         "--no-api-key and --api-key-env: give one of them"),
        ([], [{"question": "q", "text": "t", "answer": "a"}],
         "rows.jsonl: no context column: expected one named like 'contexts', 'context', "
         "'retrieved_contexts', 'documents', 'document', 'sources', 'source', or name it with "
         "--context-column NAME; the rows have 'question', 'text', 'answer'"),
        (["--response-column", "nope"], None,
         "rows.jsonl: no column 'nope' (--response-column); the rows have 'Row ID', 'Question', "
         "'passages', 'reply'"),
        ([], [{"context": "c", "answer": "a"}, {"context": "c", "answer": 3}],
         "rows.jsonl:2: 'answer' (the response): expected a string, got 3"),
        ([], [], "rows.jsonl: no rows: expected a header row and rows (CSV) or objects"),
        (["-c", "rows.jsonl", "--force"], None,
         "rows.jsonl: is the data file (--data); write the config elsewhere"),
    ],
)  # fmt: skip
def test_init__bad_input_is_one_line_exit_2_and_nothing_written(here, args, rows, message):
    result = init(here, *args, rows=rows)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"ground-gate: error: {message}\n"
    assert sorted(p.name for p in here.iterdir()) == ["rows.jsonl"]


def test_init__a_missing_data_file_is_named(here):
    result = CliRunner().invoke(cli, ["init", "--data", "evals/rows.csv"])
    assert result.exit_code == 2
    assert result.stderr == (
        "ground-gate: error: evals/rows.csv: no such file, expected a dataset file (dataset 'rows')\n"
    )


def test_init__never_overwrites_without_force(here):
    (here / "ground-gate.yml").write_text("mine\n", encoding="utf-8")
    result = init(here)
    assert result.exit_code == 2
    assert (
        result.stderr
        == "ground-gate: error: ground-gate.yml: exists; give --force to overwrite it\n"
    )
    assert (here / "ground-gate.yml").read_text(encoding="utf-8") == "mine\n"
    assert not (here / ".github").exists()  # the workflow is not written either

    (here / "ground-gate.yml").unlink()
    workflow = here / ".github" / "workflows" / "ground-gate.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("theirs\n", encoding="utf-8")
    assert init(here).exit_code == 2
    assert not (here / "ground-gate.yml").exists()  # refused before anything is written
    assert workflow.read_text(encoding="utf-8") == "theirs\n"

    result = init(here, "--force")
    assert result.exit_code == 0, result.output
    assert workflow.read_text(encoding="utf-8").startswith("# Written by `ground-gate init`")
    load_config(here / "ground-gate.yml", {})
