"""The markdown's line per target: who answered a dataset's rows (the prompt file and
model, the URL or the command), how many, and what it spent apart from the judge."""

from __future__ import annotations

from collections.abc import Mapping

from ground_gate.render.escape import cell, code
from ground_gate.report.types import Report
from ground_gate.review import words


def target_lines(report: Report) -> list[str]:
    """Who answered the rows, when a dataset has a target: what defines it, how many rows it
    answered, and its usage, apart from the judge's. Every string is escaped (a fork's report
    is rendered here too)."""
    lines = []
    for entry in report.get("targets", []):
        raw: Mapping[str, object] = entry  # what defines it: open
        kind = entry["kind"]
        if kind == "prompt":
            model = cell(str(raw.get("model", "")), 60)
            what = f"prompt `{code(str(raw.get('prompt', '')))}` on {model}"
        elif kind == "http":
            what = f"http `{code(str(raw.get('url', '')))}`"
        else:
            argv = raw.get("argv")
            what = f"command `{code(' '.join(map(str, argv if isinstance(argv, list) else [])))}`"
        usage = entry["usage"]
        text = words.ANSWERED_BY.format(
            dataset=f"**{cell(entry['dataset'], 60)}**",
            what=what,
            answered=entry["answered"],
            rows=entry["rows"],
            errors=entry["errors"],
            calls=usage["calls"],
            hits=usage["cache_hits"],
        )
        if kind == "prompt":
            tokens = (usage["prompt_tokens"], usage["completion_tokens"])
            text += words.TOKENS.format(prompt=f"{tokens[0]:,}", completion=f"{tokens[1]:,}")
        lines.append(text + ".")
    return [*lines, ""] if lines else []
