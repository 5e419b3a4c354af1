"""Every case in tests/badinput is rejected with its exact message and error type, by the loader
functions and by `ground-gate validate` (exit 2, one message, no traceback, no secret shown)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from ground_gate.config.loader import load_config
from ground_gate.datasets import load_samples
from ground_gate.leaves.errors import ConfigError, DatasetError
from ground_gate.targets import prepare_target

CORPUS = Path(__file__).resolve().parents[1] / "badinput"
CASES = sorted(path for path in CORPUS.iterdir() if path.is_dir())
ERRORS: dict[str, type[Exception]] = {"ConfigError": ConfigError, "DatasetError": DatasetError}


def prepare(case: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the case, its `build.py` run in it (big files, FIFOs, symlinks), and its env."""
    work = tmp_path / "cases" / case.name
    shutil.copytree(case, work, symlinks=True, ignore=shutil.ignore_patterns("build.py"))
    if (case / "build.py").exists():
        spec = importlib.util.spec_from_file_location(f"build_{case.name}", case / "build.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.build(work)
    env_file = case / "env.json"
    env = json.loads(env_file.read_text("utf-8")) if env_file.exists() else {}
    return work, env


def secrets(case: Path) -> list[str]:
    path = case / "secrets.txt"
    return path.read_text("utf-8").split() if path.exists() else []


def test_badinput__corpus_has_enough_cases_of_both_kinds() -> None:
    kinds = [(case / "error_type.txt").read_text("utf-8").strip() for case in CASES]
    assert len(CASES) >= 80
    assert kinds.count("ConfigError") >= 35
    assert kinds.count("DatasetError") >= 35


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_badinput__case_is_rejected_with_its_message(
    case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = (case / "expected.txt").read_text("utf-8").removesuffix("\n")
    error = ERRORS[(case / "error_type.txt").read_text("utf-8").strip()]
    work, env = prepare(case, tmp_path)
    monkeypatch.chdir(work)

    with pytest.raises((ConfigError, DatasetError)) as caught:
        config = load_config(Path("config.yml"), env)
        for index, dataset in enumerate(config.datasets):
            samples = load_samples(dataset)
            if dataset.target is not None:  # its placeholders, checked before any call
                prepare_target(dataset, index, samples, "config.yml", env)

    assert type(caught.value) is error
    assert str(caught.value) == expected
    for secret in secrets(case):
        assert secret not in str(caught.value)


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_badinput__validate_exits_2_with_one_message_and_no_secret(
    case: Path, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = (case / "expected.txt").read_text("utf-8").removesuffix("\n")
    work, env = prepare(case, tmp_path)
    monkeypatch.chdir(work)
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)

    result = CliRunner().invoke(cli, [command, "-c", "config.yml"], env=env)

    assert result.exit_code == 2, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    assert result.stderr == f"ground-gate: error: {expected}\n"
    assert "Traceback" not in result.output
    for secret in [*secrets(case), *env.values()]:
        assert secret not in result.output
