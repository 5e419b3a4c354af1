"""The action's real image with an http target: the app runs as a job service, a container on
a user-defined Docker network (as GitHub runs `services:`), and the action's container, put on
the same network, reaches it by its name (`http://app:8000/answer`). Needs what
test_container.py needs: `bash scripts/test-container.sh`.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.container.docker_action import IMAGE_ENV, Job, run_action
from tests.integration.support_bot import ROWS

FIXTURES = Path(__file__).parents[1] / "fixtures" / "github"
APP_TOKEN = "Bearer app-service-secret-5d21"
JUDGE_KEY = "sk-service-judge-secret-77c0"
CONFIG = """version: 1
judge:
  provider: openai
  model: service-judge
  base_url: http://app:8000/v1
  max_retries: 0
  cache_dir: null
datasets:
  - name: support-bot
    path: data/questions.jsonl
    target:
      http:
        url: http://app:8000/answer
        body: {q: "{{question}}", id: "{{id}}", ctx: "{{context}}"}
        headers_env: {Authorization: APP_AUTH}
        response: answer
        contexts: sources[*].text
      max_retries: 0
metrics:
  groundedness: {evidence: none}
thresholds:
  groundedness: {min: 0.8}
"""

pytestmark = pytest.mark.skipif(
    not os.environ.get(IMAGE_ENV),
    reason=f"{IMAGE_ENV} is not set: run scripts/test-container.sh to build and test the image",
)


def docker(*args: str) -> str:
    return subprocess.run(["docker", *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A user-defined network with the app service on it, named `app`; (network, log dir)."""
    network = f"gg-target-{uuid.uuid4().hex[:8]}"
    data = tmp_path / "data"
    data.mkdir(mode=0o777)
    data.chmod(0o777)
    docker("network", "create", network)
    name = f"{network}-app"
    try:
        docker(
            "run", "-d", "--rm", "--name", name, "--network", network, "--network-alias", "app",
            "-e", f"APP_TOKEN={APP_TOKEN}",
            "-v", f"{Path(__file__).with_name('app_service.py')}:/srv/app_service.py:ro",
            "-v", f"{data}:/data", "--entrypoint", "python", os.environ[IMAGE_ENV],
            "/srv/app_service.py",
        )  # fmt: skip
        _wait_until_listening(name)
        yield network, data
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False)
        subprocess.run(["docker", "network", "rm", network], capture_output=True, check=False)


def _wait_until_listening(name: str) -> None:
    probe = "import socket; socket.create_connection(('127.0.0.1', 8000), 1)"
    for _ in range(50):
        if (
            subprocess.run(
                ["docker", "exec", name, "python", "-c", probe], capture_output=True
            ).returncode
            == 0
        ):
            return
        time.sleep(0.2)
    raise AssertionError(f"the app service {name} did not start listening")


def test_container__an_http_target_reaches_a_job_service_by_its_name(
    service: tuple[str, Path],
) -> None:
    network, data = service
    job = Job.create(FIXTURES / "pull_request.json")
    try:
        (job.workspace / "data").mkdir()
        (job.workspace / "ground-gate.yml").write_text(CONFIG)
        questions = [{k: r[k] for k in ("id", "question", "contexts")} for r in ROWS]
        (job.workspace / "data" / "questions.jsonl").write_text(
            "".join(json.dumps(row) + "\n" for row in questions)
        )
        run = run_action(
            os.environ[IMAGE_ENV],
            job,
            inputs={"comment": "never"},
            secrets={"INPUT_OPENAI-API-KEY": JUDGE_KEY, "APP_AUTH": APP_TOKEN},
            network=network,
        )
        assert run.code == 0, run.log
        folder = job.workspace / "ground-gate-report"
        report = json.loads((folder / "report.json").read_text())
        (target,) = report["targets"]
        assert target["kind"] == "http" and target["url"] == "http://app:8000/answer"
        assert (target["rows"], target["answered"], target["errors"]) == (2, 2, 0)
        lines = [json.loads(x) for x in (folder / "responses.jsonl").read_text().splitlines()]
        assert [line["id"] for line in lines] == [r["id"] for r in ROWS]
        assert lines[0]["response"] == "Deleted files stay in the trash for 30 days."
        requests = [json.loads(x) for x in (data / "requests.jsonl").read_text().splitlines()]
        asked = [r for r in requests if r["path"] == "/answer"]
        assert len(asked) == 2 and all(r["authorized"] for r in asked)
        assert len(requests) - len(asked) == report["usage"]["total"]["calls"] > 0
        for secret in (APP_TOKEN, JUDGE_KEY):
            assert secret not in run.log.replace(f"::add-mask::{secret}", "")
            for path in job.root.rglob("*"):
                if path.is_file():
                    assert secret.encode() not in path.read_bytes(), (secret, path)
    finally:
        job.remove()
