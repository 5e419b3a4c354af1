"""JUnit XML, rendered from the JSON report, for CI tools that show test results
(GitLab's test reports, Jenkins, GitHub check annotators).

One testsuite per dataset; in it one testcase per row, failing when the row misses a
threshold or could not be scored (the message names the scores and the row's worst unit),
and one testcase per score the gate checked (its threshold, or its rows in error; a failing
answers check says the dataset's declines in words). A run that
did not finish adds a suite `ground-gate` with one error. Everything from the data is
untrusted text: XML escapes it, and characters XML 1.0 cannot carry (control characters,
lone surrogates, U+FFFE/U+FFFF) become U+FFFD.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping

from ground_gate.config.scores import ANSWERED_SIDES, METRIC_OF_SCORE
from ground_gate.render.escape import shown_id
from ground_gate.report.types import DatasetEntry, Report, RowEntry, ScoreEntry, ThresholdBounds
from ground_gate.review import words
from ground_gate.review.evidence_words import evidence_said
from ground_gate.review.figures import missed_text, value_text
from ground_gate.review.review import Review
from ground_gate.review.selection import shown_units
from ground_gate.review.words import answer_words, failure_text, probabilities, unit_verdict

# Report: a report.types.Report held as the plain dict it is (built, or read from a file)
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
MESSAGE_CHARS = 500  # a failure's message attribute; the element's text carries it all
UNIT_CHARS = 200


def xml_text(text: str) -> str:
    """`text` with every character XML 1.0 forbids replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def _element(parent: ET.Element, tag: str, **attributes: str) -> ET.Element:
    return ET.SubElement(parent, tag, {k: xml_text(v) for k, v in attributes.items()})


def _missed(row: RowEntry, thresholds: Mapping[str, ThresholdBounds | None]) -> list[str]:
    """Each score the row fails: its value against the threshold with the decimals that make
    it read true ("hallucination 0.084 > 0.08"), or the metric's error."""
    values = {k: v for m in row["metrics"].values() for k, v in m["scores"].items()}
    out = []
    for score in row["failing"]:
        if score in values:
            limit = thresholds.get(score)
            out.append(
                f"{score} {value_text(values[score], limit)}{missed_text(values[score], limit)}"
            )
        else:
            metric = row["metrics"].get(METRIC_OF_SCORE.get(score, ""))
            error = (metric and metric["error"]) or "error"
            out.append(words.NOT_SCORED.format(score=score, error=error))
    return out


def _worst_unit(row: RowEntry) -> str | None:
    """The lowest-scored of the units the report shows for the row (bad verdicts first)."""
    candidates = []
    for name, indices in shown_units(row).items():
        units = row["metrics"][name]["units"]
        for index in indices or range(len(units)):
            unit = units[index]
            if unit["score"] is not None:
                candidates.append((unit["score"], name, unit))
    if not candidates:
        return None
    _, name, unit = min(candidates, key=lambda c: c[0])
    text = unit["text"] if len(unit["text"]) <= UNIT_CHARS else unit["text"][:UNIT_CHARS] + "..."
    said = f'worst sentence ({name}, {unit_verdict(unit)}): "{text}"'
    if probabilities(unit):
        said += f" ({probabilities(unit)})"
    evidence = evidence_said(unit)
    if evidence is not None:
        what, quote = evidence
        said += f'; {what}: "{quote}"' if quote else f"; {what}"
    return said


def _row_case(
    suite: ET.Element, row: RowEntry, thresholds: Mapping[str, ThresholdBounds | None]
) -> bool:
    case = _element(
        suite,
        "testcase",
        classname=row["dataset"],
        name=shown_id(row["id"]),
        time=f"{row['seconds']:.3f}",
    )
    if not row["failing"]:
        return False
    parts = _missed(row, thresholds)
    worst = _worst_unit(row)
    message = "; ".join(parts) + (f"; {worst}" if worst else "")
    failure = _element(case, "failure", type="threshold", message=message[:MESSAGE_CHARS])
    failure.text = xml_text("\n".join([*parts, *([worst] if worst else [])]))
    return True


def _score_case(suite: ET.Element, entry: ScoreEntry, answers: str) -> bool:
    case = _element(
        suite, "testcase", classname=entry["dataset"], name=f"threshold {entry['score']}", time="0"
    )
    if entry["passed"] is not False:
        return False
    said = failure_text(entry)  # which part failed: the level, the drop, or both
    if answers and entry["score"] in ANSWERED_SIDES:
        said += f"; {answers}"
    _element(case, "failure", type="threshold", message=said[:MESSAGE_CHARS]).text = xml_text(said)
    return True


def _suite(
    root: ET.Element, report: Report, review: Review, dataset: DatasetEntry
) -> tuple[int, int]:
    name = dataset["name"]
    rows = [r for r in report["rows"] if r["dataset"] == name]
    entries = [e for e in report["scores"] if e["dataset"] == name and e["passed"] is not None]
    thresholds = {e["score"]: e["threshold"] for e in entries}
    suite = _element(root, "testsuite", name=name)
    failures = sum(_row_case(suite, row, thresholds) for row in rows)
    counted = [c for c in review.answers if c.dataset == name]
    answers = answer_words(counted[0]) if counted else ""
    failures += sum(_score_case(suite, entry, answers) for entry in entries)
    tests = len(rows) + len(entries)
    seconds = sum(r["seconds"] for r in rows)
    for key, value in (("tests", tests), ("failures", failures), ("errors", 0), ("skipped", 0)):
        suite.set(key, str(value))
    suite.set("time", f"{seconds:.3f}")
    return tests, failures


def _incomplete(root: ET.Element, reason: str) -> None:
    suite = _element(
        root, "testsuite", name="ground-gate", tests="1", failures="0", errors="1", skipped="0"
    )
    case = _element(suite, "testcase", classname="ground-gate", name="run completed", time="0")
    _element(case, "error", type="incomplete", message=reason[:MESSAGE_CHARS]).text = xml_text(
        reason
    )


def render_junit(report: Report, review: Review) -> str:
    """The report as JUnit XML (the common schema: testsuites > testsuite > testcase >
    failure/error, with tests/failures/errors counts)."""
    root = ET.Element("testsuites", {"name": "ground-gate"})
    tests = failures = 0
    for dataset in report["datasets"]:
        counts = _suite(root, report, review, dataset)
        tests, failures = tests + counts[0], failures + counts[1]
    errors = 0
    if report["incomplete"]:
        _incomplete(root, report["incomplete"])
        tests, errors = tests + 1, 1
    for key, value in (("tests", tests), ("failures", failures), ("errors", errors)):
        root.set(key, str(value))
    root.set("time", f"{report['seconds']:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
