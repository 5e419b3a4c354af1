"""A small synchronous client for the few GitHub REST operations the action uses.

Standard library only (urllib): six calls do not justify a dependency, and urllib honours
the runner's HTTPS_PROXY / NO_PROXY like every other tool in a job.
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
from ground_gate.errors import GitHubError

# https://docs.github.com/en/rest/about-the-rest-api/api-versions
API_VERSION = "2022-11-28"
PER_PAGE = 100  # the maximum GitHub allows for issue comments
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


class GitHubHTTPError(GitHubError):
    """GitHub answered with an error status."""

    def __init__(self, method: str, path: str, status: int, message: str) -> None:
        super().__init__(f"GitHub API {method} {path} answered {status}: {message}")
        self.status = status


class GitHubNetworkError(GitHubError):
    """GitHub could not be reached (connection refused, DNS, timeout, dropped connection)."""


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
        return str(self._request("GET", "/user")[0]["login"])

    def list_issue_comments(self, repository: str, number: int) -> Iterator[dict[str, Any]]:
        """Every comment on an issue or PR, oldest first, following `Link: rel="next"`."""
        url: str | None = f"{self._base}/repos/{repository}/issues/{number}/comments?" + urlencode(
            {"per_page": PER_PAGE}
        )
        while url is not None:
            page, link = self._request("GET", url)
            yield from page
            url = self._next_page(link)

    def create_issue_comment(self, repository: str, number: int, body: str) -> dict[str, Any]:
        path = f"/repos/{repository}/issues/{number}/comments"
        return dict(self._request("POST", path, {"body": body})[0])

    def update_issue_comment(self, repository: str, comment_id: int, body: str) -> dict[str, Any]:
        path = f"/repos/{repository}/issues/comments/{comment_id}"
        return dict(self._request("PATCH", path, {"body": body})[0])

    def get_pull_request(self, repository: str, number: int) -> dict[str, Any]:
        return dict(self._request("GET", f"/repos/{repository}/pulls/{number}")[0])

    def list_run_artifacts(self, repository: str, run_id: str, name: str) -> list[dict[str, Any]]:
        """The artifacts of a workflow run with this exact name (one page: a name is unique
        within a run but for its re-runs' attempts)."""
        query = urlencode({"name": name, "per_page": PER_PAGE})
        path = f"/repos/{repository}/actions/runs/{run_id}/artifacts?{query}"
        return list(self._request("GET", path)[0].get("artifacts") or [])

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
        try:
            return json.loads(response.read().decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise GitHubHTTPError(method, shown, response.status, f"not JSON ({exc})") from None

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
    try:
        payload = json.loads(exc.read().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return str(exc.reason or "no message")
    if isinstance(payload, dict) and isinstance(payload.get("message"), str):
        return str(payload["message"])
    return str(exc.reason or "no message")
