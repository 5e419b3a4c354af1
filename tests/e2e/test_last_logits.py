"""The server's logits patch (local/last_logits.py) on the real llama.cpp and the 0.5B model:
the same answers and log-probabilities as llama-cpp-python computes without it, through the
paths a judge's calls take (a prompt longer than one batch, a prefix found in the cache, the
same prompt again, several generated tokens)."""

from __future__ import annotations

from typing import Any

import pytest

from ground_gate.local import last_logits
from ground_gate.local.resolve import resolve_model

pytestmark = pytest.mark.e2e

llama_module = pytest.importorskip("llama_cpp.llama")
Llama = llama_module.Llama

# 292 tokens, about 330 with the chat template and a question: three batches of n_batch=128
DOCUMENT = " ".join(
    f"Section {i}: the X{i}00 laptop weighs {1 + i / 10:.1f} kg and costs {600 + 25 * i} euros."
    for i in range(12)
)
QUESTIONS = [
    "Does the X300 weigh 1.3 kg? Answer Yes or No.",
    "Does the X700 cost 900 euros? Answer Yes or No.",
    "Does the X700 cost 900 euros? Answer Yes or No.",  # the whole prompt cached
]


def answers(max_tokens: int) -> list[tuple[str, list[dict[str, float]]]]:
    """Each question's reply and its tokens' top log-probabilities, one model, in order."""
    llm = Llama(
        str(resolve_model("qwen2.5-coder-0.5b")),
        n_ctx=2048,
        n_batch=128,  # the document spans several batches
        n_threads=2,
        logits_all=True,  # as llama-cpp-python's server runs it
        verbose=False,
    )
    found = []
    try:
        for question in QUESTIONS:
            reply: Any = llm.create_chat_completion(
                [{"role": "user", "content": f"{DOCUMENT}\n\n{question}"}],
                max_tokens=max_tokens,
                temperature=0,
                logprobs=True,
                top_logprobs=5,
            )
            choice = reply["choices"][0]
            tops = [
                {t["token"]: t["logprob"] for t in item["top_logprobs"]}
                for item in choice["logprobs"]["content"]
            ]
            found.append((choice["message"]["content"], tops))
    finally:
        llm.close()
    return found


def test_last_logits__same_replies_and_logprobs_as_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = answers(max_tokens=4)
    monkeypatch.setattr(Llama, "eval", last_logits.eval_last_logits)
    monkeypatch.setattr(
        Llama,
        "logits_to_logprobs",
        staticmethod(last_logits.lazy_logprobs(Llama.logits_to_logprobs)),
    )
    after = answers(max_tokens=4)
    assert [text for text, _ in after] == [text for text, _ in before]
    for (_, tops_before), (_, tops_after) in zip(before, after, strict=True):
        assert len(tops_after) == len(tops_before)
        for one_before, one_after in zip(tops_before, tops_after, strict=True):
            assert one_after.keys() == one_before.keys()
            for token, logprob in one_before.items():
                assert one_after[token] == pytest.approx(logprob, abs=2e-3)
