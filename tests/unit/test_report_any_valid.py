"""Any report the published schema accepts renders: the renderers read only what the schema
(and report/types.py) promise, so a pull request's report that passed the schema check can
be rendered without a guard around the renderers (action.render_claim, `ground-gate
report`). Each case is one of the test corpora changed where the schema allows it (an
optional key dropped, a nullable value null, a list emptied, text made hostile, a number at
its bound); a change the schema refuses is not a case."""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from ground_gate.report.schema import inconsistency, schema_problems
from tests.golden.corpora import CORPORA
from tests.rendered import render_html, render_junit, render_markdown, render_terminal

HOSTILE = ["", " ", "|`<b>x</b>`|", "\u202e\x1b[2J", "a" * 5000, "@team #1 ](javascript:x)"]
CASES = 40  # per corpus: 200 changed reports


@functools.cache
def _corpus(name: str) -> dict[str, Any]:
    """The corpus with a few of its rows of each kind (passing, failing, with changed
    sentences, of each dataset), so that a case takes a tenth of a second."""
    report = dict(CORPORA[name]())
    rows = report["rows"]
    kinds = [
        rows[:4],
        [r for r in rows if r["failing"]][:4],
        [r for r in rows if r.get("baseline", {}).get("changes")][:3],
        [next(r for r in rows if r["dataset"] == d["name"]) for d in report["datasets"]],
    ]
    chosen = {id(r): r for kind in kinds for r in kind}
    report["rows"] = [r for r in rows if id(r) in chosen]
    return report


def _places(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _places(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _places(value, (*path, index))


def _set(report: dict[str, Any], path: tuple[Any, ...], value: Any, drop: bool = False) -> None:
    parent = report
    for step in path[:-1]:
        parent = parent[step]
    if drop:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value


def _changed(report: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = copy.deepcopy(report)
    for _ in range(rng.randint(1, 4)):
        path, value = rng.choice(list(_places(out))[1:])
        if isinstance(value, str):
            new: Any = rng.choice(HOSTILE)
        elif isinstance(value, bool):
            new = not value
        elif isinstance(value, int | float):
            new = rng.choice([0, 1, 0.0, 1.0, 0.5, 10**6])
        elif isinstance(value, list):
            new = []
        else:
            new = rng.choice([None, {}])
        trial = copy.deepcopy(out)
        _set(trial, path, new, drop=rng.random() < 0.3)
        if _accepted(trial):
            out = trial
    return out


def _accepted(report: dict[str, Any]) -> bool:
    """Whether a report enters as report_files.checked_report lets one in."""
    return not schema_problems(report) and inconsistency(report) is None


def _cases() -> list[tuple[str, int]]:
    return [(name, seed) for name in CORPORA for seed in range(CASES)]


@pytest.mark.parametrize(("corpus", "seed"), _cases())
def test_report__every_schema_valid_change_of_a_corpus_renders(corpus: str, seed: int) -> None:
    report = _changed(_corpus(corpus), random.Random(seed))
    assert _accepted(report)
    for name, text in [
        ("markdown", render_markdown(report)),
        ("claim", render_markdown(report, unverified=True, page_url="https://x/p.html")),
        ("html", render_html(report)),
        ("junit", render_junit(report)),
        ("terminal", render_terminal(report, width=80, exit_code=1)),
    ]:
        assert isinstance(text, str) and text, name


def _twice_named(report: dict[str, Any]) -> None:
    report["datasets"].append(dict(report["datasets"][0]))


def _row_elsewhere(report: dict[str, Any]) -> None:
    report["rows"][1]["dataset"] = "nowhere"


def _row_twice(report: dict[str, Any]) -> None:
    report["rows"].append(copy.deepcopy(report["rows"][0]))


def _score_elsewhere(report: dict[str, Any]) -> None:
    report["scores"][0]["dataset"] = "nowhere"


def _score_twice(report: dict[str, Any]) -> None:
    report["scores"].append(copy.deepcopy(report["scores"][0]))


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (_twice_named, "is named twice in datasets"),
        (_row_elsewhere, "rows[1] is of dataset nowhere, which datasets does not name"),
        (_row_twice, "is given twice (rows[0] and rows["),
        (_score_elsewhere, "scores[0] is of dataset nowhere, which datasets does not name"),
        (_score_twice, "is summed up twice"),
    ],
)
def test_inconsistency__what_the_schema_cannot_say_refuses_the_report(
    tmp_path: Path, change: Any, said: str
) -> None:
    report = copy.deepcopy(_corpus("synthetic-12"))
    assert inconsistency(report) is None
    change(report)
    assert schema_problems(report) == []  # the schema alone lets it in
    assert said in (inconsistency(report) or "")
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(report), encoding="utf-8")
    result = CliRunner().invoke(cli, ["report", str(saved)])
    assert result.exit_code == 2 and said in result.output
    assert "Traceback" not in result.output
