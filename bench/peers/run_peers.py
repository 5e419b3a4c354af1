"""Score labelled rows with a peer groundedness tool on a local OpenAI-compatible judge.

Run with the peers venv (bench/.venv-peers), one tool per run:

    bench/.venv-peers/bin/python -m bench.peers.run_peers --tool ragas \
        --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b-instruct-q4_k_m

or let it start (and stop) the llama.cpp server itself with `--gguf FILE`. Each row's result is
appended to `<out-dir>/<tool>.jsonl` as soon as it is known; ids already there are skipped, so
an interrupted run resumes. Judge calls and tokens are counted by a proxy on the wire.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import time
import traceback
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.peers.counting_proxy import CountingProxy
from bench.peers.serve_local import ServerError
from bench.peers.tools import TOOLS, build

REPO_ROOT = Path(__file__).resolve().parents[2]

DEFAULT_ROWS = REPO_ROOT.parent / "shared" / "datasets" / "dev_mini.jsonl"
REQUIRED = {"id": str, "source": str, "response": str, "label": int}


class RowsError(Exception):
    pass


def load_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise RowsError(f"{path}:{lineno}: not JSON ({exc})") from exc
            for key, kind in REQUIRED.items():
                if not isinstance(row.get(key), kind):
                    raise RowsError(f"{path}:{lineno}: key {key!r} must be a {kind.__name__}")
            if row["label"] not in (0, 1):
                raise RowsError(f"{path}:{lineno}: label must be 0 or 1, got {row['label']!r}")
            if row.get("question") is not None and not isinstance(row["question"], str):
                raise RowsError(f"{path}:{lineno}: question must be a string or null")
            rows.append(row)
    return rows


def done_ids(path: Path) -> set[str]:
    if not path.is_file():
        return set()
    ids = set()
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                ids.add(json.loads(line)["id"])
    return ids


@contextlib.contextmanager
def judge_url(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """Yield (base URL, model name): the given server, or one started here for the run."""
    if args.base_url:
        yield args.base_url, args.model or served_model(args.base_url)
        return
    from bench.peers.serve_local import llama_server, resolve_gguf

    gguf = resolve_gguf(args.gguf)
    model = args.model or gguf.stem
    with llama_server(
        gguf, python=args.server_python, alias=model, n_ctx=args.n_ctx, n_threads=args.threads
    ) as url:
        yield url, model


def served_model(base_url: str) -> str:
    """The first model id the server lists (llama.cpp answers any name with its one model)."""
    with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=30) as resp:
        models = json.load(resp).get("data") or [{}]
    return str(models[0].get("id") or "local")


def error_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text if len(text) <= 500 else text[:497] + "..."


def run(args: argparse.Namespace) -> int:
    rows = load_rows(args.rows)
    if args.ids:
        wanted = set(args.ids.split(","))
        rows = [row for row in rows if row["id"] in wanted]
    if args.limit is not None:
        rows = rows[: args.limit]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out_path = args.out_dir / f"{args.tool}.jsonl"
    seen = done_ids(out_path)
    todo = [row for row in rows if row["id"] not in seen]
    print(f"{args.tool}: {len(todo)} rows to score ({len(rows) - len(todo)} already in {out_path})")
    if not todo:
        return 0
    trace_path = args.out_dir / f"{args.tool}.trace.jsonl"
    with (
        contextlib.ExitStack() as stack,
        judge_url(args) as (upstream, model),
    ):
        trace = stack.enter_context(trace_path.open("a", encoding="utf-8")) if args.trace else None
        proxy = stack.enter_context(
            CountingProxy(upstream, timeout=args.timeout, max_tokens=args.max_tokens, trace=trace)
        )
        scorer = build(args.tool, proxy.base_url, model, args.timeout, args.out_dir)
        with out_path.open("a", encoding="utf-8") as out:
            for index, row in enumerate(todo, 1):
                proxy.tag = row["id"]
                before = proxy.snapshot()
                start = time.perf_counter()
                score: float | None = None
                note: str | None = None
                error: str | None = None
                try:
                    score, note = scorer(row)
                except Exception as exc:  # per row: any crash is this row's failure
                    error = error_text(exc)
                    if args.verbose:
                        traceback.print_exc()
                seconds = time.perf_counter() - start
                used = proxy.snapshot().minus(before)
                record = {
                    "id": row["id"],
                    "dataset": row.get("dataset"),
                    "task_type": row.get("task_type"),
                    "label": row["label"],
                    "tool": args.tool,
                    "model": model,
                    "score": score,
                    "error": error,
                    "note": note,
                    "seconds": round(seconds, 3),
                    "calls": used.calls,
                    "failed_calls": used.failed_calls,
                    "prompt_tokens": used.prompt_tokens,
                    "completion_tokens": used.completion_tokens,
                }
                out.write(json.dumps(record) + "\n")
                out.flush()
                shown = error if error else f"{score:.3f}"
                print(
                    f"[{index}/{len(todo)}] {row['id']} label={row['label']} -> {shown} "
                    f"({seconds:.1f} s, {used.calls} calls, "
                    f"{used.prompt_tokens}+{used.completion_tokens} tokens)",
                    flush=True,
                )
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True, choices=TOOLS)
    parser.add_argument("--rows", type=Path, default=DEFAULT_ROWS, help="labelled JSONL")
    parser.add_argument("--limit", type=int, default=None, help="first N rows only")
    parser.add_argument("--ids", default=None, help="comma-separated row ids only")
    parser.add_argument("--out-dir", type=Path, default=REPO_ROOT / "bench" / "out")
    judge = parser.add_mutually_exclusive_group(required=True)
    judge.add_argument("--base-url", help="running OpenAI-compatible server, e.g. .../v1")
    judge.add_argument("--gguf", help="start llama.cpp with this model file for the run")
    parser.add_argument("--model", default=None, help="model name sent to the server")
    parser.add_argument("--server-python", type=Path, default=REPO_ROOT / ".venv/bin/python")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per HTTP call")
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=0,
        help="cap completion tokens where a tool sets none (default 0: tools run as shipped)",
    )
    parser.add_argument("--verbose", action="store_true", help="print tracebacks of failures")
    parser.add_argument(
        "--trace", action="store_true", help="log every judge call to <out-dir>/<tool>.trace.jsonl"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.verbose:
        warnings.simplefilter("ignore")
        logging.disable(logging.WARNING)
    try:
        return run(args)
    except (RowsError, ServerError) as exc:
        print(f"run_peers: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
