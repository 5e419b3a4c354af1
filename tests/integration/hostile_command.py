"""A command target whose replies test the one door of a reply's text (targets/reply.py):
row q01 answers with a lone surrogate, q02 with a NUL, q03 with 2 MB in one sentence, q04 with
200,000 contexts, q05 with 7.5 MB of contexts; every other row as target_command.py does. With
the argument `duplicate-key`, row q06's line gives "response" twice."""

from __future__ import annotations

import json
import sys


def main(mode: str) -> int:
    for line in sys.stdin:
        row = json.loads(line)
        row_id, context = row["id"], row["context"]
        reply: dict[str, object] = {"id": row_id, "response": context.split(".")[0] + "."}
        if row_id == "q01":
            reply["response"] = "It weighs 1 kg \ud800 exactly."
        elif row_id == "q02":
            reply["response"] = "It weighs\x00 2 kg."
        elif row_id == "q03":
            reply["response"] = "It weighs " + "very " * 400_000 + "little."
        elif row_id == "q04":
            reply["contexts"] = ["The X4 weighs 4 kg."] * 200_000
        elif row_id == "q05":
            reply["contexts"] = ["x" * 750_000] * 10
        text = json.dumps(reply)  # ensure_ascii: the surrogate travels as \\ud800
        if row_id == "q06" and mode == "duplicate-key":
            text = text[:-1] + ', "response": "Another answer."}'
        print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "limits"))
