from __future__ import annotations

import io
import re
from pathlib import Path

from ground_gate.github.step_outputs import (
    STEP_SUMMARY_LIMIT_BYTES,
    add_mask,
    annotate,
    append_step_summary,
    command,
    escape_data,
    escape_property,
    write_outputs,
)


def test_escape_data__percent_first_then_line_breaks() -> None:
    assert escape_data("100%\r\nnext: a,b") == "100%25%0D%0Anext: a,b"


def test_escape_property__also_colon_and_comma() -> None:
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_command__with_and_without_properties() -> None:
    assert command("error", "x") == "::error::x"
    assert command("error", "2 rows\nfailed", {"title": "gate: support, v2", "file": ""}) == (
        "::error title=gate%3A support%2C v2::2 rows%0Afailed"
    )


def test_annotate__warning_with_title() -> None:
    out = io.StringIO()
    annotate("warning", "could not comment: 403", out, title="ground-gate")
    assert out.getvalue() == "::warning title=ground-gate::could not comment: 403\n"


def test_add_mask__each_line_of_a_multiline_secret() -> None:
    out = io.StringIO()
    add_mask("first-line\nsecond%line", out)
    assert out.getvalue() == "::add-mask::first-line\n::add-mask::second%25line\n"


def test_write_outputs__delimited_blocks_appended(tmp_path: Path) -> None:
    path = tmp_path / "output"
    path.write_text("earlier=1\n")
    write_outputs(path, {"passed": "false", "summary": "line one\nline two"})
    text = path.read_text()
    blocks = re.findall(r"(\w+)<<(ghadelimiter_[0-9a-f-]{36})\n(.*?)\n\2\n", text, re.S)
    assert text.startswith("earlier=1\n")
    assert [(name, value) for name, _, value in blocks] == [
        ("passed", "false"),
        ("summary", "line one\nline two"),
    ]
    assert len(text) == len("earlier=1\n") + sum(len(f"{n}<<{d}\n{v}\n{d}\n") for n, d, v in blocks)


def test_write_outputs__no_file_outside_actions() -> None:
    write_outputs(None, {"passed": "true"})  # nothing to write to, nothing raised


def test_append_step_summary__appends_after_earlier_steps_content(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("# Build\n")
    trimmed = append_step_summary(path, "| a |\n|---|\n| 1 |", note="trimmed")
    assert trimmed is False
    assert path.read_text() == "# Build\n\n| a |\n|---|\n| 1 |\n"


def test_append_step_summary__keeps_under_one_mebibyte(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_bytes(b"x" * 1000 + b"\n")
    rows = "".join(f"| row-{i} | {'é' * 200} |\n" for i in range(4000))
    markdown = (
        f"| score |\n|---|\n| 0.9 |\n\n<details><summary>Rows</summary>\n\n{rows}</details>\n"
    )
    trimmed = append_step_summary(path, markdown, note="> full report: report.md")
    data = path.read_bytes()
    assert trimmed is True
    assert len(data) <= STEP_SUMMARY_LIMIT_BYTES
    assert len(data) > STEP_SUMMARY_LIMIT_BYTES - 1000  # trimmed to the limit, not far below
    text = data.decode("utf-8")
    assert "| score |\n|---|\n| 0.9 |\n" in text
    assert text.endswith("</details>\n\n> full report: report.md\n")
