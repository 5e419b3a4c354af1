"""YAML config file -> validated, frozen `Config`.

Every problem is reported at once, one line each: `file:line: key.path: what was expected`
(`problems` for the schema's, `meaning` for what a schema cannot say).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ground_gate.config.keys import build, run_only, written
from ground_gate.config.model import (
    Config,
    DatasetConfig,
    JudgeConfig,
    Limits,
    MetricsConfig,
    Threshold,
)
from ground_gate.config.paths import dataset_path, link_problem
from ground_gate.config.providers import judge_config
from ground_gate.config.rules import rule_problems, secret_names
from ground_gate.config.schema_check import schema_problems, schema_text
from ground_gate.config.scores import SCORE_NAMES
from ground_gate.config.target import build_target, target_problems
from ground_gate.config.yamltree import Document, format_key_path, read_yaml
from ground_gate.leaves.errors import ConfigError, describe_value
from ground_gate.leaves.file_reader import Unreadable, problem, read_capped
from ground_gate.leaves.masking import register

__all__ = ["load_config", "schema_text"]

MAX_CONFIG_BYTES = 1_000_000  # a config is a page of YAML; this bounds what parsing costs


def load_config(path: Path, env: Mapping[str, str]) -> Config:
    """Read, interpolate from `env`, validate and freeze the config at `path`."""
    file = str(path)
    raw = _read(path)
    document = read_yaml(_decode(raw, file), file, env)
    data = document.data
    if data is None:
        raise ConfigError(
            f"{file}: the config is empty: expected a mapping with version, judge, datasets "
            "and metrics"
        )
    if not isinstance(data, dict):
        raise ConfigError(
            f"{file}:{document.line_of(())}: expected a mapping (version, judge, datasets, "
            f"metrics) at the top level, got {describe_value(data)}"
        )
    problems = schema_problems(document) or [
        *rule_problems(document, env),
        *target_problems(document, env, path),
    ]
    if problems:
        lines = sorted(dict.fromkeys(problems), key=lambda p: (p.line, format_key_path(p.path)))
        raise ConfigError("\n".join(p.render(file) for p in lines))
    for name in secret_names(document):  # masked in everything written from now on
        register(env.get(name))
    config = _build(data, path, hashlib.sha256(raw).hexdigest(), document)
    return replace(
        config, resolved_digest=resolved_digest(data), scoring_digest=scoring_digest(data)
    )


# Settings that change how a run goes, never what it scores or decides (the keys model.py
# marks RUN_ONLY): where the judge cache and the model files live, how many requests run at
# once, timeouts and retries, what the judge costs and may spend, which variable holds the key,
# how large a dataset may be, and the path a dataset is read from (its file's digest is
# compared apart). Shards may differ in them (one cache folder per shard, a checkout folder per
# job) and still merge. llama.cpp's `threads` stays in: another thread count may change a
# log-probability in its last digits.
NOT_SCORING: dict[str, frozenset[str]] = {
    "judge": run_only(JudgeConfig),
    "datasets": run_only(DatasetConfig),
    "": run_only(Config),
}


def resolved_digest(data: Any) -> str:
    """The hex SHA-256 of the config as it applies, after `${VAR}` interpolation and YAML
    merge keys: canonical JSON (sorted keys), so comments and layout do not count and two
    runs with different environments say so."""
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def scoring_digest(data: Mapping[str, Any]) -> str:
    """`resolved_digest` of the config without the settings in NOT_SCORING: what shards must
    share to merge (the judge, its model and endpoint, prompts, metrics, thresholds, data)."""
    kept = {k: v for k, v in data.items() if k not in NOT_SCORING[""]}
    judge = data.get("judge")
    if isinstance(judge, Mapping):
        kept["judge"] = {k: v for k, v in judge.items() if k not in NOT_SCORING["judge"]}
    datasets = data.get("datasets")
    if isinstance(datasets, list):
        kept["datasets"] = [
            {k: v for k, v in d.items() if k not in NOT_SCORING["datasets"]}
            if isinstance(d, Mapping)
            else d
            for d in datasets
        ]
    return resolved_digest(kept)


def _read(path: Path) -> bytes:
    """The file's bytes; a FIFO, a device or a file over MAX_CONFIG_BYTES is refused unread."""
    try:
        return read_capped(path, MAX_CONFIG_BYTES)
    except Unreadable as exc:
        too_large = (
            f"the config is larger than {MAX_CONFIG_BYTES // 1_000_000} MB; a config is a page "
            "of YAML (rows belong in dataset files)"
        )
        raise ConfigError(f"{path}: {problem(exc, 'a YAML config file', too_large)}") from None


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{file}:{line}: not valid UTF-8 (byte 0x{raw[exc.start]:02x}); save the file as UTF-8"
        ) from None


def _build(data: dict[str, Any], path: Path, digest: str, document: Document) -> Config:
    """The frozen Config of a checked document: each block built from the keys it writes, the
    others left at their defaults (model.py)."""
    limits = build(Limits, data.get("limits") or {})
    judge = judge_config(data["judge"])
    datasets = []
    for index, item in enumerate(data["datasets"]):
        dataset = _dataset(item, path, document.line_of(("datasets", index)), limits)
        if item.get("target") is not None:
            lines = functools.partial(_line_under, document, ("datasets", index, "target"))
            target = build_target(item["target"], path, judge, lines)
            dataset = replace(dataset, target=target)
        problem = link_problem(dataset.path, path)
        if problem is not None:
            where = f"{path}:{document.line_of(('datasets', index, 'path'))}"
            raise ConfigError(f"{where}: datasets[{index}].path: {problem}")
        datasets.append(dataset)
    return Config(
        judge=judge,
        datasets=tuple(datasets),
        metrics=build(MetricsConfig, {k: v or {} for k, v in data["metrics"].items()}),
        thresholds=_thresholds(data.get("thresholds")),
        limits=limits,
        path=path,
        digest=digest,
        **written(Config, data, ("version", "on_error")),
    )


def _line_under(document: Document, where: tuple[str | int, ...], *path: str) -> int:
    return document.line_of((*where, *path))


def _dataset(item: dict[str, Any], config_path: Path, line: int, limits: Limits) -> DatasetConfig:
    return DatasetConfig(
        name=item["name"],
        path=dataset_path(item["path"], config_path),
        fields=dict(item.get("fields") or {}),
        thresholds=_thresholds(item.get("thresholds")),
        line=line,
        limits=limits,
        **written(DatasetConfig, item, ("limit",)),
    )


def _thresholds(block: dict[str, Any] | None) -> dict[str, Threshold]:
    if not block:
        return {}
    # report order, whatever order the file used
    return {score: build(Threshold, block[score]) for score in SCORE_NAMES if score in block}
