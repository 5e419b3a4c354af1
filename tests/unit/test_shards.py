"""Row keys and shards: a row's shard depends on its dataset and key only, never its place."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from ground_gate.config.model import DatasetConfig
from ground_gate.datasets import load_samples
from ground_gate.datasets.identity import content_key, file_digest
from ground_gate.datasets.shards import Shard, parse_shard, shard_of


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def rows(count: int, *, ids: bool, start: int = 0) -> list[dict[str, str]]:
    out = []
    for i in range(start, start + count):
        row = {"document": f"Document {i}.", "response": f"Summary {i}."}
        if ids:
            row["id"] = f"r{i}"
        out.append(row)
    return out


def dataset(content: list[dict[str, str]], name: str = "d.jsonl") -> DatasetConfig:
    path = Path(name)
    path.write_text("".join(json.dumps(r) + "\n" for r in content), encoding="utf-8")
    return DatasetConfig(name="ds", path=path, fields={})


def shards_by_id(config: DatasetConfig, count: int = 4) -> dict[str, int]:
    """Row content -> shard (content, so that rows are followed across renumbering)."""
    return {s.response: shard_of("ds", s.key, count) for s in load_samples(config)}


def test_parse_shard__reads_k_of_n() -> None:
    assert parse_shard("2/4") == Shard(2, 4)
    assert parse_shard(" 1 / 1 ") == Shard(1, 1)
    assert str(Shard(3, 8)) == "3/8"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2", "'2': expected K/N, e.g. 1/4 (shard K of N)"),
        ("a/b", "'a/b': expected K/N, e.g. 1/4 (shard K of N)"),
        ("0/3", "'0/3': K must be between 1 and N (3)"),
        ("4/3", "'4/3': K must be between 1 and N (3)"),
        ("1/0", "'1/0': N must be between 1 and 1000"),
        ("-1/3", "'-1/3': expected K/N, e.g. 1/4 (shard K of N)"),
    ],
)
def test_parse_shard__refuses_what_is_not_k_of_n(text: str, expected: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_shard(text)
    assert str(caught.value) == expected


def test_shard_of__is_pinned_so_shards_agree_across_versions_and_machines() -> None:
    # A change here moves rows between shards of reports made before: never silently.
    assert [shard_of("support", f"id:r{i}", 4) for i in range(8)] == [1, 2, 3, 3, 4, 1, 1, 2]
    assert shard_of("support", "id:r0", 1) == 1


def test_shard_of__spreads_rows_evenly_enough() -> None:
    counts = Counter(shard_of("ds", f"id:row{i}", 4) for i in range(2000))
    assert sorted(counts) == [1, 2, 3, 4]
    assert all(400 <= n <= 600 for n in counts.values()), counts


def test_shard_of__the_dataset_name_is_part_of_the_hash() -> None:
    keys = [f"id:{i}" for i in range(50)]
    assert [shard_of("a", k, 4) for k in keys] != [shard_of("b", k, 4) for k in keys]


def test_sample_key__is_the_id_when_the_row_has_one_and_the_content_otherwise() -> None:
    with_ids = load_samples(dataset(rows(2, ids=True)))
    assert [s.key for s in with_ids] == ["id:r0", "id:r1"]
    without = load_samples(dataset(rows(2, ids=False), "e.jsonl"))
    assert [s.id for s in without] == ["row-1", "row-2"]  # shown where a reader finds them
    assert [s.key for s in without] == [
        content_key(("Document 0.",), None, "Summary 0."),
        content_key(("Document 1.",), None, "Summary 1."),
    ]
    assert without[0].key.startswith("content:") and len(without[0].key) == len("content:") + 32


@pytest.mark.parametrize("ids", [True, False])
def test_sharding__adding_or_removing_a_row_moves_no_other_row(ids: bool) -> None:
    base = rows(40, ids=ids)
    before = shards_by_id(dataset(base))
    inserted = [*base[:3], *rows(1, ids=ids, start=100), *base[3:]]
    after_insert = shards_by_id(dataset(inserted, "inserted.jsonl"))
    removed = shards_by_id(dataset(base[:10] + base[11:], "removed.jsonl"))
    assert {k: v for k, v in after_insert.items() if k != "Summary 100."} == before
    assert removed == {k: v for k, v in before.items() if k != "Summary 10."}
    assert len(set(before.values())) > 1  # the rows are spread, so the check could fail


def test_sample_key__identical_rows_are_told_apart_by_their_order_among_themselves() -> None:
    same = {"document": "D.", "response": "S."}
    other = {"document": "E.", "response": "T."}
    first = load_samples(dataset([same, other, same, same]))
    keys = [s.key for s in first]
    plain = content_key(("D.",), None, "S.")
    assert keys == [plain, content_key(("E.",), None, "T."), plain + "#2", plain + "#3"]
    # a row inserted elsewhere changes none of them
    second = load_samples(dataset([other, same, other | {"response": "U."}, same, same], "f.jsonl"))
    assert [s.key for s in second if s.response == "S."] == [plain, plain + "#2", plain + "#3"]


def test_sample_key__a_question_or_a_context_chunk_changes_it() -> None:
    base = content_key(("A.", "B."), None, "S.")
    assert base != content_key(("A.", "B."), "Q?", "S.")
    assert base != content_key(("A.B.",), None, "S.")
    assert base != content_key(("A.", "B."), None, "S. ")


def test_file_digest__is_the_sha256_of_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(b"abc")
    assert file_digest(path) == (
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
