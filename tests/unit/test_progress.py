"""Terminal progress: a bar rewritten in place on a TTY, sparse plain lines in CI logs; every
bar says what it counts, and fits the terminal."""

from __future__ import annotations

import io

from ground_gate.leaves.progress import ByteProgress, RowProgress, fitted


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_row_progress__log_lines_every_30_s_and_at_the_end() -> None:
    out = io.StringIO()
    clock = FakeClock()
    rows = RowProgress(out, label="judging rows", tty=False, clock=clock)
    clock.now = 10.0
    rows(1, 4)  # 10 s: nothing yet
    clock.now = 31.0
    rows(2, 4)
    clock.now = 40.0
    rows(3, 4)  # 9 s since the last line
    clock.now = 95.0
    rows(4, 4)
    rows.close()
    assert out.getvalue() == (
        "ground-gate: judging rows: 2/4, 31 s, ETA 00:31\n"
        "ground-gate: judging rows: 4/4, 95 s, ETA 00:00\n"
    )


def test_row_progress__terminal_bar_with_eta_is_rewritten_in_place() -> None:
    out = io.StringIO()
    clock = FakeClock()
    rows = RowProgress(out, label="judging rows", tty=True, clock=clock, columns=80)
    rows(0, 3)
    clock.now = 125.0
    rows(1, 3)
    rows(3, 3)
    rows.close()
    rows.close()  # a second close writes nothing
    assert out.getvalue() == (
        "\rjudging rows [------------------------------] 0/3, ETA --:-- "
        "\rjudging rows [##########--------------------] 1/3, ETA 04:10 "
        "\rjudging rows [##############################] 3/3, ETA 00:00 "
        "\n"
    )


def test_row_progress__nothing_to_score_is_a_full_bar() -> None:
    out = io.StringIO()
    rows = RowProgress(out, label="judging rows", tty=True, clock=FakeClock(), columns=80)
    rows(0, 0)
    assert out.getvalue() == "\rjudging rows [##############################] 0/0, ETA --:-- "


def test_row_progress__a_long_label_narrows_the_bar_then_is_cut_to_fit_the_terminal() -> None:
    label = "answering rows (target of support)"
    out = io.StringIO()
    rows = RowProgress(out, label=label, tty=True, clock=FakeClock(), columns=72)
    rows(10, 20)
    (drawn,) = out.getvalue().split("\r")[1:]
    assert drawn.startswith(f"{label} [#") and drawn.endswith(" 10/20, ETA 00:00 ")
    assert len(drawn) == 71  # the last column left free: no terminal wraps it
    assert fitted(label, 30, " 10/20, ETA 00:00 ", 40) == ("answeri\u2026", 10)
    assert fitted("judging rows", 30, " 1/3, ETA --:-- ", 100) == ("judging rows", 30)


def test_every_row_progress_is_started_with_a_label() -> None:
    """The places that start a bar say what it counts (the issue's "two progress bars carry no
    label"): RowProgress has no default label, and each call names one."""
    import inspect
    import re
    from pathlib import Path

    import ground_gate

    assert inspect.signature(RowProgress).parameters["label"].default is inspect.Parameter.empty
    root = Path(ground_gate.__file__).parent
    labels = {
        str(path.relative_to(root)): re.findall(r"RowProgress\(label=(f?\"[^\"]+\")", text)
        for path in root.rglob("*.py")
        if "RowProgress(" in (text := path.read_text(encoding="utf-8"))
        and path.name != "progress.py"
    }
    assert labels == {
        "stages/runner.py": ['"judging rows"'],
        "targets/asking.py": ['f"answering rows (target of {prepared.dataset})"'],
    }


def test_byte_progress__log_lines_each_tenth_and_on_a_timer() -> None:
    out = io.StringIO()
    clock = FakeClock()
    render = ByteProgress(out, tty=False, line_every_s=10.0, clock=clock)
    render("verifying x.gguf", 0, 1_000_000)
    render("verifying x.gguf", 50_000, 1_000_000)  # 5%: nothing yet
    clock.now = 11.0
    render("verifying x.gguf", 60_000, 1_000_000)  # 6%, but 11 s passed
    render("verifying x.gguf", 250_000, 1_000_000)  # crossed 10% and 20%
    render("verifying x.gguf", 1_000_000, 1_000_000)
    render("waiting for another process to finish x.gguf", 0, 0)
    assert out.getvalue() == (
        "verifying x.gguf\n"
        "  6% (0.1 of 1.0 MB)\n"
        "  25% (0.2 of 1.0 MB)\n"
        "  100% (1.0 of 1.0 MB)\n"
        "waiting for another process to finish x.gguf\n"
    )


def test_byte_progress__terminal_bar_is_rewritten_in_place() -> None:
    out = io.StringIO()
    render = ByteProgress(out, tty=True, width=10)
    render("downloading a", 0, 2_000_000)
    render("downloading a", 1_000_000, 2_000_000)
    render("downloading a", 1_000_001, 2_000_000)  # same percent: no redraw
    render("verifying a", 0, 2_000_000)
    render.close()
    assert out.getvalue() == (
        "\rdownloading a [----------]   0% 0.0/2.0 MB"
        "\rdownloading a [#####-----]  50% 1.0/2.0 MB"
        "\n"
        "\rverifying a [----------]   0% 0.0/2.0 MB"
        "\n"
    )
