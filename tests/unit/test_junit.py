"""JUnit XML from the JSON report: the whole document, escaping, and the counts."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ground_gate.render.junit import xml_text
from tests.rendered import render_junit
from tests.unit.test_report import report


def test_render_junit__the_whole_document() -> None:
    assert render_junit(report()) == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="ground-gate" tests="6" failures="5" errors="0" time="3.500">\n'
        '  <testsuite name="support" tests="6" failures="5" errors="0" skipped="0" time="3.500">\n'
        '    <testcase classname="support" name="ok-1" time="1.500" />\n'
        '    <testcase classname="support" name="bad|&lt;b&gt;@team&lt;/b&gt;" time="2.000">\n'
        '      <failure type="threshold" message="groundedness 0.20 &lt; 0.80; '
        "summary_hallucination could not be scored: summary_accuracy.questions: invalid JSON; "
        "worst sentence (groundedness, unsupported): &quot;We ship to | Mars &lt;script&gt;&quot;; "
        'the source says nothing about this">groundedness 0.20 &lt; 0.80\n'
        "summary_hallucination could not be scored: summary_accuracy.questions: invalid JSON\n"
        'worst sentence (groundedness, unsupported): "We ship to | Mars &lt;script&gt;"; '
        "the source says nothing about this</failure>\n"
        "    </testcase>\n"
        '    <testcase classname="support" name="threshold groundedness" time="0">\n'
        '      <failure type="threshold" message="0.57 &lt; min 0.80">'
        "0.57 &lt; min 0.80</failure>\n"
        "    </testcase>\n"
        '    <testcase classname="support" name="threshold agreement" time="0">\n'
        '      <failure type="threshold" message="1 row(s) could not be scored">'
        "1 row(s) could not be scored</failure>\n"
        "    </testcase>\n"
        '    <testcase classname="support" name="threshold summary_hallucination" time="0">\n'
        '      <failure type="threshold" message="1 row(s) could not be scored">'
        "1 row(s) could not be scored</failure>\n"
        "    </testcase>\n"
        '    <testcase classname="support" name="threshold summary_contradiction" time="0">\n'
        '      <failure type="threshold" message="1 row(s) could not be scored">'
        "1 row(s) could not be scored</failure>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n"
    )


def counts(xml: str) -> tuple[int, int, int]:
    root = ET.fromstring(xml)
    failing_rows = sum(
        1
        for case in root.iter("testcase")
        if case.find("failure") is not None and not case.get("name", "").startswith("threshold ")
    )
    return int(root.get("tests", "-1")), int(root.get("failures", "-1")), failing_rows


def test_render_junit__counts_the_failing_rows() -> None:
    built = report()
    tests, failures, failing_rows = counts(render_junit(built))
    assert failing_rows == sum(1 for r in built["rows"] if r["failing"]) == 1
    checked = sum(1 for e in built["scores"] if e["passed"] is not None)
    assert tests == len(built["rows"]) + checked
    assert failures == failing_rows + sum(1 for e in built["scores"] if e["passed"] is False)


def test_render_junit__untrusted_text_stays_well_formed_xml() -> None:
    built = report()
    hostile = 'a\x00b\x1b[31m\x0c"<\ud800>&\ufffe\uffff]]>\r\n\U0001f600'
    built["rows"][1]["id"] = hostile
    built["rows"][1]["metrics"]["groundedness"]["units"][0]["text"] = hostile
    built["datasets"][0]["name"] = built["scores"][0]["dataset"] = hostile
    for row in built["rows"]:
        row["dataset"] = hostile
    for entry in built["scores"]:
        entry["dataset"] = hostile
    xml = render_junit(built)
    root = ET.fromstring(xml)  # parses: no character XML 1.0 forbids is left
    case = root.findall("testsuite/testcase")[1]
    cleaned = 'a\ufffdb\ufffd[31m\ufffd"<\ufffd>&\ufffd\ufffd]]>\r\n\U0001f600'
    # the id as every renderer shows it (escape.shown_id): quoted, each unseen character escaped
    shown = '"a\\u0000b\\u001b[31m\\u000c\\"<\\ud800>&\\ufffe\\uffff]]>\\r\\n\U0001f600"'
    assert case.get("name") == shown
    assert root.find("testsuite").get("name") == cleaned
    assert "]]>" not in xml.replace("]]&gt;", "")


def test_render_junit__an_incomplete_run_is_one_error() -> None:
    built = report()
    built["incomplete"] = "the judge is unavailable: connection refused \x07"
    root = ET.fromstring(render_junit(built))
    assert root.get("errors") == "1"
    error = root.find("testsuite[@name='ground-gate']/testcase/error")
    assert error is not None
    assert error.get("message") == "the judge is unavailable: connection refused \ufffd"


def test_xml_text__keeps_what_xml_allows() -> None:
    assert xml_text("tab\there\nline\r\u00e9\U0001f600") == "tab\there\nline\r\u00e9\U0001f600"
    assert xml_text("\x00\x08\x0b\x1f\ud83d\ufffe") == "\ufffd" * 6
