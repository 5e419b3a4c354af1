"""The action's `shard` and `merge` inputs, run as the runner runs the container.

A matrix of 4 shard jobs runs `ground-gate action` with `shard: K/4` against the scripted
judge; each job's `ground-gate-report/` folder is then copied where
`actions/download-artifact` puts one artifact per folder (`ground-gate-shards/<name>/`), and
the merge job runs with `merge: ground-gate-shards/*/report.json`: it comments once and gates
once, with no judge call. The same shard reports published by a workflow_run run are merged
again there and posted as the pull request's unverified claim.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ground_gate import action
from tests.integration import fake_openai
from tests.integration.fake_github import FakeGitHub
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.support_bot import CONFIG, ROWS
from tests.integration.test_github_entrypoint import FIXTURES, action_env, invoke, outputs

TOKEN = "ghs_entrypoint_token"
MARKER = "<!-- ground-gate:default -->"
SHARDS = "ground-gate-shards/*/report.json"
FORK_PR = 18  # workflow_run_fork.json's pull request
FORK_HEAD = "6dcb09b5b57875f334f61aebed695e2e4193db5e"


@pytest.fixture
def github_token() -> str:
    return TOKEN


def rows(count: int = 16) -> list[dict[str, Any]]:
    """The support-bot rows again and again: every third one invented (rated 1 of 5)."""
    out = []
    for i in range(count):
        row = dict(ROWS[1] if i % 3 == 0 else ROWS[0])
        row["id"] = f"{row['id']}-{i}"
        out.append(row)
    return out


def job_env(
    tmp_path: Path,
    name: str,
    judge: FakeOpenAI,
    github: FakeGitHub,
    *,
    threshold: str = "0.8",
    **inputs: str,
) -> dict[str, str]:
    """One job's environment in its own workspace: the config and the 16 rows checked out."""
    env = action_env(tmp_path / name, judge, github, **inputs)
    workspace = Path(env["GITHUB_WORKSPACE"])
    (workspace / "ground-gate.yml").write_text(CONFIG.replace("0.8", threshold))
    (workspace / "data" / "support.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows())
    )
    return env


def run_shards(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    **inputs: str,
) -> list[Path]:
    """The matrix: 4 shard jobs; each one's report folder, as its artifact holds it."""
    folders = []
    for k in range(1, 5):
        env = job_env(tmp_path, f"shard-{k}", judge, github, shard=f"{k}/4", **inputs)
        result = invoke(env, monkeypatch)
        assert result.exit_code == 0, result.output  # a finished shard exits 0
        folders.append(Path(env["GITHUB_WORKSPACE"]) / "ground-gate-report")
    return folders


def download(folders: list[Path], workspace: Path) -> None:
    """actions/download-artifact with `pattern: ground-gate-shard-*`: one folder each."""
    for k, folder in enumerate(folders, start=1):
        shutil.copytree(folder, workspace / "ground-gate-shards" / f"ground-gate-shard-{k}")


@pytest.fixture
def shard_folders(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[Path]]:
    folders = run_shards(tmp_path, judge, github, monkeypatch)
    assert github.requests == []  # no shard comments, none even looks for a comment
    yield folders


def test_shard__writes_its_report_and_does_not_comment(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = job_env(tmp_path, "shard-1", judge, github, shard="1/4")

    result = invoke(env, monkeypatch)

    assert result.exit_code == 0, result.output
    workspace = Path(env["GITHUB_WORKSPACE"])
    folder = workspace / "ground-gate-report"
    report = json.loads((folder / "report.json").read_text())
    assert report["shard"]["index"] == 1 and report["shard"]["count"] == 4
    assert report["shard"]["dataset_rows"] == {"support-bot": 16}
    assert 0 < len(report["rows"]) < 16
    # its rows only: one rating each, and the question whether an invented one (rated 1 of 5)
    # holds information at all
    invented = sum(1 for r in report["rows"] if r["metrics"]["rating"]["scores"]["rating"] < 0.5)
    assert len(judge.requests) == len(report["rows"]) + invented
    assert (folder / "pr-number.txt").read_text() == "17\n"  # for a workflow_run merge
    assert github.requests == []
    markdown = (folder / "report.md").read_text()
    assert markdown.startswith("## ")
    assert " ground-gate: shard 1 of 4: " in markdown.splitlines()[0]
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text() == markdown
    written = outputs(env)
    assert written["passed"] == ("true" if report["passed"] else "false")
    assert written["summary"].startswith("ground-gate: shard 1/4, its rows only: ")
    assert written["report-json"] == "ground-gate-report/report.json"


def test_shard__whose_rows_fail_still_exits_0_the_merge_gates(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    failed = []
    for k in range(1, 5):
        env = job_env(tmp_path, f"s{k}", judge, github, shard=f"{k}/4", threshold="0.99")
        result = invoke(env, monkeypatch)
        assert result.exit_code == 0, result.output
        failed.append(outputs(env)["passed"] == "false")
        assert "::error" not in result.output  # the merge job annotates the failures, once
    assert failed.count(True) >= 2  # the shards holding an invented row miss 0.99, exit 0
    assert github.requests == []


def test_shard__that_cannot_finish_exits_2(
    tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI(handler=lambda body: fake_openai.error(401, "invalid key")) as down:
        env = job_env(tmp_path, "shard-2", down, github, shard="2/4")
        result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert outputs(env)["passed"] == "false"
    assert github.requests == []


def test_merge__comments_once_and_gates_once_with_no_judge_call(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    calls = len(judge.requests)
    env = job_env(tmp_path, "merge", judge, github, merge=SHARDS)
    workspace = Path(env["GITHUB_WORKSPACE"])
    download(shard_folders, workspace)
    (workspace / "ground-gate.yml").unlink()  # a merge reads no config and no dataset
    shutil.rmtree(workspace / "data")

    result = invoke(env, monkeypatch)

    assert result.exit_code == 1, result.output  # 10 of 16 rows rated 5: 0.625 < 0.8
    assert len(judge.requests) == calls
    report = json.loads((workspace / "ground-gate-report" / "report.json").read_text())
    assert "shard" not in report
    assert [r["id"] for r in report["rows"]] == [r["id"] for r in rows()]
    (entry,) = report["scores"]
    assert (entry["mean"], entry["passed"]) == (0.625, False)
    markdown = (workspace / "ground-gate-report" / "report.md").read_text()
    (comment,) = github.comments[17]
    assert comment["body"] == f"{MARKER}\n{markdown}"  # no page promised
    assert (workspace / "ground-gate-report" / "report.html").is_file()
    assert markdown.startswith("## \u274c ground-gate: failed\n")
    assert github.routes_called().count("POST create-comment") == 1
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text() == markdown
    assert outputs(env)["passed"] == "false"
    assert outputs(env)["summary"] == (
        "ground-gate: failed: 1 of 1 check failed (support-bot rating: 0.62 < min 0.80)"
    )
    assert result.output.count("::error title=ground-gate%3A support-bot rating::") == 1


def test_merge__equals_the_unsharded_run(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    single = job_env(tmp_path, "single", judge, github, comment="never")
    assert invoke(single, monkeypatch).exit_code == 1
    env = job_env(tmp_path, "merge", judge, github, merge=SHARDS)
    download(shard_folders, Path(env["GITHUB_WORKSPACE"]))

    assert invoke(env, monkeypatch).exit_code == 1

    def scores(env: dict[str, str]) -> Any:
        folder = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-report"
        report = json.loads((folder / "report.json").read_text())
        return report["status"], report["scores"], [(r["id"], r["failing"]) for r in report["rows"]]

    assert scores(env) == scores(single)
    assert outputs(env)["summary"] == outputs(single)["summary"]


def test_merge__fail_on_threshold_false_lets_a_missed_threshold_pass(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    env = job_env(tmp_path, "merge", judge, github, merge=SHARDS, fail_on_threshold="false")
    download(shard_folders, Path(env["GITHUB_WORKSPACE"]))

    result = invoke(env, monkeypatch)

    assert result.exit_code == 0, result.output
    assert outputs(env)["passed"] == "false"
    assert len(github.comments[17]) == 1


def test_merge__gates_with_the_shards_thresholds_not_its_checkouts(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = run_shards(tmp_path, judge, github, monkeypatch, threshold="0.5")
    env = job_env(tmp_path, "merge", judge, github, merge=SHARDS, threshold="0.99")
    download(folders, Path(env["GITHUB_WORKSPACE"]))

    result = invoke(env, monkeypatch)

    assert result.exit_code == 0, result.output
    assert outputs(env)["passed"] == "true"
    (comment,) = github.comments[17]
    assert comment["body"].startswith(f"{MARKER}\n## \u2705 ground-gate: passed\n")


def test_merge__a_missing_shard_exits_2_saying_which_nothing_posted(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    env = job_env(tmp_path, "merge", judge, github, merge=SHARDS)
    download([shard_folders[0], shard_folders[1], shard_folders[3]], Path(env["GITHUB_WORKSPACE"]))

    result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    message = "shard 3/4 missing: 3 of 4 shard reports given"
    assert f"::error title=ground-gate::{message}\n" in result.output
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text() == (
        f"## ground-gate could not run\n\n```text\n{message}\n```\n"
    )
    assert outputs(env) == {"passed": "false", "summary": f"ground-gate: error: {message}"}
    assert github.requests == []


def test_merge__nothing_downloaded_exits_2_saying_what_to_do(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = job_env(tmp_path, "merge", judge, github, merge=SHARDS)

    result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert (
        "::error title=ground-gate::no shard report matches 'ground-gate-shards/*/report.json' "
        "in the working directory: download the shard jobs' artifacts there first\n"
    ) in result.output
    assert github.requests == []


def test_merge__a_shard_of_another_config_is_refused_naming_its_file(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    other = run_shards(tmp_path / "other", judge, github, monkeypatch)
    env = job_env(tmp_path, "merge", judge, github, merge=SHARDS)
    workspace = Path(env["GITHUB_WORKSPACE"])
    download([*shard_folders[:3], other[3]], workspace)
    report = json.loads((other[3] / "report.json").read_text())
    report["config"]["scoring_digest"] = "sha256:" + "0" * 64
    (workspace / "ground-gate-shards/ground-gate-shard-4/report.json").write_text(
        json.dumps(report)
    )

    result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert (
        "::error title=ground-gate::ground-gate-shards/ground-gate-shard-4/report.json "
        "(shard 4/4): the config (what can change a score) is not "
        "ground-gate-shards/ground-gate-shard-1/report.json (shard 1/4)'s"
    ) in result.output
    assert github.requests == []


# --- the fork-safe pair, sharded: the workflow_run run merges the shard artifacts itself ---


def workflow_run_env(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, folders: list[Path]
) -> dict[str, str]:
    env = job_env(tmp_path, "comment", judge, github, merge=SHARDS)
    env.update(
        GITHUB_EVENT_NAME="workflow_run",
        GITHUB_EVENT_PATH=str(FIXTURES / "workflow_run_fork.json"),
        **{"INPUT_OPENAI-API-KEY": "", "INPUT_OPENAI-BASE-URL": ""},
    )
    workspace = Path(env["GITHUB_WORKSPACE"])
    (workspace / "ground-gate.yml").unlink()  # checks nothing out
    shutil.rmtree(workspace / "data")
    download(folders, workspace)
    for number in workspace.glob("ground-gate-shards/*/pr-number.txt"):
        number.write_text(f"{FORK_PR}\n")  # the fork's pull-request run wrote its number
    github.pull_heads[FORK_PR] = FORK_HEAD
    return env


def test_workflow_run_merge__posts_the_merged_shards_as_an_unverified_claim(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    calls = len(judge.requests)
    env = workflow_run_env(tmp_path, judge, github, shard_folders)
    # a forged verdict in every shard: the merge recomputes it from the rows
    for path in Path(env["GITHUB_WORKSPACE"]).glob(SHARDS):
        report = json.loads(path.read_text())
        report.update(status="passed", passed=True)
        for entry in report["scores"]:
            entry["passed"] = True
        path.write_text(json.dumps(report))

    result = invoke(env, monkeypatch)

    assert result.exit_code == 0, result.output  # published: that is all it says
    assert len(judge.requests) == calls
    (comment,) = github.comments[FORK_PR]
    body = comment["body"]
    assert body.startswith(
        f"{MARKER}\n## ground-gate: reported by the pull request's run: failed\n"
    )
    assert "\u2705" not in body and "\u274c" in body
    folder = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-report"
    assert body == f"{MARKER}\n{(folder / 'report.md').read_text()}"
    assert json.loads((folder / "report.json").read_text())["passed"] is False
    assert outputs(env)["passed"] == "false"
    assert outputs(env)["summary"] == (
        "ground-gate: reported by the pull request's run, not re-verified: not passed"
    )


def test_workflow_run_merge__a_shard_off_the_schema_is_refused_nothing_posted(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    env = workflow_run_env(tmp_path, judge, github, shard_folders)
    path = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-shards/ground-gate-shard-2/report.json"
    report = json.loads(path.read_text())
    report["markdown"] = "## \u2705 ground-gate: passed @octo-org/security"
    path.write_text(json.dumps(report))

    result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert github.requests == []
    assert (
        "::warning title=ground-gate::not publishing the pull request run's report: the shard "
        "reports cannot be merged (ground-gate-shards/ground-gate-shard-2/report.json: does not "
        "match the published report schema ($: Additional properties are not allowed"
    ) in result.output
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert summary.startswith("## ground-gate: nothing published\n")
    assert "ground-gate-shard-2/report.json: does not match" in summary


def test_workflow_run_merge__a_missing_shard_is_refused_nothing_posted(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    env = workflow_run_env(tmp_path, judge, github, shard_folders[:3])

    result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert github.requests == []
    assert "(shard 4/4 missing: 3 of 4 shard reports given); nothing was posted" in result.output


def test_workflow_run_merge__shards_naming_different_pull_requests_are_refused(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    env = workflow_run_env(tmp_path, judge, github, shard_folders)
    number = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-shards/ground-gate-shard-3/pr-number.txt"
    number.write_text("3\n")

    result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert github.requests == []
    assert "the shard reports name different pull requests (3, 18); nothing was posted" in (
        result.output
    )


def test_workflow_run_merge__a_shard_without_its_pull_request_number_is_refused(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    env = workflow_run_env(tmp_path, judge, github, shard_folders)
    number = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-shards/ground-gate-shard-2/pr-number.txt"
    number.unlink()

    result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert github.requests == []
    assert "no pr-number.txt beside" in result.output
    assert "ground-gate-shard-2" in result.output


def test_workflow_run_merge__an_oversized_shard_is_refused_unread(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    shard_folders: list[Path],
) -> None:
    env = workflow_run_env(tmp_path, judge, github, shard_folders)
    path = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-shards/ground-gate-shard-4/report.json"
    others = max(p.stat().st_size for p in path.parents[1].glob("*/report.json"))
    path.write_text(path.read_text() + " " * (others + 1 - path.stat().st_size))  # still JSON
    monkeypatch.setattr(action, "ARTIFACT_MAX_BYTES", others)

    result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert github.requests == []
    assert (
        "not publishing the pull request run's report: the shard reports cannot be merged "
        "(ground-gate-shards/ground-gate-shard-4/report.json: larger than"
    ) in result.output


# --- shards compared with a baseline: the copy they leave lets both merges compare ---------


def baseline_shards(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> list[Path]:
    """main's report (every row, the same judge) as the baseline of 4 shard jobs."""
    main = job_env(tmp_path, "main", judge, github, comment="never")
    assert invoke(main, monkeypatch).exit_code == 1
    report = Path(main["GITHUB_WORKSPACE"]) / "ground-gate-report" / "report.json"
    folders = []
    for k in range(1, 5):
        env = job_env(tmp_path, f"shard-{k}", judge, github, shard=f"{k}/4", baseline="main.json")
        shutil.copyfile(report, Path(env["GITHUB_WORKSPACE"]) / "main.json")
        assert invoke(env, monkeypatch).exit_code == 0
        folder = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-report"
        assert (folder / "baseline.json").read_bytes() == report.read_bytes()
        folders.append(folder)
    return folders


def test_merge__shards_run_with_a_baseline_are_compared_with_the_copy_they_left(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = baseline_shards(tmp_path, judge, github, monkeypatch)
    env = job_env(tmp_path, "merge", judge, github, merge=SHARDS)  # no baseline input
    download(folders, Path(env["GITHUB_WORKSPACE"]))

    assert invoke(env, monkeypatch).exit_code == 1

    folder = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-report"
    (entry,) = json.loads((folder / "report.json").read_text())["scores"]
    assert (entry["baseline"]["paired"], entry["baseline"]["delta"]) == (16, 0.0)


def test_workflow_run_merge__compares_with_the_shards_baseline_copy_and_refuses_a_forged_one(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = baseline_shards(tmp_path, judge, github, monkeypatch)
    env = workflow_run_env(tmp_path, judge, github, folders)

    assert invoke(env, monkeypatch).exit_code == 0, github.requests

    (comment,) = github.comments[FORK_PR]
    folder = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-report"
    (entry,) = json.loads((folder / "report.json").read_text())["scores"]
    assert (entry["baseline"]["paired"], entry["baseline"]["delta"]) == (16, 0.0)
    assert re.search(r"\| \u274c 0\.62 \u2192 0\.62 < 0\.80 +\|", comment["body"])

    forged = tmp_path / "forged"
    env = workflow_run_env(forged, judge, github, folders)
    for copy in Path(env["GITHUB_WORKSPACE"]).glob("ground-gate-shards/*/baseline.json"):
        report = json.loads(copy.read_text())
        report["rows"] = report["rows"][:1]  # a baseline the shards were not compared with
        copy.write_text(json.dumps(report))
    result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert "baseline.json: not the baseline the shards were compared with (sha256:" in result.output
    assert len(github.comments[FORK_PR]) == 1  # only the first run's comment


def _shard_with_baseline_at(
    tmp_path: Path,
    judge: FakeOpenAI,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> tuple[Any, Path, bytes, int]:
    """main's report given as a shard job's baseline at `where`: the shard job's result, its
    report folder, main's report's bytes and the judge requests made before the shard ran."""
    main = job_env(tmp_path, "main", judge, github, comment="never")
    assert invoke(main, monkeypatch).exit_code == 1
    calls = judge.request_count
    before = (Path(main["GITHUB_WORKSPACE"]) / "ground-gate-report" / "report.json").read_bytes()
    env = job_env(tmp_path, "shard", judge, github, shard="1/4", baseline=where)
    folder = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-report"
    folder.mkdir()
    (Path(env["GITHUB_WORKSPACE"]) / where).write_bytes(before)
    return invoke(env, monkeypatch), folder, before, calls


def test_shard__a_baseline_left_as_the_copy_is_read_before_the_copy_is_written(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = "ground-gate-report/baseline.json"
    result, folder, before, _ = _shard_with_baseline_at(tmp_path, judge, github, monkeypatch, where)

    assert result.exit_code == 0, result.output
    assert (folder / "baseline.json").read_bytes() == before
    shard = json.loads((folder / "report.json").read_text())
    assert shard["shard"]["baseline_digest"] == "sha256:" + hashlib.sha256(before).hexdigest()


def test_shard__a_baseline_where_the_run_writes_its_report_is_refused_and_kept(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = "ground-gate-report/report.json"
    result, folder, before, calls = _shard_with_baseline_at(
        tmp_path, judge, github, monkeypatch, where
    )

    assert result.exit_code == 2, result.output
    assert (
        "the JSON report and the baseline are one file (ground-gate-report/report.json): give each "
        "file written a path of its own"
    ) in result.output.replace(str(folder.parent) + "/", "")
    assert (folder / "report.json").read_bytes() == before  # main's report, not overwritten
    assert judge.request_count == calls  # refused before any judge call
