"""Where a dataset of the config is, and the one rule on symbolic links.

A dataset path is relative to the config file's directory. A path that passes through a
symbolic link must lead to a file inside the config's directory or the working directory: a
pull request could otherwise add `rows.csv -> ~/.netrc` (or /proc/self/environ) and have the
first line of a credentials file quoted in an error message. Such a path is refused before the
file is opened, and the message never shows where the link points.
"""

from __future__ import annotations

import os
from pathlib import Path


def dataset_path(written: str, config_path: Path) -> Path:
    path = Path(os.path.expanduser(written))
    if not path.is_absolute():  # relative to the config file, not to the working directory
        path = Path(os.path.normpath(config_path.parent / path))
    return path


def link_problem(path: Path, config_path: Path) -> str | None:
    """Why `path` may not be followed (None if it may): a link to outside the allowed trees."""
    roots = [Path(os.path.realpath(config_path.parent or ".")), Path(os.path.realpath("."))]
    target = Path(os.path.realpath(path))
    if any(target == root or root in target.parents for root in roots):
        return None
    if not _through_link(Path(os.path.abspath(path)), roots):
        return None  # written out by the config's author, e.g. an absolute path
    return (
        "the path goes through a symbolic link to outside the config's directory and the "
        "working directory; ground-gate does not follow it (copy the file in instead)"
    )


def _through_link(path: Path, roots: list[Path]) -> bool:
    """Whether `path` or a parent below the allowed roots is a symbolic link."""
    for part in (path, *path.parents):
        if Path(os.path.realpath(part)) in roots or part.parent == part:
            return False
        if part.is_symlink():
            return True
    return False
