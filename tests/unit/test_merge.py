"""Merging shard reports: report dicts in (as the one reader returns them), the joined record
out, MergeError naming the shard and the problem; the merged report equals the unsharded one."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ground_gate.commands.merge import matching_reports, merged_reports
from ground_gate.leaves.errors import MergeError
from ground_gate.report.types import Report, ShardEntry
from ground_gate.stages.report_files import judged, read_report
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
        report["datasets"][0]["rows"] = report["datasets"][0]["scored"] = len(report["rows"])
        out.append((f"shard-{index}.json", report))
    return out


def merge_reports(
    shards: list[tuple[str, dict[str, Any]]],
    baseline: Report | None = None,
    digest: str | None = None,
) -> Report:
    merged = merged_reports(shards, baseline, digest)
    return judged(merged.record, merged.baseline)


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
    shards[1][1]["datasets"][0]["rows"] += 1
    for _, report in shards:
        report["shard"]["dataset_rows"] = {"support": 3}
    merged = merge_reports(shards)
    assert merged["not_run"] == [{"dataset": "support", "id": "r-9"}]
    assert (merged["status"], merged["passed"]) == ("incomplete", False)
    assert "not_run" not in merge_reports(shard_reports())


def _same_id_elsewhere(shards: list[tuple[str, dict[str, Any]]]) -> None:
    """shard 2's row renamed to shard 1's id: each shard adds up, but one row is in both."""
    shards[1][1]["rows"][0]["id"] = shards[0][1]["rows"][0]["id"]


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
            _same_id_elsewhere,
            "shard-2.json (shard 2/2): row support/ok-1 is also in shard-1.json (shard 1/2)",
        ),
        (
            lambda s: s[1][1]["rows"][0].pop("position"),
            "shard-2.json (shard 2/2): row support/bad|<b>@team</b> has no position among the "
            "dataset's 2 row(s)",
        ),
        (
            lambda s: s[1][1]["rows"][0].update(position=2),
            "shard-2.json (shard 2/2): row support/bad|<b>@team</b> has no position among the "
            "dataset's 2 row(s)",
        ),
        (
            lambda s: s[1][1]["rows"][0].update(position=0),
            "shard-2.json (shard 2/2): row support/bad|<b>@team</b> takes position 0, also "
            "taken in shard-1.json (shard 1/2)",
        ),
        (
            lambda s: s[1][1]["rows"].clear(),  # a row deleted from the report
            "shard-2.json (shard 2/2): dataset support holds 0 row(s) and 0 not run, but the "
            "shard selected 1: rows are missing from the report",
        ),
        (
            lambda s: (
                [r["datasets"][0].update(rows=0, scored=0) for _, r in s[1:]]
                and s[1][1]["rows"].clear()
            ),  # ... and its count lowered to match
            "the shards hold 1 row(s) of dataset support, but it had 2 before sharding: a "
            "shard's rows are missing or repeated",
        ),
        (
            lambda s: s[1][1]["rows"][0]["metrics"]["groundedness"].update(scores={}),
            "shard-2.json: the report does not hold together ($.rows[0].metrics.groundedness"
            ".scores: expected ['groundedness'], found [])",
        ),
    ],
)
def test_merge_reports__refuses_what_it_cannot_merge(change: Any, expected: str) -> None:
    shards = shard_reports()
    change(shards)
    with pytest.raises(MergeError) as caught:
        merge_reports(shards)
    assert str(caught.value) == expected


def test_merge_reports__shards_that_differ_only_where_nothing_is_scored_merge() -> None:
    """One cache folder per shard (or another concurrency) changes the resolved config, not
    what it scores: the scoring digests match and the shards merge."""
    shards = shard_reports()
    for index, (_, report) in enumerate(shards):
        report["config"]["resolved_digest"] = f"sha256:cache-{index}"
        report["config"]["scoring_digest"] = "sha256:same"
    assert merge_reports(shards)["config"]["scoring_digest"] == "sha256:same"
    shards[1][1]["config"]["scoring_digest"] = "sha256:other"
    with pytest.raises(MergeError, match=r"the config \(what can change a score\) is not"):
        merge_reports(shards)


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


def test_merge_reports__k_larger_than_n_is_refused_at_once() -> None:
    shards = shard_reports()
    shards[0][1]["shard"].update(index=3, count=2)
    with pytest.raises(MergeError, match="K is larger than N"):
        merge_reports(shards)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda r: r["shard"].update(count=10**7), "$.shard.count: 10000000 is greater than"),
        (lambda r: r.update(schema_version=2), "not a ground-gate JSON report"),
        (lambda r: r["scores"][0].update(score="truthiness"), "$.scores[0].score: 'truthiness'"),
        (lambda r: r["scores"][0].update(mean=5.0), "$.scores[0].mean: 5.0 is greater than"),
        (
            lambda r: r["rows"][0]["metrics"]["groundedness"]["scores"].update(groundedness=5.0),
            "$.rows[0].metrics.groundedness.scores.groundedness: 5.0 is greater than",
        ),
    ],
)
def test_read_report__a_shard_the_schema_refuses_never_reaches_the_merge(
    tmp_path: Path, change: Any, expected: str
) -> None:
    _, report = shard_reports()[0]
    change(report)
    path = tmp_path / "s1.json"
    path.write_text(json.dumps(report))
    with pytest.raises(MergeError) as caught:
        read_report(path, error=MergeError)
    assert str(caught.value).startswith(f"{path}: ")
    assert expected in str(caught.value)


def test_read_report__infinity_written_as_a_huge_number_is_refused(tmp_path: Path) -> None:
    _, report = shard_reports()[0]
    path = tmp_path / "s1.json"
    path.write_text(json.dumps(report).replace('"mean": 0.575', '"mean": 1e999'))
    with pytest.raises(MergeError) as caught:
        read_report(path, error=MergeError)
    assert str(caught.value) == f"{path}: not JSON (1e999 is out of range for a number)"


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


def test_merge_reports__an_empty_shard_adds_no_cost_and_keeps_every_metric_priced() -> None:
    """A shard that drew no row of a dataset spent nothing on its metrics: the merge prices
    each metric as the unsharded run does, counting that shard as 0."""
    shards = shard_reports(count=3)  # two rows in three shards: the third holds none
    assert shards[2][1]["rows"] == []
    for (_, report), cost in zip(shards, (0.25, 0.5, 0.0), strict=True):
        report["usage"]["total"]["cost_usd"] = cost
        for entry in report["usage"]["by_metric"].values():
            entry["cost_usd"] = cost / 2
    shards[2][1]["usage"]["by_metric"] = {}
    merged = merge_reports(shards)
    assert merged["usage"]["total"]["cost_usd"] == 0.75
    assert {e["cost_usd"] for e in merged["usage"]["by_metric"].values()} == {0.375}
