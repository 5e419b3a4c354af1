"""Command targets that try to outlive timeout_s or to write on the reader's terminal (issue
43): named descendant trees (tests/integration/tree_command.py's spec) and stderr byte strings.
Read by tests/integration/test_command_tree.py (each tree's exchange ends within timeout_s +
2 s, no process of it left) and tests/integration/test_command_stderr.py (each stderr reaches
the message inert)."""

from __future__ import annotations

from typing import Any


def node(**given: Any) -> dict[str, Any]:
    """A descendant: by default it stays in the group, obeys SIGTERM, holds both pipes and
    sleeps forever."""
    default = {"setsid": False, "double_fork": False, "ignore_term": False, "hold": "both",
               "forever": True, "children": []}  # fmt: skip
    return {**default, **given}


def root(answer: int, then: str, *children: dict[str, Any], deaf: bool = False) -> dict[str, Any]:
    return {"answer": answer, "then": then, "ignore_term": deaf, "children": list(children)}


DAEMON = node(setsid=True, double_fork=True, ignore_term=True)
TREES: dict[str, dict[str, Any]] = {
    # the case: a grandchild in a session of its own holding stdout
    "setsid-grandchild-holds-stdout": root(-1, "exit", node(children=[node(setsid=True)])),
    "daemon-deaf-to-sigterm": root(-1, "exit", DAEMON),
    "daemon-holds-stderr-only": root(-1, "exit", {**DAEMON, "hold": "stderr"}),
    "command-lingers-after-answering": root(-1, "sleep", DAEMON, deaf=True),
    "command-silent-after-one-row": root(1, "sleep", DAEMON, deaf=True),
    "chain-of-sessions": root(
        -1, "exit", node(setsid=True, children=[node(setsid=True, children=[DAEMON])])
    ),
    "forks-when-told-to-stop": root(1, "sleep", node(setsid=True, fork_on_term=True)),
    "stopped-by-sigstop": root(1, "sleep", node(setsid=True, stop=True)),
    "daemon-of-a-daemon": root(-1, "exit", {**DAEMON, "children": [DAEMON, DAEMON]}),
}

# what a terminal acts on, written by a command on stderr
STDERR: dict[str, bytes] = {
    "osc-title": b"\x1b]0;ground-gate passed\x07",
    "osc-52-clipboard": b"\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07",
    "osc-8-hyperlink": b"\x1b]8;;https://example.invalid\x1b\\click\x1b]8;;\x1b\\",
    "csi-clear-screen": b"\x1b[2J\x1b[H",
    "cursor-up-erase-line": b"real error\n\x1b[1A\x1b[2Kall good",
    "carriage-return-overwrite": b"FAILED: secret leaked\rOK                    ",
    "c1-csi-raw-byte": b"\x9b31mred",
    "c1-csi-utf8": "\u009b31mred".encode(),
    "backspaces": b"error\x08\x08\x08\x08\x08fine!",
    "bidi-override": "exit \u202e0 edoc".encode(),
    "nul-and-bell": b"\x00\x07\x07",
    "line-separator": "one\u2028two\u2029three".encode(),
}
