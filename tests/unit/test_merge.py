"""merge_reports, the entry point the action calls: report dicts in, the merged report out,
MergeError naming the report and the problem."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from ground_gate.errors import MergeError
from ground_gate.merge import matching_reports, merge_reports
from ground_gate.report.types import ShardEntry
from tests.unit import test_report


def shard_reports(count: int = 2) -> list[tuple[str, dict[str, Any]]]:
    """test_report's two rows, row i in shard i+1 (the merge trusts the reports' placement)."""
    whole = test_report.report()
    out = []
    for index in range(1, count + 1):
        report = copy.deepcopy(whole)
        shard: ShardEntry = {
            "index": index,
            "count": count,
            "dataset_rows": {"support": 2},
            "baseline_digest": None,
        }
        report["shard"] = shard
        report["config"]["resolved_digest"] = "sha256:def"
        report["rows"] = [
            {**row, "position": position}
            for position, row in enumerate(whole["rows"])
            if position % count == index - 1
        ]
        out.append((f"shard-{index}.json", report))
    return out


def test_merge_reports__gives_the_unsharded_report_from_its_shards() -> None:
    whole = test_report.report()
    merged = merge_reports(list(reversed(shard_reports())))
    assert merged["rows"] == whole["rows"]
    assert merged["scores"] == whole["scores"]
    assert merged["datasets"] == whole["datasets"]
    assert (merged["status"], merged["passed"]) == (whole["status"], whole["passed"])
    assert merged["usage"]["total"]["calls"] == 2 * whole["usage"]["total"]["calls"]
    assert merged["config"]["resolved_digest"] == "sha256:def"
    assert "shard" not in merged


def test_merge_reports__an_incomplete_shard_makes_an_incomplete_merge() -> None:
    shards = shard_reports()
    shards[1][1]["incomplete"] = "interrupted"
    merged = merge_reports(shards)
    assert merged["status"] == "incomplete"
    assert merged["incomplete"] == "shard 2/2: interrupted"


def test_merge_reports__rows_a_shard_did_not_run_are_listed_in_the_merge() -> None:
    shards = shard_reports()
    shards[1][1]["incomplete"] = "the judge budget is spent"
    shards[1][1]["not_run"] = [{"dataset": "support", "id": "r-9"}]
    merged = merge_reports(shards)
    assert merged["not_run"] == [{"dataset": "support", "id": "r-9"}]
    assert (merged["status"], merged["passed"]) == ("incomplete", False)
    assert "not_run" not in merge_reports(shard_reports())


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda s: s.clear(), "no report to merge"),
        (
            lambda s: s[1][1]["shard"].update(count=3),
            "shard-2.json (shard 2/3): split into 3 shards, but shard-1.json (shard 1/2) into 2",
        ),
        (
            lambda s: s[1][1]["shard"].update(dataset_rows={"support": 3}),
            "shard-2.json (shard 2/2): the dataset list (name, digest, rows) is not "
            'shard-1.json (shard 1/2)\'s ([["support", null, 3]] against [["support", null, 2]]); '
            "shards must come from one config, data and prompts",
        ),
        (
            lambda s: s[1][1]["judge"].update(endpoint="judge.example"),
            "shard-2.json (shard 2/2): the judge (provider, model, endpoint) is not "
            'shard-1.json (shard 1/2)\'s (["openai", "gpt-4o-mini", "judge.example"] against '
            '["openai", "gpt-4o-mini", null]); shards must come from one config, data and prompts',
        ),
        (
            lambda s: s[1][1]["judge"].update(model="gpt-4o"),
            "shard-2.json (shard 2/2): the judge (provider, model, endpoint) is not "
            'shard-1.json (shard 1/2)\'s (["openai", "gpt-4o", null] against '
            '["openai", "gpt-4o-mini", null]); shards must come from one config, data and prompts',
        ),
        (
            lambda s: s[1][1]["config"].pop("resolved_digest"),
            "shard-2.json (shard 2/2): the report has no config.resolved_digest",
        ),
        (
            lambda s: s[1][1]["rows"].append(s[0][1]["rows"][0]),
            "shard-2.json (shard 2/2): row support/ok-1 is also in shard-1.json (shard 1/2)",
        ),
        (
            lambda s: s[1][1]["rows"][0].pop("position"),
            "shard-2.json (shard 2/2): row support/bad|<b>@team</b> has no dataset or position "
            "in the shard",
        ),
        (
            lambda s: s[0][1].update(schema_version=2),
            "shard-1.json: not a ground-gate JSON report (expected an object with "
            "schema_version 1)",
        ),
        (
            lambda s: s[0][1]["scores"][0].update(score="truthiness"),
            "shard-1.json: unknown score(s) truthiness",
        ),
    ],
)
def test_merge_reports__refuses_what_it_cannot_merge(change: Any, expected: str) -> None:
    shards = shard_reports()
    change(shards)
    with pytest.raises(MergeError) as caught:
        merge_reports(shards)
    assert str(caught.value) == expected


def test_merge_reports__a_baseline_the_shards_used_must_be_given_and_the_same() -> None:
    shards = shard_reports()
    for _, report in shards:
        report["shard"]["baseline_digest"] = "sha256:aaa"
    with pytest.raises(MergeError, match=r"give the same report with --baseline"):
        merge_reports(shards)
    with pytest.raises(MergeError) as caught:
        merge_reports(shards, test_report.report(), "sha256:bbb")
    assert str(caught.value) == (
        "--baseline is sha256:bbb, but the shards were compared with sha256:aaa"
    )
    merged = merge_reports(shards, test_report.report(), "sha256:aaa")
    assert all("baseline" in e for e in merged["scores"])


def test_matching_reports__what_download_artifact_left_sorted_and_relative(
    tmp_path: Path,
) -> None:
    for name in ("ground-gate-shard-2", "ground-gate-shard-10", "ground-gate-shard-1"):
        (tmp_path / "shards" / name).mkdir(parents=True)
        (tmp_path / "shards" / name / "report.json").write_text("{}")
        (tmp_path / "shards" / name / "report.md").write_text("")
    (tmp_path / "ground-gate-report").mkdir()
    (tmp_path / "ground-gate-report" / "report.json").write_text("{}")

    found = matching_reports(tmp_path, "shards/*/report.json")

    assert [p.as_posix() for p in found] == [
        "shards/ground-gate-shard-1/report.json",
        "shards/ground-gate-shard-10/report.json",
        "shards/ground-gate-shard-2/report.json",
    ]
    assert matching_reports(tmp_path, "**/ground-gate-shard-1*/*.json") == found[:2]


def test_matching_reports__nothing_matched_says_to_download_first(tmp_path: Path) -> None:
    with pytest.raises(MergeError) as caught:
        matching_reports(tmp_path, "shards/*/report.json")
    assert str(caught.value) == (
        "no shard report matches 'shards/*/report.json' in the working directory: download "
        "the shard jobs' artifacts there first"
    )


def test_merge_reports__a_schema_valid_but_inconsistent_shard_is_refused_not_a_crash() -> None:
    shards = shard_reports()
    metrics = shards[1][1]["rows"][0]["metrics"]
    name = next(n for n, m in metrics.items() if m["status"] == "ok")
    metrics[name]["scores"] = {}  # "ok" without its scores
    with pytest.raises(MergeError, match="the shard reports do not fit together"):
        merge_reports(shards)


@pytest.mark.parametrize(
    ("index", "count", "expected"),
    [
        (3, 2, "K is larger than N"),
        (1, 10**7, "does not match the published report schema"),
    ],
)
def test_merge_reports__an_impossible_shard_is_refused_at_once(index, count, expected) -> None:
    shards = shard_reports()
    shards[0][1]["shard"].update(index=index, count=count)
    with pytest.raises(MergeError, match=expected):
        merge_reports(shards)


def test_merge_reports__many_missing_shards_are_counted_not_all_listed() -> None:
    shards = shard_reports()
    for _, report in shards:
        report["shard"]["count"] = 1000
    with pytest.raises(MergeError) as caught:
        merge_reports(shards)
    assert "and 988 more missing: 2 of 1000 shard reports given" in str(caught.value)


def test_merge_reports__costs_at_judge_prices_are_summed() -> None:
    shards = shard_reports()
    for (_, report), cost in zip(shards, (0.25, 0.5), strict=True):
        report["usage"]["total"]["cost_usd"] = cost
        for entry in report["usage"]["by_metric"].values():
            entry["cost_usd"] = cost / 2
    merged = merge_reports(shards)
    assert merged["usage"]["total"]["cost_usd"] == 0.75
    assert {e["cost_usd"] for e in merged["usage"]["by_metric"].values()} == {0.375}
    del shards[1][1]["usage"]["total"]["cost_usd"]  # one shard without prices: no total cost
    assert "cost_usd" not in merge_reports(shards)["usage"]["total"]
