"""The action's publishing step, run as the runner runs the container.

Each test builds the environment a Docker action gets (INPUT_* with action.yml's defaults,
GITHUB_* with a real-shaped event payload, empty GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
files), reads Settings from it, and publishes against the fake GitHub API on 127.0.0.1.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ground_gate.action import pull_request_report, render_claim
from ground_gate.action_endings import publish, publish_artifact, report_paths
from ground_gate.action_settings import Settings
from ground_gate.github.body_limit import COMMENT_LIMIT_CHARS
from ground_gate.github.client import GitHubClient
from ground_gate.github.publish import PublishResult
from ground_gate.leaves.exit_codes import exit_code
from tests.action_env import FIXTURES, REPO, action_env, file_commands
from tests.integration.fake_github import FakeGitHub

TOKEN = "ghs_faketoken"
OPENAI_KEY = "sk-test-0123456789abcdef"
HEAD_SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
MARKER = "<!-- ground-gate:default -->"


def entry(dataset: str, score: str, mean: float, passed: bool, reason: str) -> dict[str, Any]:
    return {
        "dataset": dataset,
        "score": score,
        "mean": mean,
        "n": 3,
        "n_error": 0,
        "n_no_claims": 0,
        "ci95": [max(mean - 0.1, 0.0), min(mean + 0.05, 1.0)],
        "threshold": {"min": 0.8} if score != "hallucination" else {"max": 0.1},
        "passed": passed,
        "reason": reason,
    }


def make_report(passed: bool) -> dict[str, Any]:
    """A report in the shape ground_gate.report.json_report writes (schema_version 1)."""
    grounded = 0.91 if passed else 0.62
    return {
        "schema_version": 1,
        "tool": {"name": "ground-gate", "version": "0.1.0"},
        "status": "passed" if passed else "failed",
        "passed": passed,
        "incomplete": None,
        "on_error": "fail",
        "judge": {"provider": "openai", "model": "gpt-4o-mini", "prompt_version": "2026-11-22.1"},
        "datasets": [{"name": "support-bot", "rows": 3, "scored": 3}],
        "scores": [
            entry(
                "support-bot",
                "groundedness",
                grounded,
                passed,
                f"{grounded:.2f} is {'' if passed else 'not '}>= 0.8",
            ),
            entry("support-bot", "hallucination", 0.0, True, "0.00 is <= 0.1"),
        ],
        "rows": [],
        "created_at": "2026-11-22T10:00:00+00:00",
        "config": {"path": "ground-gate.yml", "digest": "sha256:00"},
        "usage": {"by_metric": {}, "total": usage()},
        "seconds": 4.2,
    }


def usage() -> dict[str, Any]:
    names = ("calls", "prompt_tokens", "completion_tokens", "cached_tokens", "cache_hits")
    return {**dict.fromkeys(names, 0), "retries": 0, "parse_failures": 0, "seconds": 0.0}


MARKDOWN = (
    "## ❌ ground-gate: failed\n"
    "\n"
    "| dataset | rows | groundedness | hallucination |\n"
    "|---|---|---|---|\n"
    "| support-bot | 3 | ❌ 0.62 (≥ 0.80) | ✅ 0.00 (≤ 0.10) |\n"
    "\n"
    "<details><summary>Worst rows (1)</summary>\n"
    "\n"
    "**support-bot / invented-price** — fails groundedness: groundedness 0.25\n"
    "\n"
    "</details>\n"
)


@dataclass
class Run:
    """One action run's files and console."""

    env: dict[str, str]
    workspace: Path
    output: Path
    summary: Path
    console: io.StringIO = field(default_factory=io.StringIO)
    sleeps: list[float] = field(default_factory=list)

    def settings(self) -> Settings:
        return Settings.from_env(self.env)

    def outputs(self) -> list[tuple[str, str]]:
        text = self.output.read_text(encoding="utf-8")
        blocks = re.findall(r"([\w-]+)<<(ghadelimiter_[0-9a-f-]{36})\n(.*?)\n\2\n", text, re.S)
        assert sum(len(f"{n}<<{d}\n{v}\n{d}\n") for n, d, v in blocks) == len(text)
        return [(name, value) for name, _, value in blocks]


def new_run(
    tmp_path: Path,
    fake: FakeGitHub,
    *,
    event: str = "pull_request",
    fixture: str = "pull_request.json",
    **inputs: str,
) -> Run:
    workspace = tmp_path / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    commands = file_commands(tmp_path / "file_commands")
    inputs = {"openai-api-key": OPENAI_KEY, "github-token": TOKEN, **inputs}
    env = action_env(
        workspace,
        commands,
        api_url=fake.url,
        event=event,
        event_path=FIXTURES / fixture,
        **inputs,
    )
    output, summary = commands.output, commands.summary
    return Run(env, workspace, output, summary)


def do_publish(
    run: Run, fake: FakeGitHub, *, markdown: str = MARKDOWN, passed: bool = False
) -> PublishResult:
    settings = run.settings()
    paths = report_paths(settings)
    paths.directory.mkdir(parents=True, exist_ok=True)  # where `ground-gate action` wrote them
    report = make_report(passed)
    paths.json.write_text(json.dumps(report))
    paths.markdown.write_text(markdown)
    client = (
        GitHubClient(settings.api_url, settings.github_token) if settings.github_token else None
    )
    return publish(
        settings,
        markdown=markdown,
        report=report,
        passed=passed,
        client=client,
        paths=paths,
        out=run.console,
        sleep=run.sleeps.append,
    )


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        yield server
    assert server.violations == []


MASKS = f"::add-mask::{OPENAI_KEY}\n::add-mask::{TOKEN}\n"
FAILED_ANNOTATION = (
    "::error title=ground-gate%3A support-bot groundedness::"
    "support-bot: groundedness 0.62 is not >= 0.8\n"
)
FAILED_SUMMARY = (
    "ground-gate: failed: 1 of 2 checks failed (support-bot groundedness: 0.62 is not >= 0.8)"
)
FAILED_OUTPUTS = [
    ("passed", "false"),
    ("report-json", "ground-gate-report/report.json"),
    ("report-markdown", "ground-gate-report/report.md"),
    ("report-html", ""),  # publish() alone writes no page
    ("report-junit", ""),
    ("scores", '{"support-bot":{"groundedness":0.62,"hallucination":0.0}}'),
    ("summary", FAILED_SUMMARY),
    ("prompt-version", "2026-11-22.1"),
]


def bot_comments(fake: FakeGitHub, number: int) -> list[dict[str, Any]]:
    return [c for c in fake.comments.get(number, []) if c["user"]["login"] == "github-actions[bot]"]


def test_publish__first_run_creates_the_comment(tmp_path: Path, fake: FakeGitHub) -> None:
    run = new_run(tmp_path, fake)
    result = do_publish(run, fake)

    (comment,) = fake.comments[17]
    assert comment["body"] == f"{MARKER}\n{MARKDOWN}"
    assert result == PublishResult(False, FAILED_SUMMARY, "created", comment["html_url"], ())
    assert run.outputs() == FAILED_OUTPUTS
    assert run.summary.read_text() == MARKDOWN
    assert run.console.getvalue() == (
        MASKS
        + FAILED_ANNOTATION
        + f"ground-gate: created comment {comment['html_url']}\n"
        + FAILED_SUMMARY
        + "\n"
    )
    assert fake.routes_called() == ["GET get-user", "GET list-comments", "POST create-comment"]
    assert (run.workspace / "ground-gate-report" / "pr-number.txt").read_text() == "17\n"
    assert (
        exit_code(
            passed=result.passed,
            incomplete=False,
            fail_on_threshold=run.settings().fail_on_threshold,
        )
        == 1
    )


def test_publish__second_run_edits_the_same_comment(tmp_path: Path, fake: FakeGitHub) -> None:
    do_publish(new_run(tmp_path, fake), fake)
    passing = MARKDOWN.replace("failed", "passed")
    second = new_run(tmp_path, fake)
    result = do_publish(second, fake, markdown=passing, passed=True)

    (comment,) = fake.comments[17]
    assert comment["body"] == f"{MARKER}\n{passing}"
    assert result.comment == "updated"
    assert fake.routes_called()[-3:] == [
        "GET get-user",
        "GET list-comments",
        "PATCH update-comment",
    ]
    assert ("passed", "true") in second.outputs()
    assert (
        exit_code(
            passed=result.passed,
            incomplete=False,
            fail_on_threshold=second.settings().fail_on_threshold,
        )
        == 0
    )


def test_publish__our_comment_on_page_two_is_updated(tmp_path: Path, fake: FakeGitHub) -> None:
    for i in range(130):
        fake.add_comment(17, f"review note {i}", f"reviewer{i % 3}")
    ours = fake.add_comment(17, f"{MARKER}\nold report", "github-actions[bot]")
    for i in range(20):
        fake.add_comment(17, f"later note {i}", "reviewer1")

    result = do_publish(new_run(tmp_path, fake), fake)

    assert result.comment == "updated"
    assert bot_comments(fake, 17) == [ours]
    assert ours["body"] == f"{MARKER}\n{MARKDOWN}"
    assert len(fake.comments[17]) == 151
    assert fake.routes_called() == [
        "GET get-user",
        "GET list-comments",
        "GET list-comments",
        "PATCH update-comment",
    ]


def test_publish__someone_elses_marker_is_left_alone(tmp_path: Path, fake: FakeGitHub) -> None:
    theirs = fake.add_comment(17, f"copied from the bot:\n{MARKER}\nfake verdict", "mallory")

    result = do_publish(new_run(tmp_path, fake), fake)

    assert result.comment == "created"
    assert theirs["body"] == f"copied from the bot:\n{MARKER}\nfake verdict"
    assert [c["body"] for c in bot_comments(fake, 17)] == [f"{MARKER}\n{MARKDOWN}"]


def test_publish__personal_token_matches_its_own_login(tmp_path: Path) -> None:
    with FakeGitHub(token=TOKEN, login="release-bot-user") as fake:
        ours = fake.add_comment(17, f"{MARKER}\nold", "release-bot-user")
        fake.add_comment(17, f"{MARKER}\nfrom another workflow", "github-actions[bot]")
        result = do_publish(new_run(tmp_path, fake), fake)
    assert fake.violations == []
    assert result.comment == "updated"
    assert ours["body"] == f"{MARKER}\n{MARKDOWN}"
    assert fake.comments[17][1]["body"] == f"{MARKER}\nfrom another workflow"


def test_publish__fork_token_403_warns_and_keeps_the_verdict(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    fake.script("create-comment", 403, message="Resource not accessible by integration")
    run = new_run(tmp_path, fake, fixture="pull_request_fork.json")

    result = do_publish(run, fake)

    warning = (
        "could not comment on pull request #18 (GitHub API POST "
        f"/repos/{REPO}/issues/18/comments answered 403: Resource not accessible by "
        "integration); the token may not write comments. A pull request from a fork gets a "
        "read-only token: use the two-workflow (workflow_run) pattern in "
        "docs/github-action.md, or give the job `permissions: pull-requests: write`. "
        "The report is in the job summary."
    )
    assert result == PublishResult(False, FAILED_SUMMARY, "failed", None, (warning,))
    assert fake.comments.get(18) is None
    assert run.summary.read_text() == MARKDOWN
    assert run.outputs() == FAILED_OUTPUTS
    assert run.console.getvalue() == (
        MASKS
        + FAILED_ANNOTATION
        + "::warning title=ground-gate::"
        + warning.replace("%", "%25")
        + "\n"
        + FAILED_SUMMARY
        + "\n"
    )
    assert run.sleeps == []  # a 403 is final: no retry
    assert (
        exit_code(
            passed=result.passed,
            incomplete=False,
            fail_on_threshold=run.settings().fail_on_threshold,
        )
        == 1
    )


def test_publish__404_warns_without_retrying(tmp_path: Path, fake: FakeGitHub) -> None:
    fake.script("list-comments", 404, message="Not Found")
    run = new_run(tmp_path, fake)
    result = do_publish(run, fake)
    assert result.comment == "failed"
    assert result.warnings == (
        f"could not comment on pull request #17 (GitHub API GET /repos/{REPO}/issues/17/comments"
        " answered 404: Not Found); the pull request or repository was not found, or the token "
        "cannot see it. The report is in the job summary.",
    )
    assert run.sleeps == []


def test_publish__5xx_then_success_retries(tmp_path: Path, fake: FakeGitHub) -> None:
    fake.script("create-comment", 502, times=2, message="Server Error")
    run = new_run(tmp_path, fake)
    result = do_publish(run, fake)
    assert result.comment == "created"
    assert result.warnings == ()
    assert run.sleeps == [2.0, 5.0]
    assert len(bot_comments(fake, 17)) == 1


def test_publish__lost_answer_to_a_post_never_duplicates(tmp_path: Path, fake: FakeGitHub) -> None:
    fake.script("create-comment", -1)  # GitHub stores the comment, the answer never arrives
    run = new_run(tmp_path, fake)
    result = do_publish(run, fake)
    assert result.comment == "updated"
    assert [c["body"] for c in bot_comments(fake, 17)] == [f"{MARKER}\n{MARKDOWN}"]
    assert run.sleeps == [2.0]


def test_publish__github_down_warns_after_three_attempts(tmp_path: Path, fake: FakeGitHub) -> None:
    fake.script("list-comments", 0, times=3)
    run = new_run(tmp_path, fake)
    result = do_publish(run, fake)
    assert result.comment == "failed"
    assert run.sleeps == [2.0, 5.0]
    assert result.warnings[0].startswith(
        f"could not comment on pull request #17 (GitHub API GET /repos/{REPO}/issues/17/comments"
        " failed: "
    )
    assert result.warnings[0].endswith(
        "GitHub did not accept the comment after retrying. The report is in the job summary."
    )
    assert run.summary.read_text() == MARKDOWN
    assert ("passed", "false") in run.outputs()


def test_publish__report_over_the_comment_limit_is_trimmed(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    rows = "".join(
        f"| support-bot | row-{i:05d} | unsupported | {'the bot said something odd ' * 3} |\n"
        for i in range(1500)
    )
    table = MARKDOWN.split("<details>")[0]
    markdown = (
        table
        + "<details><summary>Worst rows (1500)</summary>\n\n"
        + "| dataset | row | verdict | text |\n|---|---|---|---|\n"
        + rows
        + "\n</details>\n\n<details><summary>Judge usage</summary>\n\n12 calls\n\n</details>\n"
    )
    assert len(markdown) > COMMENT_LIMIT_CHARS
    run = new_run(tmp_path, fake)

    result = do_publish(run, fake, markdown=markdown)

    body = fake.comments[17][0]["body"]
    assert len(body) <= COMMENT_LIMIT_CHARS
    assert body.startswith(f"{MARKER}\n{table}<details><summary>Worst rows (1500)</summary>\n")
    assert "| support-bot | row-00000 |" in body and "| support-bot | row-01499 |" not in body
    assert body.endswith(
        "<details><summary>Judge usage</summary>\n\n12 calls\n\n</details>\n\n"
        "> [!NOTE]\n> This comment was trimmed to fit GitHub's 65,536-character limit: some "
        "per-row details are missing. The full report is in the [job summary]"
        f"(https://github.com/{REPO}/actions/runs/9100000001) and in the `ground-gate-report` "
        "files of the run.\n"
    )
    assert run.summary.read_text() == markdown  # the summary has room for all of it
    assert result.warnings == ("the comment was trimmed to GitHub's 65,536-character limit",)


def test_publish__hostile_dataset_text_is_posted_exactly_as_rendered(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    from ground_gate.render.escape import cell

    hostile = (
        "Price | $0 </details><script>alert(1)</script>\n```\nfenced\n``` cc @octo-org/security"
    )
    markdown = MARKDOWN.replace("invented-price", cell(hostile))
    run = new_run(tmp_path, fake)

    do_publish(run, fake, markdown=markdown)

    body = fake.comments[17][0]["body"]
    assert body == f"{MARKER}\n{markdown}"
    assert run.summary.read_text() == markdown
    assert "@octo-org/security" not in body and "</details><script>" not in body
    assert fake.requests[-1].body == {"body": f"{MARKER}\n{markdown}"}


def test_publish__comment_never_makes_no_api_call(tmp_path: Path, fake: FakeGitHub) -> None:
    run = new_run(tmp_path, fake, comment="never")
    result = do_publish(run, fake)
    assert result.comment == "skipped"
    assert fake.requests == []
    assert run.summary.read_text() == MARKDOWN
    assert run.outputs() == FAILED_OUTPUTS


def test_publish__push_has_no_pull_request(tmp_path: Path, fake: FakeGitHub) -> None:
    run = new_run(tmp_path, fake, event="push", fixture="push.json")
    result = do_publish(run, fake, passed=True)
    assert (result.comment, result.warnings) == ("skipped", ())
    assert fake.requests == []
    assert not (run.workspace / "ground-gate-report" / "pr-number.txt").exists()


def test_publish__comment_always_without_a_pr_warns(tmp_path: Path, fake: FakeGitHub) -> None:
    run = new_run(tmp_path, fake, event="push", fixture="push.json", comment="always")
    result = do_publish(run, fake)
    assert result.warnings == (
        "comment: always, but this push run is not for a pull request; the report is in the "
        "job summary",
    )


def test_publish__comment_on_a_pr_from_issue_comment(tmp_path: Path, fake: FakeGitHub) -> None:
    run = new_run(tmp_path, fake, event="issue_comment", fixture="issue_comment_pr.json")
    assert do_publish(run, fake).comment == "created"
    assert [c["body"] for c in bot_comments(fake, 17)] == [f"{MARKER}\n{MARKDOWN}"]


def test_publish__two_gates_share_a_pr_with_comment_ids(tmp_path: Path, fake: FakeGitHub) -> None:
    do_publish(new_run(tmp_path, fake, comment_id="support"), fake)
    do_publish(new_run(tmp_path, fake, comment_id="news"), fake)
    do_publish(new_run(tmp_path, fake, comment_id="support"), fake)
    bodies = [c["body"].splitlines()[0] for c in bot_comments(fake, 17)]
    assert bodies == ["<!-- ground-gate:support -->", "<!-- ground-gate:news -->"]


def test_publish__secrets_only_in_mask_commands(tmp_path: Path, fake: FakeGitHub) -> None:
    run = new_run(tmp_path, fake)
    do_publish(run, fake)
    console = run.console.getvalue()
    assert console.startswith(MASKS)
    rest = console[len(MASKS) :] + run.output.read_text() + run.summary.read_text()
    assert OPENAI_KEY not in rest and TOKEN not in rest
    assert OPENAI_KEY not in repr(run.settings()) and TOKEN not in repr(run.settings())


def test_publish__a_secret_quoted_by_the_report_is_masked_in_everything_written(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    """The second line of defence: a dataset row (or a judge's error) quoting the API key puts
    it in the markdown; the comment, the job summary, the outputs and the log get *** instead."""
    run = new_run(tmp_path, fake)
    leaked = MARKDOWN.replace("invented-price", f"row quoting {OPENAI_KEY} and {TOKEN}")
    result = do_publish(run, fake, markdown=leaked)
    assert result.comment == "created"
    (comment,) = fake.comments[17]
    masked = MARKDOWN.replace("invented-price", "row quoting *** and ***")
    assert comment["body"] == f"{MARKER}\n{masked}"
    assert run.summary.read_text() == masked
    console = run.console.getvalue()
    written = console[len(MASKS) :] + run.output.read_text() + comment["body"]
    assert OPENAI_KEY not in written and TOKEN not in written


# --- the fork-safe pair: the workflow_run run publishes the PR run's artifact ----------------


def pr_run_artifact(tmp_path: Path, fake: FakeGitHub) -> Path:
    """What the `pull_request` run leaves in ground-gate-report/ (comment: never, no token)."""
    pr_run = new_run(tmp_path / "pr-run", fake, fixture="pull_request_fork.json", comment="never")
    pr_run.env["INPUT_GITHUB-TOKEN"] = ""
    do_publish(pr_run, fake)
    return pr_run.workspace / "ground-gate-report"


def workflow_run_with(tmp_path: Path, fake: FakeGitHub, artifact: Path) -> Run:
    run = new_run(tmp_path / "wr-run", fake, event="workflow_run", fixture="workflow_run_fork.json")
    (run.workspace / "ground-gate-report").mkdir()
    for path in artifact.iterdir():  # everything the artifact holds, as download-artifact puts it
        (run.workspace / "ground-gate-report" / path.name).write_bytes(path.read_bytes())
    return run


def publish_pull_request_run(run: Run) -> PublishResult:
    """The workflow_run step: the downloaded report read, rendered as the PR run's claim and
    published with the write token."""
    settings = run.settings()
    paths = report_paths(settings)
    report, number = pull_request_report(settings, paths)
    return publish_artifact(
        settings,
        report=report,
        markdown=render_claim(report),
        pr_number=number,
        client=GitHubClient(settings.api_url, TOKEN),
        paths=paths,
        out=run.console,
        sleep=run.sleeps.append,
    )


def test_publish_artifact__comments_on_the_fork_pr(tmp_path: Path, fake: FakeGitHub) -> None:
    artifact = pr_run_artifact(tmp_path, fake)
    assert sorted(p.name for p in artifact.iterdir()) == [
        "pr-number.txt",
        "report.json",
        "report.md",
    ]
    assert fake.requests == []  # the PR run never talked to GitHub
    fake.pull_heads[18] = HEAD_SHA
    # pages a fork's run may add: never offered by the outputs (a test-report step would
    # publish the fork's "all passed" with the write token)
    (artifact / "report.junit.xml").write_text('<testsuites failures="0"/>')
    (artifact / "report.html").write_text("<p>all passed</p>")
    run = workflow_run_with(tmp_path, fake, artifact)

    result = publish_pull_request_run(run)

    assert result.comment == "created"
    # never the artifact's report.md: the JSON, rendered again as the PR run's own claim
    rendered = render_claim(make_report(False))
    assert rendered.startswith(
        "## ground-gate: reported by the pull request's run: failed\n"
        "These scores come from the pull request's own run and were not re-verified: the pull "
        "request controls that run (its data, config, code and any baseline it compared with), "
        "so this is what it reported, "
        "not a verdict of this repository.\n\n"
    )
    assert [c["body"] for c in bot_comments(fake, 18)] == [f"{MARKER}\n{rendered}"]
    assert fake.routes_called() == [
        "GET get-pull",
        "GET get-user",
        "GET list-comments",
        "POST create-comment",
    ]
    assert (
        run.outputs()
        == [
            ("passed", "false"),  # nothing is verified in a workflow_run run
            *FAILED_OUTPUTS[1:6],
            (
                "summary",
                "ground-gate: reported by the pull request's run, not re-verified: not passed",
            ),
            FAILED_OUTPUTS[7],
        ]
    )
    assert run.summary.read_text() == rendered
    assert (result.passed, result.warnings) == (False, ())


def test_publish_artifact__a_forged_pr_number_is_not_commented(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    artifact = pr_run_artifact(tmp_path, fake)
    (artifact / "pr-number.txt").write_text("3\n")  # another PR, whose head is elsewhere
    fake.pull_heads[3] = "0000000000000000000000000000000000000003"
    run = workflow_run_with(tmp_path, fake, artifact)

    result = publish_pull_request_run(run)

    assert result.comment == "skipped"
    assert result.warnings == (
        "not commenting: pull request #3 is at 0000000000000000000000000000000000000003, not "
        f"at the commit this report was made for ({HEAD_SHA}); a newer run will report on it",
    )
    assert fake.comments == {}
    assert fake.routes_called() == ["GET get-pull"]
    assert run.summary.read_text() == render_claim(make_report(False))


def test_publish_artifact__missing_artifact_is_a_config_error(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    from ground_gate.leaves.errors import ConfigError

    run = new_run(tmp_path, fake, event="workflow_run", fixture="workflow_run_fork.json")
    with pytest.raises(ConfigError) as caught:
        pull_request_report(run.settings(), report_paths(run.settings()))
    missing = run.workspace / "ground-gate-report" / "report.json"
    assert str(caught.value) == (
        f"{missing}: missing; in a workflow_run workflow, download the pull-request run's "
        "'ground-gate-report' artifact into the working directory first (see "
        "docs/github-action.md)"
    )


def test_report_error__annotation_summary_and_outputs(tmp_path: Path, fake: FakeGitHub) -> None:
    from ground_gate.action_endings import report_error

    run = new_run(tmp_path, fake)
    report_error(
        run.settings(), "ground-gate.yml, line 3: judge.model: expected a string", run.console
    )
    assert run.console.getvalue() == (
        "::error title=ground-gate::ground-gate.yml, line 3: judge.model: expected a string\n"
    )
    assert run.summary.read_text() == (
        "## ground-gate could not run\n\n```text\n"
        "ground-gate.yml, line 3: judge.model: expected a string\n```\n"
    )
    assert run.outputs() == [
        ("passed", "false"),
        ("summary", "ground-gate: error: ground-gate.yml, line 3: judge.model: expected a string"),
    ]
    assert fake.requests == []


def test_report_error__a_quoted_fence_cannot_end_the_code_block(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    from ground_gate.action_endings import report_error

    run = new_run(tmp_path, fake)
    report_error(run.settings(), "data.jsonl, line 2: bad row '```\n@team ![x](https://e)'")
    assert run.summary.read_text() == (
        "## ground-gate could not run\n\n````text\n"
        "data.jsonl, line 2: bad row '```\n@team ![x](https://e)'\n````\n"
    )
