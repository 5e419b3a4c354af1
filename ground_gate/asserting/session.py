"""A pytest session's groundedness assertions: the config read once, verdicts replayed from the
store or judged (the judge opened on the first answer no verdict is recorded for, on an event
loop of its own so a test's own loop is never touched), each row held to its thresholds, the
rows kept for the report.

Under pytest-xdist the workers share the local judge's one server (local/shared.py), started
by the first worker that needs it and stopped by the controller; a remote judge needs no
sharing (each worker's client calls it).
"""

from __future__ import annotations

import asyncio
import shlex
import threading
from collections.abc import Callable, Coroutine, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from ground_gate.asserting.call import Asked, asked
from ground_gate.asserting.collected import Collected, row_name
from ground_gate.asserting.reach import unreachable
from ground_gate.asserting.settings import DATASET, Settings
from ground_gate.asserting.store import VerdictStore
from ground_gate.asserting.verdict import Asserted, failed, failure_message, one_row
from ground_gate.config.loader import load_config
from ground_gate.config.model import Config
from ground_gate.judge.base import Judge
from ground_gate.judge.factory import describe, open_judge
from ground_gate.leaves.errors import JudgeUnavailableError
from ground_gate.leaves.results import RowResult
from ground_gate.local.server import LocalServer
from ground_gate.local.shared import shared_server
from ground_gate.metrics import build_metrics
from ground_gate.metrics.groundedness import Groundedness
from ground_gate.metrics.prompts import PROMPT_VERSION
from ground_gate.review.selection import BAD_VERDICTS
from ground_gate.stages.evidence import add_evidence
from ground_gate.stages.reuse import key_parts, model_checksum, spent_nothing
from ground_gate.stages.runner import RunResult, score_row

T = TypeVar("T")
Echo = Callable[[str], None]
Kind = Literal["passed", "failed", "unreachable", "not recorded"]


@dataclass(frozen=True)
class Checked:
    """How one assertion ended: passed, failed (message: why), the judge unreachable
    (message: why) or, replaying only, no verdict recorded (message: how to record it);
    replayed: its verdict came from the store."""

    kind: Kind
    message: str = ""
    replayed: bool = False


class GroundSession:
    """One pytest process's assertions (a worker's, under xdist)."""

    def __init__(self, settings: Settings, env: Mapping[str, str], echo: Echo) -> None:
        self.settings = settings
        self.env = env
        self.echo = echo
        self.store = VerdictStore(settings.store)
        self.collected = Collected()
        self.counts = {"judged": 0, "replayed": 0, "recorded": 0}
        self._config: Config | None = None
        self._checksum: str | None = None
        self._judge: Judge | None = None
        self._info: dict[str, Any] = {}
        self._unreachable: str | None = None
        self._stack = ExitStack()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def config(self) -> Config:
        """The config, read on first use (ConfigError names the file, line and key)."""
        if self._config is None:
            self._config = load_config(self.settings.config, self.env)
            self._checksum = model_checksum(self._config.judge)
            self._info = describe(self._config.judge, PROMPT_VERSION)
        return self._config

    def check(
        self,
        test: str,
        index: int,
        answer: object,
        source: object,
        question: object = None,
        *,
        metrics: object = None,
        thresholds: object = None,
    ) -> Checked:
        """One assertion: its row replayed or judged, then held to its thresholds."""
        config = self.config
        call = asked(
            config, row_name(test, index), answer, source, question,
            metrics=metrics, thresholds=thresholds,
        )  # fmt: skip
        parts = key_parts(replace(config, metrics=call.metrics), PROMPT_VERSION, self._checksum)
        key = parts.row_key(call.sample)
        row = None
        if self.settings.mode != "record":
            row = self.store.get(key, DATASET, call.sample.id)
        replayed = row is not None
        if row is not None:
            row = spent_nothing(row)
            self.counts["replayed"] += 1
        elif self.settings.mode == "replay":
            return Checked("not recorded", _not_recorded(test, self.settings))
        else:
            try:
                row = self._judged(call)
            except JudgeUnavailableError as exc:
                self._unreachable = self._unreachable or str(exc)
                return Checked("unreachable", self._unreachable)
        asserted = Asserted(row, call.sample)
        made = one_row(config, asserted, call.thresholds, self._info, call.metrics)
        if not replayed and failed(made):
            asserted = Asserted(self._quoted(call, row), call.sample)
            made = one_row(config, asserted, call.thresholds, self._info, call.metrics)
        if not replayed and not _errored(asserted.row):
            self.store.put(key, asserted.row, test, self._info)
            self.counts["recorded"] += 1
        self.collected.add(asserted, self._info)
        if failed(made):
            return Checked("failed", failure_message(made, test), replayed)
        return Checked("passed", replayed=replayed)

    def _judged(self, call: Asked) -> RowResult:
        """The row judged; JudgeUnavailableError when the judge cannot be reached."""
        judge = self._open()
        metrics = build_metrics(call.metrics)
        row = self._run(score_row(DATASET, call.sample, metrics, judge))
        self.counts["judged"] += 1
        return row

    def _quoted(self, call: Asked, row: RowResult) -> RowResult:
        """A failing row with the source's words quoted for its groundedness units not in the
        source or contradicted (evidence: shown, as the comment shows them)."""
        grounded = self.config.metrics.groundedness
        judge = self._judge
        if grounded is None or grounded.evidence != "shown" or judge is None:
            return row
        found = [m for m in row.metrics if m.metric == "groundedness" and m.status == "ok"]
        if not found:
            return row
        bad = [i for i, u in enumerate(found[0].units) if u.verdict in BAD_VERDICTS]
        result = RunResult(rows=[row])
        place = (row.dataset, row.sample_id)
        coroutine = add_evidence(
            result, {place: call.sample}, {place: bad}, Groundedness(grounded), judge,
            row_concurrency=1,
        )  # fmt: skip
        self._run(coroutine)
        return result.rows[0]

    def _open(self) -> Judge:
        """The judge, opened on first use; JudgeUnavailableError (why kept) when it cannot
        be reached, asked once."""
        if self._judge is not None:
            return self._judge
        if self._unreachable is None:
            self._unreachable = unreachable(self.config.judge, self.env)
        if self._unreachable is not None:
            raise JudgeUnavailableError(self._unreachable)
        judge, info = self._stack.enter_context(
            open_judge(
                self.config.judge, self.env, prompt_version=PROMPT_VERSION, no_cache=False,
                echo=self.echo, share=self._share(),
            )
        )  # fmt: skip
        self._judge, self._info = judge, info
        return judge

    def _share(self) -> Callable[[Callable[[], LocalServer]], tuple[str, str]] | None:
        directory, owner = self.settings.shared_dir, self.settings.owner_pid
        if directory is None or owner is None:
            return None

        def share(make: Callable[[], LocalServer]) -> tuple[str, str]:
            found = shared_server(Path(directory), owner, make)
            return found.base_url, found.model_file

        return share

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
            self._thread.start()
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def close(self) -> None:
        """The judge closed, a server this process started stopped, the loop ended."""
        judge = self._judge
        close = getattr(judge, "aclose", None)
        if close is not None:
            self._run(close())
        self._stack.close()
        loop, thread = self._loop, self._thread
        self._loop = self._thread = None
        if loop is not None and thread is not None:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()


def _errored(row: RowResult) -> bool:
    """A row a metric could not score is never recorded: it is judged again next time."""
    return any(m.status == "error" for m in row.metrics)


def _not_recorded(test: str, settings: Settings) -> str:
    return (
        f"ground-gate: no verdict in {settings.store} is recorded for this answer as the judge "
        "now reads it (the answer, its source or question, the judge, its prompts or the "
        "metrics' settings are new or changed), and --gg-mode=replay judges nothing. "
        f"Record it:\n  pytest --gg-mode=auto {shlex.quote(test)}"
    )
