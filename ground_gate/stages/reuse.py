"""A row's verdicts taken from the baseline when nothing they depend on changed.

Each row of a report carries a key: a digest of everything its verdicts depend on, the row
as the judge reads it (its source, question and response after hidden and addressed text was
taken out, both readings of styled text) and the run's parts (`KeyParts`): the judge (its
provider, model, endpoint, sampling settings and, for the local judge, the model file's
checksum), the prompts' version, the metrics' settings and the scorer's version. A run with
`--baseline` takes, for every row whose key equals the baseline row's of the same id, that
row's verdicts from the baseline report itself (no cache): its change is exactly 0. A row
whose key differs in any part is judged again. When the baseline's parts differ, no row can
match, and `Reuse.none_because` says which part differed.

With the `answers` metric on, each row also carries a context key: that of its answerable
verdict, which reads the question and the source, never the answer. A row judged again whose
context key equals the baseline row's takes that verdict (`Sample.held`): no call, its side
and its context_relevance exactly the baseline's, so that a pull request that changed only
answers cannot move a row across `answerable_at` on judge noise; such a row cannot be a
context regression, so the regression check need not wait for it (verdict/settling.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ground_gate import __version__
from ground_gate.config.keys import run_only
from ground_gate.config.model import Config, JudgeConfig
from ground_gate.datasets import HeldAnswer, Sample
from ground_gate.leaves.results import RowResult
from ground_gate.leaves.usage import Usage
from ground_gate.metrics.answers import ANSWERS, held_answer
from ground_gate.report.readback import row_result
from ground_gate.report.types import Report

RowKey = tuple[str, str]  # (dataset, row id)
# what each part of the key is, in words, for the reason nothing was reused
PART_WORDS = {
    "judge": "another judge (model, its file, endpoint or sampling settings)",
    "prompts": "another version of the judge's prompts",
    "method": "other metric settings",
    "scorer": "another version of ground-gate",
}
# what places a row, or what this run knows of it, not what it says
_NOT_ROW_TEXT = frozenset({"id", "line", "key", "row", "held"})


def digest(value: Any) -> str:
    """ "sha256:<hex>" of `value` as canonical JSON (sorted keys; paths and the like as text)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class KeyParts:
    """The run's parts of every row's key, each "sha256:<hex>" or a version."""

    judge: str
    prompts: str
    method: str
    scorer: str

    def as_dict(self) -> dict[str, str]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def row_key(self, sample: Sample) -> str:
        """The key of `sample`'s verdicts in a run with these parts."""
        return digest({"parts": self.as_dict(), "row": _row_text(sample)})

    def context_key(self, sample: Sample) -> str:
        """The key of `sample`'s answerable verdict in a run with these parts: what that
        verdict reads (the question, the sources, the dataset's own context a target's
        replaced, a stated answerable), never the answer."""
        read = {f: getattr(sample, f) for f in ("question", "sources", "reference", "answerable")}
        return digest({"parts": self.as_dict(), "context": read})

    def first_difference(self, other: Mapping[str, str] | None) -> str | None:
        """The first part `other` (a baseline's) differs in, in words; None: none does."""
        if other is None:
            return "the baseline has no verdict keys (a report from before they were kept)"
        for name, value in self.as_dict().items():
            if other.get(name) != value:
                return f"the baseline was judged with {PART_WORDS[name]}"
        return None


def _row_text(sample: Sample) -> dict[str, Any]:
    """What the judge reads of a row, and what decides how it reads it."""
    said = {f.name: getattr(sample, f.name) for f in fields(sample) if f.name not in _NOT_ROW_TEXT}
    kept = sample.uncertain_kept
    said["uncertain_kept"] = None if kept is None else _row_text(kept)
    return said


def key_parts(config: Config, prompt_version: str, model_checksum: str | None) -> KeyParts:
    """The parts of this run's keys. model_checksum: the local judge's model file's sha256
    (None for a remote judge: its model is named, its weights are not known)."""
    return KeyParts(
        judge=digest({**_judge_settings(config.judge), "model_sha256": model_checksum}),
        prompts=prompt_version,
        method=digest(asdict(config.metrics)),
        scorer=__version__,
    )


def _judge_settings(judge: JudgeConfig) -> dict[str, Any]:
    """The judge's settings that can change a verdict (not where its cache lives, its
    timeouts, retries, concurrency, prices or key)."""
    skipped = run_only(JudgeConfig)
    return {f.name: getattr(judge, f.name) for f in fields(judge) if f.name not in skipped}


def model_checksum(judge: JudgeConfig) -> str | None:
    """The local judge's model file's sha256: the registry's for a model it names (checked
    against the file before it is served), else the file's own, read now; None for a remote
    judge or a local model file not there yet (nothing is then reused)."""
    if judge.provider != "local":
        return None
    from ground_gate.local.registry import KNOWN_MODELS

    name = judge.model.replace("\\", "/").rsplit("/", 1)[-1]
    for model in KNOWN_MODELS.values():
        if name in (model.name, model.filename):
            return model.sha256
    path = Path(judge.model).expanduser()
    if not path.is_file():
        return None
    sha = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


@dataclass(frozen=True)
class Reuse:
    """What a run takes from its baseline: the rows reused (their verdicts as the baseline
    gave them, nothing spent), and why none was, when none was."""

    rows: Mapping[RowKey, RowResult]
    none_because: str | None = None


def baseline_parts_differ(baseline: Report, parts: KeyParts) -> str | None:
    """The first of the run's key parts the baseline's differ in, in words; None: none does."""
    theirs = baseline.get("verdict_key")
    return parts.first_difference(
        None if theirs is None else {k: str(v) for k, v in theirs.items()}
    )


def reuse_from(baseline: Report, parts: KeyParts, keys: Mapping[RowKey, str]) -> Reuse:
    """The baseline's rows whose key equals this run's (`keys`: each row's, by dataset and id)."""
    why = baseline_parts_differ(baseline, parts)
    if why is not None:
        return Reuse({}, why)
    reused = {}
    for entry in baseline["rows"]:
        place = (entry["dataset"], entry["id"])
        if "key" not in entry or keys.get(place) != entry["key"]:
            continue
        row = row_result(entry)
        if all(m.status != "error" for m in row.metrics):  # a failure is judged again
            reused[place] = spent_nothing(row)
    if not reused:
        return Reuse({}, "every row's question, source or answer changed since the baseline")
    return Reuse(reused)


def spent_nothing(row: RowResult) -> RowResult:
    """A row judged before (a baseline's, a recorded verdict) as this run keeps it: its
    verdicts, no judge call spent on it now."""
    return replace(
        row,
        seconds=0.0,
        metrics=tuple(replace(m, usage=Usage(), cost=Usage()) for m in row.metrics),
    )


def keys_of(parts: KeyParts, work: Iterable[tuple[str, Iterable[Sample]]]) -> dict[RowKey, str]:
    """Every row's key, by dataset and id."""
    return {(name, s.id): parts.row_key(s) for name, samples in work for s in samples}


def context_keys_of(
    parts: KeyParts, work: Iterable[tuple[str, Iterable[Sample]]]
) -> dict[RowKey, str]:
    """Every row's context key: that of its answerable verdict, which reads the question and
    the source, never the answer (metrics/answers.py)."""
    return {(name, s.id): parts.context_key(s) for name, samples in work for s in samples}


def held_from(
    baseline: Report, context_keys: Mapping[RowKey, str], skipped: Iterable[RowKey]
) -> dict[RowKey, HeldAnswer]:
    """The baseline's answerable verdicts of the rows (not `skipped`: reused whole) whose
    context key equals this run's: the pull request changed their answers, not what the
    verdict reads (a context key holds the run's parts, so another judge matches none)."""
    skip = set(skipped)
    held = {}
    for entry in baseline["rows"]:
        place = (entry["dataset"], entry["id"])
        if place in skip or place not in context_keys or "context_key" not in entry:
            continue  # reused whole, not in this run, or a baseline without context keys
        if context_keys[place] != entry["context_key"]:
            continue
        result = next((m for m in row_result(entry).metrics if m.metric == ANSWERS), None)
        found = held_answer(result) if result is not None else None
        if found is not None:
            held[place] = found
    return held


@dataclass(frozen=True)
class ReusePlan:
    """A run's keys, and with a baseline the rows it takes from it whole (`reused`) and the
    answerable verdicts it takes for rows whose answers alone changed (`held`)."""

    parts: KeyParts
    keys: Mapping[RowKey, str]
    reuse: Reuse | None  # None: no baseline was given
    context_keys: Mapping[RowKey, str] = field(default_factory=dict)  # with `answers` on
    held: Mapping[RowKey, HeldAnswer] = field(default_factory=dict)

    @property
    def reused(self) -> Mapping[RowKey, RowResult]:
        return {} if self.reuse is None else self.reuse.rows

    def left(
        self, work: Iterable[tuple[str, Iterable[Sample]]]
    ) -> tuple[tuple[str, tuple[Sample, ...]], ...]:
        """The rows to judge: every row not reused, each holding its reused answerable
        verdict, if it has one."""
        return tuple(
            (name, tuple(self._holding(name, s) for s in rows if (name, s.id) not in self.reused))
            for name, rows in work
        )

    def _holding(self, name: str, sample: Sample) -> Sample:
        held = self.held.get((name, sample.id))
        if held is None:
            return sample
        kept = sample.uncertain_kept  # the reading with the response's uncertain text kept
        return replace(
            sample, held=held, uncertain_kept=None if kept is None else replace(kept, held=held)
        )


def plan_reuse(
    config: Config,
    work: Sequence[tuple[str, Sequence[Sample]]],
    baseline: Report | None,
    prompt_version: str,
) -> ReusePlan:
    """Every row's key and, with a baseline, the rows whose verdicts it already holds."""
    parts = key_parts(config, prompt_version, model_checksum(config.judge))
    keys = keys_of(parts, work)
    contexts = context_keys_of(parts, work) if config.metrics.answers is not None else {}
    if baseline is None:
        return ReusePlan(parts, keys, None, contexts)
    reuse = reuse_from(baseline, parts, keys)
    # a context key holds the run's parts: a baseline with other parts matches none
    return ReusePlan(parts, keys, reuse, contexts, held_from(baseline, contexts, reuse.rows))
