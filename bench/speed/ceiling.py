"""The machine's ceiling for the local judge: llama.cpp driven directly, no server, no HTTP.

For each setting (threads, batch sizes, flash attention, key-value cache type, and whether
logits are kept for every prompt token as llama-cpp-python's server does by default) it
measures, on the shipped model:
- cold: prompt tokens read per second from an empty context (a row's first call);
- suffix: tokens per second of a short suffix read after a long prefix already in the
  key-value cache (a row's later calls when they share the prefix);
- gen: tokens generated per second (evidence quotes, statements).
Each figure is the best of `--repeat` rounds, the variants taking turns within each round: on
a shared machine the best is the closest to what the cores can do, and turns keep a drift in
the machine's speed from favouring one variant. Then, in the server's own setting, the
seconds of one chat call with log-probabilities whose whole prompt is cached (the call's
overhead), as llama-cpp-python ships and with ground-gate's patch (local/last_logits.py).

    flock LOCK .venv/bin/python -m bench.speed.ceiling --out bench/out/ceiling.json

The text read is bench/RESULTS.md by default (`--text`): any text of at least 1,664 tokens
does, the cost does not depend on the words, and RESULTS.md only grows (about 150,000
characters), where the README it read before was cut to about 9,000 characters.
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
    "last token only, batch 64": {"logits_all": False, "n_batch": 64, "n_ubatch": 64},
    "last token only, batch 512, micro-batch 128": {"logits_all": False, "n_ubatch": 128},
    "last token only, batch 128, flash attention": {
        "logits_all": False,
        "n_batch": 128,
        "n_ubatch": 128,
        "flash_attn": True,
    },
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


def one_round(llm: Llama, tokens: list[int]) -> dict[str, float]:
    """Seconds of: a cold read of COLD_TOKENS; SUFFIX_TOKENS read after PREFIX_TOKENS kept in
    the cache; GEN_TOKENS decoded one at a time after 512 (as generation decodes)."""
    llm.reset()
    started = time.perf_counter()
    llm.eval(tokens[:COLD_TOKENS])
    cold = time.perf_counter() - started
    llm.eval(tokens[COLD_TOKENS:PREFIX_TOKENS])
    started = time.perf_counter()
    llm.eval(tokens[PREFIX_TOKENS : PREFIX_TOKENS + SUFFIX_TOKENS])
    suffix = time.perf_counter() - started
    llm.n_tokens = 512  # eval() drops the cache past n_tokens
    started = time.perf_counter()
    for token in tokens[512 : 512 + GEN_TOKENS]:  # the token's identity does not matter
        llm.eval([token])
    return {"cold": cold, "suffix": suffix, "gen": time.perf_counter() - started}


def measure(
    path: Path, variants: dict[str, dict[str, Any]], tokens: list[int], repeat: int
) -> dict[str, dict[str, float]]:
    """Every variant loaded at once and measured in turn, `repeat` rounds: a drift in the
    machine's speed (other work starting or ending) then touches every variant alike."""
    models = {}
    with quiet():
        for name, settings in variants.items():
            models[name] = Llama(str(path), n_ctx=4096, verbose=False, **settings)
    best: dict[str, dict[str, float]] = {name: {} for name in variants}
    try:
        for _ in range(repeat):
            for name, llm in models.items():
                for key, seconds in one_round(llm, tokens).items():
                    best[name][key] = min(seconds, best[name].get(key, seconds))
    finally:
        for llm in models.values():
            llm.close()
    return {
        name: {
            "cold_tokens_per_s": round(COLD_TOKENS / b["cold"], 1),
            "suffix_tokens_per_s": round(SUFFIX_TOKENS / b["suffix"], 1),
            "gen_tokens_per_s": round(GEN_TOKENS / b["gen"], 1),
        }
        for name, b in best.items()
    }


def calls(path: Path, text: str, repeat: int) -> dict[str, dict[str, float]]:
    """Seconds of one chat call with top-20 log-probabilities through llama-cpp-python, the
    server's setting, by context length, when all of its prompt is in the key-value cache:
    the call's overhead. First as shipped, then with ground-gate's patch
    (local/last_logits.py)."""
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

    ask(True)  # read the prompt once
    return {"cached_s": round(best_of(repeat, lambda: ask(False)), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--text", type=Path, default=Path("bench/RESULTS.md"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", action="append", default=[], help="variant names to run")
    parser.add_argument("--out", type=Path, default=Path("bench/out/ceiling.json"))
    parser.add_argument(
        "--no-calls", action="store_true", help="skip the chat call's overhead (the variants only)"
    )
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
    chosen = {n: {**SHIPPED, **c} for n, c in VARIANTS.items() if not args.only or n in args.only}
    results = measure(path, chosen, tokens, args.repeat)
    for name, figures in results.items():
        print(name, figures, flush=True)
    chat = {} if args.no_calls else calls(path, text, args.repeat)
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
