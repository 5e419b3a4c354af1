"""A self-contained page and its safety: the Content-Security-Policy first in <head>, and
untrusted text escaped wherever it lands.

Every string from a report is untrusted (datasets, model outputs, judge replies, or a forged
report): it is HTML-escaped (quotes too) with invisible and bidi characters made visible,
and it only ever lands in text or in a quoted attribute. The policy allows nothing from
outside the file and only the page's own style and script, by their sha256: a `<script>` or
a `<meta>` in the data is text, and would not run or apply if it were not. Pure.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Sequence

from ground_gate.render.escape import visible
from ground_gate.render.html_assets import SCRIPT, STYLE


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def content_security_policy(style: str = STYLE, script: str | None = SCRIPT) -> str:
    """Nothing from outside the file; only the page's own style and script, by their hash."""
    scripts = f"'{_sha256(script)}'" if script is not None else "'none'"
    return (
        f"default-src 'none'; style-src '{_sha256(style)}'; script-src {scripts}; "
        "img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; "
        "form-action 'none'"
    )


def esc(text: str, keep_lines: bool = False) -> str:
    """Untrusted text as HTML text or a quoted attribute value: escaped, quotes included,
    invisible and bidi characters shown as U+FFFD (a document keeps its line breaks and
    tabs; the HTML parser reads a CR or CRLF as one line break, so offsets stay put)."""
    return html.escape(visible(text, "\n\r\t" if keep_lines else ""), quote=True)


def page(title: str, body: Sequence[str], script: str | None = SCRIPT) -> str:
    """A whole page: the policy first in <head>, before anything from the data."""
    csp = content_security_policy(STYLE, script)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">',
        # ground-gate's mark: an earlier page is replaced without --force (own_files.py)
        '<meta name="generator" content="ground-gate">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{esc(title)}</title>",
        f"<style>{STYLE}</style>",
        "</head><body>",
        *body,
    ]
    if script is not None:
        parts.append(f"<script>{script}</script>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
