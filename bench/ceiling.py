"""The machine's ceiling for the local judge: llama.cpp driven directly, no server, no HTTP.

For each setting (threads, batch sizes, flash attention, key-value cache type, and whether
logits are kept for every prompt token as llama-cpp-python's server does by default) it
measures, on the shipped model:
- cold: prompt tokens read per second from an empty context (a row's first call);
- suffix: tokens per second of a short suffix read after a long prefix already in the
  key-value cache (a row's later calls when they share the prefix);
- gen: tokens generated per second (evidence quotes, statements).
Each figure is the best of `--repeat` tries: on a shared machine the best is the closest to
what the cores can do. Then, in the server's own setting, the seconds of one chat call with
log-probabilities, reading its whole prompt and finding all of it cached (the call's
overhead), as llama-cpp-python ships and with ground-gate's patch (local/last_logits.py).

    flock LOCK .venv/bin/python bench/ceiling.py --out bench/out/ceiling.json

The text read is the repository's README (any long text does: the cost does not depend on
the words).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from llama_cpp import Llama

from ground_gate.local import last_logits
from ground_gate.local.resolve import resolve_model

Q8_0 = 8  # ggml_type of an 8-bit key-value cache
COLD_TOKENS = 1024
PREFIX_TOKENS = 1536
SUFFIX_TOKENS = 128
GEN_TOKENS = 32
OVERHEAD_CONTEXTS = (512, 1536, 3072)

# The server's setting as ground-gate starts it (local/server.py), then one change at a time.
SHIPPED: dict[str, Any] = {
    "n_threads": 2,
    "n_threads_batch": 2,
    "n_batch": 512,
    "n_ubatch": 512,
    "logits_all": True,
    "flash_attn": False,
}
VARIANTS: dict[str, dict[str, Any]] = {
    "server as shipped (logits for every token)": {},
    "logits for the last token only": {"logits_all": False},
    "last token only, 1 thread": {"logits_all": False, "n_threads": 1, "n_threads_batch": 1},
    "last token only, batch 128": {"logits_all": False, "n_batch": 128, "n_ubatch": 128},
    "last token only, batch 256": {"logits_all": False, "n_batch": 256, "n_ubatch": 256},
    "last token only, flash attention": {"logits_all": False, "flash_attn": True},
    "last token only, flash attention, q8_0 KV cache": {
        "logits_all": False,
        "flash_attn": True,
        "type_k": Q8_0,
        "type_v": Q8_0,
    },
}


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """llama.cpp writes its load log to fd 2: keep it off the figures."""
    saved = os.dup(2)
    with open(os.devnull, "wb") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def best_of(repeat: int, once: Callable[[], float]) -> float:
    return min(once() for _ in range(repeat))


def cold(llm: Llama, tokens: list[int]) -> float:
    llm.reset()
    started = time.perf_counter()
    llm.eval(tokens[:COLD_TOKENS])
    return time.perf_counter() - started


def suffix(llm: Llama, tokens: list[int], repeat: int) -> float:
    llm.reset()
    llm.eval(tokens[:PREFIX_TOKENS])
    tail = tokens[PREFIX_TOKENS : PREFIX_TOKENS + SUFFIX_TOKENS]

    def once() -> float:
        llm.n_tokens = PREFIX_TOKENS  # eval() drops the cache past n_tokens
        started = time.perf_counter()
        llm.eval(tail)
        return time.perf_counter() - started

    return best_of(repeat, once)


def generation(llm: Llama, tokens: list[int], repeat: int) -> float:
    """One token per decode, as generation does (the token's identity does not matter)."""
    llm.reset()
    llm.eval(tokens[:512])

    def once() -> float:
        llm.n_tokens = 512
        started = time.perf_counter()
        for token in tokens[512 : 512 + GEN_TOKENS]:
            llm.eval([token])
        return time.perf_counter() - started

    return best_of(repeat, once)


def measure(path: Path, settings: dict[str, Any], tokens: list[int], repeat: int) -> dict[str, Any]:
    with quiet():
        llm = Llama(str(path), n_ctx=4096, verbose=False, **settings)
    try:
        return {
            "cold_tokens_per_s": round(COLD_TOKENS / best_of(repeat, lambda: cold(llm, tokens)), 1),
            "suffix_tokens_per_s": round(SUFFIX_TOKENS / suffix(llm, tokens, repeat), 1),
            "gen_tokens_per_s": round(GEN_TOKENS / generation(llm, tokens, repeat), 1),
        }
    finally:
        llm.close()


def calls(path: Path, text: str, repeat: int) -> dict[str, dict[str, float]]:
    """Seconds of one chat call with top-20 log-probabilities through llama-cpp-python, the
    server's setting, by context length: `cold` reads the whole prompt, `cached` finds all
    of it in the key-value cache (what is left is the call's overhead). First as shipped,
    then with ground-gate's patch (local/last_logits.py)."""
    found: dict[str, dict[str, float]] = {}
    for label in ("as shipped", "last_logits patch"):
        if label != "as shipped" and not last_logits.apply():
            break
        with quiet():
            llm = Llama(str(path), n_ctx=4096, verbose=False, **SHIPPED)
        try:
            for context in OVERHEAD_CONTEXTS:
                found[f"{label}, {context} tokens"] = one_call(llm, text, context, repeat)
        finally:
            llm.close()
    return found


def one_call(llm: Llama, text: str, context: int, repeat: int) -> dict[str, float]:
    body = llm.detokenize(llm.tokenize(text.encode())[:context]).decode(errors="ignore")
    messages: Any = [{"role": "user", "content": body + "\nAnswer Yes or No."}]

    def ask(reset: bool) -> float:
        if reset:
            llm.reset()
        started = time.perf_counter()
        llm.create_chat_completion(
            messages, max_tokens=1, temperature=0, logprobs=True, top_logprobs=20
        )
        return time.perf_counter() - started

    return {
        "cold_s": round(best_of(repeat, lambda: ask(True)), 2),
        "cached_s": round(best_of(repeat, lambda: ask(False)), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--text", type=Path, default=Path("README.md"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", action="append", default=[], help="variant names to run")
    parser.add_argument("--out", type=Path, default=Path("bench/out/ceiling.json"))
    args = parser.parse_args()
    path = resolve_model(args.model)
    text = args.text.read_text(encoding="utf-8")
    with quiet():
        tokenizer = Llama(str(path), vocab_only=True, verbose=False)
    tokens = tokenizer.tokenize(text.encode())
    if len(tokens) < PREFIX_TOKENS + SUFFIX_TOKENS:
        sys.exit(f"{args.text}: {len(tokens)} tokens, need {PREFIX_TOKENS + SUFFIX_TOKENS}")
    started = time.monotonic()
    load = os.getloadavg()[0]
    results: dict[str, Any] = {}
    for name, change in VARIANTS.items():
        if args.only and name not in args.only:
            continue
        results[name] = measure(path, {**SHIPPED, **change}, tokens, args.repeat)
        print(name, results[name], flush=True)
    chat = calls(path, text, args.repeat)
    print("one chat call with log-probabilities (s):", chat, flush=True)
    out = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "model": args.model,
        "load_average_before": round(load, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
        "seconds": round(time.monotonic() - started),
        "variants": results,
        "chat_call_s": chat,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
