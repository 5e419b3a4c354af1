"""The example CI files users copy must hang together: the sharded GitHub workflow (a matrix of
4 shards and the merge job), its fork comment workflow and the GitLab pipeline. Names and paths
that one job writes and another reads must agree, and every action input they use must exist.
(actionlint, zizmor and GitLab's CI schema check the syntax: scripts/lint.sh.)"""

from __future__ import annotations

import glob
import itertools
import re
import shlex
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest
import yaml

from ground_gate.commands.merge import matching_reports
from ground_gate.datasets.shards import parse_shard
from ground_gate.github.sticky_comment import REPORT_DIR

ROOT = Path(__file__).parents[2]
WORKFLOWS = ROOT / "examples" / "workflows"
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
OUR_ACTION = "OWNER/ground-gate@v1"
SHARDS = [1, 2, 3, 4]


def load(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    return data


def steps(job: dict[str, Any], uses: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).split("@")[0] == uses.split("@")[0]]


def step(job: dict[str, Any], uses: str) -> dict[str, Any]:
    (found,) = steps(job, uses)
    return found


def expand(text: str, values: dict[str, Any]) -> str:
    """A workflow expression's `${{ matrix.NAME }}` with the matrix's values."""
    return re.sub(r"\$\{\{\s*matrix\.(\w+)\s*\}\}", lambda m: str(values[m.group(1)]), text)


SHARDED = load(WORKFLOWS / "ground-gate-sharded.yml")
FORK_COMMENT = load(WORKFLOWS / "ground-gate-sharded-fork-comment.yml")
GITLAB = load(ROOT / "examples" / "gitlab-ci.yml")


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_workflows__use_only_inputs_the_action_has(path: Path) -> None:
    workflow = load(path)
    used = [
        s for job in workflow["jobs"].values() for s in job["steps"] if s.get("uses") == OUR_ACTION
    ]
    assert used, path
    for found in used:
        assert set(found.get("with", {})) <= set(ACTION["inputs"]), found


def test_sharded__a_matrix_of_4_shards_each_given_its_own_shard_input() -> None:
    job = SHARDED["jobs"]["shard"]
    assert job["strategy"]["matrix"] == {"shard": SHARDS}
    assert job["strategy"]["fail-fast"] is False
    gate = step(job, OUR_ACTION)
    shards = [parse_shard(expand(gate["with"]["shard"], {"shard": k})) for k in SHARDS]
    assert [(s.index, s.count) for s in shards] == [(k, 4) for k in SHARDS]
    assert "comment" not in gate["with"]  # a shard never comments
    assert "merge" not in gate["with"]
    assert job["permissions"] == {"contents": "read"}


def test_sharded__the_merge_job_needs_the_shards_and_runs_nothing_of_the_checkout() -> None:
    job = SHARDED["jobs"]["merge"]
    assert job["needs"] in ("shard", ["shard"])
    assert job["if"] == "${{ !cancelled() }}"  # a failed shard is named by the merge
    assert steps(job, "actions/checkout") == []
    assert job["permissions"] == {"pull-requests": "write"}
    gate = step(job, OUR_ACTION)
    assert set(gate["with"]) == {"merge", "comment"}


def shard_artifacts(job: dict[str, Any]) -> list[tuple[str, str]]:
    """(artifact name, uploaded path) of each matrix job."""
    upload = next(s for s in steps(job, "actions/upload-artifact"))
    return [(expand(upload["with"]["name"], {"shard": k}), upload["with"]["path"]) for k in SHARDS]


def downloaded_reports(download: dict[str, Any], names: list[str]) -> list[str]:
    """Where actions/download-artifact puts each shard's report.json: with a `pattern` and
    without `merge-multiple`, each artifact in a folder of its name under `path`."""
    assert download["with"].get("merge-multiple", False) is False
    matched = [n for n in names if fnmatch(n, download["with"]["pattern"])]
    assert matched == names
    return [f"{download['with']['path']}/{name}/report.json" for name in names]


@pytest.mark.parametrize(
    "merge_job",
    [SHARDED["jobs"]["merge"], FORK_COMMENT["jobs"]["comment"]],
    ids=["merge job", "fork comment job"],
)
def test_sharded__the_artifacts_uploaded_are_the_ones_merged(
    merge_job: dict[str, Any], tmp_path: Path
) -> None:
    artifacts = shard_artifacts(SHARDED["jobs"]["shard"])
    names = [name for name, _ in artifacts]
    assert len(set(names)) == 4
    assert {path.rstrip("/") for _, path in artifacts} == {REPORT_DIR}  # where the action writes
    reports = downloaded_reports(step(merge_job, "actions/download-artifact"), names)
    for path in [*reports, f"{REPORT_DIR}/report.json"]:  # and the merge job's own output
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("{}")
    glob = step(merge_job, OUR_ACTION)["with"]["merge"]
    # as the action reads the input: a glob relative to the working directory
    assert [p.as_posix() for p in matching_reports(tmp_path, glob)] == sorted(reports)


def test_sharded__each_shard_keeps_a_judge_cache_and_falls_back_to_any() -> None:
    job = SHARDED["jobs"]["shard"]
    restore = step(job, "actions/cache/restore")["with"]
    save = step(job, "actions/cache/save")["with"]
    assert restore["path"] == save["path"] == ".ground-gate/cache"
    for k in SHARDS:
        key = expand(restore["key"], {"shard": k})
        saved = expand(save["key"], {"shard": k})
        assert key.startswith(f"ground-gate-judge-{k}-of-4-")
        assert saved.startswith(key)  # a restore finds what the last run saved
        assert saved.endswith("${{ steps.gate.outputs.prompt-version }}")
    fallbacks = restore["restore-keys"].split()
    assert fallbacks[-1] == "ground-gate-judge-"  # another shard's, or the single job's
    order = job["steps"]
    assert order.index(step(job, OUR_ACTION)) < order.index(step(job, "actions/cache/save"))
    assert step(job, OUR_ACTION)["id"] == "gate"


def test_sharded_fork_comment__runs_after_the_sharded_workflow_for_forks_only() -> None:
    trigger = FORK_COMMENT[True]["workflow_run"]  # YAML 1.1 reads the key `on` as True
    assert trigger["workflows"] == [SHARDED["name"]]
    job = FORK_COMMENT["jobs"]["comment"]
    assert "head_repository.full_name != github.repository" in job["if"]
    assert steps(job, "actions/checkout") == []
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    download = step(job, "actions/download-artifact")["with"]
    assert download["run-id"] == "${{ github.event.workflow_run.id }}"
    merge_job = SHARDED["jobs"]["merge"]
    # the merge job leaves a fork's comment to this workflow, and comments otherwise
    assert step(merge_job, OUR_ACTION)["with"]["comment"] == (
        "${{ github.event.pull_request.head.repo.full_name == github.repository "
        "&& 'auto' || 'never' }}"
    )


# --- GitLab ---


def gitlab_matrix(job: dict[str, Any]) -> list[dict[str, str]]:
    """The variables of each job `parallel: matrix` makes."""
    combos = []
    for entry in job["parallel"]["matrix"]:
        names = list(entry)
        values = [v if isinstance(v, list) else [v] for v in entry.values()]
        combos += [dict(zip(names, c, strict=True)) for c in itertools.product(*values)]
    return combos


def shell_words(script: list[str], variables: dict[str, str]) -> list[str]:
    (line,) = script
    for name, value in variables.items():
        line = line.replace(f"${name}", value)
    return shlex.split(line)


def option(words: list[str], name: str) -> str:
    return words[words.index(name) + 1]


def test_gitlab__4_parallel_shards_each_running_its_own_shard() -> None:
    job = GITLAB["ground-gate-shard"]
    combos = gitlab_matrix(job)
    assert [(c["SHARD_INDEX"], c["SHARD_COUNT"]) for c in combos] == [(str(k), "4") for k in SHARDS]
    outputs = []
    for variables in combos:
        words = shell_words(job["script"], variables)
        assert words[:2] == ["ground-gate", "run"]
        shard = parse_shard(option(words, "--shard"))
        assert str(shard) == f"{variables['SHARD_INDEX']}/4"
        outputs.append(option(words, "--output-json"))
        for path in (option(words, "--output-json"), option(words, "--output-md")):
            assert any(path.startswith(kept) for kept in job["artifacts"]["paths"]), path
    assert len(set(outputs)) == 4
    assert job["artifacts"]["when"] == "always"  # an unfinished shard's report is kept too
    judge_cache = job["cache"][0]
    assert judge_cache["paths"] == [".ground-gate/cache/"]
    assert "$SHARD_INDEX" in judge_cache["key"]


def glob_in(directory: Path, pattern: str) -> list[str]:
    return glob.glob(pattern, root_dir=directory)


def test_gitlab__the_merge_job_needs_the_shards_merges_their_reports_and_reports_junit(
    tmp_path: Path,
) -> None:
    shard_job = GITLAB["ground-gate-shard"]
    outputs = [
        option(shell_words(shard_job["script"], v), "--output-json")
        for v in gitlab_matrix(shard_job)
    ]
    job = GITLAB["ground-gate"]
    assert job["needs"] == [{"job": "ground-gate-shard", "artifacts": True}]
    assert job["when"] == "always"
    assert GITLAB["stages"].index(job["stage"]) > GITLAB["stages"].index(shard_job["stage"])
    words = shell_words(job["script"], {})
    assert words[:2] == ["ground-gate", "merge"]
    for path in outputs:  # where the shard jobs' artifacts are restored, and what else is
        for kept in (path, path.replace(".json", ".md"), "ground-gate-report/report.json"):
            (tmp_path / kept).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / kept).write_text("{}")
    glob = words[2]  # unquoted: the shell expands it as glob.glob does
    assert sorted(glob_in(tmp_path, glob)) == sorted(outputs)
    junit = option(words, "--output-junit")
    assert job["artifacts"]["reports"]["junit"] == junit
    assert any(junit.startswith(kept) for kept in job["artifacts"]["paths"])
    assert "cache" not in job  # the merge makes no judge call


def test_gitlab__the_image_is_the_published_one_with_the_cli_as_entry_point() -> None:
    base = GITLAB[".ground-gate"]
    assert base["image"] == {"name": "ghcr.io/OWNER/ground-gate:1", "entrypoint": [""]}
    for name in ("ground-gate-shard", "ground-gate"):
        assert GITLAB[name]["extends"] == ".ground-gate"
    # the local judge's model is looked for where the shard jobs' cache keeps it
    model_dir = base["variables"]["GROUND_GATE_MODEL_DIR"]
    cached = [c["paths"] for c in GITLAB["ground-gate-shard"]["cache"]]
    assert model_dir.removeprefix("$CI_PROJECT_DIR/") + "/" in [p for ps in cached for p in ps]
