"""`ground-gate run` through the CLI on rows whose answers hide their source's words with styles
a list of exact values misses (issue 43, item 4): real HTTP on 127.0.0.1, the judge scripted by
test_cli_run's grader (supported unless the text mentions Mars)."""

from __future__ import annotations

import json

from ground_gate.config.scores import LOWER_IS_BETTER
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.test_cli_run import grade, invoke, write_project

CONTEXT = "We ship in the EU, free of charge."
ROWS = [
    {"id": "mars", "question": "Shipping?", "contexts": [CONTEXT], "answer": "We ship to Mars."},
    {
        "id": "mars-padded",
        "question": "Shipping?",
        "contexts": [CONTEXT],
        "answer": f'We ship to Mars. <span style="color:#fffffe">{CONTEXT}</span>',
    },
    {
        "id": "eu-styled-claim",
        "question": "Shipping?",
        "contexts": [CONTEXT],
        "answer": f'{CONTEXT} <b style="color:red">We also ship to Mars.</b>',
    },
    {"id": "eu", "question": "Shipping?", "contexts": [CONTEXT], "answer": CONTEXT},
]


def test_run__padding_hidden_by_an_unlisted_style_lifts_no_score_and_the_row_says_so(tmp_path):
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url, rows=ROWS)
        result, report = invoke(config, "--output-md", str(tmp_path / "comment.md"))
    assert result.exit_code == 1, result.output
    rows = {r["id"]: r for r in report["rows"]}
    for metric in ("groundedness", "faithfulness", "summary_accuracy", "rating"):
        clean, padded = rows["mars"]["metrics"][metric], rows["mars-padded"]["metrics"][metric]
        for name, value in padded["scores"].items():  # none better than without the padding
            worse = value >= clean["scores"][name] if name in LOWER_IS_BETTER else None
            assert worse if worse is not None else value <= clean["scores"][name], (metric, name)
        assert padded["uncertain_text"] in ("kept", "removed")
        assert "uncertain_text" not in clean
        styled = rows["eu-styled-claim"]["metrics"][metric]
        assert styled["uncertain_text"] == "kept", metric  # judged: the worse reading
    grounded = rows["mars-padded"]["metrics"]["groundedness"]
    assert grounded["uncertain_text"] == "removed"
    assert (
        grounded["scores"]["groundedness"]
        == rows["mars"]["metrics"]["groundedness"]["scores"]["groundedness"]
    )
    assert rows["mars-padded"]["hidden_text"] == [
        {"field": "response", "kind": "styled text of uncertain visibility", "text": CONTEXT}
    ]
    grounded = rows["eu-styled-claim"]["metrics"]["groundedness"]["scores"]["groundedness"]
    assert grounded < rows["eu"]["metrics"]["groundedness"]["scores"]["groundedness"]
    # the page's response is the one with the styled text kept; the comment says how it was read
    assert rows["eu-styled-claim"]["text"]["response"] == f"{CONTEXT} We also ship to Mars."
    comment = (tmp_path / "comment.md").read_text(encoding="utf-8")
    assert "2 row(s) held styled text a reader may not see" in comment
    assert json.dumps(report).count("no reader sees") == 0
