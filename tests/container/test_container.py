"""The action's real image, run as GitHub's runner runs it (see docker_action.py).

Needs a Docker daemon and an image built from this checkout: `bash scripts/test-container.sh`
builds both images and runs this file with GROUND_GATE_IMAGE set; without it, these tests are
skipped. The judge is the project's scripted OpenAI-compatible server, GitHub the fake REST
API, both on the host's 127.0.0.1 (`--network host`); the local-judge test runs with no
network at all, so anything that tried to download (a model, Punkt data) would fail it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from ground_gate.local.model_cache import default_model_dir
from tests.container.docker_action import IMAGE_ENV, WORKSPACE, Job, Run, run_action
from tests.integration import fake_openai
from tests.integration.fake_github import FakeGitHub
from tests.integration.support_bot import ROWS

FIXTURES = Path(__file__).parents[1] / "fixtures" / "github"
TOKEN = "ghs_container_token_4f1e"
OPENAI_KEY = "sk-container-secret-93ab17"
LOCAL_MODEL = os.environ.get("GROUND_GATE_CONTAINER_MODEL", "qwen2.5-coder-0.5b")


def config(*, threshold: float, cache: bool = False, judge: str = "") -> str:
    judge = judge or (
        "  provider: openai\n  model: fake-model\n  max_retries: 0\n"
        f"  cache_dir: {'.ground-gate/cache' if cache else 'null'}\n"
    )
    return (
        f"version: 1\njudge:\n{judge}datasets:\n  - name: support-bot\n"
        "    path: data/support.jsonl\nmetrics:\n  rating: {}\n"
        f"thresholds:\n  rating: {{min: {threshold}}}\n"
    )


pytestmark = pytest.mark.skipif(
    not os.environ.get(IMAGE_ENV),
    reason=f"{IMAGE_ENV} is not set: run scripts/test-container.sh to build and test the image",
)


@pytest.fixture(scope="module")
def image() -> str:
    return os.environ[IMAGE_ENV]


@pytest.fixture
def github_token() -> str:
    return TOKEN


def make_job(text: str, event: str = "pull_request.json") -> Job:
    job = Job.create(FIXTURES / event)
    (job.workspace / "data").mkdir()
    (job.workspace / "ground-gate.yml").write_text(text)
    (job.workspace / "data" / "support.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in ROWS)
    )
    return job


@pytest.fixture
def jobs() -> Iterator[list[Job]]:
    made: list[Job] = []
    yield made
    for job in made:
        job.remove()


def gate_run(
    image: str, job: Job, judge: fake_openai.FakeOpenAI, github: FakeGitHub, **inputs: str
) -> Run:
    return run_action(
        image,
        job,
        inputs={"openai-base-url": judge.url, **inputs},
        secrets={"INPUT_OPENAI-API-KEY": OPENAI_KEY, "INPUT_GITHUB-TOKEN": TOKEN},
        env={"GITHUB_API_URL": github.url},
    )


def assert_no_secret(job: Job, *runs: Run) -> None:
    for secret in (OPENAI_KEY, TOKEN):
        for run in runs:
            # the runner masks what follows ::add-mask::; the line itself is the registration
            assert secret not in run.log.replace(f"::add-mask::{secret}", ""), secret
        for path in job.root.rglob("*"):
            if path.is_file() and path.stat().st_size < 10_000_000:
                assert secret.encode() not in path.read_bytes(), (secret, path)


def test_container__comment_created_then_updated_from_inside_the_image(
    image: str, judge: fake_openai.FakeOpenAI, github: FakeGitHub, jobs: list[Job]
) -> None:
    job = make_job(config(threshold=0.8))
    jobs.append(job)

    first = gate_run(image, job, judge, github)

    assert first.code == 1, first.log
    report_md = (job.workspace / "ground-gate-report" / "report.md").read_text()
    report = json.loads((job.workspace / "ground-gate-report" / "report.json").read_text())
    assert report["passed"] is False
    assert [r["id"] for r in report["rows"]] == ["grounded-trash", "invented-phone"]
    (comment,) = github.comments[17]
    assert (
        comment["body"] == f"<!-- ground-gate:default -->\n{report_md}"
    )  # the post step links the page
    assert job.summary.read_text() == report_md
    assert job.outputs() == {
        "passed": "false",
        "report-json": "ground-gate-report/report.json",
        "report-markdown": "ground-gate-report/report.md",
        "report-html": "ground-gate-report/report.html",
        "report-junit": "ground-gate-report/report.junit.xml",
        "scores": '{"support-bot":{"rating":0.5}}',
        "summary": "ground-gate: failed: 1 of 1 check failed (support-bot rating: 0.50 < min 0.80)",
        "prompt-version": report["judge"]["prompt_version"],
    }
    assert all(r.headers["authorization"] == f"Bearer {OPENAI_KEY}" for r in judge.requests)

    job.reset_file_commands()
    second = gate_run(image, job, judge, github, **{"fail-on-threshold": "false"})

    assert second.code == 0, second.log
    assert [c["id"] for c in github.comments[17]] == [comment["id"]]
    assert github.routes_called().count("POST create-comment") == 1
    assert github.routes_called()[-1] == "PATCH update-comment"
    assert job.outputs()["passed"] == "false"
    assert_no_secret(job, first, second)


def test_container__two_shards_then_one_merge_comments_once(
    image: str, judge: fake_openai.FakeOpenAI, github: FakeGitHub, jobs: list[Job]
) -> None:
    shards = []
    for k in (1, 2):
        job = make_job(config(threshold=0.8))
        jobs.append(job)
        run = gate_run(image, job, judge, github, shard=f"{k}/2")
        assert run.code == 0, run.log  # a finished shard exits 0: the merge gates
        shards.append(job.workspace / "ground-gate-report")
    assert github.requests == []  # a shard never comments
    calls = len(judge.requests)
    merge = Job.create(FIXTURES / "pull_request.json")  # checks nothing out
    jobs.append(merge)
    for k, folder in enumerate(shards, start=1):
        shutil.copytree(folder, merge.workspace / "ground-gate-shards" / f"shard-{k}")

    run = gate_run(image, merge, judge, github, merge="ground-gate-shards/*/report.json")

    assert run.code == 1, run.log  # rating 0.50 < 0.8, as the unsharded run
    assert len(judge.requests) == calls  # the merge judges nothing
    folder = merge.workspace / "ground-gate-report"
    report = json.loads((folder / "report.json").read_text())
    assert [r["id"] for r in report["rows"]] == ["grounded-trash", "invented-phone"]
    assert "shard" not in report
    (comment,) = github.comments[17]
    assert comment["body"].startswith("<!-- ground-gate:default -->\n## \u274c ground-gate: failed")
    junit = ElementTree.parse(folder / "report.junit.xml").getroot()
    assert junit.get("tests") is not None and junit.get("failures") != "0"
    assert merge.outputs()["report-junit"] == "ground-gate-report/report.junit.xml"
    assert_no_secret(merge, run)


def test_container__gate_passes_with_exit_0(
    image: str, judge: fake_openai.FakeOpenAI, github: FakeGitHub, jobs: list[Job]
) -> None:
    job = make_job(config(threshold=0.4))
    jobs.append(job)

    run = gate_run(image, job, judge, github)

    assert run.code == 0, run.log
    assert job.outputs()["passed"] == "true"
    assert github.routes_called()[-1] == "POST create-comment"
    assert "## \u2705 ground-gate: passed" in job.summary.read_text()
    assert judge.first_request_at is not None
    print(f"container start to first judge call: {judge.first_request_at - run.started:.2f} s")
    assert_no_secret(job, run)


def test_container__bad_config_exits_2_and_posts_nothing(
    image: str, judge: fake_openai.FakeOpenAI, github: FakeGitHub, jobs: list[Job]
) -> None:
    job = make_job(config(threshold=0.8).replace("rating: {}", "rating: {scale: 10}"))
    jobs.append(job)

    run = gate_run(image, job, judge, github)

    assert run.code == 2, run.log
    assert "::error title=ground-gate::" in run.stdout
    assert "ground-gate.yml" in run.log and "Traceback" not in run.log
    assert job.outputs()["passed"] == "false"
    assert github.requests == [] and judge.requests == []
    assert_no_secret(job, run)


def as_runner_user(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    """What actions/cache does after the container step: act as the runner's user, not root."""
    return subprocess.run(args, user=65534, group=65534, capture_output=True, **kwargs)


def test_container__judge_cache_survives_root_writes_and_a_non_root_restore(
    image: str, judge: fake_openai.FakeOpenAI, github: FakeGitHub, jobs: list[Job]
) -> None:
    first_job = make_job(config(threshold=0.4, cache=True))
    jobs.append(first_job)
    first = gate_run(image, first_job, judge, github, comment="never")
    assert first.code == 0, first.log
    calls = judge.request_count
    # What the cache must hold is whatever the run asked, counted on both sides: the requests
    # the judge served, each a different question (one entry each), and the run's own count.
    # No fixed number: what the metric asks changes with it (now a rating of each sentence a
    # reader sees, and whether a sentence rated below the middle says anything at all).
    asked = {json.dumps(r.body, sort_keys=True) for r in judge.requests}
    assert len(asked) == calls >= len(ROWS), judge.requests
    before = json.loads((first_job.workspace / "ground-gate-report/report.json").read_text())
    assert before["usage"]["total"]["calls"] == calls
    assert before["usage"]["total"]["cache_hits"] == 0

    # actions/cache's save step: tar the cache as the runner's user
    saved = as_runner_user(
        ["tar", "-C", str(first_job.workspace), "-cf", "-", ".ground-gate/cache"]
    )
    assert saved.returncode == 0, saved.stderr.decode()
    with tarfile.open(fileobj=io.BytesIO(saved.stdout)) as archive:
        entries = [m for m in archive.getmembers() if m.isfile()]
        assert len(entries) == calls
        # a fresh job, as on another runner: restore the cache, then run again
        second_job = make_job(config(threshold=0.4, cache=True))
        jobs.append(second_job)
        archive.extractall(second_job.workspace, filter="data")

    second = gate_run(image, second_job, judge, github, comment="never")

    assert second.code == 0, second.log
    assert judge.request_count == calls  # zero judge calls on the re-run
    after = json.loads((second_job.workspace / "ground-gate-report/report.json").read_text())
    assert after["scores"] == before["scores"]
    assert after["usage"]["total"]["calls"] == 0
    assert after["usage"]["total"]["cache_hits"] == calls


def test_container__local_judge_scores_rows_with_no_network(image: str, jobs: list[Job]) -> None:
    models = default_model_dir()
    assert any(models.glob("*.gguf")), (
        f"no model in {models}: run `ground-gate models pull {LOCAL_MODEL}` first "
        "(scripts/test-container.sh does)"
    )
    local = f"  provider: local\n  model: {LOCAL_MODEL}\n  cache_dir: null\n"
    job = make_job(config(threshold=0.1, judge=local), event="push.json")
    jobs.append(job)

    # actions/cache restores the model into the workspace, where the image looks for it
    run = run_action(
        image,
        job,
        network="none",
        event_name="push",
        mounts={models: f"{WORKSPACE}/.ground-gate/models"},
    )

    assert run.code == 0, run.log
    report = json.loads((job.workspace / "ground-gate-report/report.json").read_text())
    assert report["judge"]["model_file"].endswith(".gguf")
    assert [r["metrics"]["rating"]["status"] for r in report["rows"]] == ["ok", "ok"]
    ready = [t for t, line in run.stderr_lines if "local judge is ready" in line]
    assert ready, run.log
    print(f"container start to local judge ready: {ready[0]:.2f} s, whole run {run.seconds:.1f} s")


def test_container__selfcheck_passes_offline(image: str) -> None:
    result = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "--entrypoint", "python", image,
         "-m", "ground_gate.selfcheck"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "ready, offline" in result.stdout
