"""Against a baseline, `ground-gate run` takes the verdicts of every row whose key did not
change from the baseline report, and stops judging once no row left can change a check.

Real HTTP on 127.0.0.1 through the openai SDK, no judge cache: every judge call shows in the
scripted server's requests. The judge says a sentence mentioning Mars is not in the source.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from ground_gate.cli import cli
from tests.integration.fake_openai import FakeOpenAI, judge_yaml
from tests.integration.test_cli_run import grade

ROWS = [
    {
        "id": f"row-{i:02d}",
        "question": f"What does plan {i} cost?",
        "contexts": [f"Plan {i} costs {i + 10} euros a month."],
        "answer": f"Plan {i} costs {i + 10} euros a month.",
    }
    for i in range(40)
]


def project(
    root: Path,
    url: str,
    rows: list[dict[str, Any]],
    *,
    model: str = "fake-model",
    metrics: str = "groundedness: {}",
) -> Path:
    (root / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    config = root / "gate.yml"
    # one row at a time, as the local judge runs: a row in flight when the decision settles
    # is finished, not dropped
    judge = judge_yaml(url, max_concurrency=1).replace("model: fake-model", f"model: {model}")
    config.write_text(
        "version: 1\n"
        + judge
        + """datasets:
  - {name: plans, path: rows.jsonl}
metrics: {"""
        + metrics
        + """}
thresholds:
  groundedness: {min: 0.5, max_drop: 0.05}
""",
        encoding="utf-8",
    )
    return config


def run(config: Path, name: str, *args: str) -> tuple[int, dict[str, Any], str]:
    report = config.parent / f"{name}.json"
    result = CliRunner().invoke(
        cli,
        ["run", "-c", str(config), "--output-json", str(report), "--output-md", "-", *args],
        env={"FAKE_KEY": "sk-secret-value"},
    )
    assert "Traceback" not in result.output, result.output
    return result.exit_code, json.loads(report.read_text(encoding="utf-8")), result.stdout


def judged_rows(server: FakeOpenAI) -> set[str]:
    """The answers the judge was asked about, by their plan number's sentence."""
    return {
        row["answer"]
        for r in server.requests
        for row in ROWS + CHANGED
        if row["answer"] in json.dumps(r.body)
    }


def verdicts(row: dict[str, Any]) -> dict[str, Any]:
    return {name: {**m, "usage": None} for name, m in row["metrics"].items()}


CHANGED = [{**r, "answer": r["answer"] + " It ships to Mars."} for r in ROWS[:3]]


def test_unchanged_rows_are_reused_and_the_rest_judged(tmp_path: Path) -> None:
    with FakeOpenAI(handler=grade) as server:
        config = project(tmp_path, server.url, ROWS)
        code, baseline, _ = run(config, "baseline")
        assert code == 0
        before = len(server.requests)
        # a run that makes a baseline judges every row
        assert "reuse" not in baseline and "settled" not in baseline
        assert all("key" in r for r in baseline["rows"])
        # three answers changed: only they are judged again, every other row is reused
        project(tmp_path, server.url, CHANGED + ROWS[3:])
        code, report, markdown = run(config, "pr", "--baseline", str(tmp_path / "baseline.json"))
        asked = server.requests[before:]
    assert report["reuse"] == {"rows": 37, "none_because": None}
    reused = [r["id"] for r in report["rows"] if r.get("reused")]
    assert reused == [r["id"] for r in ROWS[3:]]
    now = {r["id"]: r for r in report["rows"] if r.get("reused")}
    assert all(r["metrics"]["groundedness"]["usage"]["calls"] == 0 for r in now.values())
    # their verdicts are the baseline's, exactly; nothing was spent on them now
    before_rows = {r["id"]: r for r in baseline["rows"]}
    assert all(verdicts(r) == verdicts(before_rows[i]) for i, r in now.items())
    texts = json.dumps([a.body for a in asked])
    assert all(r["answer"] not in texts for r in ROWS[3:])  # no reused row was asked about
    assert "37 of 40 rows unchanged since the baseline: their verdicts reused" in markdown


def test_a_baseline_by_another_judge_reuses_nothing_and_says_why(tmp_path: Path) -> None:
    with FakeOpenAI(handler=grade) as server:
        config = project(tmp_path, server.url, ROWS[:6])
        run(config, "baseline")
        project(tmp_path, server.url, ROWS[:6], model="another-model")
        _, report, markdown = run(config, "pr", "--baseline", str(tmp_path / "baseline.json"))
    assert report["reuse"]["rows"] == 0
    assert "another judge" in report["reuse"]["none_because"]
    assert not any(r.get("reused") for r in report["rows"])
    assert "another judge" in markdown


def test_judging_stops_once_settled_and_judge_all_turns_it_off(tmp_path: Path) -> None:
    """Thirty of forty answers changed, each a supported sentence plus one more: once enough
    of them are judged, no value the rest could take moves the groundedness mean below 0.5
    nor lets a drop past max_drop be shown; the decision is the same as judging all."""
    changed = [{**r, "answer": r["answer"] + " Prices include tax."} for r in ROWS[:30]]
    with FakeOpenAI(handler=grade) as server:
        config = project(tmp_path, server.url, ROWS)
        run(config, "baseline")
        project(tmp_path, server.url, changed + ROWS[30:])
        baseline = str(tmp_path / "baseline.json")
        page = tmp_path / "stopped.html"
        code, stopped, markdown = run(
            config, "stopped", "--baseline", baseline, "--output-html", str(page)
        )
        every_code, every, _ = run(config, "every", "--baseline", baseline, "--judge-all")
    assert code == every_code
    assert [s["passed"] for s in stopped["scores"]] == [s["passed"] for s in every["scores"]]
    not_judged = stopped["settled"]["not_judged"]
    assert 0 < len(not_judged) < 30
    assert stopped["settled"]["judged"] + len(not_judged) == 30
    judged = {r["id"] for r in stopped["rows"]}
    assert not judged & {n["id"] for n in not_judged}  # never scored, never in a mean
    assert "settled" not in every and len(every["rows"]) == 40
    said = f"{len(not_judged)} rows not judged: judging stopped once no value they could take"
    assert said in markdown and "`--judge-all` judges every row" in markdown
    # the page says it in its head, beside the baseline it was compared with
    html = page.read_text(encoding="utf-8")
    assert html.index("Compared with the baseline") < html.index(said) < html.index("</header>")
    assert "<code>--judge-all</code> judges every row" in html
    first = not_judged[0]
    assert f"{first['dataset']} / {first['id']}" in markdown


def test_shards_reuse_their_own_rows_and_the_merge_is_the_unsharded_run(tmp_path: Path) -> None:
    with FakeOpenAI(handler=grade) as server:
        config = project(tmp_path, server.url, ROWS[:12])
        run(config, "baseline")
        project(tmp_path, server.url, CHANGED + ROWS[3:12])
        baseline = str(tmp_path / "baseline.json")
        _, whole, _ = run(config, "whole", "--baseline", baseline, "--judge-all")
        shards = []
        for k in (1, 2):
            code, shard, _ = run(config, f"shard-{k}", "--baseline", baseline, "--shard", f"{k}/2")
            assert code == 0 and "settled" not in shard  # a shard never stops early
            shards.append(str(tmp_path / f"shard-{k}.json"))
        merged = CliRunner().invoke(
            cli,
            ["merge", *shards, "--baseline", baseline, "--output-json", str(tmp_path / "m.json")],
        )
    assert merged.exit_code == whole_code(whole), merged.output
    report = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert report["reuse"] == whole["reuse"] == {"rows": 9, "none_because": None}
    assert [(r["id"], r.get("key"), r.get("reused")) for r in report["rows"]] == [
        (r["id"], r.get("key"), r.get("reused")) for r in whole["rows"]
    ]


def whole_code(report: dict[str, Any]) -> int:
    return 0 if report["passed"] else 1


def test_plan_says_what_the_baseline_saves(tmp_path: Path) -> None:
    with FakeOpenAI(handler=grade) as server:
        config = project(tmp_path, server.url, ROWS[:10])
        run(config, "baseline")
        project(tmp_path, server.url, CHANGED + ROWS[3:10])
        asked = len(server.requests)
        baseline = str(tmp_path / "baseline.json")
        every = CliRunner().invoke(
            cli, ["plan", "-c", str(config), "--no-cache", "--format", "json"]
        )
        saved = CliRunner().invoke(
            cli,
            ["plan", "-c", str(config), "--no-cache", "--format", "json", "--baseline", baseline],
        )
        text = CliRunner().invoke(cli, ["plan", "-c", str(config), "--baseline", baseline])
        assert len(server.requests) == asked  # a plan calls no judge
    assert every.exit_code == saved.exit_code == text.exit_code == 0, saved.output
    whole, left = json.loads(every.output), json.loads(saved.output)
    assert left["reuse"]["rows_reused"] == 7 and left["reuse"]["rows"] == 10
    calls = whole["to_call"]
    assert left["to_call"] + left["reuse"]["calls_saved"] == calls
    assert 0 < left["to_call"] < calls
    assert "7 of 10 rows unchanged since it, their verdicts reused" in text.output


def test_plan_with_a_target_does_not_count_answers_it_cannot_know(tmp_path: Path) -> None:
    """A target's answers are not known before it runs (nothing cached here): the plan
    counts those rows judged and says why, never that their answers changed."""
    app = tmp_path / "app.py"
    app.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    row = json.loads(line)\n"
        '    print(json.dumps({"id": row["id"], "response": "Plan 1 costs 11 euros a month."}))\n',
        encoding="utf-8",
    )
    rows = [{k: v for k, v in r.items() if k != "answer"} for r in ROWS[:4]]
    with FakeOpenAI(handler=grade) as server:
        config = project(tmp_path, server.url, rows)
        text = config.read_text(encoding="utf-8").replace(
            "path: rows.jsonl}",
            f'path: rows.jsonl, target: {{command: ["{sys.executable}", "{app}"]}}}}',
        )
        config.write_text(text, encoding="utf-8")
        code, _, _ = run(config, "baseline")
        assert code in (0, 1)
        baseline = str(tmp_path / "baseline.json")
        planned = CliRunner().invoke(
            cli, ["plan", "-c", str(config), "--format", "json", "--baseline", baseline]
        )
        said = CliRunner().invoke(cli, ["plan", "-c", str(config), "--baseline", baseline])
    assert planned.exit_code == said.exit_code == 0, planned.output
    reuse = json.loads(planned.output)["reuse"]
    assert (reuse["rows_reused"], reuse["rows_answer_unknown"]) == (0, 4)
    assert "no row's answer is known" in said.output
    assert "4 row(s) a target answers have no cached answer" in said.output


ASKS_IF_IT_HOLDS = "Does the document contain the information needed to answer the question"


def test_a_row_whose_answer_alone_changed_keeps_the_baseline_s_answerable_verdict(
    tmp_path: Path,
) -> None:
    """With the answers metric on, three answers changed: each is judged again, but whether
    its source holds the answer (which reads the question and the source, never the answer)
    is the baseline's verdict, not asked again; a changed question is asked."""
    both = "groundedness: {}, answers: {}"
    moved = {**ROWS[3], "question": "What does plan 3 cost in Mars dollars?"}
    with FakeOpenAI(handler=grade) as server:
        config = project(tmp_path, server.url, ROWS[:8], metrics=both)
        run(config, "baseline")
        project(tmp_path, server.url, [*CHANGED, moved, *ROWS[4:8]], metrics=both)
        before = len(server.requests)
        code, report, markdown = run(
            config, "pr", "--baseline", str(tmp_path / "baseline.json"), "--judge-all"
        )
        asked = [json.dumps(r.body) for r in server.requests[before:]]
        # and stopping once settled, the kept sides counted: the decisions of judging all
        stopped_code, stopped, _ = run(
            config, "stopped", "--baseline", str(tmp_path / "baseline.json")
        )
        planned = CliRunner().invoke(
            cli,
            ["plan", "-c", str(config), "--no-cache", "--format", "json", "--baseline",
             str(tmp_path / "baseline.json")],
        )  # fmt: skip
    assert json.loads(planned.output)["reuse"]["rows_answerable_reused"] == len(CHANGED)
    holds = [a for a in asked if ASKS_IF_IT_HOLDS in a]
    assert len(holds) == 1 and "Mars dollars" in holds[0]  # the changed question, alone
    rows = {r["id"]: r for r in report["rows"]}
    assert [i for i, r in rows.items() if not r.get("reused")] == [r["id"] for r in ROWS[:4]]
    baseline = {r["id"]: r for r in json.loads((tmp_path / "baseline.json").read_text())["rows"]}
    for row in CHANGED:
        answers = rows[row["id"]]["metrics"]["answers"]
        unit = answers["units"][1]
        assert unit["detail"]["reused"] is True
        was = baseline[row["id"]]["metrics"]["answers"]
        assert answers["scores"]["context_relevance"] == was["scores"]["context_relevance"]
        assert unit["verdict"] == was["units"][1]["verdict"]
        assert rows[row["id"]]["context_key"] == baseline[row["id"]]["context_key"]
    assert "reused" not in rows[moved["id"]]["metrics"]["answers"]["units"][1]["detail"]
    said = "3 rows judged again kept the baseline's verdict on whether their source holds"
    assert said in markdown
    assert stopped_code == code
    assert [(s["score"], s["passed"]) for s in stopped["scores"]] == [
        (s["score"], s["passed"]) for s in report["scores"]
    ]
    not_judged = {n["id"] for n in stopped.get("settled", {}).get("not_judged", [])}
    judged = {r["id"] for r in stopped["rows"] if not r.get("reused")}
    assert judged | not_judged == {r["id"] for r in ROWS[:4]}
