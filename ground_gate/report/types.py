"""The JSON report's shape, as the types the builder returns and the renderers read.

TypedDicts, not classes: a report is a plain dict at run time, so `json.dumps`, the markdown
renderer and the GitHub readers take it as it is, and a baseline read back from a file has
the same type as the report just built. `report.schema.json` publishes the same shape for
other tools; tests validate every report they build against it.

Within schema version 1 fields are only ever added, never removed or changed (`evidence`,
the usage's `unrecorded` and a score's `baseline` came later), so a reader of a baseline must
not require them: they are NotRequired here and not required in the schema.
"""

from typing import Any, Literal, NotRequired, TypedDict

RunStatus = Literal["passed", "failed", "incomplete"]
MetricStatus = Literal["ok", "no_claims", "error"]


class ToolInfo(TypedDict):
    name: str
    version: str


class ConfigRef(TypedDict):
    path: str
    digest: str  # "sha256:<hex>" of the file's bytes
    resolved_digest: NotRequired[str]  # "sha256:<hex>" of the config after interpolation
    scoring_digest: NotRequired[str]  # "sha256:<hex>" of what in it can change a verdict


class DatasetEntry(TypedDict):
    name: str
    rows: int  # rows selected (in a shard's report: this shard's)
    scored: int  # rows with a result
    digest: NotRequired[str]  # "sha256:<hex>" of the dataset file's bytes


class ShardEntry(TypedDict):
    """What a `run --shard K/N` report says of its place, for `ground-gate merge`."""

    index: int  # K, 1-based
    count: int  # N
    dataset_rows: dict[str, int]  # dataset name -> rows selected before sharding
    baseline_digest: str | None  # "sha256:<hex>" of the --baseline report, if one was given


class ThresholdBounds(TypedDict, total=False):
    min: float
    max: float
    max_drop: float  # added later in version 1, like confidence: only with a max_drop
    confidence: float
    allow_empty: bool  # added later in version 1: only when true


class BaselineEntry(TypedDict):
    """One score of one dataset against the baseline, over the rows paired by id."""

    paired: int  # rows scored in both runs
    in_baseline: int  # rows of this dataset with this score in the baseline
    before: float | None  # the baseline's mean over the paired rows
    delta: float | None  # mean of (now - before) over the paired rows
    interval: list[float] | None  # [low, high]: one-sided bounds at `confidence`
    confidence: float
    max_drop: float | None  # None: shown, never gated
    direction: Literal["worse", "better", "noise"] | None  # None: too few paired rows
    passed: bool | None  # None: not gated, or not checked (too few paired rows)
    reason: str


class ScoreEntry(TypedDict):
    """One score of one dataset: its summary over the rows and the gate's verdict."""

    dataset: str
    score: str
    mean: float | None
    n: int
    n_error: int
    n_no_claims: int
    ci95: list[float] | None  # [low, high]
    threshold: ThresholdBounds | None
    passed: bool | None  # None: no threshold, shown for information
    reason: str
    baseline: NotRequired[BaselineEntry]  # only when the run was given a baseline


class UsageCounts(TypedDict):
    """What judge calls spent; the keys of `usage.Usage`."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    cache_hits: int
    retries: int
    parse_failures: int
    seconds: float
    unrecorded: NotRequired[int]
    cost_usd: NotRequired[float]  # only when the judge's prices are known (judge.prices)


class UnitEntry(TypedDict):
    text: str
    score: float | None
    verdict: str
    evidence: str | None
    detail: dict[str, Any]  # method-specific, open


class MetricEntry(TypedDict):
    status: MetricStatus
    scores: dict[str, float]  # score name -> value
    error: str | None
    units: list[UnitEntry]
    usage: UsageCounts
    # a row with styled text of uncertain visibility: the reading kept, the worse
    uncertain_text: NotRequired[Literal["kept", "removed"]]


class AddressedEntry(TypedDict):
    field: str  # "response", "question" or "context"
    text: str


class HiddenEntry(TypedDict):
    field: str  # "response", "question" or "context"
    kind: str  # metrics/hidden.py's KINDS
    text: str


class RowText(TypedDict):
    """What the row said, for a page that shows it (`report.html`): the source with the
    evidence highlighted, the question, the response with its units marked."""

    source: str  # the context chunks, joined by a blank line
    question: str | None
    response: str  # as judged: hidden text and passages addressed to the judge taken out
    cut: list[str]  # fields shortened to their limit (json_report.TEXT_LIMITS)


class ChangedUnit(TypedDict):
    """A unit of one side of a changed passage: its text and what the judge said of it."""

    text: str
    verdict: str
    score: float | None


class SentenceChange(TypedDict):
    """Consecutive units the pull request changed: the baseline's (before), replaced by the
    run's (after); one side is empty for units only removed or only added."""

    metric: str  # groundedness, else faithfulness: the metric whose units are compared
    before: list[ChangedUnit]
    after: list[ChangedUnit]


class RowBaseline(TypedDict):
    """The same row (dataset and id) in the baseline report."""

    failing: list[str]  # the score names it failed there, sorted
    scores: dict[str, float]  # its scores there, of the metrics that did not error
    changes: list[SentenceChange]  # empty when its response did not change
    response: NotRequired[str]  # the baseline's response, when it differs (added later)


class SourceEntry(TypedDict):
    """Where a run was made (provenance.Source): each None when unknown."""

    commit: str | None
    branch: str | None
    run_url: str | None


class JudgeRef(TypedDict):
    provider: str
    model: str


class BaselineRef(TypedDict):
    """The baseline report the rows were compared with: when and where it was made, by which
    judge, its verdict and its rows."""

    created_at: str
    status: RunStatus
    rows: int
    source: NotRequired[SourceEntry]  # when the baseline says where it was made
    judge: NotRequired[JudgeRef]  # added later in version 1


class RowEntry(TypedDict):
    dataset: str
    id: str
    seconds: float
    failing: list[str]  # score names this row misses (or errored on), sorted
    metrics: dict[str, MetricEntry]  # metric name -> result
    addressed_to_judge: NotRequired[list[AddressedEntry]]  # cut before judging
    hidden_text: NotRequired[list[HiddenEntry]]  # no reader sees it: taken out before judging
    key: NotRequired[str]  # "sha256:<hex>" of what its verdicts depend on (stages/reuse.py)
    context_key: NotRequired[str]  # "sha256:<hex>" of what its answerable verdict reads
    reused: NotRequired[bool]  # true: its verdicts were taken from the baseline, not judged
    position: NotRequired[int]  # in a shard's report: the row's place among its dataset's rows
    text: NotRequired[RowText]  # added later in version 1: absent from older reports
    baseline: NotRequired[RowBaseline]  # with a baseline holding the row (report.baseline)


class EvidenceSummary(TypedDict):
    policy: str | None  # groundedness's `evidence` setting; None: groundedness is off
    units: int  # units that carry an evidence quote
    problem: str | None  # why some units the policy asked evidence for have none


class UsageSummary(TypedDict):
    by_metric: dict[str, UsageCounts]
    total: UsageCounts


class RowRef(TypedDict):
    dataset: str
    id: str


class BudgetLimits(TypedDict):
    max_calls: int | None
    max_tokens: int | None
    max_usd: float | None


class BudgetSpent(TypedDict):
    calls: int
    prompt_tokens: int
    completion_tokens: int
    usd: float | None  # None: the prices are unknown


class BudgetEntry(TypedDict):
    """judge.budget: its limits, what the run's requests spent, and which limit stopped it."""

    limits: BudgetLimits
    spent: BudgetSpent
    exceeded: str | None  # e.g. "max_calls 20 reached"; None: the run kept within it


class TargetFailure(TypedDict):
    id: str
    error: str


class TargetUsage(TypedDict):
    """What asking a target spent (a command's calls: the rows sent to it)."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    cache_hits: int
    retries: int
    seconds: float


class TargetEntry(TypedDict):
    """One dataset's target (report.schema.json's `target`): what defines it besides these
    keys (prompt file and digest, model; url; argv) is open, read as `Mapping[str, object]`."""

    dataset: str
    kind: Literal["prompt", "http", "command"]
    usage: TargetUsage
    seconds: float
    rows: int
    answered: int
    errors: int
    failed: list[TargetFailure]
    stopped: str | None


class VerdictKey(TypedDict):
    """The run's parts of every row's key (stages/reuse.py KeyParts)."""

    judge: str
    prompts: str
    method: str
    scorer: str


class ReuseEntry(TypedDict):
    """With a baseline: how many rows' verdicts were taken from it, and why none was."""

    rows: int
    none_because: str | None


class SettledEntry(TypedDict):
    """Judging stopped once no row left could change any check's decision."""

    judged: int  # rows judged in this run (not reused)
    not_judged: list[RowRef]


class Report(TypedDict):
    schema_version: int
    tool: ToolInfo
    created_at: str  # ISO 8601, to the second
    source: NotRequired[SourceEntry]  # where the run was made, when anything of it is known
    config: ConfigRef
    shard: NotRequired[ShardEntry]  # only in the report of `run --shard K/N`
    judge: dict[str, Any]  # what the pipeline says of the judge: provider, model, ...
    status: RunStatus
    passed: bool
    incomplete: str | None  # why the run did not finish, if it did not
    on_error: Literal["fail", "skip"]
    datasets: list[DatasetEntry]
    scores: list[ScoreEntry]
    rows: list[RowEntry]
    evidence: NotRequired[EvidenceSummary]
    usage: UsageSummary
    seconds: float
    verdict_key: NotRequired[VerdictKey]  # added later in version 1 (issue 45)
    reuse: NotRequired[ReuseEntry]  # only when the run was given a baseline
    settled: NotRequired[SettledEntry]  # only when judging stopped with the decision settled
    not_run: NotRequired[list[RowRef]]  # rows selected but not scored (an incomplete run)
    budget: NotRequired[BudgetEntry]  # only when the config sets judge.budget
    targets: NotRequired[list[TargetEntry]]  # only when a dataset has a target
    baseline: NotRequired[BaselineRef]  # only when the rows were compared with a baseline
