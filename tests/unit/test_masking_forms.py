"""Masking covers the forms a secret takes in a reply (issue 43, item 9): zero-width and other
invisible characters between its letters, whitespace splitting it, base64 of any string holding
it (at any alignment, standard or URL-safe, padded or not), percent-encoding, hex, and the
escapes the report's own renderers give it. Generated secrets and replies; each form is read
back from the masked text (the gaps taken out, the base64 decoded at every offset, the URL
decoded) and must not hold the secret. A text holding no form of it is left as it is."""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
import time
from urllib.parse import quote, quote_plus, unquote_plus

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from ground_gate.leaves.invisible_chars import invisible_ranges, is_invisible
from ground_gate.leaves.masking import MASK, MIN_SECRET_CHARS, forget_all, mask
from ground_gate.leaves.masking import register as register_one
from ground_gate.render.escape import cell, code
from ground_gate.render.html_page import esc
from tests.examples import examples

# Not the tag characters: they spell ASCII unseen, and a secret so spelled is masked as such
INVISIBLE = sorted(
    {chr(first) for first, _ in invisible_ranges() if not 0xE0020 <= first <= 0xE007F}
    | {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"}
)
WHITESPACE = [" ", "\t", "\n", "\r\n", "\u00a0", "\u2003", "\u3000", "  "]
# Printable characters a credential holds: no whitespace, nothing invisible, not U+FFFD
SECRET_CHAR = st.characters(categories=("L", "N", "P", "S"), exclude_characters="\ufffd").filter(
    lambda ch: not is_invisible(ch)
)
SECRETS = st.one_of(
    st.text(
        st.characters(min_codepoint=0x21, max_codepoint=0x7E),
        min_size=MIN_SECRET_CHARS,
        max_size=40,
    ),
    st.text(SECRET_CHAR, min_size=MIN_SECRET_CHARS, max_size=40),
)
# What surrounds the secret in a reply: words, no secret of their own
AROUND = st.text(st.sampled_from("abc xyz,.:\n"), max_size=30)
_GAP = re.compile(r"[\s\ufffd]")
# Each example registers a new secret, so masking compiles its expression again: 0.1-0.2 s
# for the longest hostile secrets, most of this file's time. Half the profile's 100 draws a
# test (each run draws anew: no example database is kept, so runs together cover more)
COMPILING = settings(max_examples=examples(50))


def register(secret: str) -> None:
    """The one secret of this example (the fixture clears the registry once per test, not per
    example)."""
    forget_all()
    register_one(secret)


def _without_gaps(text: str) -> str:
    return "".join(ch for ch in _GAP.sub("", text) if not is_invisible(ch))


def _spelled_in(text: str, secret: str) -> bool:
    """Whether `text`, whitespace and invisible characters taken out, holds the secret."""
    return _without_gaps(secret).casefold() in _without_gaps(text).casefold()


def _base64_in(text: str, secret: str) -> bool:
    """Whether any run of base64 characters in `text`, decoded from any of its four
    character offsets in either alphabet, holds the secret's bytes."""
    raw = secret.encode()
    for run in re.findall(r"[A-Za-z0-9+/_-]{4,}", _without_gaps(text)):
        standard = run.replace("-", "+").replace("_", "/")
        for start in range(4):
            piece = standard[start:]
            piece = piece[: len(piece) - len(piece) % 4]
            try:
                if raw in base64.b64decode(piece, validate=True):
                    return True
            except binascii.Error:
                continue
    return False


def any_form_in(text: str, secret: str) -> bool:
    decoded = unquote_plus(text)
    return (
        _spelled_in(text, secret)
        or _spelled_in(decoded, secret)
        or _base64_in(text, secret)
        or secret.encode().hex() in text.lower()
    )


@st.composite
def interleaved(draw: st.DrawFn, secret: str, fillers: list[str]) -> str:
    """The secret with fillers drawn from `fillers` at random places between its characters."""
    out = []
    for index, char in enumerate(secret):
        if index and draw(st.booleans()):
            out.append("".join(draw(st.lists(st.sampled_from(fillers), min_size=1, max_size=3))))
        out.append(char)
    return "".join(out)


@COMPILING
@given(st.data(), SECRETS, AROUND, AROUND)
@example(None, "app-secret-7f3a", "the key: ", ".").via("the issue's header value")
def test_mask__invisible_characters_between_the_letters(
    data: st.DataObject, secret: str, before: str, after: str
) -> None:
    register(secret)
    written = data.draw(interleaved(secret, INVISIBLE)) if data is not None else secret
    masked = mask(f"{before}{written}{after}")
    assert not any_form_in(masked, secret)
    assert MASK in masked
    # exactly the secret's span is masked, the gaps inside it included, nothing around it
    assert mask(f"{before}\0 {written}\n\0{after}") == f"{mask(before)}\0 {MASK}\n\0{mask(after)}"


@COMPILING
@given(st.data(), SECRETS, AROUND, AROUND)
def test_mask__whitespace_splitting_the_secret(
    data: st.DataObject, secret: str, before: str, after: str
) -> None:
    register(secret)
    written = data.draw(interleaved(secret, [*WHITESPACE, *INVISIBLE[:3]]))
    masked = mask(f"{before} {written} {after}")
    assert not any_form_in(masked, secret)


@COMPILING
@given(
    SECRETS,
    st.binary(max_size=7),
    st.binary(max_size=7),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["", "\n", "\\n"]),
)
@example("user:pass-1234", b"Basic-", b"", False, True, "").via("a Basic header's credential")
def test_mask__base64_of_a_string_holding_the_secret(
    secret: str, before: bytes, after: bytes, url_safe: bool, padded: bool, wrap: str
) -> None:
    register(secret)
    encode = base64.urlsafe_b64encode if url_safe else base64.b64encode
    encoded = encode(before + secret.encode() + after).decode()
    encoded = encoded if padded else encoded.rstrip("=")
    if wrap:  # a base64 block broken into lines, or its line breaks escaped in a JSON string
        encoded = wrap.join(encoded[i : i + 8] for i in range(0, len(encoded), 8))
    masked = mask(f"token {encoded} end")
    assert not _base64_in(masked, secret)


@COMPILING
@given(SECRETS, AROUND, st.sampled_from(["", "/", ":@"]), st.booleans())
def test_mask__url_encoded(secret: str, before: str, safe: str, plus: bool) -> None:
    register(secret)
    written = quote_plus(secret, safe=safe) if plus else quote(secret, safe=safe)
    masked = mask(f"https://app.example/cb?{quote(before)}&key={written}&x=1")
    assert not any_form_in(masked, secret)


@COMPILING
@given(SECRETS)
def test_mask__hex_and_every_character_percent_encoded(secret: str) -> None:
    register(secret)
    raw = secret.encode()
    for written in (raw.hex(), raw.hex().upper(), "".join(f"%{b:02x}" for b in raw)):
        masked = mask(f"digest={written};")
        assert not any_form_in(masked, secret), written


@COMPILING
@given(st.data(), SECRETS, AROUND)
def test_mask__what_the_renderers_make_of_a_reply_quoting_it(
    data: st.DataObject, secret: str, around: str
) -> None:
    """A reply's text as the comment, the page and the JSON report write it: escaped, invisible
    characters shown as U+FFFD, zero-width spaces inserted, whitespace folded."""
    register(secret)
    reply = f"{around} {data.draw(interleaved(secret, [*INVISIBLE[:4], ' ']))} {around}"
    for rendered in (
        cell(reply, 400),
        code(reply, 400),
        esc(reply),
        json.dumps(reply),
        json.dumps(reply, ensure_ascii=False),
        html.escape(reply),
    ):
        masked = mask(rendered)
        unescaped = html.unescape(masked).replace("\\", "")
        assert not _spelled_in(unescaped, secret), rendered


@COMPILING
@given(st.text(), SECRETS)
@example("Zm9vYmFyYmF6 cXV4 666f6f626172 %66%6f%6f a b c d e f", "abcdef")
def test_mask__a_text_holding_no_form_of_the_secret_is_unchanged(text: str, secret: str) -> None:
    assume(not any_form_in(text, secret))
    register(secret)
    assert mask(text) == text


@given(st.text(min_size=1, max_size=MIN_SECRET_CHARS - 1), st.text())
def test_register__a_short_secret_masks_nothing(secret: str, text: str) -> None:
    register(secret)
    assert mask(text + secret + text) == text + secret + text


@settings(max_examples=examples(10))
@given(st.binary(min_size=1000, max_size=4000))
def test_mask__random_base64_is_left_alone(blob: bytes) -> None:
    """Random base64 (a data URL, an image) holds no 6-character secret's encoding."""
    assume(b"sk-live-4f9a" not in blob)
    register("sk-live-4f9a")
    text = base64.b64encode(blob).decode()
    assert mask(text) == text


def test_mask__a_long_report_is_masked_in_linear_time() -> None:
    """Ten times the text takes about ten times as long (not a hundred): no form backtracks
    over what it cannot match. Near misses everywhere: the secret's first half, then spaces
    and zero-width characters, then a wrong character."""
    register("sk-live-4f9a8b7c6d5e")
    piece = "sk-live-4f" + " \u200b" * 20 + "! "
    mask(piece)  # the expression compiled

    def seconds(copies: int) -> float:
        start = time.perf_counter()
        mask(piece * copies)
        return time.perf_counter() - start

    small, large = min(seconds(200) for _ in range(3)), min(seconds(2000) for _ in range(3))
    assert large < 30 * small + 0.05


@settings(max_examples=examples(20))
@given(st.sampled_from(["\\", "%", "&", "\\n", "+"]), st.integers(6, 40))
def test_mask__a_secret_of_characters_escaped_with_themselves_is_matched_once(
    char: str, copies: int
) -> None:
    """Runs of `\\`, `%`, `&` (escaped `\\\\`, `%25`, `&amp;`) against a long near miss: each
    way to match is tried once, never combined (no exponential backtracking)."""
    secret = char * copies + "x"
    register(secret)
    near_miss = char * 200 + html.escape(char) * 50 + quote(char, safe="") * 50 + "y"
    start = time.perf_counter()
    assert mask(near_miss) == near_miss
    assert mask(secret) == MASK
    assert time.perf_counter() - start < 2.0


@settings(max_examples=examples(20))
@given(st.integers(0, 3 * 65536), st.sampled_from(["", " ", "\u200b", " \u200b\n"]))
def test_mask__a_long_text_is_masked_where_the_secret_is(at: int, gap: str) -> None:
    """Past the first chunk of the text (masking compacts it 64 Ki characters at a time), the
    secret's span is found in the text as written, wherever it falls."""
    secret = "sk-live-4f9a8b7c6d5e"
    register(secret)
    filler = ("ab \u200b" * (3 * 65536 // 4 + 1))[:at]
    written = gap.join(secret)
    text = f"{filler}\0{written}\0{filler}\0{written}"
    assert mask(text) == f"{filler}\0{MASK}\0{filler}\0{MASK}"


def test_mask__a_secret_of_a_quote_and_an_ampersand_in_a_comment_cell() -> None:
    """Found by the renderers' property: the comment's cells escape `&` and leave `'`, a
    spelling the whole-secret HTML form (quotes escaped too) did not cover."""
    register("000'&0")
    assert mask(cell("key 000'&0 end", 400)) == "key *** end"
