"""A command target: a program started once per run that speaks JSON lines.

ground-gate writes one JSON object per row to its stdin (the row's columns, then `id`,
`question` and `context` as the dataset defines them) and closes it; the program writes one
object per line to stdout, `{"id": ..., "response": ..., "contexts": [...]}` (contexts
optional), in any order. Its stderr is kept to quote when something goes wrong.

A row answered badly (an empty or missing response, contexts that are not text, an id
answered twice) is that row's error. Output that cannot be trusted stops the target, keeping
the answers before it: a line that is not a JSON object, an object without a known id, no new
line within timeout_s, or a program that exits non-zero or dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shlex
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ground_gate.datasets import Sample
from ground_gate.errors import TargetError
from ground_gate.json_keys import DuplicateKeyError
from ground_gate.judge.base import quote_reply
from ground_gate.judge.budget import BudgetExceededError, SpendingLimit
from ground_gate.process_group import own_group, signal_group
from ground_gate.targets.answers import Answer
from ground_gate.targets.reply import reply_json
from ground_gate.targets.templates import row_values
from ground_gate.usage import Usage

MAX_LINE_BYTES = 16 * 1024 * 1024
STDERR_LINES = 5  # quoted in a message
STDERR_KEEP_BYTES = 64 * 1024
REAP_POLL_S = 0.1  # how soon after the program exits its leftover children are ended


def program_env(env: Mapping[str, str]) -> dict[str, str]:
    """The program's environment: ground-gate's, less the action's inputs (`INPUT_*`: the
    GitHub token and the judge's key). Its own secrets reach it by their own names."""
    return {name: value for name, value in env.items() if not name.startswith("INPUT_")}


def stdin_line(sample: Sample) -> str:
    """What the command reads for one row: one JSON object, one line."""
    values = row_values(sample)
    return json.dumps(values, ensure_ascii=False, default=str) + "\n"


@dataclass
class _Session:
    """One run of the command: what was sent, what came back."""

    shown: str
    samples: dict[str, Sample]
    timeout_s: float
    usage: Usage
    limit: SpendingLimit | None
    sent_at: dict[str, float] = field(default_factory=dict)
    answers: dict[str, Answer] = field(default_factory=dict)
    answered_on: dict[str, int] = field(default_factory=dict)  # id -> stdout line
    stderr: bytearray = field(default_factory=bytearray)
    unsent: str | None = None  # why some rows were not sent (the target budget)

    def stderr_text(self) -> str:
        lines = [
            " ".join(line.split()) for line in self.stderr.decode("utf-8", "replace").split("\n")
        ]
        lines = [line for line in lines if line][:STDERR_LINES]
        return f"; stderr: {' | '.join(lines)}" if lines else "; nothing on stderr"


async def ask_command(
    argv: Sequence[str],
    samples: Sequence[Sample],
    *,
    timeout_s: float,
    usage: Usage,
    env: Mapping[str, str],
    limit: SpendingLimit | None = None,
) -> tuple[dict[str, Answer], str | None]:
    """Every row's answer, and why the command stopped answering (None when it did not).
    env: ground-gate's environment; the program gets it without the action's inputs."""
    session = _Session(shlex.join(argv), {s.id: s for s in samples}, timeout_s, usage, limit)
    started = time.perf_counter()
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=MAX_LINE_BYTES,
            env=program_env(env),
            **own_group(),
        )
    except OSError as exc:
        raise TargetError(f"cannot start the command `{session.shown}`: {exc.strerror}") from None
    reaper = asyncio.create_task(_end_group_after(process))
    try:
        stopped = await _converse(process, session, samples)
    finally:
        reaper.cancel()
        await _stop(process)
        usage.seconds += time.perf_counter() - started
    return session.answers, stopped or session.unsent


async def _converse(
    process: asyncio.subprocess.Process, session: _Session, samples: Sequence[Sample]
) -> str | None:
    assert process.stdin and process.stdout and process.stderr
    writer = asyncio.create_task(_write(process.stdin, session, samples))
    errors = asyncio.create_task(_drain(process.stderr, session.stderr))
    try:
        stopped = await _read(process.stdout, session)
        if stopped is None:
            stopped = await _exited(process, session, errors)
    finally:
        writer.cancel()
        await asyncio.gather(writer, return_exceptions=True)
    if stopped is not None:
        await _stop(process)
        await asyncio.gather(errors, return_exceptions=True)
        return stopped + session.stderr_text()
    _unanswered(session)
    return None


async def _end_group_after(process: asyncio.subprocess.Process) -> None:
    """Once the program exits, what it left running in its group goes too: a background child
    holding stdout open would otherwise keep the run waiting for output that never comes.
    What the program wrote before it exited stays readable in the pipe. Polled: asyncio's
    `wait()` returns only once the pipes close, which is what such a child prevents."""
    while process.returncode is None:
        await asyncio.sleep(REAP_POLL_S)
    signal_group(process.pid)


async def _stop(process: asyncio.subprocess.Process) -> None:
    """The program and everything in its group killed, and the program waited for."""
    signal_group(process.pid)
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):  # it exited but was not waited for yet
            process.kill()
        await process.wait()


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


async def _read(stdout: asyncio.StreamReader, session: _Session) -> str | None:
    """Read answers until end of output; why the output cannot be trusted, if it cannot."""
    number = 0
    while True:
        try:
            raw = await asyncio.wait_for(stdout.readline(), session.timeout_s)
        except TimeoutError:
            done = len(session.answers)
            return (
                f"the command `{session.shown}` gave no answer within {session.timeout_s:g} s "
                f"({done} of {len(session.samples)} row(s) answered)"
            )
        except ValueError:  # a line longer than the stream's limit
            return f"the command `{session.shown}` printed a line over {MAX_LINE_BYTES:,} bytes"
        if not raw:
            return None
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
        return f"{where} an answer for id '{row_id}', which is no row it was sent"
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


async def _exited(
    process: asyncio.subprocess.Process, session: _Session, errors: asyncio.Task[None]
) -> str | None:
    """How the program ended once its output closed: None for exit code 0."""
    try:
        code = await asyncio.wait_for(process.wait(), session.timeout_s)
    except TimeoutError:
        return f"the command `{session.shown}` closed its output but did not exit"
    await asyncio.gather(errors, return_exceptions=True)
    if code == 0:
        return None
    done = f"after answering {len(session.answers)} of {len(session.samples)} row(s)"
    waiting = [row_id for row_id in session.samples if row_id not in session.answers]
    if waiting:
        done += f" (the first without an answer: '{waiting[0]}')"
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
