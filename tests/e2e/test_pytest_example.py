"""End to end with the real 1.5B judge: examples/pytest, copied with no recorded verdict, runs
on the embedded judge (one server, three assertions judged and recorded; the invented warranty
read "contradicted: says five years; the source says two years"), then replays the same
verdicts, failure message included, with no model file and no judge."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

# imported before the run in this process: pytester drops from sys.modules what a run
# imported first, and the session's other tests hold these modules
import ground_gate.asserting.session  # noqa: F401
from tests.e2e.conftest import MODEL, Lending

pytestmark = pytest.mark.e2e
pytest_plugins = ["pytester"]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pytest"


def test_example__judged_by_the_embedded_judge_then_replayed_with_no_model(
    pytester: pytest.Pytester, judge_server: Lending, monkeypatch: pytest.MonkeyPatch
) -> None:
    if MODEL != "qwen2.5-coder-1.5b":
        pytest.skip("the example's config names the default local model")
    shutil.copytree(
        EXAMPLE,
        pytester.path,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("ground-gate-verdicts"),
    )
    args = (
        "-p",
        "no:cacheprovider",
        "-rs",
        "--runxfail",
        "-o",
        "asyncio_default_fixture_loop_scope=function",
    )
    # pytester's HOME is its own directory: the model where the session's server found it
    monkeypatch.setenv("GROUND_GATE_MODEL_DIR", str(judge_server.server.model_path.parent))
    with judge_server.lent() as lending:
        judged = pytester.runpytest_inprocess(*args)
    judged.assert_outcomes(passed=2, failed=1)
    assert lending.starts == 1
    judged.stdout.fnmatch_lines(
        [
            "E * contradiction: 0.* > max 0.10",
            "E * groundedness: contradicted: says five years; the source says two years: \u201cThe warranty lasts five years from the date of purchase.\u201d",
            "*3 judged, 0 replayed, 3 recorded*",
        ]
    )
    assert len(list((pytester.path / "ground-gate-verdicts").glob("*.json"))) == 3

    monkeypatch.setenv("GROUND_GATE_MODEL_DIR", str(pytester.path / "no-models"))
    replayed = pytester.runpytest_inprocess(*args, "--gg-mode=replay")
    replayed.assert_outcomes(passed=2, failed=1)
    replayed.stdout.fnmatch_lines(["*0 judged, 3 replayed, 0 recorded*"])
    lines = [line for line in judged.outlines if line.startswith("E ")]
    assert [line for line in replayed.outlines if line.startswith("E ")] == lines
