"""One `ground-gate run` in its own process, timed from its start to its exit, and the JSON
report it wrote: what the target benchmarks (target_speed.py, demo_answers.py) measure."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def timed_run(
    config: Path,
    report: Path,
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    extra: Sequence[str] = (),
) -> tuple[int, float, dict[str, Any]]:
    """(exit code, wall seconds, the JSON report) of `ground-gate run -c config`."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "ground_gate", "run", "-c", str(config), "--quiet",
         "--output-json", str(report), *extra],
        cwd=cwd, env=None if env is None else dict(env), capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    seconds = time.monotonic() - started
    return done.returncode, seconds, json.loads(report.read_text(encoding="utf-8"))
