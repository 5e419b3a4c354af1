"""The action's post step (action.yml `post-entrypoint`): once the job's steps are done, and
the page uploaded if the workflow uploads it, link the comment to it.

It does nothing unless this run's action step wrote the comment (github/page_link.py keeps
that record) and uploaded a page; then it renders the run's report.json again, as the step
rendered it, with the page's address: the comment opens the page, and each row it names
opens that row. It never changes the job's verdict: every problem is one warning, exit 0.
A shard never comments, and a workflow_run run publishes a pull request's report, whose
page is the pull request's own: neither is linked.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from typing import TextIO

from ground_gate.action_endings import comment, report_paths, secrets
from ground_gate.action_settings import Settings
from ground_gate.github.client import GitHubClient, GitHubHTTPError
from ground_gate.github.event import load_event, pr_number
from ground_gate.github.page_link import (
    Page,
    commented,
    find_page,
    missing_permission,
    zip_note,
)
from ground_gate.github.publish import mask_secrets
from ground_gate.github.step_outputs import annotate
from ground_gate.github.sticky_comment import Sleep, post_comment
from ground_gate.leaves.errors import GroundGateError
from ground_gate.render.markdown import render_markdown
from ground_gate.review.review import review_of
from ground_gate.stages.report_files import read_report


def _comment(settings: Settings, page: Page) -> str | None:
    """The run's comment again, from its report.json, linking the page; None when the
    report cannot be read back."""
    try:  # the one reader of a report file: strict JSON, the published schema
        report = read_report(report_paths(settings).json)
    except GroundGateError:
        return None
    url = page.url if page.direct else None
    markdown = render_markdown(report, review_of(report), page_url=url)
    return markdown if page.direct else markdown + zip_note(page)


def link_page(
    settings: Settings,
    client: GitHubClient,
    out: TextIO,
    sleep: Sleep = time.sleep,
) -> str:
    """Edit this run's comment to link its page; what happened, in a word."""

    def warn(message: str) -> None:
        annotate("warning", message, out, title="ground-gate")

    try:
        page = find_page(
            client,
            server_url=settings.server_url,
            repository=settings.repository,
            run_id=settings.run_id,
        )
    except GroundGateError as exc:
        status = exc.status if isinstance(exc, GitHubHTTPError) else None
        warn(missing_permission(status))
        return "failed"
    if page is None:
        print("ground-gate: no report page was uploaded; the comment is left as it is", file=out)
        return "skipped"
    markdown = _comment(settings, page)
    if markdown is None:
        warn("the comment does not link the report page: report.json could not be read back")
        return "failed"
    number = pr_number(settings.event_name, load_event(settings.event_path))
    outcome, _ = post_comment(comment(settings, client, number), markdown, warn, out, sleep)
    return outcome


def run_post(env: Mapping[str, str], echo: Callable[[str], None], out: TextIO | None = None) -> int:
    """The post step: 0 whatever happens (a link is never worth failing the job)."""
    out = out or sys.stdout
    try:
        settings = Settings.from_env(env)
    except GroundGateError as exc:
        echo(f"ground-gate: the report page is not linked: {exc}")
        return 0
    mask_secrets(secrets(settings), out)
    wrote = commented(report_paths(settings).directory, settings.run_id, settings.comment_id)
    if settings.publish_only or not wrote or not settings.github_token:
        return 0
    try:
        link_page(settings, GitHubClient(settings.api_url, settings.github_token), out)
    except GroundGateError as exc:  # the event file, say: never a traceback, never a failure
        annotate("warning", f"the comment does not link the report page: {exc}", out)
    return 0


def main() -> None:
    """`ground-gate-action-post`, the container's post entry point."""
    import os

    sys.exit(run_post(os.environ, lambda m: print(m, file=sys.stderr)))
