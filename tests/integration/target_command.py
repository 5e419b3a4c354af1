"""A scripted command target: reads one JSON object per line on stdin, answers on stdout.

Modes (argv[1:]): `answer` (every row, from its context; `-mars` rows add an invented
sentence), `die-after N` (answers N rows, then exits 3 with an error on stderr),
`not-json-at N` (the Nth line printed is a log line), `duplicate ID`, `unknown`, `no-id`,
`empty ID`, `skip ID` (never answers that row, exits 0), `contexts` (answers with the
contexts it "retrieved"), `count FILE` (appends one line per row answered to FILE), `env FILE`
(writes the names of its environment variables to FILE).
"""

from __future__ import annotations

import json
import os
import sys


def answer_for(row_id: str, context: str) -> str:
    first = context.split(".")[0] + "."
    return first + (" It also ships to Mars." if row_id.endswith("-mars") else "")


def main(mode: list[str]) -> int:
    printed = 0
    if mode[0] == "env":
        with open(mode[1], "w", encoding="utf-8") as handle:
            handle.write("\n".join(sorted(os.environ)))
    for line in sys.stdin:
        row = json.loads(line)
        reply = {"id": row["id"], "response": answer_for(row["id"], row["context"])}
        if mode[0] == "die-after" and printed == int(mode[1]):
            print("answering row 6", file=sys.stderr)
            print("RuntimeError: the model server went away", file=sys.stderr)
            return 3
        if mode[0] == "not-json-at" and printed + 1 == int(mode[1]):
            print("loading answer model...", flush=True)
            printed += 1
            continue
        if mode[0] in ("skip", "empty", "duplicate") and row["id"] == mode[1]:
            if mode[0] == "skip":
                continue
            if mode[0] == "empty":
                reply["response"] = "  "
            else:
                print(json.dumps(reply), flush=True)
        if mode[0] == "unknown" and printed == 2:
            reply["id"] = "no-such-row"
        if mode[0] == "no-id" and printed == 2:
            del reply["id"]
        if mode[0] == "contexts":
            reply["contexts"] = ["Retrieved: " + row["context"]]
        if mode[0] == "count":
            with open(mode[1], "a", encoding="utf-8") as handle:
                handle.write(row["id"] + "\n")
        print(json.dumps(reply), flush=True)
        printed += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
