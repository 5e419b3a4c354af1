"""The embedded local judge: known GGUF models, how to obtain them, and a llama.cpp server."""

from __future__ import annotations

from ground_gate.local.registry import DEFAULT_MODEL, KNOWN_MODELS, KnownModel, known_model
from ground_gate.local.server import LocalServer
from ground_gate.local.sources import default_model_dir, resolve_model

__all__ = [
    "DEFAULT_MODEL",
    "KNOWN_MODELS",
    "KnownModel",
    "LocalServer",
    "default_model_dir",
    "known_model",
    "resolve_model",
]
