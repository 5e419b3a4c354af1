"""The rows a session asserted, each once, and the report they make (`--gg-report`).

A row is named by its test's node id, `#2`, `#3`... for a test's later assertions; a test run
again (pytest-rerunfailures, `--lf` in one session) replaces its rows, never adds to them.
Under xdist each worker hands its rows to the controller as JSON (`exported`), which merges
them (`merge`: a row of the same name from two workers is one test run twice, the later
kept) and writes the one report, rows in name order whatever worker ran them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ground_gate.asserting.verdict import Asserted, record
from ground_gate.config.model import SUBSTANCE_DEFAULT, Config
from ground_gate.config.scores import SUBSTANCE
from ground_gate.datasets import Sample
from ground_gate.report.json_report import row_entry
from ground_gate.report.readback import row_result
from ground_gate.stages.report_files import Outcome, ReportFiles, finish, read_report, reviewed

Echo = Callable[[str], None]


def row_name(test: str, index: int) -> str:
    """The report's id of a test's `index`th assertion (from 1)."""
    return test if index == 1 else f"{test}#{index}"


class Collected:
    """The session's asserted rows by name; a test's rows replaced when it runs again."""

    def __init__(self) -> None:
        self.rows: dict[str, Asserted] = {}
        self.judge: dict[str, Any] = {}

    def restart(self, test: str) -> None:
        """`test` runs (again): its rows of an earlier try are dropped."""
        for name in [n for n in self.rows if n == test or n.startswith(f"{test}#")]:
            del self.rows[name]

    def add(self, asserted: Asserted, judge: dict[str, Any]) -> None:
        self.rows[asserted.row.sample_id] = asserted
        self.judge.update(judge)

    def exported(self) -> str:
        """The rows as JSON, for the controller (xdist's workeroutput holds text)."""
        rows = [
            {
                "row": row_entry(a.row),
                "text": [list(a.sample.sources), a.sample.question, a.sample.response],
            }
            for a in self.rows.values()
        ]
        return json.dumps({"rows": rows, "judge": self.judge})

    def merge(self, exported: str) -> None:
        """A worker's rows added (its own process made them: trusted as this one's)."""
        data = json.loads(exported)
        for item in data["rows"]:
            sources, question, response = item["text"]
            row = row_result(item["row"])
            sample = Sample(row.sample_id, tuple(sources), response, question)
            self.rows[row.sample_id] = Asserted(row, sample)
        self.judge.update(data["judge"])

    def write(
        self, config: Config, path: Path, echo: Echo, baseline: Path | None = None
    ) -> Outcome:
        """The report of every row asserted, held to the config's thresholds as `ground-gate
        run` holds a dataset's (against `baseline`, an earlier report, as `run --baseline`
        compares); written to `path` (JSON)."""
        rows = [self.rows[name] for name in sorted(self.rows)]
        thresholds = {SUBSTANCE: SUBSTANCE_DEFAULT, **config.thresholds}
        judge = self.judge or {"provider": config.judge.provider, "model": config.judge.model}
        before = read_report(baseline, name=f"baseline {baseline}") if baseline else None
        made = reviewed(record(config, rows, thresholds, judge), before)
        files = ReportFiles(
            json=path,
            flags=("--gg-report", "", "", ""),
            hint="remove it, or give --gg-report another path",
        )
        return finish(made, files, echo)
