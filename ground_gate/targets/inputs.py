"""The files a dataset's target reads, so that no file the run writes can overwrite them: its
prompt file, the files its `depends_on` globs match, and each argument of its command that
names an existing file (the script; relative to the working directory it runs in)."""

from __future__ import annotations

from pathlib import Path

from ground_gate.config.model import TargetConfig
from ground_gate.config.target import depends_on_files


def target_inputs(dataset: str, target: TargetConfig) -> list[tuple[str, Path]]:
    """(what it is, path) of each file `target` of `dataset` reads."""
    found: list[tuple[str, Path]] = []
    if target.prompt is not None:
        found.append((f"dataset {dataset}'s prompt file", target.prompt.path))
    for argument in target.command or ():
        path = Path(argument)
        if "\0" not in argument and _is_file(path):
            found.append((f"dataset {dataset}'s command file {argument}", path))
    for pattern in target.depends_on:
        for path in depends_on_files(pattern, target.base_dir):
            found.append((f"dataset {dataset}'s depends_on file {path.name}", path))
    return found


def _is_file(path: Path) -> bool:
    """Whether an argument names an existing file; an argument no path can be (a `sh -c`
    script longer than a file name may be) names none."""
    try:
        return path.is_file()
    except OSError:
        return False
