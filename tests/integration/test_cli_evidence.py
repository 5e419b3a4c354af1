"""Evidence quotes cost one judge call each: by default only the units the report shows get one.

The acceptance measurement of issue 11 (item 4) through `ground-gate run` against the scripted
OpenAI-compatible server: 40 failing rows of 2 unsupported sentences each.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from tests.integration.fake_openai import (
    FakeOpenAI,
    Reply,
    completion,
    error,
    fills_a_blank,
    inner,
    judge_yaml,
    says_something,
    states_a_fact,
)

ROWS = 40


def judge(body: Any) -> Reply:
    """Every sentence rated 0-2 out of 10 (row n a little less badly than row n - 1);
    an evidence request is answered with the passage of the row's own source that names the
    sentence's row, so a quote asked for the wrong sentence or row is not in its source."""
    prompt = body["messages"][-1]["content"]
    if (said := states_a_fact(body)) is not None:
        return said
    sentence = inner("sentence", prompt)
    if "Copy, word for word" in prompt:
        number = re.findall(r"\d+", sentence)[0]
        return completion(f"Parcel {number} is held at the depot")
    row = int(re.findall(r"\d+", sentence)[0])
    p_two = (row + 1) / (ROWS + 10)
    if "Yes, No or Unknown" in prompt:  # method verdict: not in the source, P(yes) by row
        top = {"Unknown": math.log(1 - p_two), "Yes": math.log(p_two)}
        return completion("Unknown", logprobs=[top], completion_tokens=1)
    assert "0 to 10" in prompt, prompt
    return completion(
        "0", logprobs=[{"0": math.log(1 - p_two), "2": math.log(p_two)}], completion_tokens=1
    )


def write_project(
    root: Path, url: str, evidence: str | None, *, cache: bool = False, method: str = "rating"
) -> Path:
    rows = [
        {
            "id": f"row-{i:02d}",
            "context": f"We ship in the EU. Parcel {i} is held at the depot.",
            "response": f"Parcel {i} goes to Mars. It lands on day {i}.",
        }
        for i in range(ROWS)
    ]
    (root / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    policy = (
        f"{{method: {method}}}"
        if evidence is None
        else f"{{method: {method}, evidence: {evidence}}}"
    )
    config = root / "gate.yml"
    config.write_text(
        "version: 1\n"
        + judge_yaml(url, max_retries=1, timeout_s=5, cache_dir=(root / "cache") if cache else None)
        + f"""datasets:
  - {{name: support, path: rows.jsonl}}
metrics:
  groundedness: {policy}
thresholds:
  groundedness: {{min: 0.5}}
""",
        encoding="utf-8",
    )
    return config


def invoke(config: Path) -> tuple[Any, dict[str, Any], str]:
    out_json, out_md = config.parent / "report.json", config.parent / "report.md"
    result = CliRunner().invoke(
        cli,
        ["run", "-c", str(config), "--output-json", str(out_json), "--output-md", str(out_md)],
        env={"FAKE_KEY": "k"},
    )
    assert "Traceback" not in result.output, result.output
    return (
        result,
        json.loads(out_json.read_text(encoding="utf-8")),
        out_md.read_text(encoding="utf-8"),
    )


SHOWN = re.compile(
    r"^- groundedness: \u201c(?P<text>.*?)\u201d \*(?P<verdict>.*?)\*(?: \(.*?\))?"
    r"(?:; (?:the judge's evidence|closest source sentence \(supports nothing\)): "
    r"\u201c(?P<quote>.*)\u201d|; (?P<none>the source says nothing about this))?$"
)


def shown_units(markdown: str) -> list[tuple[str, str, str]]:
    """(verdict, text, evidence) of every sentence the Worst rows list."""
    section = markdown.split("<summary>Worst rows")[1].split("</details>")[0]
    found = [SHOWN.match(line) for line in section.splitlines()]
    return [
        (m["verdict"], m["text"], m["quote"] or m["none"] or "") for m in found if m is not None
    ]


def purposes(server: FakeOpenAI) -> list[str]:
    """Each request's kind: a quote of evidence, the question whether a sentence not in the
    source states a fact at all, one fact of a sentence blanked out, or the sentence's rating
    or verdict."""

    def kind(prompt: str) -> str:
        if "Copy, word for word" in prompt:
            return "evidence"
        if fills_a_blank(prompt):
            return "blank"
        return "fact" if says_something(prompt) else "rate"

    return [kind(r.body["messages"][-1]["content"]) for r in server.requests]


@pytest.mark.parametrize(
    # every sentence is rated 0-2 of 10; the verdict says Unknown while P(yes) < 0.5: rows 0-23
    # with the verdict method each row's "Mars", a name its source does not hold, is asked of
    # the judge blanked out (the fake finds no other value: the verdict stands)
    ("method", "verdict", "facts", "blanks"),
    [("rating", "unsupported", 80, 0), ("verdict", "not in source", 48, 40)],
)
def test_run__default_quotes_evidence_only_for_the_units_the_comment_shows(
    tmp_path, method, verdict, facts, blanks
):
    with FakeOpenAI(handler=judge) as server:
        result, report, markdown = invoke(write_project(tmp_path, server.url, None, method=method))
        calls = purposes(server)
    assert result.exit_code == 1, result.output
    assert report["status"] == "failed"
    # each sentence not in its source is asked whether it states a fact (each does)
    assert [calls.count(k) for k in ("rate", "fact", "blank", "evidence")] == [
        80,
        facts,
        blanks,
        20,
    ]
    units = shown_units(markdown)
    assert len(units) == 20  # 10 worst rows, both sentences each
    assert all(u[0] == verdict for u in units)
    # each quote was asked for its own sentence, and is its own row's source, word for word
    rows = [re.findall(r"\d+", u[1])[0] for u in units]
    assert [u[2] for u in units] == [f"Parcel {n} is held at the depot." for n in rows]
    assert report["evidence"] == {"policy": "shown", "units": 20, "problem": None}
    quoted = [
        r["id"] for r in report["rows"] if r["metrics"]["groundedness"]["units"][0]["evidence"]
    ]
    assert quoted == [f"row-{i:02d}" for i in range(10)]  # the worst ten (lowest ratings)
    # the evidence calls are counted in the row's groundedness usage and in the totals
    assert report["usage"]["total"]["calls"] == 100 + facts + blanks
    first, last = (6, 4) if method == "rating" else (7, 3)  # the verdict's: + 1 blank a row
    assert report["rows"][0]["metrics"]["groundedness"]["usage"]["calls"] == first
    assert report["rows"][39]["metrics"]["groundedness"]["usage"]["calls"] == last


@pytest.mark.parametrize(
    ("policy", "rate", "evidence", "quoted"),
    [("unsupported", 80, 80, 80), ("none", 80, 0, 0), ("all", 80, 80, 80)],
)
def test_run__other_evidence_policies_mean_what_they_say(tmp_path, policy, rate, evidence, quoted):
    with FakeOpenAI(handler=judge) as server:
        result, report, markdown = invoke(write_project(tmp_path, server.url, policy))
        calls = purposes(server)
    assert result.exit_code == 1, result.output
    assert (calls.count("rate"), calls.count("evidence")) == (rate, evidence)
    assert calls.count("fact") == 80  # whatever the policy: each sentence not in its source
    assert report["evidence"] == {"policy": policy, "units": quoted, "problem": None}
    units = shown_units(markdown)
    assert len(units) == 20
    assert all(bool(u[2]) == (policy != "none") for u in units)


def _without_timings(report: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in report.items() if k not in ("created_at", "seconds", "usage")}
    out["rows"] = [
        {
            **{k: v for k, v in row.items() if k != "seconds"},
            "metrics": {
                name: {k: v for k, v in m.items() if k != "usage"}
                for name, m in row["metrics"].items()
            },
        }
        for row in report["rows"]
    ]
    return out


def test_run__a_rerun_from_the_cache_makes_no_call_and_gives_the_same_report(tmp_path):
    with FakeOpenAI(handler=judge) as server:
        config = write_project(tmp_path, server.url, None, cache=True)
        _, first, first_md = invoke(config)
        assert server.request_count == 180
        result, again, again_md = invoke(config)
        assert server.request_count == 180
    assert result.exit_code == 1
    assert _without_timings(again) == _without_timings(first)
    assert again["usage"]["total"]["calls"] == 0
    assert again["usage"]["total"]["cache_hits"] == 180
    assert shown_units(again_md) == shown_units(first_md)


def test_run__a_judge_failing_on_evidence_keeps_the_scores_and_the_verdict(tmp_path):
    def no_quotes(body: Any) -> Reply:
        if "Copy, word for word" in body["messages"][-1]["content"]:
            return error(401, "Incorrect API key provided", error_type="invalid_request_error")
        return judge(body)

    with FakeOpenAI(handler=no_quotes) as server:
        result, report, markdown = invoke(write_project(tmp_path, server.url, None))
        calls = purposes(server)
    assert calls.count("rate") == 80
    assert calls.count("evidence") < 20  # no call once the judge refused one
    assert result.exit_code == 1, result.output  # the gate's own verdict, not "incomplete"
    assert (report["status"], report["incomplete"]) == ("failed", None)
    assert len(report["rows"]) == ROWS
    assert report["evidence"]["units"] == 0
    assert "unavailable" in report["evidence"]["problem"]
    assert "ground-gate: warning: 20 evidence quote(s) for the report are missing" in result.stderr
    assert "the scores and the gate verdict do not use them" in result.stderr
    assert len(shown_units(markdown)) == 20
