"""Frozen, validated configuration objects. Built by config.loader from YAML."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ground_gate.config.scores import SUBSTANCE, VERDICT_SCORES

Provider = Literal["openai", "azure", "local"]

# a key that changes how a run goes, never a score (loader.NOT_SCORING reads this metadata)
RUN_ONLY: Mapping[str, bool] = {"scoring": False}


@dataclass(frozen=True)
class Prices:
    """What the judge's model costs, in US dollars per million tokens (judge.prices)."""

    prompt_per_1m: float = 0.0
    completion_per_1m: float = 0.0

    def cost(self, prompt_tokens: float, completion_tokens: float) -> float:
        """US dollars for these tokens."""
        spent = prompt_tokens * self.prompt_per_1m + completion_tokens * self.completion_per_1m
        return spent / 1e6


FREE = Prices()  # the local judge


@dataclass(frozen=True)
class Budget:
    """What one run may spend on the judge (judge.budget); None: no limit of that kind."""

    max_calls: int | None = None
    max_tokens: int | None = None
    max_usd: float | None = None


@dataclass(frozen=True)
class JudgeConfig:
    provider: Provider = "openai"  # the defaults are openai's: providers.py has the others'
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    api_key_env: str | None = field(default="OPENAI_API_KEY", metadata=RUN_ONLY)
    api_version: str | None = None  # azure
    temperature: float = 0.0
    max_concurrency: int = field(default=8, metadata=RUN_ONLY)
    timeout_s: float = field(default=60.0, metadata=RUN_ONLY)
    max_retries: int = field(default=5, metadata=RUN_ONLY)
    cache_dir: Path | None = field(default=Path(".ground-gate/cache"), metadata=RUN_ONLY)
    # text in a row addressed to the judge: cut before judging (metrics/addressed.py) or keep
    addressed_text: Literal["cut", "keep"] = "cut"
    # text no reader of the rendered answer sees: cut before judging (metrics/hidden.py) or keep
    hidden_text: Literal["cut", "keep"] = "cut"
    # local provider only
    model_dir: Path | None = field(default=None, metadata=RUN_ONLY)  # None: the user's cache
    context_tokens: int | None = None  # local: n_ctx; remote: None = unlimited for our use
    threads: int | None = None
    prices: Prices | None = field(default=None, metadata=RUN_ONLY)  # None: unknown (local: FREE)
    budget: Budget | None = field(default=None, metadata=RUN_ONLY)

    @property
    def pricing(self) -> Prices | None:
        """The prices costs are computed with: FREE for the local judge, else judge.prices."""
        return FREE if self.provider == "local" else self.prices


DEFAULT_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Threshold:
    """Bounds on a score's mean over a dataset, and how far it may fall against a baseline.

    max_drop: with a baseline, the gate fails when the score got worse by more than this over
        the rows paired by id, and significantly so at `confidence` (gate.py has the rule);
        None: the baseline is shown but never gates. "Worse" is lower, or higher for the
        scores in LOWER_IS_BETTER.
    confidence: how sure the gate must be that the drop is larger than max_drop (one-sided).
    allow_empty: a score no row gave (no row of the kind, every row an error or with nothing
        to judge) is "not checked"; it fails the gate unless this is true.
    """

    min: float | None = None
    max: float | None = None
    max_drop: float | None = None
    confidence: float = DEFAULT_CONFIDENCE
    allow_empty: bool = False

    @property
    def bounded(self) -> bool:
        """Whether the mean itself has a bound (min or max) to meet."""
        return self.min is not None or self.max is not None


# substance's threshold where the config sets none: with a baseline, any significant rise in
# the rows that say nothing fails; without one it is not checked
SUBSTANCE_DEFAULT = Threshold(max_drop=0.0)


@dataclass(frozen=True)
class Limits:
    """How big a dataset may be (top-level `limits` in the config); a bigger one is refused
    before any judge call, with the limit's name in the message."""

    max_file_mb: float = 100.0  # one dataset file; JSONL is streamed, JSON and CSV rows held
    max_row_chars: int = 2_000_000  # all text values of one row together
    max_field_chars: int = 1_000_000  # one column's text (a context, a response, one CSV cell)

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1_000_000)


TargetKind = Literal["prompt", "http", "command"]


@dataclass(frozen=True)
class PromptTarget:
    """A prompt file of the repository, sent to a model (`target.prompt`)."""

    path: Path  # the file, resolved against the config's directory
    written: str  # as the config writes it, for messages and the report
    model: JudgeConfig  # who answers: provider, model, endpoint, key variable, cache...
    max_tokens: int = 512


@dataclass(frozen=True)
class HttpTarget:
    """The app's endpoint (`target.http`): one POST of a JSON body per row."""

    url: str
    body: Mapping[str, Any] | None = None  # None: {id, question, context}
    headers_env: Mapping[str, str] = field(default_factory=dict)  # header -> variable NAME
    response: str | None = None  # JMESPath; None: the body is the answer
    contexts: str | None = None  # JMESPath; None: the dataset's context is the source
    body_line: int | None = None  # where `body` is in the config, for placeholder messages


@dataclass(frozen=True)
class TargetConfig:
    """The system under test of one dataset: exactly one of prompt, http, command."""

    prompt: PromptTarget | None = None
    http: HttpTarget | None = None
    command: tuple[str, ...] | None = None
    # a prompt target's are its model's; an http or command target's default as the judge's
    timeout_s: float = JudgeConfig.timeout_s
    max_concurrency: int = JudgeConfig.max_concurrency
    max_retries: int = JudgeConfig.max_retries
    depends_on: tuple[str, ...] = ()  # globs, relative to `base_dir`
    base_dir: Path = Path(".")  # the config's directory
    budget: Budget | None = None
    line: int | None = None  # where `target` is declared in the config
    cache_dir: Path | None = None  # the judge's: an http or command target's answers too

    @property
    def kind(self) -> TargetKind:
        if self.prompt is not None:
            return "prompt"
        return "http" if self.http is not None else "command"

    @property
    def gives_contexts(self) -> bool:
        """Whether the target may answer with the contexts it used (then the dataset's
        context column is optional)."""
        return self.command is not None or (self.http is not None and bool(self.http.contexts))

    @property
    def prices(self) -> Prices | None:
        """What its tokens cost: a prompt target's model's prices (FREE when local)."""
        return self.prompt.model.pricing if self.prompt is not None else None


@dataclass(frozen=True)
class DatasetConfig:
    name: str
    path: Path = field(metadata=RUN_ONLY)
    # id / question / context / response -> the column holding it
    fields: Mapping[str, str] = field(default_factory=dict)
    limit: int | None = None
    thresholds: Mapping[str, Threshold] = field(default_factory=dict)
    line: int | None = None  # where this dataset is declared in the config, for messages
    limits: Limits = field(default_factory=Limits)
    target: TargetConfig | None = None  # None: the rows' own response column is judged


# How unit scores become a row score; the first value of each is the published methods' way
# (see metrics/aggregation.py).
Aggregate = Literal["mean", "min"]
Scoring = Literal["verdict", "probability"]
# Which groundedness units get a quote of the source as evidence: "shown" = the ones the
# markdown report shows (report/selection.py chooses them; quoted after the gate).
EvidencePolicy = Literal["shown", "unsupported", "all", "none"]


@dataclass(frozen=True)
class GroundednessConfig:
    # verdict: supported / contradicted / not in the source per unit, from one call's
    # token probabilities (scores groundedness, hallucination, contradiction);
    # rating: TruLens's published 0-10 rating per unit (score groundedness)
    method: Literal["verdict", "rating"] = "verdict"
    unit: Literal["sentence", "claim"] = "sentence"
    evidence: EvidencePolicy = "shown"
    aggregate: Aggregate = "mean"
    # judge each unit of a long source against the passages it is about
    # (metrics/passages.py); None: on with method verdict, off with rating (TruLens reads
    # the whole source)
    focus: bool | None = None
    # numbers, dates and names of each unit checked against its passages where a fill could
    # change the unit's verdict, one call a unit (metrics/facts.py); method verdict only
    facts: bool = True

    @property
    def scores(self) -> tuple[str, ...]:
        return VERDICT_SCORES if self.method == "verdict" else ("groundedness",)

    @property
    def check_facts(self) -> bool:
        return self.method == "verdict" and self.facts

    @property
    def focuses(self) -> bool:
        return self.method == "verdict" if self.focus is None else self.focus


@dataclass(frozen=True)
class FaithfulnessConfig:
    scoring: Scoring = "verdict"
    aggregate: Aggregate = "mean"


@dataclass(frozen=True)
class SummaryAccuracyConfig:
    n_questions: int = 10  # at most, a row
    # drawn from each sentence, in its context; None: half of n_questions (at least 1), so a
    # summary of one or two sentences is still asked about n_questions' worth
    questions_per_sentence: int | None = None
    scoring: Scoring = "verdict"

    @property
    def per_sentence(self) -> int:
        """Questions drawn from each sentence."""
        if self.questions_per_sentence is not None:
            return self.questions_per_sentence
        return max(1, self.n_questions // 2)


@dataclass(frozen=True)
class RatingConfig:
    # sentence: each sentence rated alone; answer: the whole answer once
    unit: Literal["sentence", "answer"] = "sentence"
    # min: the row's rating is its lowest sentence's, which no added sentence can raise;
    # mean: their mean, which ranks dev rows better but a sentence rated higher raises
    aggregate: Aggregate = "min"


@dataclass(frozen=True)
class AnswersConfig:
    # verdict: a row scores 1 when answered (P(answered) >= answered_at), else 0, so answered
    # is the share of rows answered and reads as the comment counts them; probability:
    # P(answered) itself
    scoring: Scoring = "verdict"
    # where a verdict turns: P(answered) at or above it is an answer, P(answerable) at or
    # above it a source that holds the answer. The defaults are the local 1.5B judge's best
    # balanced accuracy on labelled dev rows (bench/RESULTS.md, issue 30); `calibrate`
    # suggests them for another judge
    answered_at: float = 0.55
    answerable_at: float = 0.4


@dataclass(frozen=True)
class MetricsConfig:
    groundedness: GroundednessConfig | None = None
    faithfulness: FaithfulnessConfig | None = None
    summary_accuracy: SummaryAccuracyConfig | None = None
    rating: RatingConfig | None = None
    answers: AnswersConfig | None = None

    def enabled(self) -> tuple[str, ...]:
        names = ("groundedness", "faithfulness", "summary_accuracy", "rating", "answers")
        return tuple(n for n in names if getattr(self, n) is not None)


@dataclass(frozen=True)
class Config:
    judge: JudgeConfig
    datasets: tuple[DatasetConfig, ...]
    metrics: MetricsConfig
    thresholds: Mapping[str, Threshold] = field(default_factory=dict)
    on_error: Literal["fail", "skip"] = "fail"
    limits: Limits = field(default_factory=Limits, metadata=RUN_ONLY)
    version: int = 1
    path: Path | None = None  # the file it was read from
    digest: str = ""  # sha256 of the file's bytes, for the report
    resolved_digest: str = ""  # sha256 of the config after interpolation (loader.resolved_digest)
    scoring_digest: str = ""  # sha256 of what in it can change a verdict (loader.scoring_digest)

    def thresholds_for(self, dataset: DatasetConfig) -> dict[str, Threshold]:
        merged = {SUBSTANCE: SUBSTANCE_DEFAULT, **self.thresholds}
        merged.update(dataset.thresholds)
        return merged
