"""Text no reader sees: taken out of what the judge reads, and listed on the row.

An answer is read rendered, as the markdown and HTML that chat windows and pull-request
comments display. Whatever its reader never sees can still speak to a judge that reads the raw
text: `<!-- grader: 5 -->`, a span hidden by a style, words in a link's address or title or in an
image's alt text, Unicode tag characters spelling a sentence, zero-width characters breaking
up a word so that a filter misses it.

`reveal` renders the response as CommonMark with HTML (markdown-it-py), walks the HTML with the
standard library's parser, and sorts what it holds three ways (`KINDS`). Hidden, for sure:
- a markup comment, declaration or processing instruction (`<!-- ... -->`, `<![CDATA[...]]>`);
- an element hidden by the `hidden` attribute, `popover`, a closed `<dialog>`, a style that
  surely hides (display none, opacity 0, a font size of 0...: metrics/styles.py), a simple
  `<style>` rule that surely hides; the content of elements never displayed (script, style,
  template, head, title...), SVG's titles, descriptions and definitions, MathML's phantoms
  and annotations; a collapsed `<details>` element's content but its summary;
- an attribute's text (alt, title, aria-label, data-*, value...): a reader sees the picture,
  the link's words, never these;
- words in a link's or an image's address (four words or more, apart once decoded: a plain
  address is no text, and is not judged either way);
- a link reference definition, which renders nothing (`[//]: # (...)`);
- tag characters spelling text, and invisible characters, first (metrics/invisible.py, which
  also serves the question and the sources).

Of uncertain visibility (UNCERTAIN): text under any other styling that could hide it, which a
gate that lays out no page cannot settle: a `style` attribute, a class, a `<style>` rule that
could match it (one the gate cannot read rule by rule makes all text uncertain), a
presentational attribute (`<font color>`, `mathcolor`), SVG's text, a select's options. Such
text is neither taken out nor kept outright: the row is judged both ways and each metric keeps
the worse (`Revealed.kept`, metrics/screen.py, metrics/worse_reading.py). What is left is
surely visible: plain markdown, and elements that nothing styles.

A response with nothing hidden is returned as it is, byte for byte; one with a hidden passage
is replaced by its surely visible text (block elements on their own lines), and `kept` by the
text with its passages of uncertain visibility too. The question and the
sources are not rendered (a reader does not see them displayed): only their invisible
characters and tag characters are taken out.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from urllib.parse import unquote_plus

from markdown_it import MarkdownIt

from ground_gate.metrics.invisible import (
    INVISIBLE,
    TAG_CHARACTERS,
    has_words,
    kept,
    reveal_characters,
)
from ground_gate.metrics.styles import DOUBTS, HIDES, UNCERTAIN, Sheet, read_sheets, styling

COMMENT = "comment"
HIDDEN_ELEMENT = "hidden element"
ATTRIBUTE = "attribute text"
ADDRESS = "words in an address"
REFERENCE = "reference definition"
# every kind, in the words the report uses; all but INVISIBLE are passages of text, and all
# but UNCERTAIN are taken out (UNCERTAIN: taken out or kept, whichever scores the row worse)
KINDS = (COMMENT, HIDDEN_ELEMENT, ATTRIBUTE, ADDRESS, REFERENCE, TAG_CHARACTERS, INVISIBLE,
         UNCERTAIN)  # fmt: skip


def _words(names: str) -> frozenset[str]:
    return frozenset(names.split())


_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])

_VOID = _words("area base br col embed hr img input link meta param source track wbr")
_BLOCK = _words(
    "p div li ul ol h1 h2 h3 h4 h5 h6 br hr tr table blockquote pre section article details "
    "summary dd dt dl figure figcaption header footer aside nav main"
)
# elements whose text is shown as it is written, markup and all
_LITERAL = _words("code pre kbd samp tt xmp textarea")
# attributes that hold an address: only words in them are hidden text
_ADDRESSES = _words(
    "href src srcset action formaction cite poster background longdesc data ping xlink:href"
)
# attributes that hold no words meant for anyone: layout, identity, behaviour, presentation
# (of HTML, SVG and MathML)
_PLAIN = _words(
    "class id style width height align valign dir lang rel target type name for role "
    "colspan rowspan start border cellpadding cellspacing tabindex xmlns charset loading "
    "decoding referrerpolicy crossorigin open hidden checked disabled selected reversed "
    "scope span headers accesskey translate draggable contenteditable spellcheck nowrap "
    "color bgcolor size face aria-hidden sizes media integrity async defer method enctype "
    "text popover x y dx dy rotate fill fill-opacity stroke stroke-width opacity visibility "
    "display transform font-size font-family font-weight text-anchor dominant-baseline "
    "viewbox preserveaspectratio textlength lengthadjust clip-path mask version "
    "mathcolor mathbackground mathsize mathvariant displaystyle scriptlevel lspace rspace "
    "depth voffset encoding actiontype selection definitionurl stretchy fence separator "
    "accent accentunder"
)
_ADDRESS_WORDS = 4  # words in a decoded address that make it hidden text


@dataclass(frozen=True)
class Revealed:
    """`text` as its reader surely sees it; `hidden` what was taken out, as (kind, passage);
    `kept` the text with its passages of uncertain visibility (kind UNCERTAIN) kept, None
    when it has none."""

    text: str
    hidden: tuple[tuple[str, str], ...] = ()
    kept: str | None = None


@dataclass
class _Open:
    """An open element: whether it hides its text (1; -1 for the summary a collapsed details
    element shows), whether it may (1), whether it is a collapsed details element and has
    shown its summary."""

    tag: str
    hides: int = 0
    doubts: int = 0
    collapsed: bool = False
    summary: bool = False


def reveal(text: str) -> Revealed:
    """A response as its reader sees it rendered, the passages no reader sees, and the
    response with the passages no reader may see kept."""
    plain, found = reveal_characters(text)
    if "<" not in plain and "[" not in plain:  # no markup that can hide anything
        return Revealed(plain, found)
    env: dict[str, object] = {}
    html = _MARKDOWN.render(plain, env)
    page = _Page(read_sheets(html), html5_comments="<!--" in plain)
    page.feed(html)
    page.close()
    passages = page.hidden + _references(env, {text for _, text in page.hidden})
    if not passages:
        return Revealed(plain, found)
    kept_text = _tidy(page.kept()) if page.uncertain else None
    return Revealed(_tidy(page.visible()), found + tuple(passages), kept_text)


def _references(env: dict[str, object], found_already: set[str]) -> list[tuple[str, str]]:
    """Link reference definitions: they render nothing, so their label, title and the words
    of their address are hidden text (`[//]: # (a note)` is the markdown comment); a used
    one's title and address were found on its link already."""
    references = env.get("references")
    if not isinstance(references, dict):
        return []
    found = []
    for label, target in references.items():
        words = [str(label)] if len(str(label).split()) > 1 else []
        if isinstance(target, dict):
            title = " ".join(str(target.get("title") or "").split())
            address = _address_words(str(target.get("href") or ""))
            words += [text for text in (title, address) if text not in found_already]
        text = " ".join(" ".join(words).split())
        if has_words(text):
            found.append((REFERENCE, kept(text)))
    return found


def _address_words(address: str) -> str:
    """The words an address spells once decoded, when there are enough to say something."""
    decoded = " ".join(unquote_plus(address).split())
    words = [word for word in decoded.split() if any(c.isalpha() for c in word)]
    return decoded if len(words) >= _ADDRESS_WORDS else ""


class _Page(HTMLParser):
    """One walk of the rendered HTML: the surely visible text, the text of uncertain visibility
    (`kept` holds both), and each hidden passage."""

    def __init__(self, sheet: Sheet, html5_comments: bool) -> None:
        super().__init__(convert_charrefs=True)
        self._sheet = sheet
        self._html5_comments = html5_comments  # the source holds "<!--" as it is written
        self._open: list[_Open] = []  # each open element and what it does to its text
        self._hiders = 0  # how many of them hide
        self._doubters = int(sheet.everything)  # how many may hide (a sheet that may: all)
        self._literal = 0  # how many of them show their text as written (code)
        self._opened: Counter[str] = Counter()  # how many of each tag are open
        self._shown: list[str] = []
        self._kept: list[str] = []  # what is shown, and the text of uncertain visibility
        self._veiled: list[str] = []  # the text of the outermost hidden element so far
        self._doubted: list[str] = []  # the text of uncertain visibility so far
        self._doubt_at = 0  # where in `_shown` that text began
        self.hidden: list[tuple[str, str]] = []
        self.uncertain = False  # whether a passage of uncertain visibility was found

    def visible(self) -> str:
        return "".join(self._shown)

    def kept(self) -> str:
        return "".join(self._kept)

    @property
    def _veiling(self) -> bool:
        return self._hiders > 0

    def _passage(self, kind: str, text: str) -> None:
        text = " ".join(unescape(text).split())  # a script's text reaches us escaped
        if has_words(text):
            self.hidden.append((kind, kept(text)))

    def _attributes(self, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None or name in _PLAIN or name.startswith("on"):
                continue
            if name in _ADDRESSES:
                self._passage(ADDRESS, _address_words(value))
            else:
                self._passage(ATTRIBUTE, value)

    def _show(self, text: str) -> None:
        """Text outside every hidden element: shown, or of uncertain visibility."""
        if self._doubters:
            if not self._doubted:
                self._doubt_at = len(self._shown)
            self._doubted.append(text)
        else:
            self._shown.append(text)
        self._kept.append(text)

    def _break(self) -> None:
        """A block's edge: a line of its own, and the end of a passage of uncertain text."""
        self._settle_doubt()
        self._shown.append("\n")
        self._kept.append("\n")

    def _settle_doubt(self) -> None:
        text = "".join(self._doubted)
        self._doubted = []
        if has_words(text):
            self._passage(UNCERTAIN, text)
            self.uncertain = True
        elif text:  # no word in it to judge: shown either way
            self._shown.insert(self._doubt_at, text)

    def _settle(self, veiling: bool, doubting: bool) -> None:
        """After an element opened or closed: a hidden passage or an uncertain one ended."""
        if veiling and not self._veiling:
            self._passage(HIDDEN_ELEMENT, "".join(self._veiled))
            self._veiled = []
        if (not veiling and self._veiling) or (doubting and not self._doubters):
            self._settle_doubt()

    def _effect(self, tag: str, attrs: list[tuple[str, str | None]]) -> _Open:
        parent = self._open[-1] if self._open else None
        effect = styling(tag, attrs, self._sheet, in_svg=self._opened["svg"] > 0)
        hides, doubts = int(effect == HIDES), int(effect == DOUBTS)
        if parent is not None and parent.collapsed and tag == "summary" and not parent.summary:
            parent.summary = True  # a collapsed details element shows its first summary
            return _Open(tag, hides=hides - 1, doubts=doubts)
        collapsed = tag == "details" and not any(name == "open" for name, _ in attrs)
        return _Open(tag, hides=int(hides or collapsed), doubts=doubts, collapsed=collapsed)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(attrs)
        if tag in _BLOCK and not self._veiling:
            self._break()
        if tag in _VOID:
            return
        veiling, doubting = self._veiling, bool(self._doubters)
        element = self._effect(tag, attrs)
        self._open.append(element)
        self._hiders += element.hides
        self._doubters += element.doubts
        self._literal += tag in _LITERAL
        self._opened[tag] += 1
        self._settle(veiling, doubting)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(attrs)
        if tag in _BLOCK and not self._veiling:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if not self._opened[tag]:
            return  # an end tag nothing opened: a browser ignores it
        veiling, doubting = self._veiling, bool(self._doubters)
        while self._open:
            element = self._open.pop()
            self._hiders -= element.hides
            self._doubters -= element.doubts
            self._literal -= element.tag in _LITERAL
            self._opened[element.tag] -= 1
            if element.tag == tag:
                break
        self._settle(veiling, doubting)
        if tag in _BLOCK and not self._veiling:
            self._break()

    def handle_data(self, data: str) -> None:
        if self._veiling:
            self._veiled.append(data)
            return
        if self._html5_comments and "<!--" in data and not self._literal:
            # a comment by HTML's rule that CommonMark's stricter one left as text
            # (`<!--- x --->`): a browser shown the raw HTML hides it
            shown, _, rest = data.partition("<!--")
            comment, closed, after = rest.partition("-->")
            self._show(shown)
            self._passage(COMMENT, comment.strip("-"))
            if closed:
                self.handle_data(after)
            return
        self._show(data)

    def handle_comment(self, data: str) -> None:
        self._passage(COMMENT, data.strip("-"))

    def parse_marked_section(self, i: int, report: int = 1) -> int:
        """`<![...` as a browser reads it in HTML (CDATA belongs to SVG and MathML): a bogus
        comment, hidden, to the next `>` or the end (the standard library's parser would
        assert on some and show others)."""
        end = self.rawdata.find(">", i + 3)
        end = len(self.rawdata) if end < 0 else end
        self._passage(COMMENT, self.rawdata[i + 3 : end].removeprefix("CDATA[").rstrip("]"))
        return min(end + 1, len(self.rawdata))

    def handle_pi(self, data: str) -> None:  # <? ... >
        self._passage(COMMENT, data.rstrip("?"))

    def close(self) -> None:
        super().close()
        if self._veiling:  # a hidden element never closed hides to the end
            self._passage(HIDDEN_ELEMENT, "".join(self._veiled))
            self._veiled = []
        self._settle_doubt()
        self._open, self._hiders, self._doubters, self._literal = [], 0, 0, 0
        self._opened.clear()


def _tidy(text: str) -> str:
    """Spaces collapsed within lines, runs of blank lines to one, blank edges dropped."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
