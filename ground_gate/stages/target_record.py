"""A dataset's target as the record and the report keep it (the report's `targets`
entries): made from what it answered, and joined across shards. Plain data, no I/O."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ground_gate.leaves.errors import MergeError
from ground_gate.targets.answers import Answered, usage_entry

# A target entry's fields that say what it did (the others say what it was).
_DONE = ("usage", "seconds", "rows", "answered", "errors", "failed", "stopped")


def target_entry(outcome: Answered) -> dict[str, Any]:
    """What defined the dataset's target, what it spent, and the rows it failed (counted
    apart from the judge's errors)."""
    return {
        "dataset": outcome.dataset,
        **outcome.definition,
        "usage": usage_entry(outcome.usage),
        "seconds": outcome.seconds,
        "rows": len(outcome.order),
        "answered": sum(1 for a in outcome.answers.values() if a.ok),
        "errors": len(outcome.failed),
        "failed": [{"id": a.id, "error": a.error} for a in outcome.failed],
        "stopped": outcome.stopped,
    }


def merged_targets(
    shards: Sequence[tuple[str, Sequence[Mapping[str, Any]]]],
) -> tuple[dict[str, Any], ...]:
    """The merged record's `targets` from its shards' ((name, entries) pairs): per dataset,
    counts and usage summed, failed rows joined, the slowest answering time, the first stop.
    A target defined differently in one shard (another prompt file digest, model, URL or
    argv) is refused: its answers are not the other shards'."""
    merged: dict[str, dict[str, Any]] = {}
    for name, entries in shards:
        for entry in entries:
            found = merged.get(entry["dataset"])
            if found is None:
                merged[entry["dataset"]] = copy.deepcopy(dict(entry))
                continue
            if _definition(found) != _definition(entry):
                raise MergeError(
                    f"{name}: the target of dataset '{entry['dataset']}' is not the other "
                    "shards' (its prompt file, model, URL or command differs)"
                )
            for key in ("rows", "answered", "errors"):
                found[key] += entry[key]
            for key, value in entry["usage"].items():
                found["usage"][key] = round(found["usage"][key] + value, 3)
            found["failed"] = [*found["failed"], *entry["failed"]]
            found["seconds"] = max(found["seconds"], entry["seconds"])
            found["stopped"] = found["stopped"] or entry["stopped"]
    return tuple(merged.values())


def _definition(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in _DONE}
