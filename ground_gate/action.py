"""The GitHub Action's steps, in order, in one place (the container's entry point).

1. Read and check the whole environment once (Settings); a bad input ends here with exit 2.
2. Register the secrets with the runner's log masking, before anything else is logged.
3. In a workflow_run run, publish the pull-request run's artifact and stop: never evaluate,
   never post the fork's markdown. Its report.json is checked against the published schema
   and rendered again here, every string escaped, saying the scores are the pull request's
   own claim; the exit code then says only whether that could be published (0 or 2).
4. Otherwise evaluate (the same pipeline as `ground-gate run`), writing the reports into
   `<working-directory>/ground-gate-report/`.
5. Publish: job summary, outputs, annotations, then the sticky comment (best effort).
6. Exit: 2 when the run could not finish, else the gate's verdict (see outcome.py), with
   `fail-on-threshold: false` turning a missed threshold into 0.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from ground_gate.action_settings import Settings, judge_overrides
from ground_gate.errors import GroundGateError
from ground_gate.github.artifact import ArtifactRefused, publish_artifact
from ground_gate.github.client import GitHubClient
from ground_gate.github.publish import mask_secrets, publish, report_error, report_paths
from ground_gate.outcome import EXIT_ERROR, EXIT_PASSED, exit_code
from ground_gate.pipeline import Outcome, RunOptions, execute
from ground_gate.report.json_report import schema_problems
from ground_gate.report.markdown import render_markdown

SCHEMA_PROBLEMS_SHOWN = 3


def run_action(env: Mapping[str, str], echo: Callable[[str], None]) -> int:
    """Run the action's steps; return the exit code."""
    try:
        settings = Settings.from_env(env)
    except GroundGateError as exc:
        echo(f"ground-gate: error: {exc}")
        return EXIT_ERROR
    mask_secrets(settings)
    client = (
        GitHubClient(settings.api_url, settings.github_token) if settings.github_token else None
    )
    try:
        if settings.publish_only:
            published = publish_artifact(settings, client=client, render=render_artifact)
            return EXIT_ERROR if published.comment == "failed" else EXIT_PASSED
        outcome = _evaluate(settings, env, echo)
    except GroundGateError as exc:
        report_error(settings, str(exc))
        echo(f"ground-gate: error: {exc}")
        return EXIT_ERROR
    published = publish(
        settings,
        markdown=outcome.markdown,
        report=outcome.report,
        passed=outcome.exit_code == EXIT_PASSED,
        client=client,
    )
    return exit_code(
        passed=published.passed,
        incomplete=outcome.exit_code == EXIT_ERROR,  # publish() annotated why
        fail_on_threshold=settings.fail_on_threshold,
    )


def _evaluate(settings: Settings, env: Mapping[str, str], echo: Callable[[str], None]) -> Outcome:
    paths = report_paths(settings)
    paths.directory.mkdir(parents=True, exist_ok=True)
    os.chdir(settings.working_directory)
    options = RunOptions(
        config_path=settings.config,
        output_json=paths.json,
        output_md=paths.markdown,
        baseline=settings.baseline,
        judge_overrides=judge_overrides(settings),
    )
    return execute(options, env, echo)


def render_artifact(report: Mapping[str, Any]) -> str:
    """A pull-request run's report.json, checked against the published schema and rendered as
    that run's unverified claim; ArtifactRefused when it is not a report ground-gate writes."""
    problems = schema_problems(report, message_chars=160)
    if problems:
        shown = "; ".join(problems[:SCHEMA_PROBLEMS_SHOWN])
        more = len(problems) - SCHEMA_PROBLEMS_SHOWN
        more_text = f" and {more} more" if more > 0 else ""
        raise ArtifactRefused(
            f"report.json does not match the published report schema ({shown}{more_text}); "
            "nothing was posted"
        )
    try:
        return render_markdown(report, unverified=True)
    except (KeyError, TypeError, ValueError, IndexError) as exc:  # valid, yet not renderable
        raise ArtifactRefused(f"report.json cannot be rendered ({type(exc).__name__})") from exc
