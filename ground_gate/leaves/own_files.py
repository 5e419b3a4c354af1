"""Whether a file already at an output path is an earlier ground-gate output of the kind about
to be written there, so that a command replaces its own outputs and refuses every other file.

Each kind is recognised by a mark ground-gate always writes and a user's file does not carry:
a JSON report by its `tool` (named ground-gate) and `schema_version` keys, a calibration by
its `groups`, `rows_scored`, `rows` and `judge`; the markdown by its headline
(`## ✅ ground-gate: passed`, `## ground-gate calibration (...`); the JUnit XML by its root,
`<testsuites name="ground-gate"`; the HTML page by its generator `<meta>` (GENERATOR, which
report/html_page.py writes in every page's head; a page written before it by its exact head);
responses.jsonl by its shape (every line an object with exactly its seven keys). Only a regular
file is read, and only as far as its mark (a JSON document whole, under a size cap). What
cannot be read cannot be told apart from a user's file, and is refused like one.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from ground_gate.leaves.file_reader import Unreadable, open_regular, read_capped
from ground_gate.leaves.json_keys import unique_keys

Kind = Literal["json", "markdown", "junit", "html", "responses"]

WHAT: Mapping[Kind, str] = {
    "json": "a JSON report",
    "markdown": "a markdown report",
    "junit": "a JUnit XML report",
    "html": "an HTML report page",
    "responses": "a targets' responses file",
}
GENERATOR = '<meta name="generator" content="ground-gate">'
_PAGE_START = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">']
_POLICY = '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
_EARLIER_METAS = [
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="referrer" content="no-referrer">',
]
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024  # report_files.MAX_REPORT_BYTES: a report is below it
_HEAD_BYTES = 64 * 1024  # the markdown's headline, the XML's root, the page's head
_JUNIT = b'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="ground-gate"'
_HEADLINE = re.compile(r"## (?:\S+ )?ground-gate(?:: | calibration \()")
_RESPONSE_KEYS = frozenset({"dataset", "id", "response", "contexts", "seconds", "cached", "error"})
# A descriptor the caller opened (`--output-json /dev/stdout > out.json`): where it goes is the
# caller's choice, made by its shell, and writing through it replaces no file of its own.
_DESCRIPTOR = re.compile(r"/dev/(?:stdout|stderr|fd/\d+)|/proc/(?:self|thread-self|\d+)/fd/\d+")


def replaces(path: Path, kind: Kind) -> str | None:
    """What writing `kind` at `path` would replace that ground-gate did not write, in words
    that follow the path; None when nothing would be: no file there, a stream (a pipe, a
    terminal, a descriptor the caller opened), or an earlier ground-gate output of `kind`."""
    try:
        if _DESCRIPTOR.fullmatch(os.path.abspath(path)):
            return None
        mode = path.stat().st_mode  # a symbolic link: the file it leads to
    except (OSError, ValueError):  # none there, or none reachable (a file for a folder, a
        return None  # loop of links, a NUL): writing it fails, and the writer says why
    if stat.S_ISDIR(mode):
        return "is a directory, expected a file to write"
    if not stat.S_ISREG(mode):
        return None  # a pipe, a terminal, /dev/null: writing to it replaces no file
    try:
        own = is_own(path, kind)
    except Unreadable as exc:
        reason = exc.reason or exc.kind.replace("_", " ")
        return f"exists and cannot be read to tell whether ground-gate wrote it ({reason})"
    return None if own else f"exists and is not {WHAT[kind]} ground-gate wrote"


def is_own(path: Path, kind: Kind) -> bool:
    """Whether the regular file at `path` carries ground-gate's mark for `kind`; Unreadable
    when it cannot be read."""
    head = _head(path)
    if kind in ("json", "responses"):
        if head.lstrip(b" \t\r\n")[:1] not in (b"{", b""):
            return False  # no object first: the rest need not be read
        document = _document(path)
        return _is_json_report(document) if kind == "json" else _is_responses(document)
    if kind == "junit":
        return head.startswith(_JUNIT) and head[len(_JUNIT) : len(_JUNIT) + 1] in (b" ", b">")
    text = head.decode("utf-8", errors="replace")
    if kind == "markdown":
        return _HEADLINE.match(text) is not None
    return _is_page(text.split("</head>", 1)[0].split("\n"))


def _is_page(head: list[str]) -> bool:
    """ground-gate's page: its generator `<meta>`; or, written before the page carried one,
    its exact head (the policy, then the three `<meta>` and a title naming ground-gate)."""
    if head[:2] != _PAGE_START:
        return False
    if GENERATOR in head:
        return True
    return (
        len(head) > 6
        and head[2].startswith(_POLICY)
        and head[3:6] == _EARLIER_METAS
        and head[6].startswith("<title>ground-gate")
    )


def _document(path: Path) -> str | None:
    """The whole file as text; None when it is larger than any report or not UTF-8."""
    try:
        return read_capped(path, MAX_DOCUMENT_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        return None
    except Unreadable as exc:
        if exc.kind == "too_large":
            return None
        raise


def _head(path: Path) -> bytes:
    with open_regular(path, 1 << 62) as handle:
        try:
            return handle.read(_HEAD_BYTES)
        except OSError as exc:
            raise Unreadable("unreadable", reason=exc.strerror or str(exc)) from None


def _loads(text: str) -> object:
    """A JSON document, or None when `text` is not one."""
    try:
        return json.loads(text, object_pairs_hook=unique_keys)
    except (ValueError, RecursionError):
        return None


def _is_json_report(text: str | None) -> bool:
    """A run's (or a merge's, or a shard's) report, or a calibration's."""
    document = _loads(text) if text is not None else None
    if not isinstance(document, dict):
        return False
    tool = document.get("tool")
    if isinstance(tool, dict) and tool.get("name") == "ground-gate":
        return type(document.get("schema_version")) is int
    return (
        isinstance(document.get("groups"), dict)
        and isinstance(document.get("rows_scored"), list)
        and type(document.get("rows")) is int
        and isinstance(document.get("judge"), dict)
    )


def _is_responses(text: str | None) -> bool:
    """responses.jsonl: one object per line with exactly its keys (none at all: no row was
    answered)."""
    if text is None:
        return False
    lines = text.split("\n")  # a response may hold U+2028, which JSON leaves unescaped
    for line in lines[:-1] if lines[-1] == "" else lines:
        entry = _loads(line)
        if not isinstance(entry, dict) or entry.keys() != _RESPONSE_KEYS:
            return False
    return True
