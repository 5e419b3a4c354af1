"""Every case in tests/badinput is rejected with its exact message and error type."""

from __future__ import annotations

from pathlib import Path

import pytest

from ground_gate.config.loader import load_config
from ground_gate.datasets import load_samples
from ground_gate.errors import ConfigError, DatasetError

CORPUS = Path(__file__).resolve().parents[1] / "badinput"
CASES = sorted(path for path in CORPUS.iterdir() if path.is_dir())
ERRORS: dict[str, type[Exception]] = {"ConfigError": ConfigError, "DatasetError": DatasetError}


def test_badinput__corpus_has_enough_cases_of_both_kinds() -> None:
    kinds = [(case / "error_type.txt").read_text("utf-8").strip() for case in CASES]
    assert len(CASES) >= 15
    assert kinds.count("ConfigError") >= 10
    assert kinds.count("DatasetError") >= 10


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_badinput__case_is_rejected_with_its_message(
    case: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = (case / "expected.txt").read_text("utf-8").removesuffix("\n")
    error = ERRORS[(case / "error_type.txt").read_text("utf-8").strip()]
    monkeypatch.chdir(case)

    with pytest.raises((ConfigError, DatasetError)) as caught:
        config = load_config(Path("config.yml"), {})
        for dataset in config.datasets:
            load_samples(dataset)

    assert type(caught.value) is error
    assert str(caught.value) == expected
