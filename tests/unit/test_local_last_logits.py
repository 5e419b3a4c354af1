"""Logits only where a call reads them (local/last_logits.py), against stand-in llama objects.

The patched server itself is exercised by tests/e2e (the same log-probabilities as without the
patch, on the real model)."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

from ground_gate.local import bootstrap, last_logits
from tests.fakes import fake_modules

# numpy comes with the local extra (llama.cpp); the floor install (scripts/test-floor.sh) has none
np = pytest.importorskip("numpy")

VOCAB = 4


def log_softmax(logits: Any, axis: int = -1) -> Any:
    shifted = logits - np.max(logits, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def test_lazy_logprobs__a_2d_array_is_converted_for_the_rows_sliced_out_only() -> None:
    seen: list[tuple[int, ...]] = []

    def convert(logits: Any, axis: int = -1) -> Any:
        seen.append(np.shape(logits))
        return log_softmax(logits, axis)

    scores = np.arange(40, dtype=np.single).reshape(10, VOCAB)
    lazy = last_logits.lazy_logprobs(convert)(scores)
    rows = lazy[8:]
    assert seen == [(2, VOCAB)]
    np.testing.assert_allclose(rows, log_softmax(scores)[8:])
    # whatever asks for all of it gets all of it, as before
    np.testing.assert_allclose(np.asarray(lazy), log_softmax(scores))
    assert len(lazy) == 10
    assert [list(r) for r in lazy] == [list(r) for r in log_softmax(scores)]


def test_lazy_logprobs__one_row_is_converted_at_once() -> None:
    row = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.single)
    np.testing.assert_allclose(last_logits.lazy_logprobs(log_softmax)(row), log_softmax(row))


class FakeContext:
    """llama.cpp's context: the last decode's logits, one row per token asked for."""

    def __init__(self) -> None:
        self.removed: list[tuple[int, int, int]] = []
        self.decoded: list[list[int]] = []
        self._logits = (ctypes.c_float * VOCAB)()

    def kv_cache_seq_rm(self, seq: int, start: int, end: int) -> bool:
        self.removed.append((seq, start, end))
        return True

    def decode(self, batch: FakeBatch) -> None:
        self.decoded.append(list(batch.tokens))
        for i in range(VOCAB):  # the last token's logits, made from its id
            self._logits[i] = float(batch.tokens[-1] * 10 + i)

    def get_logits_ith(self, i: int) -> Any:
        assert i == -1
        return ctypes.cast(self._logits, ctypes.POINTER(ctypes.c_float))


class FakeBatch:
    def __init__(self) -> None:
        self.tokens: list[int] = []
        self.all_logits: list[bool] = []

    def set_batch(self, batch: list[int], n_past: int, logits_all: bool) -> None:
        self.tokens = list(batch)
        self.all_logits.append(logits_all)


class FakeLlama:
    n_batch = 3
    _n_vocab = VOCAB

    def __init__(self, n_tokens: int = 0) -> None:
        self._ctx = FakeContext()
        self._batch = FakeBatch()
        self._logits_all = True
        self.n_tokens = n_tokens
        self.input_ids = np.zeros(16, dtype=np.intc)
        self.scores = np.full((16, VOCAB), -1.0, dtype=np.single)
        self._requires_eval = True


def test_eval_last_logits__each_batch_asks_for_and_keeps_its_last_row_only() -> None:
    llama = FakeLlama(n_tokens=2)
    last_logits.eval_last_logits(llama, [5, 6, 7, 8, 9])
    assert llama._ctx.removed == [(-1, 2, -1)]  # the cache past the kept prefix is dropped
    assert llama._ctx.decoded == [[5, 6, 7], [8, 9]]
    assert llama._batch.all_logits == [False, False]
    assert list(llama.input_ids[2:7]) == [5, 6, 7, 8, 9]
    assert (llama.n_tokens, llama._requires_eval) == (7, False)
    assert list(llama.scores[4]) == [70.0, 71.0, 72.0, 73.0]  # token 7, the first batch's last
    assert list(llama.scores[6]) == [90.0, 91.0, 92.0, 93.0]  # token 9: what sampling reads
    untouched = [i for i in range(16) if i not in (4, 6)]
    assert (llama.scores[untouched] == -1.0).all()


def fake_llama_cpp(monkeypatch: pytest.MonkeyPatch, version: str) -> type:
    llama_class = type("Llama", (), {"eval": "original", "logits_to_logprobs": log_softmax})
    modules = {"llama_cpp": {"__version__": version}, "llama_cpp.llama": {"Llama": llama_class}}
    fake_modules(monkeypatch, modules)
    return llama_class


def test_apply__patches_the_version_it_was_written_for(monkeypatch: pytest.MonkeyPatch) -> None:
    llama_class = fake_llama_cpp(monkeypatch, last_logits.FOR_VERSION)
    assert last_logits.apply() is True
    assert llama_class.eval is last_logits.eval_last_logits  # type: ignore[attr-defined]
    lazy = llama_class.logits_to_logprobs(np.zeros((3, VOCAB)))  # type: ignore[attr-defined]
    assert isinstance(lazy, last_logits.LazyLogprobs)


def test_apply__another_version_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    llama_class = fake_llama_cpp(monkeypatch, "0.3.37")
    assert last_logits.apply() is False
    assert llama_class.eval == "original"  # type: ignore[attr-defined]
    assert llama_class.logits_to_logprobs is log_softmax  # type: ignore[attr-defined]


def test_bootstrap__loads_the_patch_from_beside_it_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    llama_class = fake_llama_cpp(monkeypatch, last_logits.FOR_VERSION)
    bootstrap._last_logits_only()
    assert llama_class.eval.__name__ == "eval_last_logits"  # type: ignore[attr-defined]
    assert capsys.readouterr().out == (
        "ground-gate: logits computed for the positions a call reads only\n"
    )
