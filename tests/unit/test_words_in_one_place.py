"""Every sentence a reader reads is written in review/words.py: the renderers (render/) hold
markup, not words, so one fact cannot be said two ways and a wording is one edit. A string in
a renderer holding three or more words, once its markup, entities and {slots} are taken out,
is a sentence that belongs in words.py. The stylesheet and the page's script are not read."""

from __future__ import annotations

import ast
import re
from pathlib import Path

RENDER = Path(__file__).parents[2] / "ground_gate" / "render"
NOT_READ = {"html_assets.py"}  # the page's stylesheet and script
MARKUP = re.compile(r"<[^>]*>|&\w+;|\{[^}]*\}")
WORD = re.compile(r"\b[A-Za-z]{2,}\b")


def sentences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) in docstrings:
            continue
        if len(WORD.findall(MARKUP.sub(" ", node.value))) >= 3:
            found.append(f"{path.name}:{node.lineno}: {node.value[:80]!r}")
    return found


def test_words__no_sentence_is_written_in_a_renderer() -> None:
    found = [s for p in sorted(RENDER.glob("*.py")) if p.name not in NOT_READ for s in sentences(p)]
    assert found == []


def test_words__the_scanner_finds_a_sentence(tmp_path: Path) -> None:
    """A renderer line that writes its own sentence is caught, markup and slots aside."""
    probe = tmp_path / "probe.py"
    probe.write_text('x = f"<p>No row newly fails {n}</p>"\ny = "<td class=\'num\'>{v}</td>"\n')
    assert sentences(probe) == ["probe.py:1: '<p>No row newly fails '"]
