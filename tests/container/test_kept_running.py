"""The container tests are run on every change: CI runs scripts/test-container.sh on every pull
request and every push to main (GitHub's runners have Docker), building the pull request's own
images. Unlike the rest of tests/container/, this file needs no image: it runs with every test
run, so that the job cannot be dropped or narrowed without a test saying so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).parents[2]


def workflow(name: str) -> dict[Any, Any]:
    loaded = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_ci__runs_the_container_tests_on_every_pull_request_and_push_to_main() -> None:
    ci = workflow("ci.yml")
    triggers = ci["on"] if "on" in ci else ci[True]  # YAML 1.1 reads a bare `on` as True
    assert "pull_request" in triggers and triggers["pull_request"] in (None, {})
    assert triggers["push"] == {"branches": ["main"]}
    steps = [
        (job, step)
        for job, spec in ci["jobs"].items()
        for step in spec["steps"]
        if "scripts/test-container.sh" in step.get("run", "")
    ]
    assert len(steps) == 1, steps
    job, step = steps[0]
    assert step["run"].strip() == "bash scripts/test-container.sh"  # all of it, no --if-built
    spec = ci["jobs"][job]
    assert spec["runs-on"].startswith("ubuntu-")  # a hosted runner with a Docker daemon
    assert "if" not in spec and "if" not in step and not step.get("continue-on-error")


def test_test_container_sh__builds_the_images_from_this_checkout() -> None:
    script = (ROOT / "scripts" / "test-container.sh").read_text(encoding="utf-8")
    assert "-f docker/base.Dockerfile" in script
    assert '--build-arg "BASE_IMAGE=$base"' in script
    assert "tests/container" in script
