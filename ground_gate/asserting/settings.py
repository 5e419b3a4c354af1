"""The plugin's options as the session reads them (the plugin parses the command line and the
ini file; this is the one shape the rest trusts)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

# auto: replay what is recorded, judge (and record) the rest; replay: never judge, an answer
# with no recorded verdict fails with the command that records it; record: judge every
# assertion again and record it
Mode = Literal["auto", "replay", "record"]
MODES: tuple[Mode, ...] = ("auto", "replay", "record")
# what an assertion does when it needs the judge and cannot reach it
Unreachable = Literal["skip", "fail"]
UNREACHABLE: tuple[Unreachable, ...] = ("skip", "fail")
DEFAULT_CONFIG = "ground-gate.yml"
DEFAULT_STORE = "ground-gate-verdicts"
# the report's one dataset: the rows the session asserted
DATASET = "pytest"


@dataclass(frozen=True)
class Settings:
    """config: the config file (relative paths: to the rootdir); store: where verdicts are
    recorded; report_only: failures reported, never raised; shared_dir: the directory xdist's
    workers share a local judge server through (None: not under xdist); owner_pid: the
    process that session belongs to."""

    config: Path
    mode: Mode = "auto"
    store: Path = Path(DEFAULT_STORE)
    unreachable: Unreachable = "skip"
    report_only: bool = False
    shared_dir: Path | None = None
    owner_pid: int | None = None
