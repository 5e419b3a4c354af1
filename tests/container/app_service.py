"""A job service for the container test: the app under test and a scripted judge, standard
library only, run inside a container on a user-defined Docker network (as GitHub runs a job's
`services:`), reached by the action's container by its name.

POST /answer: the app. It needs `Authorization: <APP_TOKEN>` (else 401) and answers
{"answer": the context's first sentence, "sources": [{"text": the context}]} for
{"q", "id", "ctx"}. POST /v1/chat/completions: a judge answering every verdict "Yes" with its
log-probabilities. Every request is appended to /data/requests.jsonl (path, body, whether
the Authorization header was right), for the test to read.
"""

from __future__ import annotations

import json
import math
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOG = "/data/requests.jsonl"


def verdict() -> dict[str, Any]:
    top = [{"token": "Yes", "logprob": math.log(0.95)}, {"token": "No", "logprob": math.log(0.05)}]
    return {
        "id": "chatcmpl-app-service",
        "object": "chat.completion",
        "created": 0,
        "model": "service-judge",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Yes"},
                "logprobs": {
                    "content": [
                        {
                            "token": "Yes",
                            "logprob": top[0]["logprob"],
                            "bytes": None,
                            "top_logprobs": top,
                        }
                    ]
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 50, "completion_tokens": 1, "total_tokens": 51},
    }


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        authorized = self.headers.get("Authorization") == os.environ["APP_TOKEN"]
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(
                json.dumps({"path": self.path, "body": body, "authorized": authorized}) + "\n"
            )
        if self.path == "/v1/chat/completions":
            self._send(200, verdict())
        elif self.path != "/answer":
            self._send(404, {"detail": "no such path"})
        elif not authorized:
            self._send(401, {"detail": "unauthorized"})
        else:
            first = body["ctx"].split(".")[0] + "."
            self._send(200, {"answer": first, "sources": [{"text": body["ctx"]}]})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("0.0.0.0", 8000), Handler).serve_forever()
