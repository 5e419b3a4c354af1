"""escape.py: untrusted text made inert for GitHub's markdown, compared as exact strings.

GitHub links mentions, issue references and commit SHAs after rendering, on the text itself,
so those are broken with a zero-width space (Z below) that only the escaping inserts: every
invisible character of the input shows as U+FFFD (R below).
"""

import pytest

from ground_gate.render.escape import cell, code, ident, visible

Z, R = "\u200b", "\ufffd"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see https://evil.example/x", f"see https{Z}://evil.example/x"),
        ("HTTP://EVIL.EXAMPLE", f"HTTP{Z}://EVIL.EXAMPLE"),
        ("ftp://f.example", f"ftp{Z}://f.example"),
        ("www.evil.example", f"www{Z}.evil.example"),
        ("<https://auto.example>", f"&lt;https{Z}://auto.example&gt;"),
        ("![img](https://x/p.png)", f"!\\[img\\](https{Z}://x/p.png)"),
        ("[click](https://evil)", f"\\[click\\](https{Z}://evil)"),
        ("[ref]: https://r", f"\\[ref\\]: https{Z}://r"),
        ("mailto:a@b.example", f"mailto{Z}:a@{Z}b.example"),
        ("me@evil.example", f"me@{Z}evil.example"),
        ("@octo-org/team and @admin", f"@{Z}octo-org/team and @{Z}admin"),
        ("fixes #123, GH-7, o/r#9", f"fixes \\#{Z}123, GH{Z}-7, o/r\\#{Z}9"),
        ("commit 6dcb09b5b578", f"commit 6dcb09{Z}b5b578"),
        ("$\\href{u}{x}$", "\\$\\\\href{u}{x}\\$"),
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
        ("&commat;team &#64;x", "&amp;commat;team &amp;\\#{Z}64;x".replace("{Z}", Z)),
        ("a\u202eevil\u202c b", f"a{R}evil{R} b"),
        ("\u2066x\u2069 \u200e\u200f\u061c", f"{R}x{R} {R}{R}{R}"),
        ("z\u200bw\u200c\u200d\u2060\ufeff", f"z{R}w{R}{R}{R}{R}"),
        ("tag\U000e0041\U000e007f", f"tag{R}{R}"),
        ("bell\x07 esc\x1b[31m", f"bell{R} esc{R}\\[31m"),
    ],
)
def test_cell__links_mentions_references_and_invisible_characters_are_inert(text, expected):
    assert cell(text) == expected


def test_cell__the_existing_escapes_are_kept():
    assert cell("a|b\n<details>`x` @org/team [l](u) **b**") == (
        f"a\\|b &lt;details&gt;\\`x\\` @{Z}org/team \\[l\\](u) \\*\\*b\\*\\*"
    )
    assert cell("~~s~~ _e_ # h") == "\\~\\~s\\~\\~ \\_e\\_ \\# h"


def test_cell__cut_before_escaping_so_a_cut_never_leaves_a_live_link():
    assert cell("https://evil.example/" + "x" * 50, limit=12) == f"https{Z}://evi\u2026"


def test_cell__plain_text_and_non_latin_text_unchanged():
    assert cell("Refunds take 5 days. Rückerstattung 5 Tage. 退款需要5天") == (
        "Refunds take 5 days. Rückerstattung 5 Tage. 退款需要5天"
    )


def test_code__inside_a_code_span():
    assert code("gpt-4o-mini") == "gpt-4o-mini"
    assert code("m`x` @a https://e \u202e") == f"m'x' @{Z}a https{Z}://e {R}"


def test_ident__names_stay_as_they_are_anything_else_is_a_cell():
    assert ident("summary_accuracy") == "summary_accuracy"
    assert ident("groundedness") == "groundedness"
    assert ident("@team|x") == f"@{Z}team\\|x"
    assert ident("deadbeef1") == f"deadbe{Z}ef1"  # would be linked as a commit


def test_visible__only_invisible_characters_change():
    assert visible("a\u202eb\u00e9\U0001f600") == f"a{R}b\u00e9\U0001f600"
