"""Dataset rows -> `Sample`s: JSONL (streamed line by line), JSON and CSV.

- `formats`: reading the files, with line numbers (syntax only).
- `fields`: which column is the id, question, context and response (`fields` or usual names).
- `validation`: each row's values checked and turned into a `Sample` (`sample`).
- `loader`: a configured dataset -> its Samples (unique ids, `limit`).

Every problem is a DatasetError that names the file and line (and the row, for JSON and CSV).
"""

from __future__ import annotations

from ground_gate.datasets.fields import CANDIDATES, ROLES
from ground_gate.datasets.formats import FORMATS
from ground_gate.datasets.loader import iter_samples, load_samples
from ground_gate.datasets.sample import HeldAnswer, Sample

__all__ = ["CANDIDATES", "FORMATS", "ROLES", "HeldAnswer", "Sample", "iter_samples", "load_samples"]
