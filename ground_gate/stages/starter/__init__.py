"""`ground-gate init`'s stage: a user's columns guessed (`columns.py`) and the starter config
and workflow written as text (`text.py`). Pure: the command reads the rows and writes the files;
`origin.py` alone reads, where ground-gate came from (its action's owner), and never fails.
"""

from ground_gate.stages.starter.columns import ASKED_BY, guess_columns
from ground_gate.stages.starter.text import Judge, config_text, workflow_text

__all__ = ["ASKED_BY", "Judge", "config_text", "guess_columns", "workflow_text"]
