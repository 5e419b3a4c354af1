"""Whether the judge can be reached, asked before an assertion's first judge call: a suite with
no judge and nothing recorded skips with the reason, at once, never waiting on a download, a
retry or a host that does not answer.

The local judge: its model file on disk (never fetched here: `ground-gate models pull` does
that) and llama-cpp-python installed. A remote judge: its key's variable set as the client
requires it (never shown) and its host accepting a TCP connection within a few seconds.
"""

from __future__ import annotations

import importlib.util
import socket
import threading
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from ground_gate.config.model import JudgeConfig
from ground_gate.judge.factory import api_key, endpoint_name
from ground_gate.leaves.errors import ConfigError
from ground_gate.local.model_cache import default_model_dir
from ground_gate.local.registry import KNOWN_MODELS
from ground_gate.local.server import MISSING_EXTRA

CONNECT_TIMEOUT_S = 5.0
OPENAI_URL = "https://api.openai.com/v1"
REPLAY = "or replay recorded verdicts (pytest --gg-mode=replay)"


def unreachable(config: JudgeConfig, env: Mapping[str, str]) -> str | None:
    """Why the judge `config` names cannot be reached now; None: it may be."""
    if config.provider == "local":
        return _local(config)
    return _remote(config, env)


def _local(config: JudgeConfig) -> str | None:
    known = KNOWN_MODELS.get(config.model)
    if known is not None:
        directory = default_model_dir(config.model_dir)
        if not (directory / known.filename).is_file():
            return (
                f"the local judge's model file {known.filename} is not in {directory}: "
                f"`ground-gate models pull {known.name}` fetches it, {REPLAY}"
            )
    elif not Path(config.model).expanduser().is_file():
        return f"the local judge's model file {config.model} does not exist; {REPLAY}"
    if importlib.util.find_spec("llama_cpp") is None:
        return MISSING_EXTRA
    return None


def _remote(config: JudgeConfig, env: Mapping[str, str]) -> str | None:
    try:
        api_key(config, env)  # the client's own rule: set, and one a header can carry
    except ConfigError as exc:
        return f"{exc}; {REPLAY}"
    url = config.base_url or (
        env.get("AZURE_OPENAI_ENDPOINT", "") if config.provider == "azure" else OPENAI_URL
    )
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return f"the judge's address {endpoint_name(url)} has no valid port"
    if not parts.hostname:
        return f"the judge has no address (judge.base_url); {REPLAY}"
    why = _connects(parts.hostname, port)
    if why is None:
        return None
    return f"the judge at {endpoint_name(url)} cannot be reached ({why}); {REPLAY}"


def _connects(host: str, port: int) -> str | None:
    """Why no TCP connection to host:port opened within CONNECT_TIMEOUT_S, the name's lookup
    included (which socket's own timeout does not bound); None: one did."""
    found: list[str | None] = []

    def attempt() -> None:
        try:
            with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
                found.append(None)
        except OSError as exc:
            found.append(exc.strerror or type(exc).__name__)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(CONNECT_TIMEOUT_S + 1.0)
    return found[0] if found else f"no answer within {CONNECT_TIMEOUT_S:g} s"
