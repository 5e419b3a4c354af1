"""The GitHub Action's steps, in order, in one place (the container's entry point).

1. Read and check the whole environment once (Settings); a bad input ends here with exit 2.
2. Register the secrets with the runner's log masking, before anything else is logged.
3. In a workflow_run run, publish the pull-request run's artifact and stop: never evaluate,
   never post the fork's markdown. Its report.json (or, with `merge`, its shard reports,
   merged here) is checked against the published schema and rendered again here, every string
   escaped, saying the scores are the pull request's own claim; the exit code then says only
   whether that could be published (0 or 2).
4. Otherwise evaluate (the same pipeline as `ground-gate run`, with `shard` only that shard's
   rows) or, with `merge`, merge the shard reports the workflow downloaded (the same code as
   `ground-gate merge`: nothing is evaluated), writing the reports into
   `<working-directory>/ground-gate-report/`.
5. Publish: job summary, outputs, annotations, then the sticky comment (best effort; a shard
   never comments: one comment per pull request, the merge job's). The comment mentions no
   page: the post step (action_post.py) links it once a later step has uploaded it.
6. Exit: 2 when the run could not finish, else the gate's verdict (see outcome.py), with
   `fail-on-threshold: false` turning a missed threshold into 0. A finished shard exits 0:
   its rows alone are not the gate, the merge is.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ground_gate.action_settings import Settings, judge_overrides
from ground_gate.errors import ConfigError, GroundGateError, MergeError
from ground_gate.github.artifact import (
    Artifact,
    ArtifactRefused,
    Load,
    publish_artifact,
    read_artifact,
    refuse_oversized,
    shards_pr_number,
)
from ground_gate.github.client import GitHubClient
from ground_gate.github.page_link import remember_comment
from ground_gate.github.publish import (
    ReportPaths,
    mask_secrets,
    publish,
    report_error,
    report_paths,
)
from ground_gate.merge import (
    BASELINE_COPY,
    MergeOptions,
    matching_reports,
    merge,
    read_merged,
)
from ground_gate.outcome import EXIT_ERROR, EXIT_PASSED, exit_code
from ground_gate.pipeline import Outcome, RunOptions, execute, report_text
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
            load: Load = _merged_shards(settings) if settings.merge else read_artifact
            published = publish_artifact(settings, client=client, render=render_artifact, load=load)
            return EXIT_ERROR if published.comment == "failed" else EXIT_PASSED
        if settings.merge:
            outcome = _merge(settings, settings.merge, echo)
        else:
            outcome = _evaluate(settings, env, echo)
    except GroundGateError as exc:
        report_error(settings, str(exc))
        echo(f"ground-gate: error: {exc}")
        return EXIT_ERROR
    finished = outcome.exit_code != EXIT_ERROR  # else publish() annotated why
    published = publish(
        settings,
        markdown=outcome.markdown,
        report=outcome.report,
        passed=finished and outcome.report["passed"] is True,  # a shard's: its rows'
        client=client,
    )
    if published.comment in ("created", "updated"):  # the post step may link the page
        remember_comment(report_paths(settings).directory, settings)
    return exit_code(
        passed=published.passed,
        incomplete=not finished,
        fail_on_threshold=settings.fail_on_threshold and settings.shard is None,
    )


def _evaluate(settings: Settings, env: Mapping[str, str], echo: Callable[[str], None]) -> Outcome:
    paths = _report_dir(settings)
    options = RunOptions(
        config_path=settings.config,
        output_json=paths.json,
        output_md=paths.markdown,
        output_html=paths.html,
        output_junit=paths.junit,
        baseline=settings.baseline,
        judge_overrides=judge_overrides(settings),
        shard=settings.shard,
    )
    # read before the run writes its reports, which may be the very file (report.json)
    baseline = _read_bytes(settings.baseline) if settings.shard and settings.baseline else None
    outcome = execute(options, env, echo)
    if baseline is not None:
        _write_bytes(paths.directory / BASELINE_COPY, baseline)
    return outcome


def _read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or None when it cannot be read (the run then says why)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def _write_bytes(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


def _merge(settings: Settings, pattern: str, echo: Callable[[str], None]) -> Outcome:
    """Merge mode: the shard reports the workflow downloaded, merged as `ground-gate merge`
    merges them; nothing is evaluated, no config or dataset is read."""
    paths = _report_dir(settings)
    options = MergeOptions(
        reports=matching_reports(Path.cwd(), pattern),
        baseline=settings.baseline,
        baseline_copies=True,
        output_json=paths.json,
        output_md=paths.markdown,
        output_html=paths.html,
        output_junit=paths.junit,
    )
    return merge(options, echo)


def _report_dir(settings: Settings) -> ReportPaths:
    """Create the reports' folder and move into the working directory, so that the messages
    name files as the workflow does."""
    paths = report_paths(settings)
    paths.directory.mkdir(parents=True, exist_ok=True)
    os.chdir(settings.working_directory)
    return paths


def _merged_shards(settings: Settings) -> Load:
    """workflow_run with `merge`: the shard reports a pull request's sharded run left, each
    checked against the published schema and merged here; the merged verdict is recomputed
    from their rows, never read from a file. Any problem refuses the whole set."""

    def load(paths: ReportPaths) -> Artifact:
        _report_dir(settings)
        try:
            files = matching_reports(Path.cwd(), settings.merge or "")
        except MergeError as exc:
            raise _unmergeable(exc) from exc
        for path in files:
            refuse_oversized(path)
            refuse_oversized(path.parent / BASELINE_COPY)
        try:
            # a baseline copy is read as any report is: checked against the schema
            options = MergeOptions(files, baseline=settings.baseline, baseline_copies=True)
            report, _ = read_merged(options)
        except (MergeError, ConfigError) as exc:
            raise _unmergeable(exc) from exc
        merged = dict(report)
        paths.json.write_text(report_text(merged), encoding="utf-8")
        paths.markdown.write_text(render_artifact(merged), encoding="utf-8")
        return Artifact(report=merged, pr_number=shards_pr_number(files))

    return load


def _unmergeable(exc: Exception) -> ArtifactRefused:
    return ArtifactRefused(f"the shard reports cannot be merged ({exc}); nothing was posted")


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
