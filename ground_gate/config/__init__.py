"""The YAML config: JSON Schema (schema.json, published) and a loader to frozen models."""

from ground_gate.config.model import (
    SCORE_NAMES,
    Config,
    DatasetConfig,
    JudgeConfig,
    MetricsConfig,
    Threshold,
)

__all__ = ["SCORE_NAMES", "Config", "DatasetConfig", "JudgeConfig", "MetricsConfig", "Threshold"]
