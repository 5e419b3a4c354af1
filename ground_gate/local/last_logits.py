"""Logits for the positions a call reads, not for every prompt token (in the server's process).

llama-cpp-python's server runs with `logits_all`, which its `logprobs` require: the model's
output layer (151,936 vocabulary entries for Qwen2.5) runs for every prompt token read, each
row is copied into a numpy array of n_ctx rows, and a non-streamed call with `logprobs` then
takes the log-softmax of every row up to the end of the context (prompt included) to keep
the rows after the prompt. A call reads the logits of one position per generated token only:
the last one of each decode (the sampler's and the log-probabilities'). `apply()` makes
`Llama.eval` ask llama.cpp for the logits of each decode's last token and copy that row only,
and `Llama.logits_to_logprobs` take the log-softmax of the rows kept only. The figures are in
bench/RESULTS.md ("The machine's ceiling").

Loaded by bootstrap.py by path, in the server's interpreter, which may lack ground-gate:
stdlib, llama_cpp and numpy only. Applied to the llama-cpp-python version it was written for
(the replaced `eval` mirrors that version's), else nothing changes: slower, never wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

FOR_VERSION = "0.3.36"


class LazyLogprobs:
    """Log-probabilities of a 2-D array of logits, computed for the rows sliced out only."""

    def __init__(self, logits: Any, convert: Callable[[Any], Any]) -> None:
        self._logits = logits
        self._convert = convert

    def __getitem__(self, key: Any) -> Any:
        return self._convert(self._logits[key])

    def __len__(self) -> int:
        return len(self._logits)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        full = self._convert(self._logits)
        return full if dtype is None else full.astype(dtype)

    def __iter__(self) -> Any:
        return iter(self._convert(self._logits))


def lazy_logprobs(convert: Callable[..., Any]) -> Callable[..., Any]:
    """`convert` (the log-softmax) deferred to the rows asked for when given a 2-D array."""

    def logits_to_logprobs(logits: Any, axis: int = -1) -> Any:
        if getattr(logits, "ndim", 1) == 2 and axis in (-1, 1):
            return LazyLogprobs(logits, lambda rows: convert(rows, axis=axis))
        return convert(logits, axis=axis)

    return logits_to_logprobs


def eval_last_logits(self: Any, tokens: Sequence[int]) -> None:
    """llama-cpp-python 0.3.36's `Llama.eval`, with the logits of each batch's last token
    only: that row is copied to `scores`; rows nobody reads are left as they were."""
    import numpy as np

    self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
    for i in range(0, len(tokens), self.n_batch):
        batch = tokens[i : min(len(tokens), i + self.n_batch)]
        n_past = self.n_tokens
        n_tokens = len(batch)
        self._batch.set_batch(batch=batch, n_past=n_past, logits_all=False)
        self._ctx.decode(self._batch)
        self.input_ids[n_past : n_past + n_tokens] = batch
        if self._logits_all:
            last = np.ctypeslib.as_array(self._ctx.get_logits_ith(-1), shape=(self._n_vocab,))
            self.scores[n_past + n_tokens - 1, :] = last
        self.n_tokens += n_tokens
        self._requires_eval = False


def apply() -> bool:
    """Patch llama_cpp.Llama in this process; False (and nothing changed) on another version."""
    import llama_cpp
    from llama_cpp.llama import Llama

    if getattr(llama_cpp, "__version__", None) != FOR_VERSION:
        return False
    convert = Llama.logits_to_logprobs
    Llama.eval = eval_last_logits  # type: ignore[method-assign]
    Llama.logits_to_logprobs = staticmethod(lazy_logprobs(convert))  # type: ignore[method-assign]
    return True
