"""What styling can do to an answer's text: hide it surely, or perhaps.

A gate that lays out no page cannot tell every way CSS hides text (a colour written five ways,
a size in `calc()`, a transform, a clip, an offset, a rule with a child selector...). So it
tells two things only, and fails closed on the rest (metrics/hidden.py's third kind):

- `hides`: a declaration block that surely hides its element (display none, opacity 0, a
  font size of 0...): its text is hidden, as a comment is;
- `Sheet`: the rules of an answer's `<style>` elements, read into the simple selectors
  (`.class`, `#id`, a tag) whose rules surely hide, those whose rules style in some other
  way, and whether any rule could reach every element (a compound, attribute, child or
  descendant selector, `*`, `body`, an at-rule, anything not read): then all of the answer's
  text is of uncertain visibility.

An element styled in any way these do not settle (a `style` attribute, a class, a rule that
could match it, a presentational attribute) holds text whose visibility the gate cannot
establish; hidden.py takes it out or keeps it, whichever scores the row worse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


def _words(names: str) -> frozenset[str]:
    return frozenset(names.split())


UNCERTAIN = "styled text of uncertain visibility"  # the kind hidden.py records it under
HIDES, DOUBTS, SHOWS = "hides", "doubts", "shows"  # what an element does to its text

# elements whose content is never displayed; in SVG, those that draw no text of their own;
# in MathML, a phantom and the annotations a formula carries
_NEVER_SHOWN = _words(
    "script style template head title noscript noembed noframes iframe object datalist "
    "annotation annotation-xml mphantom"
)
_SVG_UNSHOWN = _words(
    "title desc metadata defs symbol clippath mask pattern marker lineargradient "
    "radialgradient filter"
)
# elements whose text shows or not by a layout the gate does not make: SVG (where its text
# sits, its fill, its size), a select's options, scrolling text, fallbacks, MathML's actions
_MAY_HIDE = _words("svg select marquee rp video audio canvas maction mpadded")
# attributes that style an element without CSS (HTML's presentation, SVG's, MathML's)
_PRESENTATION = _words(
    "color bgcolor text size face fill fill-opacity stroke opacity visibility display "
    "transform font-size clip-path mask mathcolor mathbackground mathsize"
)
# declarations that cannot hide text, with the values that cannot
_HARMLESS = {
    "text-align": r"left|right|center|justify|start|end",
    "font-weight": r"bold|bolder|lighter|normal|[1-9]00",
    "font-style": r"italic|normal",
}
_SMALL_PX = 8.0  # a width or height attribute under this leaves no room for a line of text
_COMMENT = re.compile(r"/\*.*?(\*/|$)", re.DOTALL)
_NUMBER = re.compile(r"^(-?\d*\.?\d+)\s*([a-z%]*)")
_OFF_SCREEN_PX = 500.0  # a position, margin or indent this far negative puts a box off screen
_CLIPS = ("rect(0000)", "rect(0,0,0,0)", "inset(50%)", "inset(100%)", "circle(0)", "polygon(0000)")
# a selector that names one kind of element and nothing around it
_SIMPLE = re.compile(r"^([.#]?)([a-z_][a-z0-9_-]*)$")
# elements every text of a rendered answer sits in: a rule on them reaches all of it
_EVERYWHERE = frozenset({"html", "body", "main", "article", "section"})
_STYLE_ELEMENT = re.compile(r"<style\b[^>]*>(.*?)(?:</style\s*>|$)", re.DOTALL | re.IGNORECASE)
_LINKED_SHEET = re.compile(r"<link\b[^>]*\bstylesheet\b", re.IGNORECASE)


def declarations(style: str) -> dict[str, str]:
    """A declaration block's declarations, property to value, lower case, comments out."""
    found = {}
    for declaration in _COMMENT.sub(" ", style).split(";"):
        name, _, value = declaration.partition(":")
        if value:
            found[name.strip().lower()] = " ".join(value.lower().replace("!important", "").split())
    return found


def styles(style: str | None) -> bool:
    """Whether a declaration block says anything that could hide its text: anything but
    comments, blanks and declarations that cannot (a table cell's alignment, as markdown
    writes it; a weight; a slant)."""
    if not style or not _COMMENT.sub("", style).strip(" \t\r\n\f;"):
        return False
    pieces = [d for d in _COMMENT.sub(" ", style).split(";") if d.strip()]
    css = declarations(style)
    harmless = len(css) == len(pieces) and all(
        name in _HARMLESS and re.fullmatch(_HARMLESS[name], value) for name, value in css.items()
    )
    return not harmless


def _number(value: str) -> float | None:
    match = _NUMBER.match(value.strip())
    return float(match.group(1)) if match else None


def hides(style: str) -> bool:
    """Whether a declaration block surely keeps its element's text from a reader's eyes."""
    css = declarations(style)

    def zero(name: str) -> bool:
        number = _number(css.get(name, ""))
        return number is not None and number <= 0.0

    def far(name: str) -> bool:
        number = _number(css.get(name, ""))
        return number is not None and number <= -_OFF_SCREEN_PX

    tiny_box = (zero("width") or zero("height") or zero("max-height") or zero("max-width")) and (
        css.get("overflow") in ("hidden", "clip")
    )
    clipped = any(css.get(name, "").replace(" ", "") in _CLIPS for name in ("clip", "clip-path"))
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


@dataclass(frozen=True)
class Sheet:
    """An answer's style sheets as the gate can read them.

    hiding: simple selectors whose rules surely hide; styling: simple selectors whose rules
    style in another way; everything: a rule could reach any element (or a sheet is linked)."""

    hiding: frozenset[str] = frozenset()
    styling: frozenset[str] = frozenset()
    everything: bool = False

    def hides(self, selectors: Iterable[str]) -> bool:
        return any(s in self.hiding for s in selectors)

    def styles(self, selectors: Iterable[str]) -> bool:
        return self.everything or any(s in self.styling for s in selectors)


def read_sheets(html: str) -> Sheet:
    """The `<style>` elements of rendered HTML (one never closed runs to the end, as in a
    browser) read into a `Sheet`; a linked style sheet styles everything."""
    hiding: set[str] = set()
    styling: set[str] = set()
    everything = bool(_LINKED_SHEET.search(html))
    for sheet in _STYLE_ELEMENT.findall(html):
        sheet = _COMMENT.sub(" ", sheet)
        rules = re.findall(r"([^{}]*)\{([^{}]*)\}", sheet)
        leftover = re.sub(r"[^{}]*\{[^{}]*\}", "", sheet)
        if leftover.strip() or "@" in sheet or "\\" in sheet:
            everything = True  # an at-rule, a nested block, an escape, text read as no rule
        for names, body in rules:
            if not styles(body):
                continue
            selectors = [name.strip().lower() for name in names.split(",")]
            if not all(_simple(s) for s in selectors):
                everything = True
            (hiding if hides(body) else styling).update(selectors)
    return Sheet(frozenset(hiding), frozenset(styling), everything)


def _simple(selector: str) -> bool:
    match = _SIMPLE.match(selector)
    return match is not None and not (match.group(1) == "" and match.group(2) in _EVERYWHERE)


def styling(tag: str, attrs: list[tuple[str, str | None]], sheet: Sheet, *, in_svg: bool) -> str:
    """What an element does to its text: HIDES (surely), DOUBTS (it may hide it: the gate
    cannot tell), or SHOWS (nothing about it can hide its text)."""
    names = {name for name, _ in attrs}
    values = [(name, value or "") for name, value in attrs]
    inline = [value for name, value in values if name == "style"]
    selectors = {tag} | {f".{c}" for n, v in values if n == "class" for c in v.lower().split()}
    selectors |= {f"#{v.strip().lower()}" for n, v in values if n == "id" and v.strip()}
    if (
        tag in _NEVER_SHOWN
        or (in_svg and tag in _SVG_UNSHOWN)
        or names & {"hidden", "popover"}
        or (tag == "dialog" and "open" not in names)
        or any(n == "type" and v.strip().lower() == "hidden" for n, v in values)
        or any(hides(style) for style in inline)
        or sheet.hides(selectors)
    ):
        return HIDES
    if (
        tag in _MAY_HIDE
        or any(styles(style) for style in inline)
        or any(n == "class" and _styling_class(tag, v) for n, v in values)
        or sheet.styles(selectors)
        or any(n in _PRESENTATION and v.strip() for n, v in values)
        or any(n in ("width", "height") and _small(v) for n, v in values)
    ):
        return DOUBTS
    return SHOWS


def _styling_class(tag: str, value: str) -> bool:
    """Whether a class could style its element: any, but the language markdown names on a
    fenced block's code (`language-html`), there for highlighting."""
    names = value.split()
    return bool(names) and not (tag == "code" and all(n.startswith("language-") for n in names))


def _small(value: str) -> bool:
    number = _number(value)
    return number is not None and number < _SMALL_PX
