"""The verdict store (asserting/store.py): a verdict recorded reads back as it was; a file in
the store is outside input: whatever bytes it holds, reading it gives a verdict of the report's
row schema or a StoreError naming the file, never another exception."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ground_gate.asserting.store import StoreError, VerdictStore
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult

KEY = "sha256:" + "ab" * 32
ROW = RowResult(
    dataset="pytest",
    sample_id="test_a.py::test_one",
    metrics=(
        MetricResult(
            metric="groundedness",
            status="ok",
            scores={"groundedness": 0.5, "hallucination": 0.5, "contradiction": 0.0},
            units=(
                UnitResult("Refunds take 14 days.", 1.0, "supported", detail={"p_supported": 0.9}),
                UnitResult("A dragon pays them.", 0.0, "not in source", evidence="NOTHING FOUND"),
            ),
        ),
    ),
    seconds=1.5,
)


def test_store__a_recorded_verdict_reads_back_as_it_was(tmp_path: Path) -> None:
    store = VerdictStore(tmp_path / "verdicts")
    path = store.put(
        KEY, ROW, "test_a.py::test_one", {"provider": "local", "model": "m", "api_key": "x"}
    )
    assert path.name == "ab" * 32 + ".json"
    back = store.get(KEY, "pytest", "test_b.py::test_two")
    assert back is not None
    assert back.metrics == ROW.metrics and back.sample_id == "test_b.py::test_two"
    assert "api_key" not in path.read_text()
    before = path.read_bytes()
    store.put(KEY, ROW, "test_a.py::test_one", {"provider": "local", "model": "m"})
    assert path.read_bytes() == before  # recorded again unchanged: the same bytes
    assert store.get("sha256:" + "cd" * 32, "pytest", "x") is None


@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_store__any_bytes_are_a_verdict_or_a_store_error(raw: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        store = VerdictStore(Path(directory))
        store.path(KEY).write_bytes(raw)
        try:
            store.get(KEY, "pytest", "t")
        except StoreError as exc:
            assert str(exc).startswith(str(store.path(KEY)))


def test_store__a_verdict_out_of_range_or_of_another_key_is_refused(tmp_path: Path) -> None:
    store = VerdictStore(tmp_path)
    path = store.put(KEY, ROW, "t", {})
    entry = json.loads(path.read_text())
    entry["row"]["metrics"]["groundedness"]["scores"]["groundedness"] = 7
    path.write_text(json.dumps(entry))
    with pytest.raises(StoreError, match="row/metrics/groundedness/scores/groundedness"):
        store.get(KEY, "pytest", "t")
    entry["row"]["metrics"]["groundedness"]["scores"]["groundedness"] = 0.5
    entry["key"] = "sha256:" + "00" * 32
    path.write_text(json.dumps(entry))
    with pytest.raises(StoreError, match="holds the verdict of another key"):
        store.get(KEY, "pytest", "t")
    path.write_text('{"kind": "ground-gate verdict", "version": 1, "kind": "x"}')
    with pytest.raises(StoreError, match="given twice"):
        store.get(KEY, "pytest", "t")
