"""The scripted judge of the pytest plugin's tests, and a stand-in for `python -m
llama_cpp.server` serving it (same flags), for the local judge's shared server.

The judge reads the groundedness prompts: a sentence naming Mars, five years or a dragon is not
in its source, every other sentence is supported; a quote asked for is the source's first
sentence. Run as the server, it appends its pid to $FAKE_JUDGE_STARTS when it starts.
"""

from __future__ import annotations

import argparse
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.integration.fake_openai import (
    Reply,
    completion,
    fills_a_blank,
    inner,
    one_token,
    says_something,
)

INVENTED = ("Mars", "five years", "dragon")


def grade(body: Any) -> Reply:
    prompt = body["messages"][-1]["content"]
    if fills_a_blank(prompt):
        return completion("NOT STATED", logprobs=[{"NOT": 0.0}], completion_tokens=3)
    if says_something(prompt):
        return one_token("Yes", 0.9, "No")
    if "Copy, word for word" in prompt:
        document = inner("document", prompt) or inner("source", prompt)
        return completion(document.split(". ")[0].rstrip(".") + ".")
    if any(word in inner("sentence", prompt) for word in INVENTED):
        return one_token("Unknown", 0.9, "Yes")
    return one_token("Yes", 0.9, "No")


def main() -> None:
    parser = argparse.ArgumentParser()
    for flag in ("--model", "--model_alias", "--host", "--port"):
        parser.add_argument(flag)
    args, _rest = parser.parse_known_args()
    if starts := os.environ.get("FAKE_JUDGE_STARTS"):
        with open(starts, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/v1/models":
                self.send_error(404)
                return
            self._send(200, json.dumps({"data": [{"id": args.model_alias}]}).encode())

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            reply = grade(json.loads(self.rfile.read(length)))
            self._send(reply.status, reply.body)

        def _send(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *log_args: object) -> None:
            pass

    ThreadingHTTPServer((args.host, int(args.port)), Handler).serve_forever()


if __name__ == "__main__":
    main()
