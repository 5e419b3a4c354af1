"""ground-gate's build backend: setuptools, run on a copy of the sources in a temporary folder.

setuptools builds in the source tree: `pip install .` from a clone would leave `build/` and
`ground_gate.egg-info/` behind, and a later install would ship from `build/lib` a module
deleted since. Here a wheel, an sdist and their metadata are built from a copy of what the
package is made of (as the Dockerfile's context holds), so the clone is left as it was. An
editable install (`pip install -e .`) points at the clone itself: it is setuptools' own.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools

# What a wheel or an sdist is made of; this folder too, which the copy's MANIFEST.in puts in
# the sdist, so that an sdist builds again.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "ground_gate", "build_backend")
MANIFEST = "graft build_backend\nglobal-exclude *.py[cod]\n"

build_editable = _setuptools.build_editable
get_requires_for_build_editable = _setuptools.get_requires_for_build_editable
prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable


@contextmanager
def _elsewhere() -> Iterator[None]:
    """The working directory a copy of SOURCES in a temporary folder, removed after."""
    here = Path.cwd()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    with tempfile.TemporaryDirectory(prefix="ground-gate-build-") as tmp:
        for name in SOURCES:
            source = here / name
            if source.is_dir():
                shutil.copytree(source, Path(tmp, name), ignore=ignore)
            elif source.exists():
                shutil.copy2(source, Path(tmp, name))
        Path(tmp, "MANIFEST.in").write_text(MANIFEST, encoding="utf-8")
        os.chdir(tmp)
        try:
            yield
        finally:
            os.chdir(here)


def _out_of_tree(hook: Callable[..., Any]) -> Callable[..., Any]:
    """`hook` run in a copy; its folder arguments made absolute first (they may be relative
    to the clone)."""

    def run(*args: Any, **kwargs: Any) -> Any:
        args = tuple(os.path.abspath(a) if isinstance(a, str) else a for a in args)
        kwargs = {
            k: os.path.abspath(v) if k.endswith("_directory") and isinstance(v, str) else v
            for k, v in kwargs.items()
        }
        with _elsewhere():
            return hook(*args, **kwargs)

    run.__name__ = hook.__name__
    run.__doc__ = hook.__doc__
    return run


build_wheel = _out_of_tree(_setuptools.build_wheel)
build_sdist = _out_of_tree(_setuptools.build_sdist)
get_requires_for_build_wheel = _out_of_tree(_setuptools.get_requires_for_build_wheel)
get_requires_for_build_sdist = _out_of_tree(_setuptools.get_requires_for_build_sdist)
prepare_metadata_for_build_wheel = _out_of_tree(_setuptools.prepare_metadata_for_build_wheel)
