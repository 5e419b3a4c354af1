"""ground-gate: hold LLM outputs to their sources in CI."""

__version__ = "0.1.0"
