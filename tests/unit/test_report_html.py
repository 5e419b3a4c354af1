"""The HTML page: built from the JSON report alone, every string escaped, nothing from outside
the file allowed. (The page in a real browser: tests/integration/test_report_browser.py.)"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from ground_gate.render.html import SCRIPT, STYLE, marked, source_marks
from ground_gate.render.html_evidence import NOT_QUOTED, NOTHING_SAID, Span
from ground_gate.render.html_page import esc
from ground_gate.render.svg import bin_counts, roc_points
from ground_gate.report.schema import CALIBRATION_SCHEMA_FILE, schema_problems
from tests.rendered import render_html
from tests.report_pages import CONTRADICTED, EVIDENCE, SOURCE, synthetic_report


class Elements(HTMLParser):
    """Every element and attribute of a page, as the browser's tokenizer would see them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def elements(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(page)
    return parser.tags


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_render_html__the_policy_allows_only_the_page_own_style_and_script():
    page = render_html(synthetic_report(4))
    metas = [a for t, a in elements(page) if t == "meta"]
    assert metas[1]["http-equiv"] == "Content-Security-Policy"  # first after the charset
    policy = metas[1]["content"] or ""
    assert policy.startswith("default-src 'none'; ")
    assert f"style-src '{_hash(STYLE)}'" in policy and f"script-src '{_hash(SCRIPT)}'" in policy
    assert "unsafe" not in policy
    assert f"<style>{STYLE}</style>" in page and f"<script>{SCRIPT}</script>" in page


def test_render_html__a_hostile_corpus_adds_no_element_attribute_or_link():
    clean = elements(render_html(synthetic_report(9)))
    page = render_html(synthetic_report(9, hostile=True))
    hostile = elements(page)
    # no element or attribute the page does not make itself: the data changed only text
    assert {(t, n) for t, a in hostile for n in a} <= {(t, n) for t, a in clean for n in a}
    assert not {t for t, _ in hostile} & {"img", "a", "iframe", "object", "embed", "link", "base"}
    assert [t for t, _ in hostile].count("script") == 1
    assert [t for t, _ in hostile].count("style") == 1
    assert [t for t, _ in hostile].count("meta") == 6  # charset, policy, generator, 3 more
    assert not any(name.startswith("on") for _, attrs in hostile for name in attrs)
    assert "\u202e" not in page and "\u2066" not in page  # bidi controls shown as U+FFFD
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page


def test_render_html__every_row_failing_first_with_filter_data():
    report = synthetic_report(12)
    tbodies = [
        a for t, a in elements(render_html(report)) if t == "tbody" and a.get("class") == "row"
    ]
    assert len(tbodies) == 12
    states = [a["data-status"] for a in tbodies]
    assert states == sorted(states)  # "fail" before "pass"
    assert states.count("fail") == sum(1 for r in report["rows"] if r["failing"]) == 3
    failing = json.loads(tbodies[0]["data-failing"] or "")
    assert failing == ["faithfulness", "groundedness"]


def test_render_html__units_marked_in_the_response_and_evidence_in_the_source():
    page = render_html(synthetic_report(4))
    assert f'title="G2 groundedness: contradicted 0.05">{CONTRADICTED}</mark>' in page
    assert f'<mark class="ev" title="G2: the judge&#x27;s evidence">{EVIDENCE}</mark>' in page
    # NOTHING FOUND (row-0001's invented sentence) says what it is, never a misquote
    assert f'<td data-label="in the source"><span class="muted">{esc(NOTHING_SAID)}' in page
    assert "not in the source as quoted" not in page and "NOTHING FOUND" not in page


def _unit(text: str, verdict: str, evidence: str | None = None) -> dict:
    return {"text": text, "score": 0.5, "verdict": verdict, "evidence": evidence, "detail": {}}


def _row(*units: dict) -> dict:
    metric = {"status": "ok", "scores": {}, "error": None, "units": list(units), "usage": {}}
    return {"dataset": "d", "id": "r", "failing": [], "metrics": {"groundedness": metric}}


def test_source_marks__each_highlight_is_its_own_units_and_no_failing_unit_borrows_one():
    row = _row(
        _unit("The X200 weighs 1.2 kg.", "supported", "The X200 laptop weighs 1.2 kg"),
        _unit("The X200 has three HDMI ports.", "contradicted"),  # no quote: its closest
        _unit("It has a one-year warranty.", "not in source", "NOTHING FOUND"),
        _unit("It has one HDMI port.", "supported"),  # supported, no quote: nothing drawn
    )
    marks = source_marks(row, SOURCE)
    assert [(s.kind, s.tag, SOURCE[s.start : s.end]) for s in marks.spans] == [
        ("ev-good", "G1", "The X200 laptop weighs 1.2 kg"),
        ("near", "G2", "The X200 has two USB-C ports and one HDMI port."),
    ]
    assert marks.notes == {
        ("groundedness", 0): "the judge's evidence, highlighted in the source (G1)",
        ("groundedness", 1): (
            "closest source sentence (supports nothing), by word overlap, not the judge's (G2)"
        ),
        ("groundedness", 2): NOTHING_SAID,
    }
    assert marks.label() == (
        "highlighted: the judge's evidence for supported sentences; the closest source "
        "sentences to unsupported ones (they support nothing)"
    )


def test_source_marks__a_quote_that_is_not_in_the_source_is_said_to_be_so():
    marks = source_marks(_row(_unit("It is light.", "unsupported", "weighs 9 tonnes")), "It is.")
    assert marks.spans == [] and marks.notes[("groundedness", 0)].startswith(NOT_QUOTED)


def test_marked__overlapping_spans_share_a_segment_and_text_stays_escaped():
    spans = [Span(0, 5, "ev-good", "G1", "a"), Span(3, 8, "ev", "G2", "b")]
    assert marked("<b>x&yz\n", spans) == (
        '<mark class="ev-good" title="a">&lt;b&gt;</mark>'
        '<mark class="ev" title="a; b">x&amp;</mark><sup class="tag">G1</sup>'
        '<mark class="ev" title="b">yz\n</mark><sup class="tag">G2</sup>'
    )


def test_render_html__a_report_without_texts_still_renders_its_units():
    report = synthetic_report(2)
    for row in report["rows"]:
        del row["text"]
    page = render_html(report)
    assert "does not carry the row's texts" in page and CONTRADICTED in page


def test_svg__bins_and_roc():
    assert bin_counts([0.0, 0.05, 0.5, 1.0, 0.99]) == [2, 0, 0, 0, 0, 1, 0, 0, 0, 2]
    assert roc_points([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 0]) == [
        (0.0, 0.0), (0.0, 0.5), (0.0, 1.0), (0.5, 1.0), (1.0, 1.0),
    ]  # fmt: skip
    assert roc_points([0.5], [1]) == []


def test_cli_report__renders_a_saved_report_as_markdown_and_html(tmp_path: Path):
    report = synthetic_report(6)
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(report), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli, ["report", str(saved), "--md", str(out / "r.md"), "--html", str(out / "r.html")]
    )
    assert result.exit_code == 0, result.output
    assert (out / "r.html").read_text(encoding="utf-8") == render_html(report)
    assert (out / "r.md").read_text(encoding="utf-8").startswith("## \u274c ground-gate: failed")
    stdout = CliRunner().invoke(cli, ["report", str(saved)])
    assert stdout.output == (out / "r.md").read_text(encoding="utf-8")


def test_cli_report__a_file_that_is_not_a_report_is_refused(tmp_path: Path):
    saved = tmp_path / "x.json"
    saved.write_text('{"schema_version": 1}', encoding="utf-8")
    result = CliRunner().invoke(cli, ["report", str(saved), "--html", str(tmp_path / "x.html")])
    assert result.exit_code == 2
    assert re.search(r"does not match the published report schema", result.output)
    assert not (tmp_path / "x.html").exists()


def calibration_json() -> dict:
    from ground_gate.leaves.results import MetricCost
    from ground_gate.leaves.usage import Usage
    from ground_gate.render import calibration as calibration_report
    from ground_gate.verdict.agreement import Labelled, agreement

    values = [(0.95, 1), (0.9, 1), (0.8, 1), (0.7, 0), (0.85, 0), (0.2, 0), (0.6, 1), (0.1, 0)]
    scored = [Labelled(v, y) for v, y in values]
    groups = {"news <b>": [agreement("groundedness", scored, 0, None)]}
    cost = {"groundedness": MetricCost(Usage(calls=16), rows=8)}
    raw = calibration_report.as_json(
        groups,
        cost,
        {"groundedness": Usage(calls=16)},
        8,
        4.0,
        judge={"model": "m"},
        incomplete=None,
        rows_scored=[
            {"group": "news <b>", "id": str(i), "label": y, "scores": {"groundedness": v}}
            for i, (v, y) in enumerate(values)
        ],
    )
    assert schema_problems(raw, name=CALIBRATION_SCHEMA_FILE) == []
    markdown = calibration_report.render(
        groups, cost, {"groundedness": Usage(calls=16)}, 8, 4.0, "m"
    )
    return {"raw": raw, "markdown": markdown, "auc": groups["news <b>"][0].auc}


def test_calibration_page__distributions_and_roc_with_the_markdown_auc(tmp_path: Path):
    from ground_gate.render import calibration as calibration_report

    made = calibration_json()
    raw = made["raw"]
    assert calibration_report.render_saved(raw) == made["markdown"]
    page = calibration_report.render_html(raw)
    auc = f"{made['auc']:.3f}"
    assert f"| {auc}  " in made["markdown"] and f"ROC, AUC {auc}</figcaption>" in page
    tags = [t for t, _ in elements(page)]
    assert tags.count("svg") == 2 and tags.count("polyline") == 2 and "script" not in tags
    assert "circle" in tags  # the suggested threshold on the ROC curve
    assert "news &lt;b&gt;" in page
    assert "### news &lt;b&gt;" in made["markdown"]  # the group's name escaped there too
    assert "script-src 'none'" in page
    saved = tmp_path / "calibration.json"
    saved.write_text(json.dumps(raw), encoding="utf-8")
    result = CliRunner().invoke(cli, ["report", str(saved), "--html", str(tmp_path / "c.html")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "c.html").read_text(encoding="utf-8") == page


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply to be a report"),
        ('{"groups": [], "rows_scored": []}', "not a calibration report"),
    ],
)
def test_cli_report__deep_or_half_a_calibration_is_exit_2_not_a_traceback(
    tmp_path: Path, text: str, expected: str
):
    saved = tmp_path / "x.json"
    saved.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["report", str(saved)])
    assert result.exit_code == 2
    assert expected in result.output
    assert "Traceback" not in result.output


def test_esc__a_document_keeps_its_tabs_and_line_breaks_crlf_included():
    from ground_gate.render.html import esc

    assert esc("col1\tcol2\r\nnext\u202e", keep_lines=True) == "col1\tcol2\r\nnext\ufffd"
    assert esc("a\tb\r\n") == "a\ufffdb\ufffd\ufffd"
