"""Which existing file a command may write over (issue 43, item 7): every output ground-gate
writes carries its kind's mark, so it is replaced by the next run; a file of any other content
(generated, and near-misses of each mark) is not; a stream replaces no file; a link is judged
by the file it leads to."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ground_gate.cli import cli
from ground_gate.leaves.own_files import Kind, is_own, replaces
from ground_gate.render import calibration as calibration_report
from ground_gate.stages.report_files import report_text
from ground_gate.targets.answers import Answer, Answered
from ground_gate.targets.responses import responses_text
from tests.examples import examples
from tests.rendered import render_html, render_junit, render_markdown
from tests.report_pages import synthetic_report
from tests.unit.test_report_html import calibration_json

KINDS: tuple[Kind, ...] = ("json", "markdown", "junit", "html", "responses")


def _responses() -> str:
    answered = Answered("support", {"kind": "command"}, order=["a", "b", "c"])
    answered.answers = {
        "a": Answer("a", "It weighs 1.2 kg.\u2028Next line.", ("ctx",), 0.5),
        "b": Answer("b", None, error="the target exited 3"),
    }
    return responses_text([answered])


def outputs() -> dict[str, tuple[Kind, str]]:
    """Every file ground-gate writes, by what it is: (kind, text)."""
    report = synthetic_report(4)
    shard = {**report, "shard": {"index": 1, "count": 2, "dataset_rows": {}, "digest": ""}}
    calibration = calibration_json()
    return {
        "report.json": ("json", report_text(report)),
        "report.md": ("markdown", render_markdown(report)),
        "claim.md": ("markdown", render_markdown(report, unverified=True)),
        "shard.md": ("markdown", render_markdown(shard)),  # type: ignore[arg-type]
        "report.junit.xml": ("junit", render_junit(report)),
        "report.html": ("html", render_html(report)),
        "calibration.json": ("json", report_text(calibration["raw"])),
        "calibration.md": ("markdown", calibration["markdown"]),
        "saved-calibration.md": ("markdown", calibration_report.render_saved(calibration["raw"])),
        "calibration.html": ("html", calibration_report.render_html(calibration["raw"])),
        "responses.jsonl": ("responses", _responses()),
        "no-responses.jsonl": ("responses", ""),
    }


OUTPUTS = outputs()


@pytest.mark.parametrize("name", OUTPUTS)
def test_is_own__every_output_is_recognised_as_its_kind_only(tmp_path: Path, name: str) -> None:
    kind, text = OUTPUTS[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert replaces(path, kind) is None
    for other in KINDS:
        if other != kind and not (other == "responses" and text == ""):
            assert replaces(path, other) == f"exists and is not {_what(other)} ground-gate wrote"


def _what(kind: Kind) -> str:
    from ground_gate.leaves.own_files import WHAT

    return WHAT[kind]


def _near_misses(text: str) -> list[str]:
    """`text` changed where its mark is: the first line, the root, a key; or cut short."""
    first, _, rest = text.partition("\n")
    return [
        "x" + text,
        first.replace("ground-gate", "ground_gate") + "\n" + rest,
        first.upper() + "\n" + rest,
        text.replace('"ground-gate"', '"ground-gatE"', 1),
        text.replace('content="ground-gate"', 'content="ground-gate2"', 1),
        text.replace('"schema_version"', '"schema-version"', 1),
        text.replace('"rows_scored"', '"rows_scored_"', 1),
        text.replace('"cached"', '"cache"', 1),
        text[: len(text) // 2] if text.startswith("{") else "\ufeff" + text,
    ]


@pytest.mark.parametrize("name", [n for n in OUTPUTS if OUTPUTS[n][1]])
def test_is_own__a_near_miss_of_each_mark_is_not_ground_gates(tmp_path: Path, name: str) -> None:
    kind, text = OUTPUTS[name]
    path = tmp_path / name
    for changed in _near_misses(text):
        if changed == text:
            continue
        path.write_text(changed, encoding="utf-8")
        assert replaces(path, kind) is not None, changed[:200]


@given(content=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode)))
@example(content=b"#!/usr/bin/env python3\nprint('the target')\n")
@example(content=b'{"schema_version": 1, "tool": {"name": "ground-gate "}}')
@example(content=b'{"schema_version": "1", "tool": {"name": "ground-gate"}}')
@example(content=b'{"groups": {}, "rows_scored": [], "rows": 1}')
@example(content=b"## \xe2\x9c\x85 ground_gate: passed\n")
@example(content=b'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="ground-gates">')
@example(content=b'<!DOCTYPE html>\n<title>ground-gate</title><meta name="generator">\n')
@example(content=b'{"dataset": "d", "id": "1", "response": "r"}\n')
@example(content=b'{"tool": {"name": "ground-gate"}, "schema_version": 1, "tool": {}}')
def test_replaces__generated_content_is_never_ground_gates(tmp_path_factory, content: bytes):
    path = tmp_path_factory.mktemp("own") / "out"
    path.write_bytes(content)
    for kind in KINDS:
        if kind == "responses" and content == b"":
            continue  # an empty responses.jsonl: no row was answered
        assert replaces(path, kind) == f"exists and is not {_what(kind)} ground-gate wrote"
    assert path.read_bytes() == content  # only read


@given(st.sampled_from(sorted(OUTPUTS)), st.binary(min_size=1, max_size=40))
def test_is_own__the_mark_must_come_first(tmp_path_factory, name: str, prefix: bytes) -> None:
    """Junk before an output's first byte (a shebang, a BOM, a comment) is not ground-gate's."""
    kind, text = OUTPUTS[name]
    if kind == "json" or (kind == "responses" and prefix.strip() == b""):
        return  # JSON reads past white space; a blank line before the responses is the same
    path = tmp_path_factory.mktemp("own") / name
    path.write_bytes(prefix + text.encode("utf-8"))
    assert not is_own(path, kind)


def _link_to_a_script(path: Path) -> None:
    """A link to the target's script: judged by the file it leads to."""
    (path.parent / "app.py").write_text("print('the app')\n", encoding="utf-8")
    path.symlink_to(path.parent / "app.py")


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: None, None),  # nothing there
        (lambda p: p.mkdir(), "is a directory, expected a file to write"),
        (lambda p: os.mkfifo(p), None),  # a pipe replaces no file (and is never read)
        (lambda p: p.symlink_to(p.parent / "nowhere"), None),  # a new file, made where it leads
        (lambda p: _link_to_a_script(p), "exists and is not a JSON report ground-gate wrote"),
        (lambda p: p.symlink_to("/dev/null"), None),
    ],
)  # fmt: skip
def test_replaces__what_a_path_holds(
    tmp_path: Path, make: Callable[[Path], object], expected: str | None
) -> None:
    path = tmp_path / "out.json"
    make(path)
    assert replaces(path, "json") == expected


def test_replaces__a_descriptor_the_caller_opened_is_its_choice(tmp_path: Path) -> None:
    assert replaces(Path("/dev/stdout"), "json") is None
    assert replaces(Path("/proc/self/fd/1"), "markdown") is None


def test_replaces__an_unreadable_file_is_not_ground_gates(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path = tmp_path / "report.json"
    path.write_text(OUTPUTS["report.json"][1], encoding="utf-8")
    path.chmod(0o200)
    assert "cannot be read" in (replaces(path, "json") or "")


def test_is_own__a_report_is_read_whole(tmp_path: Path) -> None:
    """The mark of a JSON report is its keys, wherever they are: a report whose key order
    changed is still one; a document with the keys of a report inside a list is not."""
    report = json.loads(OUTPUTS["report.json"][1])
    path = tmp_path / "r.json"
    path.write_text(json.dumps(dict(reversed(report.items()))), encoding="utf-8")
    assert is_own(path, "json")
    path.write_text(json.dumps([report]), encoding="utf-8")
    assert not is_own(path, "json")


@given(
    content=st.one_of(st.binary(max_size=200), st.sampled_from([t for _, t in OUTPUTS.values()])),
    option=st.sampled_from([("--md", "markdown"), ("--html", "html")]),
)
@settings(max_examples=examples(40))
def test_report__a_file_it_did_not_write_is_kept_unless_force(
    tmp_path_factory: pytest.TempPathFactory, content: bytes | str, option: tuple[str, Kind]
) -> None:
    """`ground-gate report`: the same rule, checked before anything is rendered; with
    --force the file is the rendered report; its own earlier output replaced without it."""
    flag, kind = option
    root = tmp_path_factory.mktemp("report")
    saved = root / "report.json"
    saved.write_text(OUTPUTS["report.json"][1], encoding="utf-8")
    mine, other = root / "mine", root / "other.html"
    data = content.encode("utf-8") if isinstance(content, str) else content
    mine.write_bytes(data)
    own = is_own(mine, kind)  # kind: "markdown" or "html"
    args = ["report", str(saved), flag, str(mine)]
    args += ["--md", str(other)] if flag == "--html" else ["--html", str(other)]
    result = CliRunner().invoke(cli, args)
    if own:  # an earlier output of the same kind
        assert result.exit_code == 0, result.output
        assert is_own(mine, kind) and mine.read_bytes() != b""
        return
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"ground-gate: error: {flag} {mine}: exists and is not {_what(kind)} ground-gate "
        "wrote; --force overwrites it\n"
    )
    assert mine.read_bytes() == data and not other.exists()  # refused before anything
    forced = CliRunner().invoke(cli, [*args, "--force"])
    assert forced.exit_code == 0, forced.output
    assert is_own(mine, kind)


def test_merge__a_users_file_is_refused(tmp_path: Path) -> None:
    shard = tmp_path / "shard.json"
    shard.write_text(OUTPUTS["report.json"][1], encoding="utf-8")
    junit = tmp_path / "results.xml"
    junit.write_text("<testsuites name='mine'/>", encoding="utf-8")
    result = CliRunner().invoke(cli, ["merge", str(shard), "--output-junit", str(junit)])
    assert result.exit_code == 2
    assert f"--output-junit {junit}: exists and is not a JUnit XML report" in result.stderr
    assert junit.read_text(encoding="utf-8") == "<testsuites name='mine'/>"


def test_is_own__a_page_written_before_the_mark_is_recognised_by_its_head(tmp_path: Path) -> None:
    """Pages an earlier version wrote carry no generator meta: their exact head is the mark;
    one line of it changed, and the page is a user's."""
    for name in ("report.html", "calibration.html"):
        text = OUTPUTS[name][1].replace('<meta name="generator" content="ground-gate">\n', "")
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert is_own(path, "html"), name
        for old, new in (("no-referrer", "origin"), ("<title>ground-gate", "<title>mine"),
                         ("default-src 'none'", "default-src 'self'")):  # fmt: skip
            path.write_text(text.replace(old, new, 1), encoding="utf-8")
            assert not is_own(path, "html"), (name, new)
