from __future__ import annotations

import dataclasses
import hashlib
import json
import textwrap
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from ground_gate.config.loader import load_config, schema_text
from ground_gate.config.model import (
    SUBSTANCE_DEFAULT,
    Budget,
    Config,
    DatasetConfig,
    FaithfulnessConfig,
    GroundednessConfig,
    JudgeConfig,
    MetricsConfig,
    Prices,
    RatingConfig,
    SummaryAccuracyConfig,
    Threshold,
)
from ground_gate.config.scores import SCORE_NAMES
from ground_gate.leaves.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]

MINIMAL = """\
version: 1
judge: {provider: openai}
datasets:
  - {name: d, path: d.jsonl}
metrics: {groundedness: {}}
"""


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in tmp_path so messages show the short relative name `config.yml`."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(directory: Path, text: str, name: str = "config.yml") -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load(text: str, env: dict[str, str] | None = None) -> Config:
    """Load `text` as ./config.yml (the caller is in a tmp dir)."""
    write(Path("."), text)
    return load_config(Path("config.yml"), env or {})


def error_of(text: str, env: dict[str, str] | None = None) -> str:
    with pytest.raises(ConfigError) as caught:
        load(text, env)
    return str(caught.value)


# --- the normative example --------------------------------------------------------------------

ISSUE_EXAMPLE = """\
version: 1
judge:
  provider: openai            # openai | azure | local (local: a later issue)
  model: gpt-4o-mini
  base_url: null              # any OpenAI-compatible endpoint
  api_key_env: OPENAI_API_KEY # name of the env var holding the key, never the key itself
  temperature: 0
  max_concurrency: 8
  timeout_s: 60
  max_retries: 5
  cache_dir: .ground-gate/cache
datasets:
  - name: support-bot
    path: data/support.jsonl  # .jsonl, .json or .csv
    fields: {id: id, question: question, context: contexts, response: answer}  # optional mapping
    limit: null
    thresholds: {}            # per-dataset overrides
metrics:
  groundedness: {unit: sentence}   # or: claim (extract claims, skip sentences without one)
  faithfulness: {}
  summary_accuracy: {n_questions: 10}
  rating: {}
thresholds:                   # score names: groundedness, faithfulness, agreement,
  groundedness: {min: 0.8}    # hallucination, contradiction, rating
  hallucination: {max: 0.1}
  contradiction: {max: 0.05}
on_error: fail                # or skip (counted and shown)
"""


def test_load_config__issue_example_gives_the_whole_config(tmp_path: Path) -> None:
    path = write(tmp_path, ISSUE_EXAMPLE)

    config = load_config(path, {})

    assert config == Config(
        judge=JudgeConfig(
            provider="openai",
            model="gpt-4o-mini",
            base_url=None,
            api_key_env="OPENAI_API_KEY",
            temperature=0.0,
            max_concurrency=8,
            timeout_s=60.0,
            max_retries=5,
            cache_dir=Path(".ground-gate/cache"),
        ),
        datasets=(
            DatasetConfig(
                name="support-bot",
                path=tmp_path / "data/support.jsonl",
                fields={
                    "id": "id",
                    "question": "question",
                    "context": "contexts",
                    "response": "answer",
                },
                limit=None,
                thresholds={},
                line=13,
            ),
        ),
        metrics=MetricsConfig(
            groundedness=GroundednessConfig(unit="sentence"),
            faithfulness=FaithfulnessConfig(),
            summary_accuracy=SummaryAccuracyConfig(n_questions=10),
            rating=RatingConfig(),
        ),
        thresholds={
            "groundedness": Threshold(min=0.8),
            "hallucination": Threshold(max=0.1),
            "contradiction": Threshold(max=0.05),
        },
        on_error="fail",
        version=1,
        path=path,
        digest=hashlib.sha256(path.read_bytes()).hexdigest(),
        resolved_digest=config.resolved_digest,  # its own tests below
        scoring_digest=config.scoring_digest,
    )


def test_load_config__types_are_converted_for_the_models(in_tmp: Path) -> None:
    config = load(
        """\
        version: 1
        judge: {provider: openai, temperature: 1, timeout_s: 5, max_concurrency: 3.0}
        datasets: [{name: d, path: d.jsonl, limit: 4.0}]
        metrics: {summary_accuracy: {n_questions: 5.0, questions_per_sentence: 3.0}}
        thresholds: {agreement: {min: 1}}
        """
    )
    assert isinstance(config.judge.temperature, float)
    assert isinstance(config.judge.timeout_s, float)
    assert (config.judge.max_concurrency, type(config.judge.max_concurrency)) == (3, int)
    assert (config.datasets[0].limit, type(config.datasets[0].limit)) == (4, int)
    summary = config.metrics.summary_accuracy
    assert summary == SummaryAccuracyConfig(n_questions=5, questions_per_sentence=3)
    assert type(summary.n_questions) is int and type(summary.questions_per_sentence) is int
    assert config.thresholds["agreement"] == Threshold(min=1.0)
    assert type(config.thresholds["agreement"].min) is float


# --- defaults ---------------------------------------------------------------------------------


def test_load_config__openai_defaults(in_tmp: Path) -> None:
    config = load(MINIMAL)
    assert config.judge == JudgeConfig(provider="openai")
    assert config.judge.model == "gpt-4o-mini"
    assert config.judge.api_key_env == "OPENAI_API_KEY"
    assert config.judge.max_concurrency == 8
    assert config.thresholds == {}
    assert config.on_error == "fail"
    assert config.datasets[0].fields == {}
    assert config.datasets[0].limit is None


def test_load_config__local_defaults(in_tmp: Path) -> None:
    config = load(MINIMAL.replace("provider: openai", "provider: local"))
    assert config.judge.model == "qwen2.5-coder-1.5b"
    assert config.judge.max_concurrency == 1
    assert config.judge.api_key_env is None


def test_load_config__local_options(in_tmp: Path) -> None:
    config = load(
        MINIMAL.replace(
            "judge: {provider: openai}",
            "judge: {provider: local, model: qwen2.5-coder-0.5b, model_dir: models,"
            " context_tokens: 4096, threads: 2, max_concurrency: 2, cache_dir: null}",
        )
    )
    assert config.judge == JudgeConfig(
        provider="local",
        model="qwen2.5-coder-0.5b",
        api_key_env=None,
        max_concurrency=2,
        model_dir=Path("models"),
        context_tokens=4096,
        threads=2,
        cache_dir=None,
    )


def test_load_config__azure_defaults_and_endpoint(in_tmp: Path) -> None:
    config = load(
        MINIMAL.replace(
            "judge: {provider: openai}",
            "judge: {provider: azure, model: my-deployment, api_version: 2024-10-21,"
            " base_url: 'https://res.openai.azure.com'}",
        )
    )
    assert config.judge.api_key_env == "AZURE_OPENAI_API_KEY"
    assert config.judge.api_version == "2024-10-21"  # an unquoted date stays text
    assert config.judge.base_url == "https://res.openai.azure.com"
    assert config.judge.model == "my-deployment"


def test_load_config__explicit_null_api_key_env_means_no_key(in_tmp: Path) -> None:
    config = load(MINIMAL.replace("{provider: openai}", "{provider: openai, api_key_env: null}"))
    assert config.judge.api_key_env is None


@pytest.mark.parametrize("empty", ["{}", "null", ""])
def test_load_config__an_empty_metric_is_enabled_with_defaults(in_tmp: Path, empty: str) -> None:
    config = load(
        MINIMAL.replace(
            "metrics: {groundedness: {}}", f"metrics:\n  groundedness: {empty}\n  rating: {empty}"
        )
    )
    assert config.metrics.enabled() == ("groundedness", "rating")
    assert config.metrics.groundedness == GroundednessConfig(unit="sentence", evidence="shown")
    assert config.metrics.rating == RatingConfig()


def test_load_config__scoring_and_aggregate_variants_are_read(in_tmp: Path) -> None:
    config = load(
        MINIMAL.replace(
            "metrics: {groundedness: {}}",
            "metrics:\n  groundedness: {aggregate: min}\n"
            "  faithfulness: {scoring: probability, aggregate: min}\n"
            "  summary_accuracy: {scoring: probability}",
        )
    )
    assert config.metrics.groundedness == GroundednessConfig(aggregate="min")
    assert config.metrics.faithfulness == FaithfulnessConfig(scoring="probability", aggregate="min")
    assert config.metrics.summary_accuracy == SummaryAccuracyConfig(scoring="probability")


def test_load_config__thresholds_in_report_order_and_dataset_overrides(in_tmp: Path) -> None:
    config = load(
        """\
        version: 1
        judge: {provider: openai}
        datasets:
          - name: d
            path: d.jsonl
            thresholds: {groundedness: {min: 0.9}}
        metrics: {groundedness: {}, rating: {}}
        thresholds: {rating: {min: 0.5, max: 1}, groundedness: {min: 0.8}}
        """
    )
    assert list(config.thresholds) == ["groundedness", "rating"]
    assert config.thresholds_for(config.datasets[0]) == {
        "substance": SUBSTANCE_DEFAULT,  # every config's, unless it sets its own
        "groundedness": Threshold(min=0.9),
        "rating": Threshold(min=0.5, max=1.0),
    }


def test_load_config__max_drop_and_confidence_with_defaults_and_overrides(in_tmp: Path) -> None:
    config = load(
        """\
        version: 1
        judge: {provider: openai}
        datasets:
          - name: strict
            path: d.jsonl
            thresholds:
              groundedness: {min: 0.7, max_drop: 0.02, confidence: 0.99}
          - {name: lax, path: d.jsonl}
        metrics: {groundedness: {}, summary_accuracy: {}}
        thresholds:
          groundedness: {min: 0.8, max_drop: 0}
          hallucination: {max_drop: 0.05}
        """
    )
    strict, lax = config.datasets
    assert config.thresholds_for(lax) == {
        "substance": Threshold(max_drop=0.0),
        "groundedness": Threshold(min=0.8, max_drop=0.0, confidence=0.95),
        "hallucination": Threshold(max_drop=0.05),
    }
    assert type(config.thresholds["groundedness"].max_drop) is float
    # a dataset's entry for a score replaces the top-level one whole
    assert config.thresholds_for(strict) == {
        "substance": Threshold(max_drop=0.0),
        "groundedness": Threshold(min=0.7, max_drop=0.02, confidence=0.99),
        "hallucination": Threshold(max_drop=0.05),
    }
    assert not Threshold(max_drop=0.05).bounded and Threshold(max=0.1).bounded


@pytest.mark.parametrize(
    ("bounds", "expected"),
    [
        ("{max_drop: 5}", "max_drop: expected a number <= 1, got 5 (scores run from 0 to 1: "
         "0.05 means 5%)"),
        ("{max_drop: -0.1}", "max_drop: expected a number >= 0, got -0.1"),
        ("{max_drop: lots}", "max_drop: expected a number, got 'lots'"),
        ("{max_drop: 0.1, confidence: 95}", "confidence: expected a number < 1, got 95 "
         "(a confidence level runs from 0.5 to 1: 0.95 means 95%)"),
        ("{max_drop: 0.1, confidence: 1}", "confidence: expected a number < 1, got 1"),
        ("{max_drop: 0.1, confidence: 0.3}", "confidence: expected a number >= 0.5, got 0.3"),
        ("{min: 0.5, confidence: 0.9}", "confidence: confidence applies to max_drop: add "
         "max_drop, or remove confidence"),
    ],
)  # fmt: skip
def test_load_config__bad_max_drop_or_confidence_names_file_line_and_key(
    in_tmp: Path, bounds: str, expected: str
) -> None:
    top = error_of(MINIMAL + "thresholds:\n  groundedness: " + bounds + "\n")
    assert top == "config.yml:7: thresholds.groundedness." + expected
    dataset = error_of(
        f"""\
        version: 1
        judge: {{provider: openai}}
        datasets:
          - name: d
            path: d.jsonl
            thresholds:
              groundedness: {bounds}
        metrics: {{groundedness: {{}}}}
        """
    )
    assert dataset == "config.yml:7: datasets[0].thresholds.groundedness." + expected


def test_load_config__the_schema_documents_max_drop_and_confidence() -> None:
    threshold = json.loads(schema_text())["$defs"]["threshold"]["properties"]
    assert threshold["confidence"]["default"] == 0.95
    assert "never gates" in threshold["max_drop"]["description"]
    assert "one-sided" in threshold["confidence"]["description"]


# --- paths and digest -------------------------------------------------------------------------


def test_load_config__dataset_paths_are_relative_to_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    path = write(
        tmp_path / "configs",
        """\
        version: 1
        judge: {provider: openai}
        datasets:
          - {name: a, path: ../data/a.jsonl}
          - {name: b, path: b.csv}
          - {name: c, path: /srv/c.json}
        metrics: {rating: {}}
        """,
    )
    config = load_config(path, {})
    assert [d.path for d in config.datasets] == [
        tmp_path / "data/a.jsonl",
        tmp_path / "configs/b.csv",
        Path("/srv/c.json"),
    ]


def test_load_config__relative_config_path_keeps_dataset_paths_relative(in_tmp: Path) -> None:
    (in_tmp / "configs").mkdir()
    write(in_tmp / "configs", MINIMAL.replace("d.jsonl", "../examples/d.jsonl"))
    config = load_config(Path("configs/config.yml"), {})
    assert config.datasets[0].path == Path("examples/d.jsonl")
    assert config.path == Path("configs/config.yml")


def test_load_config__digest_is_sha256_of_the_file_bytes(in_tmp: Path) -> None:
    first = load(MINIMAL)
    second = load(MINIMAL + "# a comment changes the digest\n")
    assert first.digest == hashlib.sha256(MINIMAL.encode()).hexdigest()
    assert second.digest != first.digest


def test_load_config__resolved_digest_is_of_the_config_as_it_applies(in_tmp: Path) -> None:
    with_env = MINIMAL.replace("provider: openai", "provider: openai, model: '${MODEL}'")
    first = load(with_env, {"MODEL": "gpt-4o"})
    assert (
        first.resolved_digest
        == hashlib.sha256(
            json.dumps(
                {
                    "version": 1,
                    "judge": {"provider": "openai", "model": "gpt-4o"},
                    "datasets": [{"name": "d", "path": "d.jsonl"}],
                    "metrics": {"groundedness": {}},
                },
                sort_keys=True,
            ).encode()
        ).hexdigest()
    )
    # comments and layout do not count; the environment's values do
    assert load(with_env + "# a comment\n", {"MODEL": "gpt-4o"}).resolved_digest == (
        first.resolved_digest
    )
    assert load(with_env, {"MODEL": "gpt-4o-mini"}).resolved_digest != first.resolved_digest
    assert load(with_env, {"MODEL": "gpt-4o-mini"}).digest == first.digest  # the same bytes


def test_load_config__scoring_digest_leaves_out_what_changes_no_score(in_tmp: Path) -> None:
    """Where the cache lives, concurrency, timeouts, retries, prices, budget and size limits
    change how a run goes, not what it scores: shards that differ in them still merge."""
    first = load(MINIMAL)
    settled = MINIMAL.replace(
        "provider: openai",
        "provider: openai, cache_dir: .cache/shard-3, max_concurrency: 2, timeout_s: 5, "
        "max_retries: 1, budget: {max_calls: 9}, prices: {prompt_per_1m: 1, completion_per_1m: 2}",
    )
    other = load(settled.replace("path: d.jsonl", "path: ./d.jsonl") + "limits: {max_file_mb: 5}\n")
    assert other.resolved_digest != first.resolved_digest
    assert other.scoring_digest == first.scoring_digest
    for scoring in (
        "model: gpt-4o",
        "temperature: 0.5",
        "addressed_text: keep",
        "hidden_text: keep",
        "threads: 3",
    ):
        changed = load(MINIMAL.replace("provider: openai", f"provider: openai, {scoring}"))
        assert changed.scoring_digest != first.scoring_digest, scoring


def test_load_config__dataset_line_is_where_the_item_starts(in_tmp: Path) -> None:
    config = load(
        """\
        version: 1
        judge: {provider: openai}
        datasets:
          - name: a
            path: a.jsonl

          - name: b
            path: b.jsonl
        metrics: {rating: {}}
        """
    )
    assert [d.line for d in config.datasets] == [4, 7]


# --- interpolation ----------------------------------------------------------------------------


def test_load_config__interpolates_variables_and_defaults(in_tmp: Path) -> None:
    config = load(
        """\
        version: 1
        judge:
          provider: openai
          model: ${MODEL}
          base_url: http://${HOST:-127.0.0.1}:${PORT:-8080}/v1
          api_key_env: ${KEY_NAME:-MY_KEY}
          cache_dir: "$${not-a-variable}"
        datasets: [{name: d, path: "${DATA_DIR}/d.jsonl"}]
        metrics: {rating: {}}
        """,
        env={"MODEL": "m-1", "PORT": "9000", "KEY_NAME": "", "DATA_DIR": "data"},
    )
    assert config.judge.model == "m-1"
    assert config.judge.base_url == "http://127.0.0.1:9000/v1"
    assert config.judge.api_key_env == "MY_KEY"  # set but empty: the default applies
    assert config.judge.cache_dir == Path("${not-a-variable}")
    assert config.datasets[0].path == Path("data/d.jsonl")


def test_load_config__plain_values_are_typed_after_interpolation(in_tmp: Path) -> None:
    text = """\
        version: 1
        judge:
          provider: openai
          max_concurrency: ${C:-3}
        datasets:
          - name: d
            path: d.jsonl
            limit: ${LIMIT:-null}
        metrics: {rating: {}}
        """
    config = load(text)
    assert config.judge.max_concurrency == 3
    assert config.datasets[0].limit is None
    assert load(text, env={"LIMIT": "7"}).datasets[0].limit == 7
    # Quoted: stays a string, as YAML says.
    quoted = text.replace("${C:-3}", '"${C:-3}"')
    assert error_of(quoted) == "config.yml:4: judge.max_concurrency: expected an integer, got '3'"


def test_load_config__unquoted_reference_in_flow_style_gets_a_hint(in_tmp: Path) -> None:
    message = error_of(MINIMAL.replace("path: d.jsonl", "path: ${DATA}/d.jsonl"))
    assert message == (
        "config.yml:4:22: invalid YAML: expected ',' or '}', but got '{' (while parsing a flow "
        "mapping); inside { } or [ ], quote a value that holds ${...}"
    )


def test_load_config__missing_variable_names_file_line_and_key(in_tmp: Path) -> None:
    message = error_of(MINIMAL.replace("path: d.jsonl", "path: '${DATA}/d.jsonl'"))
    assert message == (
        "config.yml:4: datasets[0].path: environment variable 'DATA' is not set "
        "(set it, or give a default: ${DATA:-default})"
    )


def test_load_config__malformed_reference(in_tmp: Path) -> None:
    message = error_of(
        MINIMAL.replace("{provider: openai}", "{provider: openai, model: '${MY MODEL}'}")
    )
    assert message == (
        "config.yml:2: judge.model: malformed reference '${MY MODEL}': expected ${NAME} or "
        "${NAME:-default} (write $${ for a literal ${)"
    )


def test_load_config__values_from_the_environment_are_never_shown(in_tmp: Path) -> None:
    secret = "sk-live-0123456789abcdef"
    message = error_of(
        """\
        version: 1
        judge: {provider: openai, api_key_env: "${OPENAI_API_KEY}", max_retries: "${RETRIES}"}
        datasets: [{name: d, path: d.jsonl}]
        metrics: {rating: {}}
        on_error: ${ON_ERROR}
        """,
        env={"OPENAI_API_KEY": secret, "RETRIES": secret, "ON_ERROR": secret},
    )
    assert secret not in message
    assert message == (
        "config.yml:2: judge.api_key_env: expected the NAME of an environment variable "
        "(letters, digits and _), not a key\n"
        "config.yml:2: judge.max_retries: expected an integer, got a value from the "
        "environment (not shown)\n"
        "config.yml:5: on_error: expected one of 'fail', 'skip'; got a value from the "
        "environment (not shown)"
    )


def test_load_config__a_key_pasted_into_api_key_env_is_not_echoed(in_tmp: Path) -> None:
    message = error_of(
        MINIMAL.replace("{provider: openai}", "{provider: openai, api_key_env: sk-abc-123}")
    )
    assert "sk-abc" not in message
    assert message == (
        "config.yml:2: judge.api_key_env: expected the NAME of an environment variable "
        "(letters, digits and _), not a key"
    )


# --- schema errors ----------------------------------------------------------------------------


def test_load_config__reports_every_schema_error_at_once_in_line_order(in_tmp: Path) -> None:
    message = error_of(
        """\
        version: 2
        judge:
          provider: opnai
          max_concurrency: 0
          timeout_s: 0
        datasets:
          - name: d
            limit: -1
        metrics:
          groundedness: {unit: sentences, evidence: some}
          summary_accuracy: {n_questions: 51, questions_per_sentence: 0}
        thresholds:
          groundedness: {min: 1.5}
          faithfulness: {}
          hallucination: {max: high}
        on_error: ignore
        """
    )
    assert message == "\n".join(
        [
            "config.yml:1: version: expected 1, got 2",
            "config.yml:3: judge.provider: expected one of 'openai', 'azure', 'local'; got "
            "'opnai' (did you mean 'openai'?)",
            "config.yml:4: judge.max_concurrency: expected an integer >= 1, got 0",
            "config.yml:5: judge.timeout_s: expected a number > 0, got 0",
            "config.yml:7: datasets[0]: missing required key 'path'",
            "config.yml:8: datasets[0].limit: expected an integer >= 1, got -1",
            "config.yml:10: metrics.groundedness.evidence: expected one of 'shown', "
            "'unsupported', 'all', 'none'; got 'some'",
            "config.yml:10: metrics.groundedness.unit: expected one of 'sentence', 'claim'; "
            "got 'sentences' (did you mean 'sentence'?)",
            "config.yml:11: metrics.summary_accuracy.n_questions: expected an integer <= 50, "
            "got 51",
            "config.yml:11: metrics.summary_accuracy.questions_per_sentence: expected an "
            "integer >= 1, got 0",
            "config.yml:13: thresholds.groundedness.min: expected a number <= 1, got 1.5",
            "config.yml:14: thresholds.faithfulness: expected min, max and/or max_drop",
            "config.yml:15: thresholds.hallucination.max: expected a number, got 'high'",
            "config.yml:16: on_error: expected one of 'fail', 'skip'; got 'ignore'",
        ]
    )


def test_load_config__unknown_key_suggests_the_close_one(in_tmp: Path) -> None:
    message = error_of(MINIMAL + "treshold: {groundedness: {min: 0.5}}\n")
    assert message == "config.yml:6: unknown key 'treshold' (did you mean 'thresholds'?)"


def test_load_config__a_key_under_the_rating_lists_its_one_option(in_tmp: Path) -> None:
    message = error_of(MINIMAL.replace("{groundedness: {}}", "{rating: {addressed_check: true}}"))
    assert message == (
        "config.yml:5: metrics.rating: unknown key 'addressed_check'; expected one of: unit, "
        "aggregate"
    )


def test_load_config__the_rating_reads_sentences_unless_told_answer(in_tmp: Path) -> None:
    assert load(MINIMAL.replace("{groundedness: {}}", "{rating: {}}")).metrics.rating == (
        RatingConfig(unit="sentence")
    )
    answer = load(MINIMAL.replace("{groundedness: {}}", "{rating: {unit: answer}}"))
    assert answer.metrics.rating == RatingConfig(unit="answer")
    message = error_of(MINIMAL.replace("{groundedness: {}}", "{rating: {unit: claim}}"))
    assert message.startswith("config.yml:5: metrics.rating.unit: ")
    assert "'sentence'" in message and "'answer'" in message


def test_load_config__unknown_key_without_a_close_one_lists_the_keys(in_tmp: Path) -> None:
    message = error_of(MINIMAL.replace("{provider: openai}", "{provider: openai, colour: red}"))
    assert message == (
        "config.yml:2: judge: unknown key 'colour'; expected one of: provider, model, base_url, "
        "api_key_env, api_version, temperature, max_concurrency, timeout_s, max_retries, "
        "cache_dir, addressed_text, hidden_text, model_dir, context_tokens, threads, prices, "
        "budget"
    )


def test_load_config__unknown_metric_and_unknown_score(in_tmp: Path) -> None:
    message = error_of(
        MINIMAL.replace("metrics: {groundedness: {}}", "metrics: {groundednes: {}}")
        + "thresholds:\n  faithfulnes: {min: 0.5}\n  accuracy: {min: 0.5}\n"
    )
    assert message == (
        "config.yml:5: metrics: unknown key 'groundednes' (did you mean 'groundedness'?)\n"
        "config.yml:7: thresholds: unknown score 'faithfulnes' (did you mean 'faithfulness'?); "
        "scores: groundedness, hallucination, contradiction, answered, answered_anyway, "
        "context_relevance, substance, faithfulness, agreement, summary_hallucination, "
        "summary_contradiction, rating\n"
        "config.yml:8: thresholds: unknown score 'accuracy'; "
        "scores: groundedness, hallucination, contradiction, answered, answered_anyway, "
        "context_relevance, substance, faithfulness, agreement, summary_hallucination, "
        "summary_contradiction, rating"
    )


def test_load_config__missing_top_level_keys(in_tmp: Path) -> None:
    assert error_of("version: 1\n") == (
        "config.yml:1: missing required key 'judge'\n"
        "config.yml:1: missing required key 'datasets'\n"
        "config.yml:1: missing required key 'metrics'"
    )


@pytest.mark.parametrize(
    ("metrics", "expected"),
    [
        ("{}", "expected at least one metric"),
        ("null", "expected a mapping, got null"),
        ("[groundedness]", "expected a mapping, got a list"),
    ],
)
def test_load_config__metrics_must_enable_one(in_tmp: Path, metrics: str, expected: str) -> None:
    message = error_of(MINIMAL.replace("metrics: {groundedness: {}}", f"metrics: {metrics}"))
    if expected == "expected at least one metric":
        expected = (
            "enable at least one metric: groundedness, faithfulness, summary_accuracy, rating, "
            "answers"
        )
    assert message == f"config.yml:5: metrics: {expected}"


def test_load_config__datasets_must_not_be_empty(in_tmp: Path) -> None:
    message = error_of(MINIMAL.replace("datasets:\n  - {name: d, path: d.jsonl}", "datasets: []"))
    assert message == "config.yml:3: datasets: list at least one dataset"


def test_load_config__azure_needs_api_version_and_deployment(in_tmp: Path) -> None:
    message = error_of(MINIMAL.replace("{provider: openai}", "{provider: azure}"))
    assert message == (
        "config.yml:2: judge: missing required key 'api_version' (needed when provider is azure)\n"
        "config.yml:2: judge: missing required key 'model' (needed when provider is azure)"
    )


def test_load_config__base_url_must_be_http(in_tmp: Path) -> None:
    message = error_of(
        MINIMAL.replace("{provider: openai}", "{provider: openai, base_url: localhost:8080}")
    )
    assert message == "config.yml:2: judge.base_url: expected an http:// or https:// URL"


def test_load_config__empty_strings_are_rejected(in_tmp: Path) -> None:
    message = error_of(
        MINIMAL.replace(
            "{name: d, path: d.jsonl}", "{name: '', path: d.jsonl, fields: {context: ''}}"
        )
    )
    assert message == (
        "config.yml:4: datasets[0].fields.context: expected a non-empty string\n"
        "config.yml:4: datasets[0].name: expected a non-empty string"
    )


def test_load_config__fields_only_takes_the_roles(in_tmp: Path) -> None:
    message = error_of(
        MINIMAL.replace("{name: d, path: d.jsonl}", "{name: d, path: d.jsonl, fields: {answer: a}}")
    )
    assert message == (
        "config.yml:4: datasets[0].fields: unknown key 'answer'; expected one of: id, question, "
        "context, response, answerable"
    )


# --- what the schema cannot say ---------------------------------------------------------------


def test_load_config__duplicate_dataset_names(in_tmp: Path) -> None:
    message = error_of(
        """\
        version: 1
        judge: {provider: openai}
        datasets:
          - {name: d, path: a.jsonl}
          - {name: e, path: b.jsonl}
          - {name: d, path: c.jsonl}
        metrics: {rating: {}}
        """
    )
    assert message == (
        "config.yml:6: datasets[2].name: duplicate dataset name 'd' (also datasets[0], line 4)"
    )


def test_load_config__threshold_min_above_max(in_tmp: Path) -> None:
    message = error_of(MINIMAL + "thresholds: {groundedness: {min: 0.9, max: 0.5}}\n")
    assert message == "config.yml:6: thresholds.groundedness: min 0.9 is above max 0.5"


def test_load_config__threshold_on_a_metric_that_is_not_enabled(in_tmp: Path) -> None:
    message = error_of(
        """\
        version: 1
        judge: {provider: openai}
        datasets:
          - name: d
            path: d.jsonl
            thresholds:
              summary_hallucination: {max: 0.1}
        metrics: {groundedness: {}}
        thresholds:
          rating: {min: 0.5}
        """
    )
    assert message == (
        "config.yml:7: datasets[0].thresholds.summary_hallucination: score "
        "'summary_hallucination' comes from metric 'summary_accuracy', not enabled under metrics\n"
        "config.yml:10: thresholds.rating: metric 'rating' is not enabled under metrics"
    )


# --- YAML and file problems -------------------------------------------------------------------


def test_load_config__yaml_syntax_error_has_line_and_column(in_tmp: Path) -> None:
    message = error_of("version: 1\njudge:\n  provider: openai\n model: x\n")
    assert message == (
        "config.yml:4:2: invalid YAML: expected <block end>, but found '<block mapping start>' "
        "(while parsing a block mapping at line 1, column 1); check the indentation"
    )


def test_load_config__unclosed_quote_says_where_it_opened(in_tmp: Path) -> None:
    message = error_of('version: 1\njudge:\n  provider: "openai\n')
    assert message == (
        "config.yml:4:1: invalid YAML: found unexpected end of stream "
        "(while scanning a quoted scalar at line 3, column 13)"
    )


def test_load_config__percent_written_as_a_threshold_gets_a_hint(in_tmp: Path) -> None:
    message = error_of(MINIMAL + "thresholds: {groundedness: {min: 80}}\n")
    assert message == (
        "config.yml:6: thresholds.groundedness.min: expected a number <= 1, got 80 "
        "(scores run from 0 to 1: 0.8 means 80%)"
    )


def test_load_config__tab_indentation(in_tmp: Path) -> None:
    message = error_of("version: 1\njudge:\n\tprovider: openai\n")
    assert message == (
        "config.yml:3:1: invalid YAML: found character '\\t' that cannot start any token "
        "(while scanning for the next token)"
    )


def test_load_config__duplicate_key(in_tmp: Path) -> None:
    message = error_of(MINIMAL + "version: 1\n")
    assert message == "config.yml:6: version: duplicate key (first given on line 1)"


@pytest.mark.parametrize("text", ["", "\n", "# only a comment\n", "---\n"])
def test_load_config__empty_file(in_tmp: Path, text: str) -> None:
    assert error_of(text) == (
        "config.yml: the config is empty: expected a mapping with version, judge, datasets "
        "and metrics"
    )


@pytest.mark.parametrize(("text", "got"), [("- a\n- b\n", "a list"), ("hello\n", "'hello'")])
def test_load_config__top_level_must_be_a_mapping(in_tmp: Path, text: str, got: str) -> None:
    assert error_of(text) == (
        f"config.yml:1: expected a mapping (version, judge, datasets, metrics) at the top "
        f"level, got {got}"
    )


def test_load_config__missing_file(in_tmp: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"^nope\.yml: no such file, expected a YAML config file$"
    ):
        load_config(Path("nope.yml"), {})


def test_load_config__directory(in_tmp: Path) -> None:
    (in_tmp / "dir.yml").mkdir()
    with pytest.raises(
        ConfigError, match=r"^dir\.yml: is a directory, expected a YAML config file$"
    ):
        load_config(Path("dir.yml"), {})


def test_load_config__not_utf8(in_tmp: Path) -> None:
    Path("config.yml").write_bytes(MINIMAL.encode() + b"# caf\xe9\n")
    with pytest.raises(ConfigError) as caught:
        load_config(Path("config.yml"), {})
    assert str(caught.value) == "config.yml:6: not valid UTF-8 (byte 0xe9); save the file as UTF-8"


def test_load_config__utf8_bom_is_accepted(in_tmp: Path) -> None:
    Path("config.yml").write_bytes(b"\xef\xbb\xbf" + MINIMAL.encode())
    assert load_config(Path("config.yml"), {}).version == 1


def test_load_config__non_finite_numbers_are_rejected(in_tmp: Path) -> None:
    message = error_of(MINIMAL + "thresholds: {groundedness: {min: .nan}}\n")
    assert (
        message == "config.yml:6: thresholds.groundedness.min: expected a finite number, got .nan"
    )


def test_load_config__unsupported_tags_are_rejected(in_tmp: Path) -> None:
    message = error_of(
        MINIMAL.replace("{provider: openai}", "{provider: !!python/name:os.system openai}")
    )
    assert message == "config.yml:2: judge.provider: unsupported YAML tag '!!python/name:os.system'"


def test_load_config__anchors_and_merge_keys(in_tmp: Path) -> None:
    config = load(
        """\
        version: 1
        judge: {provider: openai}
        datasets:
          - &common {name: z, path: d.jsonl, limit: 5}
          - {<<: *common, name: a}
          - {<<: *common, name: b, limit: 2}
        metrics: {rating: {}}
        """
    )
    assert [(d.name, d.limit) for d in config.datasets] == [("z", 5), ("a", 5), ("b", 2)]


def test_load_config__a_recursive_alias_is_an_error(in_tmp: Path) -> None:
    message = error_of(MINIMAL + "thresholds: &t {groundedness: *t}\n")
    assert message == "config.yml:6: thresholds.groundedness: an alias refers to itself"


# --- the schema itself ------------------------------------------------------------------------


def test_schema_text__is_a_valid_draft_2020_12_schema_with_id_and_title() -> None:
    schema = json.loads(schema_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"]
    assert schema["title"] == "ground-gate configuration"
    assert schema_text() == (REPO / "ground_gate/config/schema.json").read_text("utf-8")


def test_schema_text__every_property_has_a_description() -> None:
    schema = json.loads(schema_text())
    missing: list[str] = []

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            for name, sub in node.get("properties", {}).items():
                resolved = sub
                if "$ref" in sub:
                    target = schema
                    for part in sub["$ref"].removeprefix("#/").split("/"):
                        target = target[part]
                    resolved = {**target, **sub}
                if not resolved.get("description"):
                    missing.append(f"{where}.{name}")
            for key, sub in node.items():
                if key != "if":  # a condition, not keys a user writes
                    walk(sub, f"{where}.{key}")

    walk(schema, "")
    assert missing == []


def test_schema_text__threshold_names_are_the_score_names() -> None:
    schema = json.loads(schema_text())
    assert tuple(schema["$defs"]["thresholds"]["properties"]) == SCORE_NAMES
    metric_names = tuple(schema["$defs"]["metrics"]["properties"])
    assert metric_names == tuple(f.name for f in dataclasses.fields(MetricsConfig))


@pytest.mark.parametrize("name", ["openai", "compatible-server", "azure"])
def test_load_config__example_configs_load(name: str) -> None:
    env = {"AZURE_OPENAI_ENDPOINT": "https://example.openai.azure.com"}
    config = load_config(REPO / "configs" / f"{name}.yml", env)
    for dataset in config.datasets:
        assert dataset.path.is_file(), dataset.path


def test_load_config__prices_and_budget(in_tmp: Path) -> None:
    config = load(
        MINIMAL.replace(
            "judge: {provider: openai}",
            "judge: {provider: openai, prices: {prompt_per_1m: 0.15, completion_per_1m: 0.6},"
            " budget: {max_calls: 20, max_usd: 1}}",
        )
    )
    assert config.judge.prices == Prices(0.15, 0.6)
    assert config.judge.budget == Budget(max_calls=20, max_tokens=None, max_usd=1.0)
    assert config.judge.pricing == Prices(0.15, 0.6)
    assert config.judge.pricing.cost(1_000_000, 100_000) == pytest.approx(0.21)


def test_load_config__the_local_judge_costs_nothing_and_needs_no_prices(in_tmp: Path) -> None:
    config = load(
        MINIMAL.replace(
            "judge: {provider: openai}", "judge: {provider: local, budget: {max_usd: 1}}"
        )
    )
    assert config.judge.prices is None
    assert config.judge.pricing == Prices(0.0, 0.0)


def test_load_config__no_prices_means_an_unknown_cost(in_tmp: Path) -> None:
    assert load(MINIMAL).judge.pricing is None
    assert load(MINIMAL).judge.budget is None


@pytest.mark.parametrize(
    ("judge", "expected"),
    [
        (
            "budget: {max_tokens: 0}",
            "config.yml:2: judge.budget.max_tokens: expected an integer >= 1, got 0",
        ),
        (
            "budget: {max_usd: -1}, prices: {prompt_per_1m: 1, completion_per_1m: 1}",
            "config.yml:2: judge.budget.max_usd: expected a number > 0, got -1",
        ),
        (
            "budget: {max_calls: 2.5}",
            "config.yml:2: judge.budget.max_calls: expected an integer, got 2.5",
        ),
        (
            "prices: {prompt_per_1m: -0.1, completion_per_1m: 0}",
            "config.yml:2: judge.prices.prompt_per_1m: expected a number >= 0, got -0.1",
        ),
        (
            "prices: {prompt_per_1m: 1}",
            "config.yml:2: judge.prices: missing required key 'completion_per_1m'",
        ),
        (
            "budget: {max_call: 3}",
            "config.yml:2: judge.budget: unknown key 'max_call' (did you mean 'max_calls'?)",
        ),
    ],
)
def test_load_config__bad_prices_and_budgets_name_the_key(
    in_tmp: Path, judge: str, expected: str
) -> None:
    text = MINIMAL.replace("judge: {provider: openai}", f"judge: {{provider: openai, {judge}}}")
    assert error_of(text) == expected
