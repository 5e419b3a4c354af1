"""One llama.cpp server on the real 1.5B model for every e2e test that judges with it.

A run with `provider: local` asks `ground_gate.local.server.LocalServer` for a server on its
first cache miss and stops it when it ends (judge/factory.py); a prompt target on the same
model does the same. Loading the model and starting the server once per run cost the e2e
tests a server start for each run (and each prompt target); here every run borrows the session's
server instead: the run's `start()` points it at the running server and `stop()` hands it
back, and the lending counts both, so a test still sees that a cold run asked for a server,
that a warm one did not, and that every run gave back what it took. The server is the one
the run would have started (the same model file, context and threads: a run asking for
another is refused, not served by a different server); everything else in the run, the
client, the requests and the one-request-at-a-time of the local judge, is the product's.
The server's own lifecycle is tested in tests/integration/test_local_server.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from ground_gate.judge.factory import LOCAL_CONTEXT_TOKENS
from ground_gate.local import server as server_module
from ground_gate.local.resolve import resolve_model
from ground_gate.local.server import LocalServer, default_threads

# the judge of every e2e test; the 0.5B model ranks too weakly for their assertions
MODEL = os.environ.get("GROUND_GATE_E2E_MODEL", "qwen2.5-coder-1.5b")


@dataclass
class Lending:
    """The session's server, and what the runs did with it."""

    server: LocalServer
    starts: int = 0  # a run asked for a server (its first cache miss)
    stops: int = 0  # a run handed a started server back

    @contextmanager
    def lent(self) -> Iterator[Lending]:
        """While inside, a run's server is this one; counts start afresh."""
        self.starts = self.stops = 0
        lending = self

        class Borrowed(LocalServer):
            def start(self) -> LocalServer:
                wanted = (self.model_path, self.context_tokens, self.threads)
                have = (lending.server.model_path, lending.server.context_tokens,
                        lending.server.threads)  # fmt: skip
                assert wanted == have, f"this run wants its own server: {wanted} != {have}"
                lending.starts += 1
                self.port = lending.server.port
                self.startup_seconds = 0.0
                return self

            def stop(self) -> None:
                if self.port is not None:
                    lending.stops += 1
                    self.port = None

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(server_module, "LocalServer", Borrowed)
            yield self


@pytest.fixture(scope="session")
def judge_server() -> Iterator[Lending]:
    """The 1.5B model's server, started at the first test that asks for it."""
    server = LocalServer(
        resolve_model(MODEL), context_tokens=LOCAL_CONTEXT_TOKENS, threads=default_threads()
    )
    with server:
        yield Lending(server)
