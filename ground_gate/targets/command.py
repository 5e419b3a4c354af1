"""A command target: a program started once per run that speaks JSON lines.

ground-gate writes one JSON object per row to its stdin (the row's columns, then `id`,
`question` and `context` as the dataset defines them) and closes it; the program writes one
object per line to stdout, `{"id": ..., "response": ..., "contexts": [...]}` (contexts
optional), in any order. Its stderr is kept to quote (inert) when something goes wrong.

A row answered badly (an empty or missing response, contexts that are not text, an id
answered twice) is that row's error. Output that cannot be trusted stops the target, keeping
the answers before it: a line that is not a JSON object, an object without a known id, or a
program that exits non-zero or dies.

timeout_s bounds every wait of the exchange: no line for timeout_s, or no exit within
timeout_s of the last line, ends it there, whatever still holds the program's pipes, and the
program and every process it started are ended (command_process.py). Rows it had not
answered stop the target; a program that answered every row and then lingered is only
noted (`Exchange.notice`).
"""

from __future__ import annotations

import asyncio
import enum
import json
import shlex
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ground_gate.datasets import Sample
from ground_gate.judge.base import quote_reply
from ground_gate.judge.budget import BudgetExceededError, SpendingLimit
from ground_gate.leaves.errors import TargetError
from ground_gate.leaves.inert import inert
from ground_gate.leaves.json_keys import DuplicateKeyError
from ground_gate.leaves.usage import Usage
from ground_gate.targets.answers import Answer
from ground_gate.targets.command_process import MAX_LINE_BYTES, Child, start
from ground_gate.targets.reply import reply_json
from ground_gate.targets.templates import row_values

STDERR_LINES = 5  # quoted in a message
STDERR_KEEP_BYTES = 64 * 1024
STDERR_AFTER_EXIT_S = 1.0  # the rest of stderr read once the tree is gone
IDS_SHOWN = 5  # rows named in a message, the rest counted
POLL_S = 0.05
_SILENT = "silent"  # the deadline passed: no line, or no exit, within timeout_s
_EOF = "eof"


def program_env(env: Mapping[str, str]) -> dict[str, str]:
    """The program's environment: ground-gate's, less the action's inputs (`INPUT_*`: the
    GitHub token and the judge's key). Its own secrets reach it by their own names."""
    return {name: value for name, value in env.items() if not name.startswith("INPUT_")}


def stdin_line(sample: Sample) -> str:
    """What the command reads for one row: one JSON object, one line."""
    values = row_values(sample)
    return json.dumps(values, ensure_ascii=False, default=str) + "\n"


class _End(enum.Enum):
    EOF = "the program closed its output"
    SILENT = "timeout_s passed without a line, or without an exit after the last line"


@dataclass(frozen=True)
class Exchange:
    """What the command answered; why it stopped answering (None when it did not: the run
    cannot be complete otherwise); a notice about it that stops nothing."""

    answers: dict[str, Answer]
    stopped: str | None
    notice: str | None = None


@dataclass
class _Session:
    """One run of the command: what was sent, what came back, and when."""

    shown: str
    samples: dict[str, Sample]
    timeout_s: float
    usage: Usage
    limit: SpendingLimit | None
    answers: dict[str, Answer]
    sent_at: dict[str, float] = field(default_factory=dict)
    answered_on: dict[str, int] = field(default_factory=dict)  # id -> stdout line
    stderr: bytearray = field(default_factory=bytearray)
    unsent: str | None = None  # why some rows were not sent (the target budget)
    notice: str | None = None
    last_line: float = field(default_factory=time.monotonic)

    @property
    def deadline(self) -> float:
        return self.last_line + self.timeout_s

    def stderr_text(self) -> str:
        """Its first lines of stderr, each on one line, control characters shown inert."""
        text = self.stderr.decode("utf-8", "replace")
        lines = [inert(" ".join(line.split())) for line in text.split("\n")]
        lines = [line for line in lines if line][:STDERR_LINES]
        return f"; stderr: {' | '.join(lines)}" if lines else "; nothing on stderr"

    def waiting(self) -> str:
        """The rows without an answer, named (the first IDS_SHOWN) and counted."""
        ids = [row_id for row_id in self.samples if row_id not in self.answers]
        named = ", ".join(f"'{inert(row_id)}'" for row_id in ids[:IDS_SHOWN])
        more = f" and {len(ids) - IDS_SHOWN} more" if len(ids) > IDS_SHOWN else ""
        return f"not answered: {named}{more}"

    def answered(self) -> str:
        return f"{len(self.answers)} of {len(self.samples)} row(s)"


async def ask_command(
    argv: Sequence[str],
    samples: Sequence[Sample],
    *,
    timeout_s: float,
    usage: Usage,
    env: Mapping[str, str],
    limit: SpendingLimit | None = None,
    answers: dict[str, Answer] | None = None,
) -> Exchange:
    """Every row's answer, and why the command stopped answering (None when it did not).
    env: ground-gate's environment; the program gets it without the action's inputs.
    answers: filled as the answers come, so a caller stopped by a signal keeps them."""
    kept: dict[str, Answer] = {} if answers is None else answers
    shown = shlex.join(argv)
    session = _Session(shown, {s.id: s for s in samples}, timeout_s, usage, limit, kept)
    started = time.perf_counter()
    try:
        child = await start(argv, program_env(env))
    except OSError as exc:
        raise TargetError(f"cannot start the command `{shown}`: {exc.strerror}") from None
    try:
        stopped = await _converse(child, session, samples)
    finally:
        await child.end()
        usage.seconds += time.perf_counter() - started
    return Exchange(session.answers, stopped or session.unsent, session.notice)


async def _converse(child: Child, session: _Session, samples: Sequence[Sample]) -> str | None:
    process = child.process
    assert process.stdin and process.stdout and process.stderr
    writer = asyncio.create_task(_write(process.stdin, session, samples))
    errors = asyncio.create_task(_drain(process.stderr, session.stderr))
    try:
        ended: str | _End | None = await _read(process.stdout, session)
        if ended is _End.EOF:
            ended = await _exited(child, session)
        if ended is _End.SILENT:
            ended = _silent(child, session, closed=process.stdout.at_eof())
    finally:
        writer.cancel()
        await asyncio.gather(writer, return_exceptions=True)
    await child.end()  # whatever still runs, and our pipe ends: stderr ends with them
    await _finish(errors)
    if isinstance(ended, str):
        return ended + session.stderr_text()
    _unanswered(session)
    return None


async def _finish(errors: asyncio.Task[None]) -> None:
    """The rest of stderr, read for at most STDERR_AFTER_EXIT_S."""
    done, _ = await asyncio.wait([errors], timeout=STDERR_AFTER_EXIT_S)
    if not done:
        errors.cancel()
    await asyncio.gather(errors, return_exceptions=True)


def _silent(child: Child, session: _Session, *, closed: bool) -> str | None:
    """What the deadline found: a stop when rows are unanswered, a notice when none is."""
    running = child.running()
    if all(row_id in session.answers for row_id in session.sent_at) and (
        session.unsent or len(session.answers) == len(session.samples)
    ):
        session.notice = (
            f"the command `{session.shown}` answered every row it was sent but was still "
            f"running {session.timeout_s:g} s after its last line ({running} process(es) of "
            "it and what it started): they were ended, and its answers are kept"
        )
        return None
    if closed:
        return (
            f"the command `{session.shown}` closed its output after answering "
            f"{session.answered()} ({session.waiting()}) but was still running "
            f"{session.timeout_s:g} s later: it and what it started were ended"
        )
    return (
        f"the command `{session.shown}` gave no answer within {session.timeout_s:g} s after "
        f"answering {session.answered()} ({session.waiting()}): it and what it started were "
        "ended"
    )


async def _write(stdin: asyncio.StreamWriter, session: _Session, samples: Sequence[Sample]) -> None:
    try:
        for sample in samples:
            if session.limit is not None:
                try:
                    ticket = session.limit.reserve((), 0)
                except BudgetExceededError as exc:
                    session.unsent = f"{exc}: {len(samples) - len(session.sent_at)} row(s) not sent"
                    break
                session.limit.settle(ticket, 0, 0)
            session.sent_at[sample.id] = time.perf_counter()
            session.usage.calls += 1
            stdin.write(stdin_line(sample).encode("utf-8"))
            await stdin.drain()
        stdin.close()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the program exited; the reader says how


async def _drain(stream: asyncio.StreamReader, kept: bytearray) -> None:
    while chunk := await stream.read(65536):
        if len(kept) < STDERR_KEEP_BYTES:
            kept.extend(chunk[: STDERR_KEEP_BYTES - len(kept)])


async def _read(stdout: asyncio.StreamReader, session: _Session) -> str | _End:
    """Read answers until end of output or the deadline; why the output cannot be trusted,
    if it cannot. Each line moves the deadline to timeout_s after it."""
    number = 0
    while True:
        try:
            wait = max(0.0, session.deadline - time.monotonic())
            raw = await asyncio.wait_for(stdout.readline(), wait)
        except TimeoutError:
            return _End.SILENT
        except ValueError:  # a line longer than the stream's limit
            return f"the command `{session.shown}` printed a line over {MAX_LINE_BYTES:,} bytes"
        if not raw:
            return _End.EOF
        session.last_line = time.monotonic()
        number += 1
        if not raw.strip():
            continue
        problem = _take(raw, number, session)
        if problem is not None:
            return problem


def _take(raw: bytes, number: int, session: _Session) -> str | None:
    text = raw.decode("utf-8", errors="replace").strip()
    where = f"the command `{session.shown}` printed on stdout line {number}"
    try:
        reply: Any = reply_json(text)
    except DuplicateKeyError as exc:
        return f"{where} JSON in which {exc} ({quote_reply(text, 80)})"
    except ValueError:
        return f"{where} something that is not JSON ({quote_reply(text, 80)}); print logs to stderr"
    if not isinstance(reply, dict):
        return f"{where} JSON that is not an object ({quote_reply(text, 80)})"
    row_id = reply.get("id")
    if isinstance(row_id, bool) or not isinstance(row_id, str | int):
        return f"{where} an object without an id ({quote_reply(text, 80)})"
    row_id = str(row_id)
    if row_id not in session.samples or row_id not in session.sent_at:
        return f"{where} an answer for id '{inert(row_id)}', which is no row it was sent"
    seconds = round(time.perf_counter() - session.sent_at[row_id], 3)
    if row_id in session.answers:
        first = session.answered_on[row_id]
        error = (
            f"the command `{session.shown}` answered row '{row_id}' twice (stdout lines "
            f"{first} and {number})"
        )
        session.answers[row_id] = Answer(row_id, None, seconds=seconds, error=error)
        return None
    session.answered_on[row_id] = number
    session.answers[row_id] = _answer(reply, row_id, seconds, where)
    return None


def _answer(reply: dict[str, Any], row_id: str, seconds: float, where: str) -> Answer:
    response = reply.get("response")
    if not isinstance(response, str) or not response.strip():
        said = "no response" if response is None else "an empty response"
        if response is not None and not isinstance(response, str):
            said = "a response that is not text"
        return Answer(row_id, None, seconds=seconds, error=f"{where} {said} for row '{row_id}'")
    contexts = reply.get("contexts")
    if isinstance(contexts, str):
        contexts = [contexts]
    if contexts is not None and not (
        isinstance(contexts, list) and all(isinstance(c, str) for c in contexts)
    ):
        error = f"{where} contexts that are not a list of texts for row '{row_id}'"
        return Answer(row_id, None, seconds=seconds, error=error)
    kept = tuple(c for c in contexts or () if c.strip()) or None
    return Answer(row_id, response.strip(), kept, seconds=seconds)


async def _exited(child: Child, session: _Session) -> str | _End | None:
    """How the program ended once its output closed: None for exit code 0; SILENT when it
    had not exited by the deadline (its return code read, not its pipes: what it left
    running may hold them)."""
    while child.returncode is None:
        if time.monotonic() >= session.deadline:
            return _End.SILENT
        await asyncio.sleep(POLL_S)
    code = child.returncode
    if code == 0:
        return None
    done = f"after answering {session.answered()}"
    waiting = [row_id for row_id in session.samples if row_id not in session.answers]
    if waiting:
        done += f" (the first without an answer: '{inert(waiting[0])}')"
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
        return f"the command `{session.shown}` was killed by {name} {done}"
    return f"the command `{session.shown}` exited with code {code} {done}"


def _unanswered(session: _Session) -> None:
    """Rows sent that the program, exiting 0, never answered: each is its row's error."""
    for row_id in session.sent_at:
        if row_id not in session.answers:
            error = f"the command `{session.shown}` exited without answering row '{row_id}'"
            session.answers[row_id] = Answer(row_id, None, error=error)
