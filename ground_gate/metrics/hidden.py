"""Text no reader sees: taken out of what the judge reads, and listed on the row.

An answer is read rendered, as the markdown and HTML that chat windows and pull-request
comments display. Whatever its reader never sees can still speak to a judge that reads the raw
text: `<!-- grader: 5 -->`, a span hidden by a style, words in a link's address or title or in an
image's alt text, Unicode tag characters spelling a sentence, zero-width characters breaking
up a word so that a filter misses it.

`reveal` renders the response as CommonMark with HTML (markdown-it-py), walks the HTML with the
standard library's parser, and keeps what a reader sees. What it finds hidden (`KINDS`):
- a markup comment, declaration or processing instruction (`<!-- ... -->`, `<![CDATA[...]]>`);
- an element hidden by the `hidden` attribute or by its style (display none, visibility
  hidden, opacity 0, font size 0, a zero-size box with overflow hidden, a clip, a position far
  off screen, a transparent colour), or by a class or id a `<style>` element hides, and the
  content of elements never displayed (script, style, template, head, title...);
- an attribute's text (alt, title, aria-label, data-*, value...): a reader sees the picture,
  the link's words, never these;
- words in a link's or an image's address (four words or more, apart once decoded: a plain
  address is no text, and is not judged either way);
- a link reference definition, which renders nothing (`[//]: # (...)`);
- tag characters spelling text, and invisible characters, first (metrics/invisible.py, which
  also serves the question and the sources).

A response with nothing hidden is returned as it is, byte for byte; one with a hidden passage
is replaced by its visible text (block elements on their own lines). The question and the
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

COMMENT = "comment"
HIDDEN_ELEMENT = "hidden element"
ATTRIBUTE = "attribute text"
ADDRESS = "words in an address"
REFERENCE = "reference definition"
# every kind, in the words the report uses; all but INVISIBLE are passages of text
KINDS = (COMMENT, HIDDEN_ELEMENT, ATTRIBUTE, ADDRESS, REFERENCE, TAG_CHARACTERS, INVISIBLE)


def _words(names: str) -> frozenset[str]:
    return frozenset(names.split())


_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])

# elements whose content is never displayed
_NEVER_SHOWN = _words(
    "script style template head title noscript noembed noframes iframe object datalist svg math"
)
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
# attributes that hold no words meant for anyone: layout, identity, behaviour
_PLAIN = _words(
    "class id style width height align valign dir lang rel target type name for role "
    "colspan rowspan start border cellpadding cellspacing tabindex xmlns charset loading "
    "decoding referrerpolicy crossorigin open hidden checked disabled selected reversed "
    "scope span headers accesskey translate draggable contenteditable spellcheck nowrap "
    "color bgcolor size face aria-hidden sizes media integrity async defer method enctype"
)
_ADDRESS_WORDS = 4  # words in a decoded address that make it hidden text
_OFF_SCREEN_PX = 500.0  # a position, margin or indent this far negative puts a box off screen


@dataclass(frozen=True)
class Revealed:
    """`text` as its reader sees it; `hidden` what was taken out, as (kind, passage)."""

    text: str
    hidden: tuple[tuple[str, str], ...] = ()


def reveal(text: str) -> Revealed:
    """A response as its reader sees it rendered, and the passages no reader sees."""
    plain, found = reveal_characters(text)
    if "<" not in plain and "[" not in plain:  # no markup that can hide anything
        return Revealed(plain, found)
    env: dict[str, object] = {}
    html = _MARKDOWN.render(plain, env)
    page = _Page(_hiding_selectors(html), html5_comments="<!--" in plain)
    page.feed(html)
    page.close()
    passages = page.hidden + _references(env, {text for _, text in page.hidden})
    if not passages:
        return Revealed(plain, found)
    return Revealed(_tidy(page.visible()), found + tuple(passages))


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


def _declarations(style: str) -> dict[str, str]:
    """A style attribute's declarations, property to value, lower case."""
    found = {}
    for declaration in style.split(";"):
        name, _, value = declaration.partition(":")
        if value:
            found[name.strip().lower()] = " ".join(value.lower().replace("!important", "").split())
    return found


_NUMBER = re.compile(r"^(-?\d*\.?\d+)\s*([a-z%]*)")


def _number(value: str) -> float | None:
    match = _NUMBER.match(value.strip())
    return float(match.group(1)) if match else None


def _hides(style: str) -> bool:
    """Whether a style keeps its element's text from a reader's eyes."""
    css = _declarations(style)

    def zero(name: str) -> bool:
        number = _number(css.get(name, ""))
        return number is not None and number <= 0.0

    def far(name: str) -> bool:
        number = _number(css.get(name, ""))
        return number is not None and number <= -_OFF_SCREEN_PX

    tiny_box = (zero("width") or zero("height") or zero("max-height") or zero("max-width")) and (
        css.get("overflow") in ("hidden", "clip")
    )
    clipped = any(
        css.get(name, "").replace(" ", "") in ("rect(0000)", "rect(0,0,0,0)", "inset(50%)",
                                               "inset(100%)", "circle(0)", "polygon(0000)")
        for name in ("clip", "clip-path")
    )  # fmt: skip
    return (
        css.get("display") == "none"
        or css.get("visibility") in ("hidden", "collapse")
        or css.get("content-visibility") == "hidden"
        or zero("opacity")
        or zero("font-size")
        or tiny_box
        or clipped
        or any(far(name) for name in ("left", "top", "right", "margin-left", "text-indent"))
        or css.get("color") in ("transparent", "rgba(0,0,0,0)", "rgba(0, 0, 0, 0)")
        or css.get("transform", "").replace(" ", "") in ("scale(0)", "scale(0,0)")
    )


def _hiding_selectors(html: str) -> frozenset[str]:
    """The `.class`, `#id` and tag selectors whose rules in a `<style>` element hide."""
    selectors: set[str] = set()
    for sheet in re.findall(r"<style\b[^>]*>(.*?)</style\s*>", html, re.DOTALL | re.IGNORECASE):
        sheet = re.sub(r"/\*.*?\*/", " ", sheet, flags=re.DOTALL)
        for names, body in re.findall(r"([^{}]+)\{([^{}]*)\}", sheet):
            if _hides(body):
                selectors.update(name.strip().lower() for name in names.split(","))
    return frozenset(selectors)


class _Page(HTMLParser):
    """One walk of the rendered HTML: the visible text, and each hidden passage."""

    def __init__(self, hiding: frozenset[str], html5_comments: bool) -> None:
        super().__init__(convert_charrefs=True)
        self._hiding = hiding
        self._html5_comments = html5_comments  # the source holds "<!--" as it is written
        self._open: list[tuple[str, bool]] = []  # (tag, hides) of each open element
        self._hiders = 0  # how many of them hide
        self._literal = 0  # how many of them show their text as written (code)
        self._opened: Counter[str] = Counter()  # how many of each tag are open
        self._shown: list[str] = []
        self._veiled: list[str] = []  # the text of the outermost hidden element so far
        self.hidden: list[tuple[str, str]] = []

    def visible(self) -> str:
        return "".join(self._shown)

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

    def _element_hides(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        named = dict(attrs)
        selectors = {tag} | {f".{c}" for c in (named.get("class") or "").lower().split()}
        if named.get("id"):
            selectors.add(f"#{(named['id'] or '').lower()}")
        return (
            tag in _NEVER_SHOWN
            or "hidden" in named
            or (named.get("type") or "").lower() == "hidden"
            or _hides(named.get("style") or "")
            or bool(selectors & self._hiding)
        )

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(attrs)
        if tag in _BLOCK and not self._veiling:
            self._shown.append("\n")
        if tag in _VOID:
            return
        hides = self._element_hides(tag, attrs)
        self._open.append((tag, hides))
        self._hiders += hides
        self._literal += tag in _LITERAL
        self._opened[tag] += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(attrs)
        if tag in _BLOCK and not self._veiling:
            self._shown.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if not self._opened[tag]:
            return  # an end tag nothing opened: a browser ignores it
        was_veiling = self._veiling
        while self._open:
            name, hides = self._open.pop()
            self._hiders -= hides
            self._literal -= name in _LITERAL
            self._opened[name] -= 1
            if name == tag:
                break
        if was_veiling and not self._veiling:
            self._passage(HIDDEN_ELEMENT, "".join(self._veiled))
            self._veiled = []
        if tag in _BLOCK and not self._veiling:
            self._shown.append("\n")

    def handle_data(self, data: str) -> None:
        if self._veiling:
            self._veiled.append(data)
            return
        if self._html5_comments and "<!--" in data and not self._literal:
            # a comment by HTML's rule that CommonMark's stricter one left as text
            # (`<!--- x --->`): a browser shown the raw HTML hides it
            shown, _, rest = data.partition("<!--")
            comment, closed, after = rest.partition("-->")
            self._shown.append(shown)
            self._passage(COMMENT, comment.strip("-"))
            if closed:
                self.handle_data(after)
            return
        self._shown.append(data)

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
            self._open, self._hiders, self._literal = [], 0, 0
            self._opened.clear()


def _tidy(text: str) -> str:
    """Spaces collapsed within lines, runs of blank lines to one, blank edges dropped."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
