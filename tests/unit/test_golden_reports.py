"""Every renderer's output on the test corpora, byte for byte (tests/golden/): a refactor of
the report's shape or of a renderer must leave what a reader sees unchanged. A change meant to
change it regenerates the pins (`python -m tests.golden.corpora`) and shows the diff."""

import json

import pytest

from tests.golden.corpora import CORPORA, DIGESTS, HERE, RENDERERS, WHOLE, digest, rendered

NAMES = [f"{c}.{s}" for c in CORPORA for s in RENDERERS]
REGENERATE = "regenerate with `python -m tests.golden.corpora` and read the diff"


@pytest.fixture(scope="module")
def now() -> dict[str, str]:
    return rendered()


@pytest.mark.parametrize("name", NAMES)
def test_golden__rendered_as_pinned(now, name):
    if name.endswith(WHOLE):  # a readable diff first
        assert now[name] == (HERE / name).read_text(encoding="utf-8"), REGENERATE
    pinned = json.loads(DIGESTS.read_text(encoding="utf-8"))
    assert digest(now[name]) == pinned[name], f"{name} changed: {REGENERATE}"


def test_golden__every_output_is_pinned_and_nothing_else():
    pinned = json.loads(DIGESTS.read_text(encoding="utf-8"))
    kept = {p.name for p in HERE.iterdir() if p.name.endswith(WHOLE)}
    assert set(pinned) == set(NAMES)
    assert kept == {n for n in NAMES if n.endswith(WHOLE)}
