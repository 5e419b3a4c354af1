"""action.yml, the Dockerfile and the code must agree: Docker cannot run here, so these
checks stand in for a container run on everything that does not need one."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from ground_gate.action_endings import publish, report_paths
from ground_gate.action_settings import Settings
from tests.action_env import ACTION, input_defaults

ROOT = Path(__file__).parents[2]
ISSUE_INPUTS = [
    "config",
    "openai-api-key",
    "openai-base-url",
    "azure-endpoint",
    "azure-api-version",
    "github-token",
    "comment",
    "comment-id",
    "baseline",
    "judge-all",
    "fail-on-threshold",
    "shard",
    "merge",
    "working-directory",
]


class Recording(Mapping[str, str]):
    """An environment that remembers which variables were read."""

    def __init__(self, values: dict[str, str]) -> None:
        self._data = values
        self.read: list[str] = []

    def __getitem__(self, key: str) -> str:
        self.read.append(key)
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        self.read.append(key)
        return self._data.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def runner_env(tmp_path: Path, inputs: Mapping[str, str]) -> dict[str, str]:
    env = {f"INPUT_{name.upper()}": value for name, value in inputs.items()}
    env.update(
        GITHUB_REPOSITORY="octo-org/octo-repo",
        GITHUB_EVENT_NAME="push",
        GITHUB_WORKSPACE=str(tmp_path),
    )
    return env


def test_action_yml__inputs_are_the_issues_kebab_case_list() -> None:
    assert list(ACTION["inputs"]) == ISSUE_INPUTS
    for name, spec in ACTION["inputs"].items():
        assert spec["description"].strip(), name
        assert "default" in spec, name
        assert spec["required"] is False, name
    assert ACTION["inputs"]["github-token"]["default"] == "${{ github.token }}"
    assert ACTION["inputs"]["fail-on-threshold"]["default"] == "true"
    assert ACTION["inputs"]["comment"]["default"] == "auto"


def test_action_yml__every_input_is_read_by_settings(tmp_path: Path) -> None:
    env = Recording(runner_env(tmp_path, input_defaults()))
    Settings.from_env(env)
    read_inputs = sorted(k[len("INPUT_") :].lower() for k in env.read if k.startswith("INPUT_"))
    assert read_inputs == sorted(ISSUE_INPUTS)


def test_action_yml__defaults_equal_the_settings_defaults(tmp_path: Path) -> None:
    """A `docker://` step gets no action.yml defaults: empty inputs must mean the same."""
    with_defaults = Settings.from_env(runner_env(tmp_path, input_defaults()))
    without = Settings.from_env(
        runner_env(tmp_path, {"github-token": "ghs_token_from_the_expression"})
    )
    assert with_defaults == without


def test_action_yml__outputs_are_the_ones_publish_writes(tmp_path: Path) -> None:
    output = tmp_path / "output"
    env = runner_env(tmp_path, {"comment": "never"})
    env["GITHUB_OUTPUT"] = str(output)
    settings = Settings.from_env(env)
    publish(
        settings,
        markdown="| a |\n",
        report={"passed": True, "incomplete": None, "scores": [], "judge": {}},
        passed=True,
        client=None,
        paths=report_paths(settings),
        out=io.StringIO(),
    )
    written = re.findall(r"^([\w-]+)<<ghadelimiter_", output.read_text(), re.M)
    assert (
        written
        == list(ACTION["outputs"])
        == [
            "passed",
            "report-json",
            "report-markdown",
            "report-html",
            "report-junit",
            "scores",
            "summary",
            "prompt-version",
        ]
    )
    for spec in ACTION["outputs"].values():
        assert spec["description"].strip()


def test_action_yml__docker_runs_the_image_built_here() -> None:
    assert ACTION["runs"] == {
        "using": "docker",
        "image": "Dockerfile",
        # a single executable (docker run --entrypoint), installed with the package
        "post-entrypoint": "ground-gate-action-post",
    }
    assert set(ACTION["branding"]) == {"icon", "color"}


def test_action_yml__the_post_entrypoint_is_a_console_script_of_the_package() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    assert scripts[ACTION["runs"]["post-entrypoint"]] == "ground_gate.action_post:main"


def test_dockerfile__entrypoint_is_the_action_mode() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    (entrypoint,) = re.findall(r"^ENTRYPOINT (.+)$", dockerfile, re.M)
    assert json.loads(entrypoint) == ["ground-gate", "action"]
    assert re.search(r"^USER ", dockerfile, re.M) is None  # Docker actions run as root
    # No secret in a layer: no ARG or ENV that could carry one.
    declared = re.findall(r"^(?:ARG|ENV)\s+([A-Z_]+)", dockerfile, re.M)
    assert declared == ["BASE_IMAGE", "GROUND_GATE_MODEL_DIR"]


def test_dockerfile__starts_from_the_base_built_for_these_dependencies() -> None:
    """Change pyproject's dependencies or docker/base.Dockerfile and this names the new tag."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    (base,) = re.findall(r"^ARG BASE_IMAGE=(\S+)$", dockerfile, re.M)
    assert re.findall(r"^FROM (\S+)", dockerfile, re.M) == ["${BASE_IMAGE}"]
    tag = subprocess.run(
        [sys.executable, "docker/base_tag.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert base == f"ghcr.io/ground-gate/ground-gate-base:{tag}"


def test_dockerfile__compiles_and_downloads_nothing() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    runs = " ".join(re.findall(r"^RUN (.+?)(?<!\\)$", dockerfile, re.M | re.S))
    assert "pip install --no-cache-dir --no-index --no-deps --no-build-isolation" in runs
    for fetcher in ("apt-get", "curl", "wget", "pip wheel", "models pull"):
        assert fetcher not in runs, fetcher


def test_dockerfiles__no_syntax_line_that_needs_a_registry() -> None:
    for path in (ROOT / "Dockerfile", ROOT / "docker" / "base.Dockerfile"):
        text = path.read_text(encoding="utf-8")
        assert re.search(r"^#\s*syntax\s*=", text, re.M | re.I) is None, path


def test_base_dockerfile__builds_llama_cpp_as_setup_sh_does() -> None:
    """The same portable CPU flags: a build for the building CPU crashes on others."""
    base = (ROOT / "docker" / "base.Dockerfile").read_text(encoding="utf-8")
    setup = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    (flags,) = re.findall(r'^ARG CMAKE_ARGS="(.+)"$', base, re.M)
    (setup_flags,) = re.findall(r'CMAKE_ARGS="(.+?)"', setup)
    assert flags == setup_flags
    bases = re.findall(r"^FROM (\S+)", base, re.M)
    assert bases == ["python:${PYTHON_VERSION}-bookworm", "python:${PYTHON_VERSION}-slim-bookworm"]
    assert "libgomp1" in base  # llama.cpp's CPU backend needs the OpenMP runtime


def test_selfcheck__passes_in_this_environment() -> None:
    """The action's image runs this at build time; it must hold here with no download."""
    pytest.importorskip("llama_cpp")  # the local extra; the floor install has none
    result = subprocess.run(
        [sys.executable, "-m", "ground_gate.selfcheck"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "ready, offline" in result.stdout


def test_selfcheck__passes_with_no_pytest_as_in_the_actions_image() -> None:
    """The image has no pytest: the plugin's modules (pytest loads them) are not asked of it;
    every other module still is."""
    pytest.importorskip("llama_cpp")
    hidden = (
        "import sys; sys.modules['pytest'] = None; from ground_gate import selfcheck; "
        "print(selfcheck.problems())"
    )
    result = subprocess.run(
        [sys.executable, "-c", hidden], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_dockerignore__sends_only_the_package() -> None:
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").split("\n")
    rules = [line for line in lines if line and not line.startswith("#")]
    assert rules[0] == "*"
    assert {"!pyproject.toml", "!ground_gate/"} <= set(rules)
