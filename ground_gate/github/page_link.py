"""One click from the comment to the page: where the run's report.html was uploaded, found
after the upload, and whether this run's comment may be edited to link it.

The comment is written by the action's step, before any later step uploads the page, so at
that moment no link can exist (and the comment no longer promises a page that may never be
uploaded). The action's post step (action.yml `post-entrypoint`, run by the runner when the
job ends, after every step, failed ones included) asks GitHub for this run's artifacts:

- `report.html`: the page uploaded unzipped (actions/upload-artifact v7 with
  `archive: false` names the artifact after its file). Its address,
  `<server>/<owner>/<repo>/actions/runs/<run id>/artifacts/<id>` (what the upload step
  gives as `artifact-url`), opens the page in the browser of anyone signed in who may read
  the repository; a `#<dataset>/<row id>` after it opens that row.
- else `ground-gate-report`: the report folder as a zip, report.html inside.
- neither: nothing was uploaded, and the comment stays as it is, without a word of a page.

Listing a run's artifacts needs `actions: read`, which a job that sets its permissions must
grant; without it the comment keeps no link and the step says why, once.
https://docs.github.com/en/rest/actions/artifacts#list-workflow-run-artifacts
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ground_gate.github.sticky_comment import REPORT_DIR

PAGE_ARTIFACT = "report.html"
POSTED = ".posted-comment.json"  # hidden: upload-artifact leaves hidden files out by default
_SAFE_URL = re.compile(r"https?://[A-Za-z0-9.:-]+/[A-Za-z0-9._/-]+")


class ArtifactsAPI(Protocol):
    def list_run_artifacts(
        self, repository: str, run_id: str, name: str
    ) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class Page:
    url: str
    direct: bool  # True: the page itself, opened in the browser; False: a zip holding it


def remember_comment(directory: Path, run_id: str | None, comment_id: str) -> None:
    """Note, for the post step, that this run's step commented (and from which run): the
    post step edits no comment this run did not write."""
    record = {"run_id": run_id, "comment_id": comment_id}
    (directory / POSTED).write_text(json.dumps(record), encoding="utf-8")


def commented(directory: Path, run_id: str | None, comment_id: str) -> bool:
    """Whether this run's action step wrote the comment (its record, of this run)."""
    try:
        record = json.loads((directory / POSTED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and record == {"run_id": run_id, "comment_id": comment_id}


def _newest(artifacts: list[dict[str, Any]]) -> dict[str, Any] | None:
    live = [a for a in artifacts if not a.get("expired") and isinstance(a.get("id"), int)]
    return max(live, key=lambda a: int(a["id"])) if live else None


def find_page(
    api: ArtifactsAPI, *, server_url: str, repository: str, run_id: str | None
) -> Page | None:
    """Where this run uploaded its page: report.html itself, else the report folder's zip;
    None when it uploaded neither. GitHubError when the artifacts cannot be listed."""
    if run_id is None:
        return None
    for name, direct in ((PAGE_ARTIFACT, True), (REPORT_DIR, False)):
        found = _newest(api.list_run_artifacts(repository, run_id, name))
        if found is not None:
            url = f"{server_url}/{repository}/actions/runs/{run_id}/artifacts/{found['id']}"
            return Page(url, direct) if _SAFE_URL.fullmatch(url) else None
    return None


def zip_note(page: Page) -> str:
    """The comment's last paragraph when the page came only inside the report folder's zip."""
    return (
        f"\nEvery row, its sentences and its source: `{PAGE_ARTIFACT}` in the "
        f"[{REPORT_DIR} artifact]({page.url}) (a zip). Upload `{REPORT_DIR}/{PAGE_ARTIFACT}` "
        "with `archive: false` as well and this comment links each row to its place on the "
        "page.\n"
    )


def missing_permission(status: int | None) -> str:
    why = (
        "the token may not list this run's artifacts: give the job `permissions: actions: read`"
        if status in (403, 404)
        else "GitHub did not list this run's artifacts"
    )
    return f"the comment does not link the report page: {why}"
