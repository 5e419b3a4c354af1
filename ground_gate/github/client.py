"""A small synchronous client for the few GitHub REST operations the action uses.

Standard library only (urllib): six calls do not justify a dependency, and urllib honours
the runner's HTTPS_PROXY / NO_PROXY like every other tool in a job.

What comes back is checked where it enters: every body is read at most MAX_BODY_BYTES once
decoded (ground_gate/leaves/capped.py), every answer must have the shape the operation documents (a
list of comment objects, a comment with an integer id and a URL, ...), and listing stops at a
page it has already read and at MAX_PAGES. Anything else is a GitHubError, which the comment
step turns into a warning: GitHub misbehaving never changes the gate's verdict.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.client import HTTPException, HTTPResponse
from typing import Any
from urllib.parse import urlencode, urlsplit

from ground_gate import __version__
from ground_gate.leaves.capped import TooLarge, UndecodableBody, inflate_all
from ground_gate.leaves.errors import GitHubError

# https://docs.github.com/en/rest/about-the-rest-api/api-versions
API_VERSION = "2022-11-28"
PER_PAGE = 100  # the maximum GitHub allows for issue comments
MAX_PAGES = 100  # 10,000 comments: past that, no comment is worth a thousand more requests
# A page of 100 comments of at most 65,536 characters each, with their metadata
MAX_BODY_BYTES = 32 * 2**20
_MAX_ERROR_BYTES = 64 * 1024
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


class GitHubHTTPError(GitHubError):
    """GitHub answered with an error status."""

    def __init__(self, method: str, path: str, status: int, message: str) -> None:
        super().__init__(f"GitHub API {method} {path} answered {status}: {message}")
        self.status = status


class GitHubNetworkError(GitHubError):
    """GitHub could not be reached (connection refused, DNS, timeout, dropped connection)."""


class GitHubAnswerError(GitHubError):
    """GitHub answered, but not with what the operation returns (a shape, a size, a loop)."""

    def __init__(self, method: str, path: str, problem: str) -> None:
        super().__init__(f"GitHub API {method} {path} answered {problem}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The token must not follow a redirect to another host; GitHub's API does not redirect
    these calls, so any redirect is an error worth seeing."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class GitHubClient:
    """Issue comments, the token's identity and a PR's head; every failure is a GitHubError."""

    def __init__(self, api_url: str, token: str, *, timeout_s: float = 15.0) -> None:
        self._base = api_url.rstrip("/")
        self._timeout_s = timeout_s
        self._headers = {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {token}",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"ground-gate/{__version__}",
        }
        self._opener = urllib.request.build_opener(_NoRedirect)

    def __repr__(self) -> str:  # never show the token
        return f"GitHubClient({self._base!r})"

    def authenticated_login(self) -> str:
        """The token owner's login. Installation tokens (GITHUB_TOKEN) get 403 here."""
        user = _object(self._request("GET", "/user")[0], "GET", "/user")
        login = user.get("login")
        if not isinstance(login, str) or not login:
            raise GitHubAnswerError("GET", "/user", "a user without a login")
        return login

    def list_issue_comments(self, repository: str, number: int) -> Iterator[dict[str, Any]]:
        """Every comment on an issue or PR, oldest first, following `Link: rel="next"` to a
        page not read yet, for at most MAX_PAGES pages."""
        path = f"/repos/{repository}/issues/{number}/comments"
        url: str | None = f"{self._base}{path}?" + urlencode({"per_page": PER_PAGE})
        seen: set[str] = set()
        while url is not None and url not in seen:  # a page linking to itself ends the list
            if len(seen) == MAX_PAGES:
                raise GitHubAnswerError("GET", path, f"more than {MAX_PAGES} pages of comments")
            seen.add(url)
            page, link = self._request("GET", url)
            if not isinstance(page, list):
                raise GitHubAnswerError("GET", path, f"{_kind(page)}, not a list of comments")
            yield from (_object(item, "GET", path) for item in page)
            url = self._next_page(link)

    def create_issue_comment(self, repository: str, number: int, body: str) -> dict[str, Any]:
        path = f"/repos/{repository}/issues/{number}/comments"
        return _comment(self._request("POST", path, {"body": body})[0], "POST", path)

    def update_issue_comment(self, repository: str, comment_id: int, body: str) -> dict[str, Any]:
        path = f"/repos/{repository}/issues/comments/{comment_id}"
        return _comment(self._request("PATCH", path, {"body": body})[0], "PATCH", path)

    def get_pull_request(self, repository: str, number: int) -> dict[str, Any]:
        path = f"/repos/{repository}/pulls/{number}"
        return _object(self._request("GET", path)[0], "GET", path)

    def list_run_artifacts(self, repository: str, run_id: str, name: str) -> list[dict[str, Any]]:
        """The artifacts of a workflow run with this exact name (one page: a name is unique
        within a run but for its re-runs' attempts)."""
        query = urlencode({"name": name, "per_page": PER_PAGE})
        path = f"/repos/{repository}/actions/runs/{run_id}/artifacts?{query}"
        listing = _object(self._request("GET", path)[0], "GET", path)
        artifacts = listing.get("artifacts") or []
        if not isinstance(artifacts, list):
            raise GitHubAnswerError("GET", path, f"artifacts that are {_kind(artifacts)}")
        return [_object(item, "GET", path) for item in artifacts]

    def _request(
        self, method: str, path_or_url: str, payload: dict[str, Any] | None = None
    ) -> tuple[Any, str | None]:
        """(decoded JSON body, Link header)."""
        url = path_or_url if "://" in path_or_url else f"{self._base}{path_or_url}"
        shown = urlsplit(url).path
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        headers = dict(self._headers)
        if data is not None:
            headers["Content-Type"] = "application/json; charset=utf-8"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self._opener.open(request, timeout=self._timeout_s) as response:
                return self._decode(method, shown, response), response.headers.get("Link")
        except urllib.error.HTTPError as exc:
            with exc:
                raise GitHubHTTPError(method, shown, exc.code, _error_message(exc)) from None
        except (urllib.error.URLError, HTTPException, OSError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise GitHubNetworkError(
                f"GitHub API {method} {shown} failed: {type(exc).__name__}: {reason}"
            ) from exc

    @staticmethod
    def _decode(method: str, shown: str, response: HTTPResponse) -> Any:
        """The JSON body, read at most MAX_BODY_BYTES once decoded."""
        try:
            raw = inflate_all(
                iter(lambda: response.read(64 * 1024), b""),
                response.headers.get("Content-Encoding"),
                MAX_BODY_BYTES,
            )
        except (TooLarge, UndecodableBody) as exc:
            raise GitHubAnswerError(method, shown, f"a body that was refused: {exc}") from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            reason = type(exc).__name__ if isinstance(exc, RecursionError) else str(exc)[:200]
            raise GitHubHTTPError(method, shown, response.status, f"not JSON ({reason})") from None

    def _next_page(self, link: str | None) -> str | None:
        match = _NEXT_LINK.search(link or "")
        if match is None:
            return None
        url = match.group(1)
        # Only follow links to the API we were given: the token must not travel elsewhere.
        if urlsplit(url).netloc != urlsplit(self._base).netloc:
            raise GitHubError(f"GitHub API pagination pointed to another host: {url}")
        return url


def _error_message(exc: urllib.error.HTTPError) -> str:
    """GitHub's message in an error answer (its first 64 KiB), on one line, at most 300
    characters; the reason phrase when there is none."""
    try:
        payload = json.loads(exc.read(_MAX_ERROR_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        payload = None
    message = payload.get("message") if isinstance(payload, dict) else None
    if not isinstance(message, str):
        message = str(exc.reason or "no message")
    return " ".join(message.split())[:300]


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else "a value")


def _object(value: Any, method: str, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise GitHubAnswerError(method, path, f"{_kind(value)} where an object was expected")
    return value


def _comment(value: Any, method: str, path: str) -> dict[str, Any]:
    """A comment GitHub created or edited: an object with a positive integer id and its URL."""
    comment = _object(value, method, path)
    comment_id, url = comment.get("id"), comment.get("html_url")
    if isinstance(comment_id, bool) or not isinstance(comment_id, int) or comment_id < 1:
        raise GitHubAnswerError(method, path, "a comment without an id")
    if not isinstance(url, str) or not url:
        raise GitHubAnswerError(method, path, "a comment without an html_url")
    return comment
