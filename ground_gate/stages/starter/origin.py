"""Where ground-gate's action lives, for the `uses:` of the workflow `init` writes.

The action is ground-gate's repository, not the user's: it is taken from where this copy of
ground-gate came from, so the workflow runs the action from the same place as the command.
In order: the git repository or archive pip installed it from (the distribution's
direct_url.json); the clone it was installed from (a `file://` install, editable or not, or
the source tree it runs from), read from that clone's git remote (origin, else upstream,
else its only remote); the repository its package metadata names (pyproject.toml's
[project.urls]). `parse_repository` is pure; `find_origin` reads, and never fails: any error
is "not known here" and the next source is asked.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlsplit

DISTRIBUTION = "ground-gate"
GITHUB = "github.com"
# The source tree this module is in: a clone when ground-gate runs from one (an editable
# install, or PYTHONPATH), site-packages' parent folder otherwise (no action.yml there).
SOURCE = Path(__file__).resolve().parents[3]
TIMEOUT = 5.0  # seconds for git to read a clone's config
# A GitHub account's name, and a repository's (".", ".." and a name ending ".git" refused)
OWNER = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")
REPO = re.compile(r"[A-Za-z0-9._-]{1,100}")
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,252})")
_SCP = re.compile(r"(?:[^@/:\s]+@)?([^@/:\s]+):(?!//)(.*)")
_SCHEMES = frozenset({"https", "http", "ssh", "git", "git+https", "git+http", "git+ssh"})


@dataclass(frozen=True)
class Origin:
    """A repository ground-gate came from: `how` says from where, for the user."""

    host: str
    owner: str
    repo: str
    how: str

    @property
    def action(self) -> str:
        """The `uses:` of its action at the major version's tag."""
        return f"{self.owner}/{self.repo}@v1"

    @property
    def place(self) -> str:
        return f"{self.host}/{self.owner}/{self.repo}"


def parse_repository(url: str) -> tuple[str, str, str] | None:
    """(host, owner, repo) of a repository's URL: https://HOST/OWNER/REPO(.git), the same
    with ssh://, git:// or git+, [USER@]HOST:OWNER/REPO(.git) as git writes it, or a GitHub
    archive's https://HOST/OWNER/REPO/archive/...; None for anything else. The host is only
    where OWNER/REPO was read: nothing of the URL but the checked names is returned."""
    if not url.isascii() or any(ch.isspace() or not ch.isprintable() for ch in url):
        return None
    if "://" in url:
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
        except ValueError:
            return None
        if parts.scheme.lower() not in _SCHEMES or parts.query:
            return None
        path = unquote(parts.path)
    else:
        scp = _SCP.fullmatch(url)
        if scp is None:
            return None
        host, path = scp.group(1).lower(), scp.group(2)
    names = path.strip("/").split("/")
    if len(names) > 2 and names[2] == "archive":
        names = names[:2]
    if len(names) != 2 or not _HOST.fullmatch(host):
        return None
    owner, repo = names[0], names[1].removesuffix(".git")
    if not OWNER.fullmatch(owner) or not REPO.fullmatch(repo) or repo in {".", ".."}:
        return None
    if repo.endswith(".git"):
        return None
    return host, owner, repo


def find_origin(distribution: str | None = None, source: Path | None = None) -> Origin | None:
    """Where ground-gate came from (the module's docstring says in which order), or None."""
    try:
        dist: metadata.Distribution | None = metadata.distribution(distribution or DISTRIBUTION)
    except (metadata.PackageNotFoundError, OSError, ValueError):
        dist = None
    direct = _direct_url(dist)
    clones = [source or SOURCE]
    url = direct.get("url")
    if isinstance(url, str):
        vcs = direct.get("vcs_info")
        subdirectory = direct.get("subdirectory")
        if isinstance(vcs, dict) and vcs.get("vcs") == "git" and not subdirectory:
            found = _origin(url, "the repository pip installed it from")
            if found is not None:
                return found
        elif isinstance(direct.get("archive_info"), dict) and not subdirectory:
            found = _origin(url, "the archive pip installed it from")
            if found is not None:
                return found
        elif isinstance(direct.get("dir_info"), dict) and url.startswith("file://"):
            clones.insert(0, Path(unquote(urlsplit(url).path)))
    for clone in dict.fromkeys(clones):
        remote = _clone_remote(clone)
        found = _origin(remote, "the git remote of the clone it was installed from")
        if found is not None:
            return found
    return _declared(dist)


def _origin(url: str | None, how: str) -> Origin | None:
    parsed = None if url is None else parse_repository(url)
    return None if parsed is None else Origin(*parsed, how=how)


def _direct_url(dist: metadata.Distribution | None) -> dict[str, object]:
    """The distribution's direct_url.json (PEP 610), {} when there is none or it is unread."""
    try:
        text = None if dist is None else dist.read_text("direct_url.json")
        loaded = json.loads(text) if text else {}
    except (OSError, ValueError, UnicodeError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _declared(dist: metadata.Distribution | None) -> Origin | None:
    """The repository the package's metadata names: Repository, else Homepage."""
    try:
        entries = [] if dist is None else dist.metadata.get_all("Project-URL") or []
    except (OSError, ValueError, UnicodeError):
        return None
    urls: dict[str, str] = {}
    for entry in entries:
        label, _, url = str(entry).partition(",")
        urls.setdefault(label.strip().lower(), url.strip())
    for label in ("repository", "source", "homepage"):
        found = _origin(urls.get(label), "the repository its package metadata names")
        if found is not None:
            return found
    return None


def _clone_remote(clone: Path) -> str | None:
    """The URL of a ground-gate clone's remote (origin, else upstream, else its only one):
    only where the folder holds the action (action.yml) at a git work tree's top."""
    try:
        if not (clone / "action.yml").is_file() or not (clone / ".git").exists():
            return None
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        done = subprocess.run(
            ["git", "-C", str(clone), "config", "-z", "--get-regexp", r"^remote\..*\.url$"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=TIMEOUT,
            check=False,
            env=env,
        )
        if done.returncode != 0:
            return None
        text = done.stdout.decode("utf-8")
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    urls: dict[str, str] = {}
    for record in text.split("\0"):
        key, _, url = record.partition("\n")
        if key.startswith("remote.") and key.endswith(".url"):
            urls.setdefault(key[len("remote.") : -len(".url")], url)
    if len(urls) == 1:
        return next(iter(urls.values()))
    return urls.get("origin") or urls.get("upstream")
