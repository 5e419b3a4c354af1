"""bench/'s layout (bench/README.md): scripts run as modules from the repository root, so no
file edits sys.path, every folder holding code is a package, and every script has its line
in the README's index."""

from __future__ import annotations

import re
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench"
# not the project's: the peers' virtual environment and the scripts' output
SKIPPED = {".venv-peers", "out", "__pycache__"}
# sys.path.insert(...), .append, .extend, sys.path[:0] = ..., sys.path = ..., sys.path += ...
EDIT = re.compile(r"\bsys\.path\s*(?:\.\s*(?:insert|append|extend|remove|pop|clear)\b|\[|\+?=)")


def _python_files() -> list[Path]:
    return [
        path
        for path in sorted(BENCH.rglob("*.py"))
        if not SKIPPED & set(path.relative_to(BENCH).parts)
    ]


def _scripts() -> list[str]:
    return [
        path.relative_to(BENCH).as_posix()
        for path in _python_files()
        if path.name != "__init__.py" and not path.name.startswith("test_")
    ]


def test_the_walk_finds_the_scripts() -> None:
    assert "speed/judge_speed.py" in _scripts()
    assert "peers/test_peers_score.py" in [p.relative_to(BENCH).as_posix() for p in _python_files()]
    assert EDIT.search("sys.path.insert(0, ROOT)") and EDIT.search("sys.path[:0] = [HERE]")
    assert not EDIT.search("the checkout's root comes first on sys.path.")


def test_no_file_edits_sys_path() -> None:
    editing = [
        f"{path.relative_to(BENCH)}:{number}"
        for path in _python_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if EDIT.search(line)
    ]
    assert editing == [], "run it as `python -m bench.<folder>.<name>` from the root instead"


def test_every_folder_holding_code_is_a_package() -> None:
    folders = {path.parent for path in _python_files()}
    for folder in list(folders):
        folders.update(p for p in folder.parents if BENCH in (p, *p.parents))
    missing = sorted(
        str(f.relative_to(BENCH.parent)) for f in folders if not (f / "__init__.py").is_file()
    )
    assert missing == []


def test_every_script_is_in_the_readme_index() -> None:
    readme = (BENCH / "README.md").read_text(encoding="utf-8")
    unlisted = [script for script in _scripts() if f"]({script})" not in readme]
    assert unlisted == [], "give each a line in bench/README.md's index"
