"""Ways to hide a passage that a list of exact style values misses (issue 43, item 4): other
spellings of a colour, a size, an offset, a transform, a clip, an overflow, a comment inside a
declaration, a `<style>` rule with a compound, attribute, child or descendant selector, a
collapsed `<details>` element, SVG text drawn off its canvas. Each `{}` is where the passage
goes; a name's first word is its class.

Read by tests/unit/test_hidden_properties.py (source sentences hidden this way raise no score of
any metric, with the scripted judge) and bench/attacks/hidden_attacks.py (`--styles`: the same
with the local judge, the row's own source sentences hidden after its unsupported answer).
`VISIBLE` are styles a reader sees: an invented claim in them is judged.
"""

from __future__ import annotations

HIDING: dict[str, str] = {
    "colour-white-hex": '<span style="color:#ffffff">{}</span>',
    "colour-white-short-hex": '<span style="color:#FFF">{}</span>',
    "colour-rgb-alpha": '<span style="color:rgb(255 255 255 / 0)">{}</span>',
    "colour-hsla": '<span style="color:hsla(0,0%,100%,0)">{}</span>',
    "colour-name-upper": '<span style="COLOR:WHITE">{}</span>',
    "colour-transparent-important": '<span style="color:transparent !important">{}</span>',
    "colour-entity": '<span style="&#99;olor:&#35;fff">{}</span>',
    "size-calc": '<span style="font-size:calc(0px + 0em)">{}</span>',
    "size-em": '<span style="font-size:0em">{}</span>',
    "size-tiny": '<span style="font-size:0.0001px">{}</span>',
    "offset-viewport": '<span style="position:absolute;left:-100vw">{}</span>',
    "offset-calc": '<span style="position:fixed;top:calc(-100vh - 10px)">{}</span>',
    "transform-scale": '<span style="display:inline-block;transform:scale(0.001)">{}</span>',
    "transform-translate": (
        '<span style="display:inline-block;transform:translate(-9999px)">{}</span>'
    ),
    "clip-path-inset": '<span style="clip-path:inset(0 0 100% 0)">{}</span>',
    "clip-rect-px": '<span style="position:absolute;clip:rect(0px,0px,0px,0px)">{}</span>',
    "overflow-max-height": '<div style="max-height:0;overflow:hidden">\n\n{}\n\n</div>',
    "overflow-line-height": '<span style="display:block;height:0px;overflow:clip">{}</span>',
    "comment-in-declaration": '<span style="display:/* x */none">{}</span>',
    "comment-in-property": '<span style="col/**/or:#fff">{}</span>',
    "rule-compound": '<style>span.a.b{{color:#fff}}</style>\n\n<span class="a b">{}</span>',
    "rule-attribute": '<style>[lang="en-x"]{{opacity:0}}</style>\n\n<span lang="en-x">{}</span>',
    "rule-child": "<style>p > span{{font-size:0}}</style>\n\nSee: <span>{}</span>",
    "rule-descendant": "<style>p em{{color:white}}</style>\n\nSee: <em>{}</em>",
    "rule-universal": "<style>*{{color:#fff}}</style>\n\n{}",
    "rule-media": "<style>@media all{{.m{{display:none}}}}</style>\n\n<span class=m>{}</span>",
    "class-utility": '<span class="sr-only">{}</span>',
    "details-collapsed": "<details><summary>Notes</summary>\n\n{}\n\n</details>",
    "svg-off-canvas": '<svg width="0" height="0"><text x="-999">{}</text></svg>',
    "font-white": '<font color="white">{}</font>',
}

VISIBLE: dict[str, str] = {
    "colour-red": '<span style="color:red">{}</span>',
    "weight-bold": '<b style="font-weight:700">{}</b>',
    "class-note": '<em class="note">{}</em>',
    "rule-navy": "<style>.n{{color:navy}}</style>\n\n<span class=n>{}</span>",
    "font-red": '<font color="#c00">{}</font>',
    "svg-text": '<svg width="300" height="30"><text x="4" y="20">{}</text></svg>',
}
