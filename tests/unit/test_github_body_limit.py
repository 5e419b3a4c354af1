from __future__ import annotations

from ground_gate.github.body_limit import COMMENT_LIMIT_CHARS, fit_body

TABLE = "| dataset | groundedness |\n|---|---|\n| support | 0.71 ❌ |\n"
NOTE = "> trimmed; full report in the job summary"


def report(rows: list[str], usage: str = "Judge: 12 calls\n") -> str:
    return (
        "## ground-gate: failed\n\n"
        + TABLE
        + "\n<details>\n<summary>Worst rows</summary>\n\n"
        + "".join(rows)
        + "\n</details>\n\n"
        + usage
    )


def test_fit_body__short_text_unchanged() -> None:
    text = report(["| r1 | 0.2 |\n"])
    assert fit_body(text, COMMENT_LIMIT_CHARS, note=NOTE) is text


def trimmed(rows: list[str], usage: str = "Judge: 12 calls\n") -> str:
    """The report with only `rows` left in its details (the blank line before the close goes
    first: it is the last line of the block's content)."""
    return (
        "## ground-gate: failed\n\n"
        + TABLE
        + "\n<details>\n<summary>Worst rows</summary>\n\n"
        + "".join(rows)
        + "</details>\n\n"
        + usage
    )


def room_for(kept: str) -> int:
    """The limit at which exactly `kept` survives: it, the note block, and a spare fence."""
    return len(kept) + len("\n" + NOTE + "\n") + len("```\n")


def test_fit_body__trims_details_from_the_end_and_keeps_table_and_usage() -> None:
    rows = [f"| row-{i} | {'x' * 10} |\n" for i in range(10)]
    limit = room_for(trimmed(rows[:5]))
    fitted = fit_body(report(rows), limit, note=NOTE)
    assert fitted == trimmed(rows[:5]) + "\n" + NOTE + "\n"
    assert len(fitted) <= limit
    assert fit_body(report(rows), limit - 1, note=NOTE) == trimmed(rows[:4]) + "\n" + NOTE + "\n"


def test_fit_body__details_emptied_before_the_tail_is_cut() -> None:
    rows = [f"| row-{i} | {'x' * 50} |\n" for i in range(200)]
    fitted = fit_body(report(rows), room_for(trimmed([])), note=NOTE)
    assert fitted == trimmed([]) + "\n" + NOTE + "\n"


def test_fit_body__several_details_blocks_biggest_first() -> None:
    a1, a2, b1, b2, b3 = (f"| {name} | {'x' * 60} |\n" for name in ("a1", "a2", "b1", "b2", "b3"))
    first = f"<details><summary>A</summary>\n\n{a1}{a2}</details>\n"
    second = f"<details>\n<summary>B</summary>\n{b1}{b2}{b3}</details>\n"
    text = TABLE + first + second
    second_kept = f"<details>\n<summary>B</summary>\n{b1}</details>\n"
    fitted = fit_body(text, room_for(TABLE + first + second_kept), note=NOTE)
    assert fitted == TABLE + first + second_kept + "\n" + NOTE + "\n"
    first_kept = f"<details><summary>A</summary>\n\n{a1}</details>\n"
    second_empty = "<details>\n<summary>B</summary>\n</details>\n"
    fitted = fit_body(text, room_for(TABLE + first_kept + second_empty), note=NOTE)
    assert fitted == TABLE + first_kept + second_empty + "\n" + NOTE + "\n"
    usage = "<details><summary>Usage</summary>\n\n12 calls\n\n</details>\n"
    fitted = fit_body(second + usage, room_for(second_kept + usage), note=NOTE)
    assert fitted == second_kept + usage + "\n" + NOTE + "\n"


def test_fit_body__closes_a_code_fence_cut_in_half() -> None:
    rows = ["evidence:\n", "```\n"] + [f"line {i}\n" for i in range(50)] + ["```\n", "after\n"]
    limit = room_for(trimmed(rows[:6]))
    fitted = fit_body(report(rows), limit, note=NOTE)
    assert fitted == trimmed([*rows[:6], "```\n"]) + "\n" + NOTE + "\n"
    assert len(fitted) <= limit


def test_fit_body__without_details_the_tail_goes_on_line_boundaries() -> None:
    lines = [f"extra line {i}\n" for i in range(100)]
    limit = room_for(TABLE + "".join(lines[:3])) + 5
    fitted = fit_body(TABLE + "".join(lines), limit, note=NOTE)
    assert fitted == TABLE + "".join(lines[:3]) + "\n" + NOTE + "\n"


def test_fit_body__one_huge_line_is_cut_inside() -> None:
    fitted = fit_body("y" * 1000, 200, note=NOTE)
    assert fitted == "y" * (200 - len(NOTE) - 6 - 1) + "\n" + "\n" + NOTE + "\n"


def test_fit_body__measures_bytes_when_asked() -> None:
    rows = [f"| {'é' * 40} |\n" for i in range(100)]

    def utf8(s: str) -> int:
        return len(s.encode("utf-8"))

    limit = utf8(trimmed(rows[:3])) + utf8("\n" + NOTE + "\n") + 4
    fitted = fit_body(report(rows), limit, note=NOTE, measure=utf8)
    assert fitted == trimmed(rows[:3]) + "\n" + NOTE + "\n"


def test_fit_body__untrusted_text_is_not_unescaped() -> None:
    hostile = "| a \\| b &lt;details&gt; @\u200borg/team \\`\\`\\` |\n"
    fitted = fit_body(report([hostile] * 50), room_for(trimmed([hostile] * 9)), note=NOTE)
    assert fitted == trimmed([hostile] * 9) + "\n" + NOTE + "\n"
