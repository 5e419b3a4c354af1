"""The report types the renderers read (report/types.py, report/calibration_types.py) and
the published schemas other tools read say the same shape: the same keys, the same ones
required. A key added to one and not the other fails here."""

from typing import Any

import pytest

from ground_gate.report import calibration_types, types
from ground_gate.report.schema import CALIBRATION_SCHEMA_FILE, SCHEMA_FILE, schema

PAIRS = [
    (SCHEMA_FILE, None, types.Report),
    (SCHEMA_FILE, "dataset", types.DatasetEntry),
    (SCHEMA_FILE, "threshold", types.ThresholdBounds),
    (SCHEMA_FILE, "baseline", types.BaselineEntry),
    (SCHEMA_FILE, "score", types.ScoreEntry),
    (SCHEMA_FILE, "row", types.RowEntry),
    (SCHEMA_FILE, "changed_unit", types.ChangedUnit),
    (SCHEMA_FILE, "metric", types.MetricEntry),
    (SCHEMA_FILE, "unit", types.UnitEntry),
    (SCHEMA_FILE, "usage", types.UsageCounts),
    (SCHEMA_FILE, "source", types.SourceEntry),
    (SCHEMA_FILE, "properties/baseline", types.BaselineRef),
    (CALIBRATION_SCHEMA_FILE, None, calibration_types.CalibrationReport),
    (CALIBRATION_SCHEMA_FILE, "agreement", calibration_types.AgreementEntry),
    (CALIBRATION_SCHEMA_FILE, "labelled_row", calibration_types.LabelledRow),
]


def _object(name: str, definition: str | None) -> dict[str, Any]:
    published = schema(name)
    if definition is None:
        return published
    if "/" in definition:  # an object defined where it is used
        for step in definition.split("/"):
            published = published[step]
        return published
    return published["$defs"][definition]


@pytest.mark.parametrize(
    ("name", "definition", "typed"), PAIRS, ids=[f"{p[0]}:{p[1] or '$'}" for p in PAIRS]
)
def test_report_types__the_typed_dict_and_the_schema_hold_the_same_keys(
    name: str, definition: str | None, typed: Any
) -> None:
    published = _object(name, definition)
    assert set(typed.__annotations__) == set(published["properties"])
    assert set(typed.__required_keys__) == set(published.get("required", []))


def test_report_types__the_target_entry_types_what_the_schema_requires() -> None:
    """A target's entry is open (what defines it varies by kind): its required keys are
    typed, the rest read as plain values."""
    published = _object(SCHEMA_FILE, "target")
    assert set(types.TargetEntry.__required_keys__) == set(published["required"])
    usage = published["properties"]["usage"]
    assert set(types.TargetUsage.__annotations__) == set(usage["properties"])
