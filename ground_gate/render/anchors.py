"""Where a row is on the page: one anchor per row, the same in the page and in the links the
comment and the terminal give to it.

The anchor is the row's dataset and id, `news/row-17`: readable in a link, and never one of
the page's own element ids (those hold no "/"). In a URL it is percent-encoded, so a row id
from the data (untrusted) cannot end the link or add to it; the page's script decodes the
fragment and opens the row it names.
"""

from __future__ import annotations

from urllib.parse import quote

from ground_gate.render.escape import shown_id
from ground_gate.report.types import RowEntry


def row_key(row: RowEntry) -> str:
    """The row's anchor on the page: '<dataset>/<id>', each as shown (escape.shown_id: ids
    that differ only in whitespace or invisible characters have anchors apart)."""
    return f"{shown_id(row['dataset'])}/{shown_id(row['id'])}"


def row_link(page_url: str, row: RowEntry) -> str:
    """The page's address with the row's anchor: only letters, digits and `-._~/%` after #."""
    return f"{page_url}#{quote(row_key(row), safe='/')}"
