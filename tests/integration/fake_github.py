"""A fake GitHub REST API on 127.0.0.1 that checks itself against GitHub's OpenAPI description.

Every request is matched to one of the vendored operations (tests/openapi); its path, query
and JSON body are validated against that operation, and so is every response the fake sends,
so neither ground-gate's requests nor the fake's answers can drift from the real shapes.
Anything off is recorded in `violations`, which the tests assert to be empty.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema

SPEC = json.loads(
    (Path(__file__).parents[1] / "openapi" / "github-operations.json").read_text("utf-8")
)
BASIC_ERROR = SPEC["paths"]["/repos/{owner}/{repo}/issues/{issue_number}/comments"]["post"][
    "responses"
]["403"]["content"]["application/json"]["schema"]
REPO_ID = 424242
_NAME = r"[A-Za-z0-9_.-]+"

# (route name, method, path regex, OpenAPI path). The `/repositories/{id}/...` form is what
# GitHub's `Link: rel="next"` URLs use for issue comments, so the fake serves it too.
ROUTES = (
    ("get-user", "GET", r"/user", "/user"),
    (
        "list-comments",
        "GET",
        rf"/repos/(?P<owner>{_NAME})/(?P<repo>{_NAME})/issues/(?P<number>\d+)/comments",
        "/repos/{owner}/{repo}/issues/{issue_number}/comments",
    ),
    (
        "list-comments",
        "GET",
        rf"/repositories/{REPO_ID}/issues/(?P<number>\d+)/comments",
        "/repos/{owner}/{repo}/issues/{issue_number}/comments",
    ),
    (
        "create-comment",
        "POST",
        rf"/repos/(?P<owner>{_NAME})/(?P<repo>{_NAME})/issues/(?P<number>\d+)/comments",
        "/repos/{owner}/{repo}/issues/{issue_number}/comments",
    ),
    (
        "update-comment",
        "PATCH",
        rf"/repos/(?P<owner>{_NAME})/(?P<repo>{_NAME})/issues/comments/(?P<comment_id>\d+)",
        "/repos/{owner}/{repo}/issues/comments/{comment_id}",
    ),
    (
        "get-pull",
        "GET",
        rf"/repos/(?P<owner>{_NAME})/(?P<repo>{_NAME})/pulls/(?P<number>\d+)",
        "/repos/{owner}/{repo}/pulls/{pull_number}",
    ),
    (
        "list-run-artifacts",
        "GET",
        rf"/repos/(?P<owner>{_NAME})/(?P<repo>{_NAME})/actions/runs/(?P<run_id>\d+)/artifacts",
        "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
    ),
)


def _route(method: str, path: str) -> tuple[str, str, re.Match[str]] | None:
    for name, route_method, pattern, openapi_path in ROUTES:
        match = re.fullmatch(pattern, path)
        if match and route_method == method:
            return name, openapi_path, match
    return None


def json_schema(schema: Any) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema (draft 4 style): `nullable` becomes a null type."""
    if isinstance(schema, list):
        return [json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: json_schema(v) for k, v in schema.items() if k not in ("nullable", "example")}
    if schema.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def sample(schema: dict[str, Any]) -> Any:
    """The smallest instance of a schema: required properties only, nulls where allowed."""
    if schema.get("nullable"):
        return None
    for key in ("allOf",):
        if key in schema:
            merged: dict[str, Any] = {}
            for part in schema[key]:
                merged.update(sample(part))
            return merged
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return sample(schema[key][0])
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {name: sample(props.get(name, {})) for name in schema.get("required", [])}
    if kind == "array":
        return []
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return False
    if schema.get("format") == "date-time":
        return "2026-01-01T00:00:00Z"
    if schema.get("format") == "uri":
        return "https://example.invalid/"
    return "x"


def _operation(openapi_path: str, method: str) -> dict[str, Any]:
    return dict(SPEC["paths"][openapi_path][method.lower()])


def _response_schema(operation: dict[str, Any], status: int) -> dict[str, Any] | None:
    response = operation["responses"].get(str(status))
    if response is None:
        return BASIC_ERROR if status >= 400 else None
    content = response.get("content", {}).get("application/json")
    return content["schema"] if content else None


COMMENTS_PATH = "/repos/{owner}/{repo}/issues/{issue_number}/comments"
COMMENT_PATH = "/repos/{owner}/{repo}/issues/comments/{comment_id}"
PULL_PATH = "/repos/{owner}/{repo}/pulls/{pull_number}"
ARTIFACTS_PATH = "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts"


def _schema(openapi_path: str, method: str, status: int) -> dict[str, Any]:
    schema = _response_schema(_operation(openapi_path, method), status)
    assert schema is not None
    return schema


def user(login: str) -> dict[str, Any]:
    """A comment's author, shaped as the simple-user the comment operations embed."""
    schema = dict(_schema(COMMENT_PATH, "patch", 200)["properties"]["user"], nullable=False)
    bot = login.endswith("[bot]")
    return {
        **sample(schema),
        "login": login,
        "id": 41898282 if bot else 1000 + len(login),
        "type": "Bot" if bot else "User",
        "html_url": f"https://github.com/{login}",
    }


@dataclass
class Request:
    route: str
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    headers: dict[str, str]


@dataclass
class Scripted:
    route: str
    status: int  # 0: drop the connection unanswered; -1: do the work, then drop the answer
    times: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted failure"


class FakeGitHub:
    """State: comments per issue number, pull request heads; scripted failures per route."""

    def __init__(
        self,
        *,
        token: str = "ghs_faketoken",
        login: str | None = None,
        owner: str = "octo-org",
        repo: str = "octo-repo",
    ) -> None:
        self.token = token
        self.login = login  # None: GET /user answers 403 like an installation token
        self.repository = f"{owner}/{repo}"
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.pull_heads: dict[int, str] = {}
        self.artifacts: dict[int, list[dict[str, Any]]] = {}  # run id -> its artifacts
        self.requests: list[Request] = []
        self.violations: list[str] = []
        self._scripted: list[Scripted] = []
        self._ids = itertools.count(1_000_001)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # --- lifecycle ---
    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    # --- state helpers for tests ---
    def add_comment(self, number: int, body: str, login: str) -> dict[str, Any]:
        with self._lock:
            return self._store(number, body, login)

    def add_artifact(self, run_id: int, name: str, *, expired: bool = False) -> dict[str, Any]:
        """An artifact a step of run `run_id` uploaded, shaped as the API lists it."""
        artifact_id = next(self._ids)
        schema = _schema(ARTIFACTS_PATH, "get", 200)["properties"]["artifacts"]["items"]
        artifact: dict[str, Any] = sample(schema)
        artifact.update(
            id=artifact_id,
            node_id=f"MDg6QXJ0aWZhY3Q{artifact_id}",
            name=name,
            size_in_bytes=1234,
            url=f"{self.url}/repos/{self.repository}/actions/artifacts/{artifact_id}",
            archive_download_url=f"{self.url}/repos/{self.repository}/actions/artifacts/"
            f"{artifact_id}/zip",
            expired=expired,
            created_at="2026-01-01T00:00:00Z",
            expires_at="2026-04-01T00:00:00Z",
            updated_at="2026-01-01T00:00:00Z",
        )
        with self._lock:
            self.artifacts.setdefault(run_id, []).append(artifact)
        return artifact

    def script(
        self,
        route: str,
        status: int,
        *,
        times: int = 1,
        headers: dict[str, str] | None = None,
        message: str = "scripted failure",
    ) -> None:
        self._scripted.append(Scripted(route, status, times, headers or {}, message))

    def routes_called(self) -> list[str]:
        return [f"{r.method} {r.route}" for r in self.requests]

    # --- internals ---
    def _store(self, number: int, body: str, login: str) -> dict[str, Any]:
        comment_id = next(self._ids)
        comment: dict[str, Any] = sample(_schema(COMMENTS_PATH, "post", 201))
        comment.update(
            id=comment_id,
            node_id=f"IC_{comment_id}",
            body=body,
            user=user(login),
            url=f"{self.url}/repos/{self.repository}/issues/comments/{comment_id}",
            html_url=f"https://github.com/{self.repository}/pull/{number}#issuecomment-{comment_id}",
            issue_url=f"{self.url}/repos/{self.repository}/issues/{number}",
            created_at=f"2026-01-01T00:{len(self.comments.get(number, [])) % 60:02d}:00Z",
            updated_at="2026-01-01T00:00:00Z",
            author_association="NONE",
        )
        self.comments.setdefault(number, []).append(comment)
        return comment

    def _find(self, comment_id: int) -> dict[str, Any] | None:
        for comments in self.comments.values():
            for comment in comments:
                if comment["id"] == comment_id:
                    return comment
        return None

    def _take_script(self, route: str) -> Scripted | None:
        with self._lock:
            for item in self._scripted:
                if item.route == route and item.times > 0:
                    item.times -= 1
                    return item
        return None

    def _handle(
        self, method: str, raw_path: str, headers: dict[str, str], raw_body: bytes
    ) -> tuple[int, dict[str, str], Any] | None:
        parts = urlsplit(raw_path)
        query = parse_qs(parts.query)
        route = _route(method, parts.path)
        if route is None:
            self.violations.append(f"no GitHub operation for {method} {parts.path}")
            return 404, {}, {"message": "Not Found"}
        name, openapi_path, match = route
        operation = _operation(openapi_path, method)
        body = json.loads(raw_body) if raw_body else None
        self.requests.append(Request(name, method, parts.path, query, body, headers))
        found = len(self.violations)
        self._check_request(name, operation, match.groupdict(), query, headers, body)
        if headers.get("authorization") != f"Bearer {self.token}":
            return 401, {}, {"message": "Bad credentials"}
        if len(self.violations) > found and method != "GET":
            invalid = {
                "message": "Invalid request.",
                "documentation_url": "https://docs.github.com/rest",
            }
            return 422, {}, invalid
        scripted = self._take_script(name)
        if scripted is not None and scripted.status >= 0:
            if scripted.status == 0:
                return None
            return scripted.status, scripted.headers, {"message": scripted.message}
        with self._lock:
            status, extra, payload = self._serve(name, match.groupdict(), query, body)
        self._check_response(name, operation, status, payload)
        if scripted is not None:  # the answer is lost on the way back
            return None
        return status, extra, payload

    def _serve(
        self, name: str, params: dict[str, str], query: dict[str, list[str]], body: Any
    ) -> tuple[int, dict[str, str], Any]:
        owner_repo = f"{params.get('owner')}/{params.get('repo')}"
        if "owner" in params and owner_repo != self.repository:
            return 404, {}, {"message": "Not Found"}
        if name == "get-user":
            if self.login is None:
                return 403, {}, {"message": "Resource not accessible by integration"}
            public_user = _schema("/user", "get", 200)["oneOf"][1]
            return 200, {}, {**sample(public_user), "login": self.login}
        if name == "list-comments":
            return self._page(int(params["number"]), query)
        if name == "create-comment":
            return 201, {}, self._store(int(params["number"]), body["body"], self._author())
        if name == "update-comment":
            comment = self._find(int(params["comment_id"]))
            if comment is None:
                return 404, {}, {"message": "Not Found"}
            comment["body"] = body["body"]
            comment["updated_at"] = "2026-01-02T00:00:00Z"
            return 200, {}, comment
        if name == "list-run-artifacts":
            wanted = query.get("name", [None])[0]
            found = [
                a
                for a in self.artifacts.get(int(params["run_id"]), [])
                if wanted is None or a["name"] == wanted
            ]
            return 200, {}, {"total_count": len(found), "artifacts": found}
        if name == "get-pull":
            number = int(params["number"])
            if number not in self.pull_heads:
                return 404, {}, {"message": "Not Found"}
            pull = sample(_schema(PULL_PATH, "get", 200))
            pull.update(number=number)
            pull["head"]["sha"] = self.pull_heads[number]
            return 200, {}, pull
        raise AssertionError(name)

    def _author(self) -> str:
        return self.login or "github-actions[bot]"

    def _page(self, number: int, query: dict[str, list[str]]) -> tuple[int, dict[str, str], Any]:
        per_page = min(int(query.get("per_page", ["30"])[0]), 100)
        page = int(query.get("page", ["1"])[0])
        comments = self.comments.get(number, [])
        chunk = comments[(page - 1) * per_page : page * per_page]
        last = max(1, -(-len(comments) // per_page))
        links = []
        base = f"{self.url}/repositories/{REPO_ID}/issues/{number}/comments"
        if page < last:
            links.append(f'<{base}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{base}?per_page={per_page}&page={last}>; rel="last"')
        if page > 1:
            links.append(f'<{base}?per_page={per_page}&page=1>; rel="first"')
            links.append(f'<{base}?per_page={per_page}&page={page - 1}>; rel="prev"')
        return 200, ({"Link": ", ".join(links)} if links else {}), chunk

    def _check_request(
        self,
        name: str,
        operation: dict[str, Any],
        params: dict[str, str],
        query: dict[str, list[str]],
        headers: dict[str, str],
        body: Any,
    ) -> None:
        if headers.get("accept") != "application/vnd.github+json":
            self.violations.append(f"{name}: Accept header is {headers.get('accept')!r}")
        if not headers.get("x-github-api-version"):
            self.violations.append(f"{name}: no X-GitHub-Api-Version header")
        for parameter in operation.get("parameters", []):
            where, pname = parameter["in"], parameter["name"]
            if where == "query" and pname in query:
                self._validate(name, f"query {pname}", parameter["schema"], query[pname][0])
            if where == "path" and pname in params:
                self._validate(name, f"path {pname}", parameter["schema"], params[pname])
        known = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        for unknown in set(query) - known:
            self.violations.append(f"{name}: undocumented query parameter {unknown!r}")
        request_body = operation.get("requestBody")
        if request_body is None:
            if body is not None:
                self.violations.append(f"{name}: sent a body the operation does not take")
            return
        schema = request_body["content"]["application/json"]["schema"]
        closed = {**schema, "additionalProperties": False}  # catch misspelt fields
        self._validate(name, "request body", closed, body)

    def _check_response(
        self, name: str, operation: dict[str, Any], status: int, payload: Any
    ) -> None:
        if str(status) not in operation["responses"] and status < 400:
            self.violations.append(f"{name}: status {status} is not documented")
        schema = _response_schema(operation, status)
        if schema is not None:
            self._validate(name, f"response {status}", schema, payload)

    def _validate(self, name: str, what: str, schema: Any, value: Any) -> None:
        converted = json_schema(schema)
        if isinstance(value, str) and converted.get("type") == "integer":
            value = int(value) if value.isdigit() else value
        validator = jsonschema.Draft4Validator(
            converted, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER
        )
        for error in validator.iter_errors(value):
            self.violations.append(f"{name}: {what}: {error.message} at {list(error.path)}")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                answer = fake._handle(self.command, self.path, headers, raw)
                if answer is None:  # simulate a dropped connection
                    self.close_connection = True
                    return
                status, extra, payload = answer
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for key, value in extra.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = _any

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
