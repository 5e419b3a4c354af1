"""The YAML config: JSON Schema (schema.json, published) and a loader to frozen models."""

from ground_gate.config.model import Config, DatasetConfig, JudgeConfig, MetricsConfig, Threshold
from ground_gate.config.scores import SCORE_NAMES

__all__ = ["SCORE_NAMES", "Config", "DatasetConfig", "JudgeConfig", "MetricsConfig", "Threshold"]
