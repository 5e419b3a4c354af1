"""The GitHub Action's steps, in order, in one place (the container's entry point).

1. Read and check the whole environment once (Settings); a bad input ends here with exit 2.
2. Register the secrets with the runner's log masking, before anything else is logged.
3. Create the reports' folder and move into the working directory: the only change of
   directory, so every message names files as the workflow does.
4. In a workflow_run run, publish the pull-request run's report and stop: never evaluate, never
   post the fork's markdown. Its report.json (or, with `merge`, its shard reports, merged here)
   is read by the one strict report reader and rendered again here, every string escaped,
   saying the scores are the pull request's own claim; the exit code then says only whether
   that could be published (0 or 2).
5. Otherwise evaluate (`ground-gate run`'s code, with `shard` only that shard's rows) or, with
   `merge`, merge the shard reports the workflow downloaded (`ground-gate merge`'s code:
   nothing is evaluated), writing the reports into `<working-directory>/ground-gate-report/`.
6. Publish: job summary, step outputs, annotations, then the sticky comment (best effort; a
   shard never comments: one comment per pull request, the merge job's). Each way the action
   ends (the report published; a pull request run's report published or refused; an error
   before any report) is one function of action_endings.py, all written by github/'s one
   writer, which is handed plain values and calls nothing back. The comment mentions no page:
   the post step (action_post.py) links it once a later step has uploaded it.
7. Exit: 2 when the run could not finish, else the gate's verdict (see exit_codes.py), with
   `fail-on-threshold: false` turning a missed threshold into 0. A finished shard exits 0:
   its rows alone are not the gate, the merge is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ground_gate.action_endings import (
    publish,
    publish_artifact,
    refuse_artifact,
    report_error,
    report_paths,
    secrets,
)
from ground_gate.action_settings import Settings, judge_overrides
from ground_gate.commands.merge import (
    BASELINE_COPY,
    MergeOptions,
    matching_reports,
    merge,
    read_merged,
)
from ground_gate.commands.run import RunOptions, execute
from ground_gate.github.artifact import required_files, shards_pr_number
from ground_gate.github.client import GitHubClient
from ground_gate.github.event import read_pr_number_file
from ground_gate.github.page_link import remember_comment
from ground_gate.github.publish import ReportPaths, mask_secrets
from ground_gate.leaves.errors import ArtifactRefused, ConfigError, GroundGateError, MergeError
from ground_gate.leaves.exit_codes import EXIT_ERROR, EXIT_PASSED, exit_code
from ground_gate.leaves.file_reader import Unreadable, read_capped
from ground_gate.render.markdown import render_markdown
from ground_gate.report.types import Report
from ground_gate.review.review import review_of
from ground_gate.stages.report_files import (
    ARTIFACT_MAX_BYTES,
    MAX_REPORT_BYTES,
    Echo,
    Outcome,
    Output,
    ReportFiles,
    judged,
    read_report,
    report_text,
)


def run_action(env: Mapping[str, str], echo: Echo) -> int:
    """Run the action's steps; return the exit code."""
    try:
        settings = Settings.from_env(env)
    except GroundGateError as exc:
        echo(f"ground-gate: error: {exc}")
        return EXIT_ERROR
    mask_secrets(secrets(settings))
    client = (
        GitHubClient(settings.api_url, settings.github_token) if settings.github_token else None
    )
    try:
        paths = _enter_working_directory(settings)
        if settings.publish_only:
            return _publish_pull_request_run(settings, paths, client)
        if settings.merge:
            outcome = _merge(settings, paths, echo)
        else:
            outcome = _evaluate(settings, paths, env, echo)
    except GroundGateError as exc:
        report_error(settings, str(exc))
        echo(f"ground-gate: error: {exc}")
        return EXIT_ERROR
    return _publish_outcome(settings, outcome, client, paths)


def _publish_outcome(
    settings: Settings, outcome: Outcome, client: GitHubClient | None, paths: ReportPaths
) -> int:
    """The report this run made (evaluated, merged, a shard's), published; the exit code."""
    finished = outcome.exit_code != EXIT_ERROR  # else publish() annotated why
    published = publish(
        settings,
        markdown=outcome.markdown,
        report=outcome.report,
        passed=finished and outcome.report["passed"] is True,  # a shard's: its rows'
        client=client,
        paths=paths,
    )
    if published.comment in ("created", "updated"):  # the post step may link the page
        remember_comment(paths.directory, settings.run_id, settings.comment_id)
    return exit_code(
        passed=published.passed,
        incomplete=not finished,
        fail_on_threshold=settings.fail_on_threshold and settings.shard is None,
    )


def _enter_working_directory(settings: Settings) -> ReportPaths:
    """Create the reports' folder and move into the working directory, once."""
    paths = report_paths(settings)
    try:
        paths.directory.mkdir(parents=True, exist_ok=True)
        os.chdir(settings.working_directory)
    except OSError as exc:
        raise ConfigError(
            f"working-directory {settings.working_directory}: {exc.strerror or exc}"
        ) from None
    return paths


def _files(paths: ReportPaths) -> ReportFiles:
    """The action's report files, in its own folder: its earlier reports there are replaced,
    any other file refused (a pull request cannot have the action write over a file of its
    own, nor through a link to one)."""
    return ReportFiles(
        json=paths.json,
        markdown=paths.markdown,
        junit=paths.junit,
        html=paths.html,
        flags=("the action's JSON report", "its markdown", "its JUnit XML", "its HTML page"),
        hint=f"the action writes its reports in {paths.directory}: remove the file from there",
    )


def _evaluate(
    settings: Settings, paths: ReportPaths, env: Mapping[str, str], echo: Echo
) -> Outcome:
    options = RunOptions(
        config_path=settings.config,
        files=_files(paths),
        baseline=settings.baseline,
        judge_overrides=judge_overrides(settings),
        shard=settings.shard,
        judge_all=settings.judge_all,
    )
    # a shard leaves the exact bytes it compared with beside its report, for the merge
    baseline = _read_bytes(settings.baseline) if settings.shard and settings.baseline else None
    copy = Output(
        "the baseline's copy", "its baseline copy", paths.directory / BASELINE_COPY, "json"
    )
    refused = options.files.refusal(copy) if baseline is not None else None
    if refused is not None:  # said before anything is run, as of the report files
        raise ConfigError(refused)
    outcome = execute(options, env, echo)
    if baseline is not None:
        _write_bytes(copy.path, baseline)
    return outcome


def _read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or None when it is no regular file under the report cap (the run's
    own reader then says why, at once: a FIFO or /dev/zero is never read)."""
    try:
        return read_capped(path, MAX_REPORT_BYTES)
    except Unreadable:
        return None


def _write_bytes(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


def _merge(settings: Settings, paths: ReportPaths, echo: Echo) -> Outcome:
    """Merge mode: the shard reports the workflow downloaded, merged as `ground-gate merge`
    merges them; nothing is evaluated, no config or dataset is read."""
    options = MergeOptions(
        reports=matching_reports(Path.cwd(), settings.merge or ""),
        baseline=settings.baseline,
        baseline_copies=True,
        files=_files(paths),
    )
    return merge(options, echo)


def _publish_pull_request_run(
    settings: Settings, paths: ReportPaths, client: GitHubClient | None
) -> int:
    """workflow_run: the pull request run's report (or its shards', merged), checked and
    rendered again here as that run's claim, then published; exit 0 or 2 (published or not)."""
    try:
        report, number = pull_request_report(settings, paths)
        markdown = render_claim(report)
    except ArtifactRefused as exc:
        refuse_artifact(settings, str(exc))
        return EXIT_ERROR
    published = publish_artifact(
        settings, report=report, markdown=markdown, pr_number=number, client=client, paths=paths
    )
    return EXIT_ERROR if published.comment == "failed" else EXIT_PASSED


def pull_request_report(settings: Settings, paths: ReportPaths) -> tuple[Report, int]:
    """The report a pull request's run left, and the pull request's number: its report.json,
    or with `merge` its shard reports merged here (the merged verdict recomputed from their
    rows, never read from a file). Any problem refuses the whole set (ArtifactRefused)."""
    if not settings.merge:
        required_files(paths)
        report = read_report(
            paths.json, name="report.json", error=ArtifactRefused, max_bytes=ARTIFACT_MAX_BYTES
        )
        return report, read_pr_number_file(paths.pr_number)
    try:
        files = matching_reports(Path.cwd(), settings.merge)
        options = MergeOptions(
            files,
            baseline=settings.baseline,
            baseline_copies=True,
            max_report_bytes=ARTIFACT_MAX_BYTES,
        )
        merged = read_merged(options)
    except (MergeError, ConfigError) as exc:
        raise ArtifactRefused(f"the shard reports cannot be merged ({exc})") from exc
    report = judged(merged.record, merged.baseline)
    paths.json.write_text(report_text(report), encoding="utf-8")
    paths.markdown.write_text(render_claim(report), encoding="utf-8")
    return report, shards_pr_number(files)


def render_claim(report: Report) -> str:
    """A pull request run's report rendered as that run's unverified claim. It entered through
    report_files.checked_report (the schema, and rows and scores of the datasets it names),
    so it renders: tests/unit/test_report_any_valid.py renders changed reports it accepts."""
    return render_markdown(report, review_of(report), unverified=True)
