"""A stand-in for `python -m llama_cpp.server`: same flags, serves /v1/models, scripted faults.

FAKE_LLAMA_MODE: ok (default) | die (log a few lines, exit 1) | slow (never listens) |
stubborn (ignores SIGTERM) | grandchild (also starts a child process, pid in FAKE_LLAMA_PID_FILE).
FAKE_LLAMA_BIND_FAILURES: how many starts report "address already in use" first, counted in
the file FAKE_LLAMA_STATE.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    for flag in ("--model", "--model_alias", "--host", "--port", "--n_ctx", "--n_threads"):
        parser.add_argument(flag)
    args, _rest = parser.parse_known_args()
    mode = os.environ.get("FAKE_LLAMA_MODE", "ok")
    state = Path(os.environ["FAKE_LLAMA_STATE"]) if "FAKE_LLAMA_STATE" in os.environ else None
    print(f"fake llama server: loading {args.model}", flush=True)

    if state is not None and _bind_failure_due(state):
        print(
            f"ERROR: [Errno 98] error while attempting to bind on address "
            f"('{args.host}', {args.port}): address already in use",
            flush=True,
        )
        sys.exit(1)
    if mode == "die":
        print("llama_model_load: error loading model: bad magic", flush=True)
        print("fake llama server: giving up", flush=True)
        sys.exit(1)
    if mode == "slow":
        time.sleep(600)
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if mode == "grandchild":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        Path(os.environ["FAKE_LLAMA_PID_FILE"]).write_text(str(child.pid))

    argv = sys.argv[1:]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/v1/models":
                body = {"object": "list", "data": [{"id": args.model_alias, "object": "model"}]}
            elif self.path == "/argv":
                body = {"argv": argv}
            else:
                self.send_error(404)
                return
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *log_args: object) -> None:
            print(format % log_args, flush=True)

    server = ThreadingHTTPServer((args.host, int(args.port)), Handler)
    print(f"listening on {args.host}:{args.port}", flush=True)
    server.serve_forever()


def _bind_failure_due(state: Path) -> bool:
    wanted = int(os.environ.get("FAKE_LLAMA_BIND_FAILURES", "0"))
    done = int(state.read_text() or "0") if state.exists() else 0
    if done >= wanted:
        return False
    state.write_text(str(done + 1))
    return True


if __name__ == "__main__":
    main()
