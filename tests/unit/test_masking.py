"""Secrets masked in everything written (ground_gate/leaves/masking.py): registered where they are
read, applied by every writer, in every form escaping gives them."""

from __future__ import annotations

import json
import logging

import pytest

from ground_gate.leaves import masking
from ground_gate.leaves.masking import MASK, MaskingFilter, mask, register, registered

KEY = "sk-proj-FAKE-0123456789"


def test_mask__nothing_registered_leaves_text_alone() -> None:
    assert mask(f"key {KEY}") == f"key {KEY}"


def test_mask__a_registered_secret_is_masked_everywhere_in_the_text() -> None:
    register(KEY)
    assert mask(f"{KEY} and again {KEY}.") == f"{MASK} and again {MASK}."


@pytest.mark.parametrize(
    ("secret", "written"),
    [
        ('sk-"quoted"-0123456789', json.dumps('sk-"quoted"-0123456789')[1:-1]),  # in JSON
        ("sk-<b>&-0123456789", "sk-&lt;b&gt;&amp;-0123456789"),  # in HTML
        ("line-one-0123\nline-two-4567", "line-two-4567"),  # one line of a multi-line value
    ],
    ids=["json", "html", "a line"],
)
def test_mask__the_forms_escaping_gives_a_secret_are_masked(secret: str, written: str) -> None:
    register(secret)
    assert mask(f"<{written}>") == f"<{MASK}>"


def test_register__short_and_empty_values_are_not_secrets() -> None:
    register("")
    register(None)
    register("abc")  # would garble every text; no credential is this short
    assert registered() == frozenset()
    assert mask("abc") == "abc"


def test_mask__the_longest_secret_first() -> None:
    register("token-0123")
    register("token-0123456789")
    assert mask("token-0123456789 token-0123") == f"{MASK} {MASK}"


def test_masking_filter__masks_a_log_record_and_its_arguments(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("ground_gate.test_masking")
    logger.addFilter(MaskingFilter())
    register(KEY)
    with caplog.at_level(logging.WARNING, logger="ground_gate.test_masking"):
        logger.warning("the server said %s (%d)", f"bad key {KEY}", 401)
    assert [r.getMessage() for r in caplog.records] == [f"the server said bad key {MASK} (401)"]


def test_forget_all__clears_the_registry() -> None:
    register(KEY)
    masking.forget_all()
    assert mask(KEY) == KEY


@pytest.mark.parametrize(
    "written",
    [
        "app-secret-7f3a",  # the credential without its scheme
        "bearer app-secret-7f3a",  # lower-cased
        "APP-SECRET-7F3A",  # upper-cased
        "App-Secret-7F3a",
    ],
)
def test_mask__a_header_value_in_the_forms_an_echo_quotes_it(written: str) -> None:
    register("Bearer app-secret-7f3a")
    assert mask(f"the app said: {written}!") == f"the app said: {MASK}!"


def test_register__a_short_credential_after_its_scheme_is_not_masked_alone() -> None:
    register("Basic abc")  # "abc" alone would garble every text
    assert mask("abc and Basic abc") == f"abc and {MASK}"
