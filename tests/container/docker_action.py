"""Run the action's image the way GitHub's runner runs a Docker action.

The runner starts the container with `--workdir /github/workspace`, the workspace, the event
payload and the file-command files mounted, every input as `INPUT_<NAME>` and secrets passed
as environment values only (`-e NAME`, the value from the runner's own environment, never on
the command line). Fakes on the host's 127.0.0.1 are reached with `--network host`.
https://docs.github.com/en/actions/sharing-automations/creating-actions/dockerfile-support-for-github-actions
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.action_env import input_defaults

IMAGE_ENV = "GROUND_GATE_IMAGE"
WORKSPACE = "/github/workspace"
EVENT = "/github/workflow/event.json"
OUTPUT = "/github/file_commands/set_output"
SUMMARY = "/github/file_commands/step_summary"
# action.yml's defaults, as the runner passes them for inputs a step does not set (a job
# without a token: the tests that comment pass their own)
DEFAULT_INPUTS = {**input_defaults(), "github-token": ""}


@dataclass
class Job:
    """One job's directories on the host: the workspace and the runner's temp folders."""

    root: Path
    event: Path

    @classmethod
    def create(cls, event: Path) -> Job:
        # 0755 all the way, so that another user (actions/cache runs as the runner's user,
        # not root) can read what the container wrote, exactly as on a runner.
        root = Path(tempfile.mkdtemp(prefix="gg-job-", dir="/tmp"))
        root.chmod(0o755)
        for sub in ("workspace", "workflow", "file_commands", "home"):
            (root / sub).mkdir(mode=0o755)
        shutil.copyfile(event, root / "workflow" / "event.json")
        (root / "file_commands" / "set_output").write_text("")
        (root / "file_commands" / "step_summary").write_text("")
        return cls(root, event)

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def output(self) -> Path:
        return self.root / "file_commands" / "set_output"

    @property
    def summary(self) -> Path:
        return self.root / "file_commands" / "step_summary"

    def outputs(self) -> dict[str, str]:
        text = self.output.read_text()
        blocks = re.findall(r"([\w-]+)<<(ghadelimiter_[0-9a-f-]{36})\n(.*?)\n\2\n", text, re.S)
        return {name: value for name, _, value in blocks}

    def reset_file_commands(self) -> None:
        self.output.write_text("")
        self.summary.write_text("")

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float
    started: float  # time.time() just before `docker run`
    # (seconds since start, line) for every stderr line, as it arrived
    stderr_lines: list[tuple[float, str]] = field(default_factory=list)

    @property
    def log(self) -> str:
        return self.stdout + self.stderr


def run_action(
    image: str,
    job: Job,
    *,
    inputs: Mapping[str, str] = {},
    secrets: Mapping[str, str] = {},
    env: Mapping[str, str] = {},
    network: str = "host",
    mounts: Mapping[Path, str] = {},
    event_name: str = "pull_request",
    timeout_s: float = 600,
) -> Run:
    """`docker run` the action's image for one step; secrets only as environment values."""
    values = {**DEFAULT_INPUTS, **inputs}
    variables = {f"INPUT_{name.upper()}": value for name, value in values.items()}
    variables.update(
        HOME="/github/home",
        CI="true",
        GITHUB_ACTIONS="true",
        GITHUB_REPOSITORY="octo-org/octo-repo",
        GITHUB_EVENT_NAME=event_name,
        GITHUB_EVENT_PATH=EVENT,
        GITHUB_WORKSPACE=WORKSPACE,
        GITHUB_OUTPUT=OUTPUT,
        GITHUB_STEP_SUMMARY=SUMMARY,
        GITHUB_SERVER_URL="https://github.com",
        GITHUB_RUN_ID="9100000001",
        RUNNER_TEMP="/github/runner_temp",
    )
    variables.update(env)
    variables.update(secrets)
    command = [
        "docker", "run", "--rm", "--network", network, "--workdir", WORKSPACE,
        "-v", f"{job.root / 'workspace'}:{WORKSPACE}",
        "-v", f"{job.root / 'workflow'}:/github/workflow",
        "-v", f"{job.root / 'file_commands'}:/github/file_commands",
        "-v", f"{job.root / 'home'}:/github/home",
    ]  # fmt: skip
    for host, inside in mounts.items():
        command += ["-v", f"{host}:{inside}"]
    for name in variables:
        command += ["-e", name]  # the value comes from the environment below, as the runner does
    command.append(image)
    process_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **variables}
    started = time.time()
    lines: list[tuple[float, str]] = []
    stdout_parts: list[str] = []
    with subprocess.Popen(
        command, env=process_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:

        def drain_stdout() -> None:
            assert process.stdout is not None
            stdout_parts.append(process.stdout.read())

        reader = threading.Thread(target=drain_stdout, daemon=True)
        reader.start()
        assert process.stderr is not None
        for line in process.stderr:
            lines.append((time.time() - started, line))
        try:
            code = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
        reader.join(timeout=10)
    return Run(
        code=code,
        stdout="".join(stdout_parts),
        stderr="".join(line for _, line in lines),
        seconds=time.time() - started,
        started=started,
        stderr_lines=lines,
    )


def docker_ready() -> bool:
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
