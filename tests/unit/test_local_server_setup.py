"""LocalServer refusals that happen before any server answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from ground_gate.leaves.errors import ModelError
from ground_gate.local.server import MISSING_EXTRA, LocalServer, default_threads


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return path


def test_local_server__missing_extra_names_what_to_install(model_file: Path) -> None:
    server = LocalServer(model_file, module="ground_gate_no_such_server_module")
    with pytest.raises(ModelError) as caught:
        server.start()
    assert str(caught.value) == (
        "the local judge needs the 'local' extra: pip install \"ground-gate[local]\""
    )
    assert str(caught.value) == MISSING_EXTRA
    assert server.pid is None


def test_local_server__missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        LocalServer(tmp_path / "gone.gguf").start()
    assert str(caught.value) == f"model file {tmp_path / 'gone.gguf'} does not exist"


def test_local_server__interpreter_that_cannot_start(model_file: Path, tmp_path: Path) -> None:
    python = str(tmp_path / "no-python")
    with pytest.raises(ModelError) as caught:
        LocalServer(model_file, python=python).start()
    assert str(caught.value) == f"cannot start {python}: No such file or directory"


def test_local_server__defaults(model_file: Path) -> None:
    server = LocalServer(model_file)
    assert (server.context_tokens, server.threads, server.model_alias) == (
        4096,
        default_threads(),
        "tiny",
    )
    assert default_threads() >= 1
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url
