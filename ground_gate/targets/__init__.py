"""The system under test: each row's response, asked of a dataset's target before scoring.

A stage between datasets and the runner (DESIGN.md): it knows nothing of metrics or reports.

- `templates`: `{{placeholder}}` templates, checked against the rows before any call.
- `prompt`, `http`, `command`: one module per kind of target.
- `prepare`: a target made ready (every row's request rendered and checked).
- `asking`: asking it, a bounded number of rows at once, stopping when it cannot go on.
- `cache`: an http or command target's answers, kept while its `depends_on` files are unchanged.
- `answers`: what it produced and spent; `responses`: responses.jsonl; `inputs`: the files
  it reads, which nothing the run writes may overwrite.
"""

from __future__ import annotations

from ground_gate.targets.answers import TARGET_ERROR_PREFIX, Answer, Answered, answered_sample
from ground_gate.targets.asking import answer_all, answer_target
from ground_gate.targets.inputs import target_inputs
from ground_gate.targets.prepare import Prepared, prepare_target
from ground_gate.targets.responses import RESPONSES_FILE, responses_text

__all__ = [
    "RESPONSES_FILE",
    "TARGET_ERROR_PREFIX",
    "Answer",
    "Answered",
    "Prepared",
    "answer_all",
    "answer_target",
    "answered_sample",
    "prepare_target",
    "responses_text",
    "target_inputs",
]
