"""Every sentence a reader reads is written in review/words.py: the renderers (render/) hold
markup, not words, so one fact cannot be said two ways and a wording is one edit. A string in
a renderer holding three or more words, once its markup, entities and {slots} are taken out,
is a sentence that belongs in words.py. An f-string is read whole, its values as slots, so a
tag its values split stays markup. The stylesheet and the page's script are not read, nor the
page's Content-Security-Policy (html_page.py's `content_security_policy`: a policy, not words)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

RENDER = Path(__file__).parents[2] / "ground_gate" / "render"
NOT_READ = {"html_assets.py"}  # the page's stylesheet and script
NOT_WORDS = {"content_security_policy"}  # functions whose strings no reader reads as words
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
    skipped = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name in NOT_WORDS
        for inner in ast.walk(node)
    }
    # an f-string is read whole (its values as {} slots): its pieces are not read apart
    pieces = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in ast.walk(node)
        if part is not node
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in docstrings or id(node) in skipped or id(node) in pieces:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(p.value if isinstance(p, ast.Constant) else "{}" for p in node.values)
        else:
            continue
        if len(WORD.findall(MARKUP.sub(" ", text))) >= 3:
            found.append(f"{path.name}:{node.lineno}: {text[:80]!r}")
    return found


def test_words__no_sentence_is_written_in_a_renderer() -> None:
    found = [s for p in sorted(RENDER.glob("*.py")) if p.name not in NOT_READ for s in sentences(p)]
    assert found == []


def test_words__the_scanner_finds_a_sentence(tmp_path: Path) -> None:
    """A renderer line that writes its own sentence is caught, markup and slots aside."""
    probe = tmp_path / "probe.py"
    probe.write_text('x = f"<p>No row newly fails {n}</p>"\ny = "<td class=\'num\'>{v}</td>"\n')
    assert sentences(probe) == ["probe.py:1: '<p>No row newly fails {}</p>'"]


def test_words__a_tag_split_by_a_value_is_markup(tmp_path: Path) -> None:
    """An f-string's values may split a tag (`<td class="{cls}" data-label="{label}">`): read
    whole, the tag is markup, and a sentence beside it is still caught."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        'x = f\'<td class="num failed" data-label="{label}">{value}</td>\'\n'
        'y = f\'<p class="warn" title="{t}">The run did not finish: {why}</p>\'\n'
    )
    assert sentences(probe) == [
        'probe.py:2: \'<p class="warn" title="{}">The run did not finish: {}</p>\''
    ]


def test_words__the_pages_policy_is_not_words() -> None:
    """html_page.py's policy is skipped by name: the function is still there to skip."""
    tree = ast.parse((RENDER / "html_page.py").read_text(encoding="utf-8"))
    names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert names >= NOT_WORDS


def test_words__each_name_is_defined_once() -> None:
    """Two definitions of one name in words.py: the later silently replaces the earlier, and a
    renderer reads words it was not written for."""
    import ground_gate.review.words as words_module

    tree = ast.parse(Path(words_module.__file__).read_text(encoding="utf-8"))
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, ast.FunctionDef):
            names.append(node.name)
    assert sorted({n for n in names if names.count(n) > 1}) == []
