"""Control sequences from a command target are shown inert (issue 43, item 9): whatever bytes
the command writes on stderr, and whatever id its reply names, the message that quotes them
(to the terminal, the log and the report) holds no ESC, C0 or C1 control character and no
bidi or line-separator character; the CLI's own stderr neither. Real processes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ground_gate.datasets import Sample
from ground_gate.leaves.usage import Usage
from ground_gate.targets.command import ask_command
from tests.hostile.command_trees import STDERR as HOSTILE_STDERR
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.target_app import config_text, model_and_judge, write_questions

HIDDEN = {"Cc", "Cf", "Cs", "Zl", "Zp"}
# what a terminal acts on, among random bytes: CSI, OSC, C1 in UTF-8 and raw, CR, BS, bidi
PIECES = [b"\x1b[2J", b"\x1b]0;pwned\x07", b"\xc2\x9b31m", b"\x9b", b"\r", b"\x08", b"\x00",
          "\u202e".encode(), "\u2028".encode(), b"\n", b"\t"]  # fmt: skip
STDERR = st.lists(st.one_of(st.sampled_from(PIECES), st.binary(max_size=40)), max_size=12).map(
    b"".join
)
SHOUT = (
    "import sys, pathlib; sys.stderr.buffer.write(pathlib.Path(sys.argv[1]).read_bytes());"
    "sys.stderr.flush(); print(sys.argv[2], flush=True); sys.exit(3)"
)


def hidden(text: str, keep: str = "") -> set[str]:
    return {ch for ch in text if unicodedata.category(ch) in HIDDEN and ch not in keep}


def _sample() -> Sample:
    return Sample(id="q1", sources=("The X1 weighs 1 kg.",), response="", question="Weight?")


@pytest.mark.skipif(sys.platform != "linux", reason="real processes, a POSIX shell's world")
@settings(max_examples=15)
@given(data=STDERR, row_id=st.text(max_size=8), unknown=st.booleans())
def test_command_stderr__any_bytes_reach_the_message_inert(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, row_id: str, unknown: bool
) -> None:
    written = tmp_path_factory.mktemp("stderr") / "stderr.bin"
    written.write_bytes(data)
    line = json.dumps({"id": "\x1b[31m" + row_id, "response": "x"}) if unknown else ""
    argv = [sys.executable, "-c", SHOUT, str(written), line]
    asked = ask_command([*argv], [_sample()], timeout_s=10, usage=Usage(), env=os.environ)
    done = asyncio.run(asyncio.wait_for(asked, 30))
    assert done.stopped is not None
    assert hidden(done.stopped) == set(), done.stopped
    if unknown:
        assert "an answer for id '\\x1b[31m" in done.stopped
    else:
        assert "exited with code 3" in done.stopped


@pytest.mark.skipif(sys.platform != "linux", reason="real processes, a POSIX shell's world")
@pytest.mark.parametrize("name", sorted(HOSTILE_STDERR))
def test_command_stderr__the_hostile_corpus_reaches_the_message_inert(
    tmp_path: Path, name: str
) -> None:
    written = tmp_path / "stderr.bin"
    written.write_bytes(HOSTILE_STDERR[name])
    argv = [sys.executable, "-c", SHOUT, str(written), ""]
    asked = ask_command(argv, [_sample()], timeout_s=10, usage=Usage(), env=os.environ)
    done = asyncio.run(asyncio.wait_for(asked, 30))
    assert done.stopped is not None and "; stderr: " in done.stopped
    assert hidden(done.stopped) == set(), done.stopped


@pytest.mark.skipif(sys.platform != "linux", reason="real processes, a POSIX shell's world")
def test_run__a_commands_escape_sequences_never_reach_the_terminal(tmp_path: Path) -> None:
    script = r"printf '\033]0;pwned\007\033[31mred\033[0m\rover\033[2K\n' >&2; exit 3"
    write_questions(tmp_path)
    target = f"      command: {json.dumps(['sh', '-c', script])}"
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = tmp_path / "gate.yml"
        config.write_text(config_text(judge.url, tmp_path, target), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "ground_gate", "run", "-c", str(config), "--quiet",
             "--output-json", str(tmp_path / "report.json")],
            env={**os.environ, "FAKE_KEY": "sk-judge-key"}, capture_output=True, text=True,
            timeout=60,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert hidden(done.stderr, keep="\n") == set(), repr(done.stderr)
    # a carriage return is whitespace, folded to a space like a line break
    assert "stderr: \\x1b]0;pwned\\x07\\x1b[31mred\\x1b[0m over\\x1b[2K" in done.stderr
