"""The pytest plugin's state in one pytest process (ground_gate/pytest_plugin.py's hooks keep
it): its settings read from the command line and the ini file, the session made on the first
assertion, the test running and its assertions so far, what xdist's workers sent. Imports
pytest and the standard library only: loaded with the plugin in every pytest run."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ground_gate.asserting.session import GroundSession
    from ground_gate.asserting.settings import Settings

OUTSIDE = (
    "assert_grounded runs inside a pytest session with ground-gate's plugin (installed with "
    "ground-gate; not disabled by -p no:ground_gate)"
)


class State:
    """The plugin's state in one pytest process: its settings, the session (made on the first
    assertion), the test running and its assertions so far, what workers sent."""

    def __init__(self, config: pytest.Config) -> None:
        self.pytest_config = config
        self.session: GroundSession | None = None
        self.item: pytest.Item | None = None
        self.index = 0
        self.exports: list[str] = []
        self.notes: list[str] = []
        self.reported: list[str] = []  # report-only failures, said in the summary
        self.shared_dir: str | None = None
        self.counts: dict[str, int] = {}

    def option(self, name: str) -> Any:
        """A command-line value, else the ini file's."""
        value = self.pytest_config.getoption(name)
        if value is None or value is False:
            value = self.pytest_config.getini(name)
        return value

    def path(self, name: str, default: Path | None) -> Path | None:
        """A path option: the command line's relative to the working directory, the ini
        file's to the rootdir."""
        given = self.pytest_config.getoption(name)
        if given:
            return Path(given).absolute()
        written = self.pytest_config.getini(name)
        return self.pytest_config.rootpath / written if written else default

    def settings(self) -> Settings:
        from ground_gate.asserting.settings import DEFAULT_CONFIG, DEFAULT_STORE, Settings

        rootpath = self.pytest_config.rootpath
        config = self.path("gg_config", None) or rootpath / DEFAULT_CONFIG
        store = self.path("gg_store", None) or config.parent / DEFAULT_STORE
        worker: Mapping[str, Any] = getattr(self.pytest_config, "workerinput", {})
        shared = worker.get("gg_shared_dir")
        return Settings(
            config=config,
            mode=self.option("gg_mode") or "auto",
            store=store,
            unreachable=self.option("gg_unreachable") or "skip",
            report_only=bool(self.option("gg_report_only")),
            shared_dir=Path(shared) if shared else None,
            owner_pid=worker.get("gg_owner_pid"),
        )

    def grounding(self) -> GroundSession:
        if self.session is None:
            from ground_gate.asserting.session import GroundSession

            self.session = GroundSession(self.settings(), os.environ, self.notes.append)
        return self.session


# the states of the sessions configured in this process, innermost last (pytester runs a
# session inside a test's): assert_grounded, which has no config to hand, reads the last
ACTIVE: list[State] = []
STATE = pytest.StashKey["State"]()


def active() -> State:
    if not ACTIVE:
        raise RuntimeError(OUTSIDE)
    return ACTIVE[-1]


def begin(config: pytest.Config) -> State:
    """The state of the session `config` configures, made and made active."""
    state = config.stash[STATE] = State(config)
    ACTIVE.append(state)
    return state


def state_of(config: pytest.Config) -> State | None:
    """The state `config`'s session began; None when it never did (its configure failed)."""
    return config.stash.get(STATE, None)


def end(config: pytest.Config) -> State | None:
    """`config`'s state, no longer active (another session's stays)."""
    state = state_of(config)
    if state is not None and state in ACTIVE:
        ACTIVE.remove(state)
    return state


def write_report(state: State, path: Path) -> bool:
    """The session's rows (and its workers') written as a report at `path`; whether it was
    (why not is said in the session's summary)."""
    from ground_gate.leaves.errors import GroundGateError
    from ground_gate.leaves.exit_codes import EXIT_ERROR
    from ground_gate.leaves.masking import mask

    ground = state.grounding()
    try:
        for exported in state.exports:
            ground.collected.merge(exported)
        baseline = state.pytest_config.getoption("gg_baseline")
        outcome = ground.collected.write(
            ground.config,
            path.absolute(),
            state.notes.append,
            Path(baseline).absolute() if baseline else None,
        )
    except GroundGateError as exc:
        state.notes.append(mask(f"ground-gate: error: the report was not written: {exc}"))
        return False
    if outcome.exit_code == EXIT_ERROR:  # finish said why
        return False
    rows = len(ground.collected.rows)
    state.notes.append(
        f"ground-gate: {path}: {rows} assertion{'s' if rows != 1 else ''}, report "
        f"{outcome.report['status']} (`ground-gate report {shlex.quote(str(path))}` renders it)"
    )
    return True
