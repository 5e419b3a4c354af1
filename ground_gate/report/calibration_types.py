"""The calibration report's shape (`calibrate --output-json`), as the types `calibrate`
builds and `ground-gate report` reads back; `calibration.schema.json` publishes the same
shape, and a saved report is checked against it before it is rendered (report/schema.py).

Like report/types.py: TypedDicts over the plain dict the JSON is, fields only ever added.
"""

from typing import Any, NotRequired, TypedDict

from ground_gate.report.types import UsageCounts


class AgreementEntry(TypedDict):
    """One score's agreement with one group's labels (`agreement.Agreement`, as JSON)."""

    score: str
    n: int
    n_missing: int
    auc: float | None
    balanced_accuracy: float | None
    f1_not_grounded: float | None
    best_balanced_accuracy: float | None
    best_threshold: float | None
    threshold_interval: list[float] | None  # [low, high]
    type_auc: dict[str, float | None]


class CostEntry(UsageCounts):
    """One metric's cost when its scores were made, over `rows` rows."""

    rows: int
    unrecorded_rows: int


class LabelledUnit(TypedDict):
    score: float | None
    verdict: str
    detail: dict[str, Any]


class LabelledRow(TypedDict):
    """One labelled row's labels and scores, for side-by-side comparisons with other tools."""

    group: str
    id: str
    label: NotRequired[int | None]  # the groundedness label; older reports: the only one
    labels: NotRequired[dict[str, int]]  # label column -> 0 or 1
    seconds: NotRequired[float | None]
    status: NotRequired[dict[str, str]]
    scores: dict[str, float]
    usage: NotRequired[dict[str, UsageCounts]]
    cost: NotRequired[dict[str, UsageCounts]]
    units: NotRequired[dict[str, list[LabelledUnit]]]


class CalibrationReport(TypedDict):
    rows: int
    seconds: float
    groups: dict[str, list[AgreementEntry]]  # group -> one agreement per score
    cost: dict[str, CostEntry]
    usage: dict[str, UsageCounts]
    judge: NotRequired[dict[str, Any]]
    incomplete: NotRequired[str | None]
    rows_scored: list[LabelledRow]
