"""Each config key's default lives once, in model.py: the published schema names the same keys
with the same defaults, the loader leaves an unwritten key at its field's default, and no
module restates a default (docs/config-keys.md)."""

from __future__ import annotations

import dataclasses
import json
import re
import textwrap
import typing
from pathlib import Path
from typing import Any

import pytest

from ground_gate.config.keys import build, run_only, written
from ground_gate.config.loader import NOT_SCORING, load_config, schema_text
from ground_gate.config.model import (
    Budget,
    Config,
    DatasetConfig,
    HttpTarget,
    JudgeConfig,
    Limits,
    MetricsConfig,
    Prices,
    PromptTarget,
    TargetConfig,
    Threshold,
)
from ground_gate.config.overrides import JudgeOverrides, with_overrides
from ground_gate.config.providers import LOCAL_REQUESTS_AT_ONCE, judge_defaults, requests_at_once
from ground_gate.config.scores import SCORE_NAMES
from ground_gate.config.target import MODEL_KEYS
from ground_gate.local.registry import DEFAULT_MODEL, KNOWN_MODELS

PACKAGE = Path(__file__).resolve().parents[2] / "ground_gate"
SCHEMA: dict[str, Any] = json.loads(schema_text())
DEFS = SCHEMA["$defs"]
TARGET = DEFS["target"]["properties"]

# Fields that are not keys of the config: where the config was read, its digests, where a
# block is declared, what the loader fills in from elsewhere.
NOT_KEYS: dict[type, frozenset[str]] = {
    Config: frozenset({"path", "digest", "resolved_digest", "scoring_digest"}),
    DatasetConfig: frozenset({"line", "limits"}),
    TargetConfig: frozenset({"base_dir", "line", "cache_dir"}),
    HttpTarget: frozenset({"body_line"}),
}
METRICS = DEFS["metrics"]["properties"]


def metric_class(name: str) -> type:
    """MetricsConfig's field `name` is `<Class> | None`."""
    return typing.get_args(typing.get_type_hints(MetricsConfig)[name])[0]


# (where, its schema, the class the loader builds from it)
BLOCKS: list[tuple[str, dict[str, Any], type]] = [
    ("top level", SCHEMA, Config),
    ("judge", DEFS["judge"], JudgeConfig),
    ("judge.prices", DEFS["judge"]["properties"]["prices"], Prices),
    ("judge.budget", DEFS["judge"]["properties"]["budget"], Budget),
    ("limits", SCHEMA["properties"]["limits"], Limits),
    ("dataset", DEFS["dataset"], DatasetConfig),
    ("target.http", TARGET["http"], HttpTarget),
    ("target.budget", TARGET["budget"], Budget),
    ("metrics", DEFS["metrics"], MetricsConfig),
    ("threshold", DEFS["threshold"], Threshold),
    *[(f"metrics.{name}", METRICS[name], metric_class(name)) for name in METRICS],
]


def keys_of(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)} - NOT_KEYS.get(cls, frozenset())


def static_default(cls: type, key: str) -> Any:
    """The field's default as the schema writes it (a path as text); MISSING if it has none
    or makes it (a mapping, a block)."""
    default = {f.name: f.default for f in dataclasses.fields(cls)}[key]
    return str(default) if isinstance(default, Path) else default


@pytest.mark.parametrize(("where", "block", "cls"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_config_keys__the_schema_names_the_class_fields(
    where: str, block: dict[str, Any], cls: type
) -> None:
    assert set(block["properties"]) == keys_of(cls)


def test_config_keys__a_target_has_its_fields_and_its_models() -> None:
    prompt_keys = {f.name for f in dataclasses.fields(PromptTarget)} - {"path", "written", "model"}
    assert set(MODEL_KEYS) <= {f.name for f in dataclasses.fields(JudgeConfig)} | prompt_keys
    assert set(TARGET) == keys_of(TargetConfig) | set(MODEL_KEYS)


def test_config_keys__thresholds_are_the_score_names() -> None:
    assert list(DEFS["thresholds"]["properties"]) == list(SCORE_NAMES)


@pytest.mark.parametrize(("where", "block", "cls"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_config_keys__schema_defaults_are_the_class_defaults(
    where: str, block: dict[str, Any], cls: type
) -> None:
    by_provider = {"model", "api_key_env", "max_concurrency"} if cls is JudgeConfig else set()
    for key, schema in block["properties"].items():
        default = static_default(cls, key)
        if "default" in schema:
            assert schema["default"] == default, f"{where}.{key}"
            kinds = (type(schema["default"]), type(default))
            assert kinds[0] is kinds[1] or kinds == (int, float), f"{where}.{key}: {kinds}"
        elif default is not None and default is not dataclasses.MISSING:
            # the schema states every default but those a provider changes (said in words,
            # below) and those of the keys it requires
            exempt = by_provider | set(block.get("required", ()))
            assert key in exempt, f"{where}.{key}: add its default to the schema"


def test_config_keys__target_defaults_are_the_classes() -> None:
    assert TARGET["max_tokens"]["default"] == PromptTarget.max_tokens
    for key in ("timeout_s", "max_retries"):
        assert TARGET[key]["default"] == getattr(TargetConfig, key), key
    assert (
        f"Default: {TargetConfig.max_concurrency} ({LOCAL_REQUESTS_AT_ONCE} for a local model)"
        in (TARGET["max_concurrency"]["description"])
    )


def test_config_keys__the_schema_says_each_providers_defaults() -> None:
    judge = DEFS["judge"]["properties"]
    openai, azure, local = (judge_defaults(p) for p in ("openai", "azure", "local"))
    assert (
        f"Default: {openai.model} (openai), {local.model} (local)."
        in (judge["model"]["description"])
    )
    assert local.api_key_env is None
    assert (
        f"Default: {openai.api_key_env} (openai), {azure.api_key_env} (azure), null (local)."
        in (judge["api_key_env"]["description"])
    )
    assert local.max_concurrency == LOCAL_REQUESTS_AT_ONCE
    assert (
        f"Default: {openai.max_concurrency} ({LOCAL_REQUESTS_AT_ONCE} for local)."
        in (judge["max_concurrency"]["description"])
    )


def test_config_keys__openai_defaults_are_the_fields() -> None:
    assert judge_defaults("openai") == JudgeConfig()


def test_config_keys__the_local_default_model_is_a_known_one() -> None:
    assert judge_defaults("local").model == DEFAULT_MODEL
    assert DEFAULT_MODEL in KNOWN_MODELS


def test_config_keys__the_local_judge_asks_one_request_at_a_time() -> None:
    assert requests_at_once(JudgeConfig(provider="local", max_concurrency=4)) == 1
    assert requests_at_once(JudgeConfig(provider="openai", max_concurrency=4)) == 4


def test_config_keys__not_scoring_is_read_from_the_fields() -> None:
    assert {
        "judge": run_only(JudgeConfig),
        "datasets": run_only(DatasetConfig),
        "": run_only(Config),
    } == NOT_SCORING
    assert {
        "judge": {
            "cache_dir", "max_concurrency", "timeout_s", "max_retries", "prices", "budget",
            "api_key_env", "model_dir",
        },
        "datasets": {"path"},
        "": {"limits"},
    } == NOT_SCORING  # fmt: skip


def test_config_keys__written_converts_by_the_fields_types() -> None:
    block = {"timeout_s": 5, "max_retries": 2.0, "model_dir": "~/m", "cache_dir": None}
    options = written(JudgeConfig, block)
    assert options == {
        "timeout_s": 5.0,
        "max_retries": 2,
        "model_dir": Path("~/m").expanduser(),
        "cache_dir": None,
    }
    assert (type(options["timeout_s"]), type(options["max_retries"])) == (float, int)
    assert build(Budget, {"max_usd": 3}) == Budget(max_usd=3.0)
    assert written(JudgeConfig, {"prices": {"prompt_per_1m": 1, "completion_per_1m": 0}}) == {
        "prices": Prices(1.0, 0.0)
    }
    assert written(JudgeConfig, block, ("timeout_s",)) == {"timeout_s": 5.0}
    with pytest.raises(KeyError):  # a key the class does not have is never dropped quietly
        written(JudgeConfig, {"no_such_key": 1})


def test_config_keys__a_key_not_written_keeps_its_field_default(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_text('{"context": "c", "response": "r"}\n')
    (tmp_path / "p.md").write_text("{{question}}")
    config = tmp_path / "config.yml"
    config.write_text(
        textwrap.dedent(
            """\
            version: 1
            judge: {provider: openai}
            datasets:
              - {name: d, path: d.jsonl}
              - {name: p, path: d.jsonl, target: {prompt: p.md, provider: local}}
              - {name: h, path: d.jsonl, target: {http: {url: "http://app/a"}}}
            metrics:
              groundedness: {}
              faithfulness:
              summary_accuracy: {}
              rating: {}
              answers: {}
            thresholds: {groundedness: {max_drop: 0.1}}
            """
        )
    )
    loaded = load_config(config, {"OPENAI_API_KEY": "sk-test"})
    assert loaded.judge == JudgeConfig()
    assert loaded.on_error == Config.on_error
    assert loaded.limits == Limits()
    assert loaded.thresholds == {"groundedness": Threshold(max_drop=0.1)}
    for name in METRICS:
        assert getattr(loaded.metrics, name) == metric_class(name)(), name
    plain, prompt, http = loaded.datasets
    assert plain.limit is None and plain.fields == {}
    assert prompt.target and prompt.target.prompt
    local = judge_defaults("local")
    assert prompt.target.prompt.model == dataclasses.replace(local, budget=None)
    assert prompt.target.prompt.max_tokens == PromptTarget.max_tokens
    assert prompt.target.max_concurrency == local.max_concurrency
    assert http.target
    assert (http.target.timeout_s, http.target.max_concurrency, http.target.max_retries) == (
        TargetConfig.timeout_s,
        TargetConfig.max_concurrency,
        TargetConfig.max_retries,
    )


# Defaults that read as themselves wherever they are written: each appears once in the
# package (model.py or providers.py), never restated where it is used.
DISTINCT_DEFAULTS = [
    JudgeConfig.model,
    str(JudgeConfig.api_key_env),
    str(JudgeConfig.cache_dir),
    str(judge_defaults("local").model),
    str(judge_defaults("azure").api_key_env),
]


@pytest.mark.parametrize("default", DISTINCT_DEFAULTS)
def test_config_keys__a_default_is_written_once(default: str) -> None:
    literal = re.compile(rf"[\"']{re.escape(default)}[\"']")
    places = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if literal.search(line)
    ]
    assert len(places) == 1, places


def test_config_keys__overrides_change_the_judge_only() -> None:
    prompt = PromptTarget(Path("p.md"), "p.md", JudgeConfig(provider="local"))
    dataset = DatasetConfig("d", Path("d.jsonl"), target=TargetConfig(prompt=prompt))
    config = Config(judge_defaults("local"), (dataset,), MetricsConfig())
    overrides = JudgeOverrides(provider="azure", base_url="https://r.example", api_version="v")
    changed = with_overrides(config, overrides)
    assert changed.judge == dataclasses.replace(
        config.judge, provider="azure", base_url="https://r.example", api_version="v"
    )
    assert changed.datasets == config.datasets
    assert with_overrides(config, JudgeOverrides()) is config


def test_config_keys__the_help_that_names_a_default_names_the_fields() -> None:
    """`init -h` says the judge's defaults in words (the help loads no config module, to stay
    fast): the words follow the fields."""
    from click.testing import CliRunner

    from ground_gate.cli import cli

    said = " ".join(CliRunner().invoke(cli, ["init", "-h"]).output.split())
    assert f"(default: {JudgeConfig.model}, or the local 1.5B)" in said
    assert judge_defaults("local").model.endswith("-1.5b")
    assert f"(default: {JudgeConfig.api_key_env})" in said
