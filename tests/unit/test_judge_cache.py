from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

from ground_gate.judge.base import ChatMessage
from ground_gate.judge.cache import JudgeCache, cache_key

BASE: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "temperature": 0.0,
    "max_tokens": 1,
    "logprobs": True,
    "schema": None,
    "messages": (ChatMessage("system", "Judge."), ChatMessage("user", "Is it so?")),
    "prompt_version": "1",
}


def test_cache_key__is_a_stable_sha256() -> None:
    key = cache_key(**BASE)
    assert key == cache_key(**dict(BASE, messages=list(BASE["messages"])))
    assert len(key) == 64
    assert all(c in "0123456789abcdef" for c in key)


def test_cache_key__ignores_schema_key_order() -> None:
    one = cache_key(**dict(BASE, schema={"type": "object", "required": ["a"]}))
    two = cache_key(**dict(BASE, schema={"required": ["a"], "type": "object"}))
    assert one == two


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("model", "gpt-4o"),
        ("temperature", 0.2),
        ("max_tokens", 2),
        ("logprobs", False),
        ("schema", {"type": "object"}),
        ("messages", (ChatMessage("system", "Judge."), ChatMessage("user", "Is it so? "))),
        ("messages", (ChatMessage("user", "Judge."), ChatMessage("user", "Is it so?"))),
        ("prompt_version", "2"),
    ],
)
def test_cache_key__changes_with_every_input(field: str, value: Any) -> None:
    assert cache_key(**dict(BASE, **{field: value})) != cache_key(**BASE)


def test_judge_cache__round_trips_an_entry_in_a_two_level_fan_out(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    key = cache_key(**BASE)
    entry = {"text": "Yes", "top_logprobs": [{"Yes": -0.1}], "data": None}
    assert cache.get(key) is None
    cache.put(key, entry)
    assert cache.get(key) == entry
    assert cache.path_for(key) == tmp_path / key[:2] / key[2:4] / f"{key}.json"
    assert json.loads(cache.path_for(key).read_text("utf-8")) == entry
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [f"{key}.json"]


@pytest.mark.parametrize("content", [b"", b'{"text": "Ye', b"\xff\xfe", b"[1, 2]", b"null"])
def test_judge_cache__treats_a_damaged_entry_as_a_miss_and_replaces_it(
    tmp_path: Path, content: bytes
) -> None:
    cache = JudgeCache(tmp_path)
    key = cache_key(**BASE)
    path = cache.path_for(key)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert cache.get(key) is None
    cache.put(key, {"text": "No"})
    assert cache.get(key) == {"text": "No"}


def test_judge_cache__an_unreadable_entry_is_a_miss(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    key = cache_key(**BASE)
    cache.path_for(key).mkdir(parents=True)  # a directory where the file should be
    assert cache.get(key) is None


def test_judge_cache__rejects_keys_that_are_not_hashes(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    with pytest.raises(ValueError, match="64 lowercase hex digits"):
        cache.put("../../etc/passwd", {"text": "x"})


def test_judge_cache__concurrent_writers_leave_one_whole_entry(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    key = cache_key(**BASE)
    entries: list[dict[str, Any]] = [
        {"text": str(i) * 5000, "top_logprobs": [], "data": None} for i in range(8)
    ]
    errors: list[BaseException] = []
    seen_partial: list[object] = []

    def write(entry: dict[str, Any]) -> None:
        try:
            for _ in range(20):
                cache.put(key, entry)
                got = cache.get(key)
                if got is None or got not in entries:
                    seen_partial.append(got)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(e,)) for e in entries]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert seen_partial == []
    assert cache.get(key) in entries
    assert [p.name for p in cache.path_for(key).parent.iterdir()] == [f"{key}.json"]


def test_judge_cache__repr_names_the_directory_only(tmp_path: Path) -> None:
    assert repr(JudgeCache(tmp_path / "c")) == f"JudgeCache({str(tmp_path / 'c')!r})"


def test_cache_key__covers_every_chat_message_field() -> None:
    # A new field on ChatMessage must be added to the key, or cached answers would be reused
    # for requests that differ in it.
    assert [f.name for f in dataclasses.fields(ChatMessage)] == ["role", "content"]


def test_judge_cache__entries_readable_by_another_user(tmp_path: Path) -> None:
    """The container writes the cache as root; actions/cache saves it as the runner's user."""
    old = os.umask(0o022)
    try:
        root = Path(tempfile.mkdtemp(prefix="gg-cache-", dir="/tmp"))
        root.chmod(0o755)  # pytest's own tmp_path is 0700: nobody else could enter it
        cache = JudgeCache(root / "cache")
        key = cache_key(**BASE)
        cache.put(key, {"text": "yes"})
    finally:
        os.umask(old)
    path = cache.path_for(key)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o755 for p in path.parents[:3])
    if os.geteuid() != 0:
        return  # only root can act as another user; the mode check above still holds
    read = subprocess.run(
        ["cat", str(path)],
        user=65534,
        capture_output=True,
        text=True,
        check=False,
    )
    shutil.rmtree(root)
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout) == {"text": "yes"}
