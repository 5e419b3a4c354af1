from __future__ import annotations

from collections.abc import Iterator

import pytest

from ground_gate.github.client import GitHubClient, GitHubHTTPError, GitHubNetworkError
from ground_gate.leaves.errors import GitHubError
from tests.integration.fake_github import FakeGitHub

REPO = "octo-org/octo-repo"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert server.violations == []


def test_client__lists_every_page_following_link_next(fake: FakeGitHub) -> None:
    for i in range(250):
        fake.add_comment(17, f"comment {i}", "someone")
    client = GitHubClient(fake.url, fake.token)
    bodies = [c["body"] for c in client.list_issue_comments(REPO, 17)]
    assert bodies == [f"comment {i}" for i in range(250)]
    paths = [(r.path, r.query) for r in fake.requests]
    assert paths == [
        (f"/repos/{REPO}/issues/17/comments", {"per_page": ["100"]}),
        ("/repositories/424242/issues/17/comments", {"per_page": ["100"], "page": ["2"]}),
        ("/repositories/424242/issues/17/comments", {"per_page": ["100"], "page": ["3"]}),
    ]


def test_client__sends_the_documented_headers(fake: FakeGitHub) -> None:
    GitHubClient(fake.url, fake.token).create_issue_comment(REPO, 17, "hello")
    headers = fake.requests[0].headers
    assert headers["authorization"] == f"Bearer {fake.token}"
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["user-agent"].startswith("ground-gate/")
    assert fake.requests[0].body == {"body": "hello"}


def test_client__create_then_update(fake: FakeGitHub) -> None:
    client = GitHubClient(fake.url, fake.token)
    created = client.create_issue_comment(REPO, 17, "first")
    updated = client.update_issue_comment(REPO, created["id"], "second")
    assert updated["id"] == created["id"]
    assert [c["body"] for c in fake.comments[17]] == ["second"]
    assert created["user"]["login"] == "github-actions[bot]"


def test_client__installation_token_cannot_read_user(fake: FakeGitHub) -> None:
    with pytest.raises(GitHubHTTPError) as caught:
        GitHubClient(fake.url, fake.token).authenticated_login()
    assert caught.value.status == 403
    assert str(caught.value) == (
        "GitHub API GET /user answered 403: Resource not accessible by integration"
    )


def test_client__personal_token_reads_its_login() -> None:
    with FakeGitHub(login="octocat") as fake:
        assert GitHubClient(fake.url, fake.token).authenticated_login() == "octocat"
    assert fake.violations == []


def test_client__error_status_carries_githubs_message(fake: FakeGitHub) -> None:
    fake.script("create-comment", 403, message="Resource not accessible by integration")
    with pytest.raises(GitHubHTTPError) as caught:
        GitHubClient(fake.url, fake.token).create_issue_comment(REPO, 18, "x")
    assert caught.value.status == 403
    assert str(caught.value) == (
        f"GitHub API POST /repos/{REPO}/issues/18/comments answered 403: "
        "Resource not accessible by integration"
    )


def test_client__wrong_token_is_401_and_never_echoed(fake: FakeGitHub) -> None:
    with pytest.raises(GitHubHTTPError) as caught:
        GitHubClient(fake.url, "ghp_wrong_secret").create_issue_comment(REPO, 17, "x")
    assert caught.value.status == 401
    assert "ghp_wrong_secret" not in str(caught.value)
    assert "ghp_wrong_secret" not in repr(GitHubClient(fake.url, "ghp_wrong_secret"))


def test_client__dropped_connection_is_a_network_error(fake: FakeGitHub) -> None:
    fake.script("list-comments", 0)
    with pytest.raises(GitHubNetworkError, match=r"GitHub API GET /repos/.*/comments failed: "):
        list(GitHubClient(fake.url, fake.token).list_issue_comments(REPO, 17))


def test_client__refused_connection_is_a_network_error() -> None:
    with FakeGitHub() as fake:
        url = fake.url
    with pytest.raises(GitHubNetworkError):
        GitHubClient(url, "t", timeout_s=2).create_issue_comment(REPO, 17, "x")


def test_client__pagination_to_another_host_is_refused(fake: FakeGitHub) -> None:
    for i in range(101):
        fake.add_comment(17, f"c{i}", "someone")
    client = GitHubClient(fake.url.replace("127.0.0.1", "localhost"), fake.token)
    with pytest.raises(GitHubError, match="pagination pointed to another host"):
        list(client.list_issue_comments(REPO, 17))


def test_client__pull_request_head(fake: FakeGitHub) -> None:
    fake.pull_heads[18] = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
    pull = GitHubClient(fake.url, fake.token).get_pull_request(REPO, 18)
    assert pull["number"] == 18
    assert pull["head"]["sha"] == "6dcb09b5b57875f334f61aebed695e2e4193db5e"


def test_fake_github__flags_requests_the_real_api_would_reject() -> None:
    """The OpenAPI check itself can fail: a misspelt field and an unknown route are caught."""
    import json
    import urllib.error
    import urllib.request

    with FakeGitHub() as fake:
        headers = {
            "Authorization": f"Bearer {fake.token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "Content-Type": "application/json",
        }
        bad = urllib.request.Request(
            f"{fake.url}/repos/{REPO}/issues/17/comments?per_page=many",
            data=json.dumps({"bdy": "x"}).encode(),
            headers=headers,
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError):  # KeyError in the fake -> no 201
            urllib.request.urlopen(bad, timeout=5).close()
        unknown = urllib.request.Request(f"{fake.url}/repos/{REPO}/labels", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(unknown, timeout=5).close()
        caught.value.close()
    assert fake.violations == [
        "create-comment: undocumented query parameter 'per_page'",
        "create-comment: request body: 'body' is a required property at []",
        "create-comment: request body: Additional properties are not allowed ('bdy' was "
        "unexpected) at []",
        f"no GitHub operation for GET /repos/{REPO}/labels",
    ]


def test_fake_github__its_own_responses_are_checked() -> None:
    with FakeGitHub() as fake:
        comment = fake.add_comment(17, "hi", "someone")
        del comment["node_id"]  # a shape the real API never returns
        list(GitHubClient(fake.url, fake.token).list_issue_comments(REPO, 17))
    assert fake.violations == [
        "list-comments: response 200: 'node_id' is a required property at [0]"
    ]
