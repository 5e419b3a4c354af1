"""A command target's program found without running it (config/program.py): `validate` and
`run` name a program that is not there, or a script an interpreter would not find."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ground_gate.config.program import program_problem

ENV = {"PATH": os.environ.get("PATH", os.defpath)}


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # a command's relative paths are the working directory's
    (tmp_path / "app.py").write_text("print('hi')\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        [sys.executable, "app.py", "--fast"],
        ["python3", "-u", "app.py"],
        ["python3", "-W", "ignore", "app.py"],
        ["python3", "-m", "myapp.answer"],  # a module: no file to find
        ["sh", "-c", "exec python3 answer.py"],  # code: not read
        ["env"],
    ],
)
def test_program_problem__a_program_that_would_start(in_tmp: Path, argv: list[str]) -> None:
    assert program_problem(argv, ENV) is None


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["no-such-program-gg"], "the program no-such-program-gg is not on the PATH"),
        (["./missing.sh"], "the program ./missing.sh does not exist (relative to the working "
         "directory)"),
        (["python3", "aap.py"], "the script aap.py that python3 would run does not exist"),
        (["node", "--inspect", "server/index.js"], None),  # node itself may be absent: below
    ],
)  # fmt: skip
def test_program_problem__names_what_cannot_start(
    in_tmp: Path, argv: list[str], said: str | None
) -> None:
    if said is None:
        found = program_problem(argv, ENV)
        assert found is not None and ("node" in found or "server/index.js" in found)
        return
    assert program_problem(argv, ENV) == said


def test_program_problem__a_file_that_is_not_executable(in_tmp: Path) -> None:
    assert program_problem(["./app.py"], ENV) == (
        "the program ./app.py is not executable (chmod +x, or run it by its interpreter)"
    )
    (in_tmp / "app.py").chmod(0o755)
    assert program_problem(["./app.py"], ENV) is None
