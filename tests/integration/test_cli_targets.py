"""`ground-gate run` with a dataset's target: a command (a small Python script speaking JSON
lines) and an http app (a scripted server on 127.0.0.1) answer 20 questions, the scripted
judge scores their answers, and every failure is named, counted apart and gated by on_error.
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
from tests.integration import fake_openai
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.target_app import (
    QUESTIONS,
    app_reply,
    command,
    config_text,
    is_judge_request,
    model_and_judge,
    write_questions,
)
from tests.rendered import render_markdown

SECRET = "Bearer app-secret-7f3a"


def invoke(config: Path, *args: str, env: dict[str, str] | None = None) -> tuple[Any, Any]:
    report = config.parent / "out" / "report.json"
    result = CliRunner().invoke(
        cli,
        ["run", "-c", str(config), "--output-json", str(report), "--quiet", *args],
        env={"FAKE_KEY": "sk-judge-key", "APP_AUTH": SECRET, **(env or {})},
    )
    for secret in ("sk-judge-key", SECRET):
        assert secret not in result.output
    assert "Traceback" not in result.output, result.output
    data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else None
    return result, data


def responses(config: Path) -> list[dict[str, Any]]:
    path = config.parent / "out" / "responses.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def command_project(root: Path, url: str, *mode: str, on_error: str = "fail") -> Path:
    write_questions(root)
    argv = json.dumps(command(*mode))
    config = root / "gate.yml"
    config.write_text(
        config_text(url, root, f"      command: {argv}\n      timeout_s: 20", on_error=on_error),
        encoding="utf-8",
    )
    return config


def http_project(root: Path, judge_url: str, app_origin: str, **extra: str) -> Path:
    write_questions(root)
    target = f"""      http:
        url: {app_origin}/answer
        body: {{q: "{{{{question}}}}", id: "{{{{id}}}}", ctx: "{{{{context}}}}"}}
        headers_env: {{Authorization: APP_AUTH}}
        response: answer
        contexts: sources[*].text
      max_retries: {extra.get("retries", "1")}
      timeout_s: {extra.get("timeout_s", "5")}"""
    config = root / "gate.yml"
    config.write_text(config_text(judge_url, root, target), encoding="utf-8")
    return config


def _ids(report: dict[str, Any]) -> list[str]:
    return [row["id"] for row in report["rows"]]


def test_command_target__scores_20_rows_and_writes_what_it_answered(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "answer")
        result, report = invoke(config)
    # q07-mars adds an invented sentence (P(supported) 0.1 beside 0.9): the mean still passes
    assert result.exit_code == 0, result.output
    assert _ids(report) == [q["id"] for q in QUESTIONS]
    mars = next(row for row in report["rows"] if row["id"] == "q07-mars")
    assert mars["text"]["response"] == "The X7 weighs 7 kg. It also ships to Mars."
    assert mars["metrics"]["groundedness"]["scores"]["groundedness"] == 0.5
    lines = responses(config)
    assert [line["id"] for line in lines] == _ids(report)
    assert lines[0] == {
        "dataset": "support",
        "id": "q01",
        "response": "The X1 weighs 1 kg.",
        "contexts": None,
        "seconds": lines[0]["seconds"],
        "cached": False,
        "error": None,
    }
    (target,) = report["targets"]
    assert target["kind"] == "command" and target["argv"] == command("answer")
    assert (target["rows"], target["answered"], target["errors"]) == (20, 20, 0)
    assert target["usage"]["calls"] == 20 and target["stopped"] is None
    # the judge's, apart: one per sentence, the one not in the source asked whether it states
    # a fact at all, and its name ("Mars", not in the source) asked blanked out
    assert report["usage"]["total"]["calls"] == 23


def test_http_target__scores_20_rows_with_the_contexts_it_retrieved(tmp_path):
    with (
        FakeOpenAI(handler=model_and_judge) as judge,
        FakeOpenAI(handler=app_reply, paths=("/answer",)) as app,
    ):
        config = http_project(tmp_path, judge.url, app.origin)
        result, report = invoke(config)
    assert result.exit_code == 0, result.output
    assert len(app.requests) == 20
    # rows are answered concurrently: find q01's request by its body, not by arrival order
    (first,) = [request for request in app.requests if request.body["id"] == "q01"]
    assert first.body == {
        "q": "How much does the X1 weigh?",
        "id": "q01",
        "ctx": "The X1 weighs 1 kg. It ships in a blue box.",
    }
    assert first.headers["authorization"] == SECRET  # read from APP_AUTH at request time
    assert _ids(report) == [q["id"] for q in QUESTIONS]
    row = report["rows"][0]
    assert row["text"]["response"] == "The X1 weighs 1 kg."
    assert row["text"]["source"] == "The X1 weighs 1 kg. It ships in a blue box."
    lines = responses(config)
    assert lines[0]["contexts"] == ["The X1 weighs 1 kg. It ships in a blue box."]
    assert len(lines) == 20
    (target,) = report["targets"]
    assert target["kind"] == "http" and target["url"] == f"{app.origin}/answer"
    assert target["usage"]["calls"] == 20
    assert SECRET not in json.dumps(report) + (tmp_path / "out" / "responses.jsonl").read_text()


def test_command_target__that_dies_after_5_rows_exits_2_naming_the_command_and_row(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "die-after", "5")
        result, report = invoke(config)
    assert result.exit_code == 2
    shown = " ".join(command("die-after", "5"))
    message = (
        f"ground-gate: error: the target of dataset 'support' stopped: the command `{shown}` "
        "exited with code 3 after answering 5 of 20 row(s) (the first without an answer: "
        "'q06'); stderr: answering row 6 | RuntimeError: the model server "
        "went away"
    )
    assert message in result.output
    assert _ids(report) == ["q01", "q02", "q03", "q04", "q05"]  # what it produced, kept
    assert [r["id"] for r in report["not_run"]][:2] == ["q06", "q07-mars"]
    assert report["status"] == "incomplete"
    assert len(responses(config)) == 5


def test_command_target__a_line_that_is_not_json_exits_2_naming_the_line(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "not-json-at", "4")
        result, report = invoke(config)
    assert result.exit_code == 2
    shown = " ".join(command("not-json-at", "4"))
    assert (
        f"the command `{shown}` printed on stdout line 4 something that is not JSON "
        "('loading answer model...'); print logs to stderr; nothing on stderr"
    ) in result.output
    assert _ids(report) == ["q01", "q02", "q03"]


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        (("unknown",), "printed on stdout line 3 an answer for id 'no-such-row', which is no row"),
        (("no-id",), "printed on stdout line 3 an object without an id"),
    ],
)
def test_command_target__an_answer_for_no_row_stops_it(tmp_path, mode, message):
    with FakeOpenAI(handler=model_and_judge) as judge:
        result, report = invoke(command_project(tmp_path, judge.url, *mode))
    assert result.exit_code == 2
    assert message in result.output
    assert _ids(report) == ["q01", "q02"]


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        (("empty", "q04"), "printed on stdout line 4 an empty response for row 'q04'"),
        (("skip", "q04"), "exited without answering row 'q04'"),
        (("duplicate", "q04"), "answered row 'q04' twice (stdout lines 4 and 5)"),
    ],
)
def test_command_target__a_row_answered_badly_is_its_error_and_fails_the_gate(
    tmp_path, mode, error
):
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, *mode)
        result, report = invoke(config)
    assert result.exit_code == 1
    row = next(row for row in report["rows"] if row["id"] == "q04")
    assert row["metrics"]["groundedness"]["status"] == "error"
    assert row["metrics"]["groundedness"]["error"].startswith("target: the command `")
    assert error in row["metrics"]["groundedness"]["error"]
    (target,) = report["targets"]
    assert target["errors"] == 1 and target["failed"][0]["id"] == "q04"
    assert len(report["rows"]) == 20
    assert report["scores"][0]["n_error"] == 1


def test_http_target__500_for_one_row_puts_it_in_error_and_names_it(tmp_path):
    def app(body: Any) -> fake_openai.Reply:
        if body["id"] == "q05":
            return fake_openai.Reply(status=500, body=b'{"detail": "vector store timeout"}')
        return app_reply(body)

    with (
        FakeOpenAI(handler=model_and_judge) as judge,
        FakeOpenAI(handler=app, paths=("/answer",)) as app_server,
    ):
        config = http_project(tmp_path, judge.url, app_server.origin)
        result, report = invoke(config)
    assert result.exit_code == 1  # on_error: fail
    error = (
        f"target: the app at {app_server.origin}/answer answered HTTP 500: vector store "
        "timeout for row 'q05' (after 2 attempts)"
    )
    row = next(row for row in report["rows"] if row["id"] == "q05")
    assert row["metrics"]["groundedness"]["error"] == error
    assert row["failing"] == ["groundedness"]
    assert len(app_server.requests) == 21  # q05 retried once (max_retries: 1)
    assert report["targets"][0]["failed"] == [
        {"id": "q05", "error": error.removeprefix("target: ")}
    ]
    # the judge's 20 verdicts (q05 unjudged) and the Mars sentence's "does it state a fact"
    # and its name blanked out
    assert report["usage"]["total"]["calls"] == 22
    line = next(line for line in responses(config) if line["id"] == "q05")
    assert line["error"] == error.removeprefix("target: ") and line["response"] is None


def test_http_target__429_is_retried_after_the_apps_retry_after(tmp_path):
    asked: set[str] = set()

    def app(body: Any) -> fake_openai.Reply:
        if body["id"] == "q02" and "q02" not in asked:
            asked.add("q02")
            return fake_openai.rate_limited("0.2")
        return app_reply(body)

    with (
        FakeOpenAI(handler=model_and_judge) as judge,
        FakeOpenAI(handler=app, paths=("/answer",)) as app_server,
    ):
        result, report = invoke(http_project(tmp_path, judge.url, app_server.origin))
    assert result.exit_code == 0, result.output
    assert report["targets"][0]["usage"]["retries"] == 1
    assert report["targets"][0]["usage"]["calls"] == 21


def test_http_target__a_timeout_is_the_rows_error(tmp_path):
    def app(body: Any) -> fake_openai.Reply:
        reply = app_reply(body)
        return fake_openai.slow(reply, 3.0) if body["id"] == "q03" else reply

    with (
        FakeOpenAI(handler=model_and_judge) as judge,
        FakeOpenAI(handler=app, paths=("/answer",)) as app_server,
    ):
        config = http_project(tmp_path, judge.url, app_server.origin, retries="0", timeout_s="1")
        result, report = invoke(config)
    assert result.exit_code == 1
    row = next(row for row in report["rows"] if row["id"] == "q03")
    assert row["metrics"]["groundedness"]["error"] == (
        f"target: the app at {app_server.origin}/answer did not answer within 1 s for row 'q03'"
    )


def test_http_target__an_app_that_cannot_be_reached_exits_2(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = http_project(tmp_path, judge.url, "http://127.0.0.1:9", retries="0")
        result, report = invoke(config)
    assert result.exit_code == 2
    assert (
        "ground-gate: error: the target of dataset 'support' stopped: the app at "
        "http://127.0.0.1:9/answer could not be reached (ConnectError) for row 'q01'"
    ) in result.output
    assert report["rows"] == [] and len(report["not_run"]) == 20
    assert judge.request_count == 0


def test_http_target__a_header_variable_not_set_is_refused_before_any_call(tmp_path):
    with (
        FakeOpenAI(handler=model_and_judge) as judge,
        FakeOpenAI(handler=app_reply, paths=("/answer",)) as app,
    ):
        config = http_project(tmp_path, judge.url, app.origin)
        result = CliRunner().invoke(cli, ["run", "-c", str(config)], env={"FAKE_KEY": "k"})
    assert result.exit_code == 2
    assert result.output == (
        "ground-gate: error: datasets[0].target.http.headers_env.Authorization: the environment "
        "variable APP_AUTH is not set\n"
    )
    assert app.request_count == 0 and judge.request_count == 0


def test_target_budget__max_calls_stops_the_target_and_exits_2(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as judge:
        write_questions(tmp_path)
        target = f"      command: {json.dumps(command('answer'))}\n      budget: {{max_calls: 5}}"
        config = tmp_path / "gate.yml"
        config.write_text(config_text(judge.url, tmp_path, target), encoding="utf-8")
        result, report = invoke(config)
    assert result.exit_code == 2
    assert (
        "the target budget is spent (max_calls 5 reached): spent 5 target call(s), 0 tokens "
        "(0 prompt, 0 completion); left 0 of 5 calls; 15 of 20 row(s) not answered"
    ) in result.output
    assert len(report["rows"]) == 5 and len(report["not_run"]) == 15


def test_command_target__shard_answers_only_its_rows(tmp_path):
    counted = tmp_path / "asked.txt"
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "count", str(counted))
        result, report = invoke(config, "--shard", "1/3")
    assert result.exit_code == 0, result.output
    asked = counted.read_text().split()
    assert asked == _ids(report) and 0 < len(asked) < 20


def test_target__a_response_column_is_ignored_with_one_notice(tmp_path):
    rows = [{**q, "answer": "Stale answer from last week."} for q in QUESTIONS]
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "answer")
        write_questions(tmp_path, rows)
        result, report = invoke(config)
    assert result.exit_code == 0, result.output
    notice = (
        "ground-gate: notice: dataset 'support' has a response column ('answer'): its target "
        "answers every row, and the column is ignored\n"
    )
    assert result.output.count(notice) == 1
    assert "Stale" not in json.dumps(report)
    assert not any(
        "Stale" in json.dumps(r.body) for r in judge.requests if is_judge_request(r.body)
    )


PROMPT = "Answer the question from the context only.\nRow: {{id}}\nContext: {{context}}\n\nQ: {{question}}\n"


def prompt_project(root: Path, url: str, prompt: str = PROMPT) -> Path:
    write_questions(root)
    (root / "prompts").mkdir(exist_ok=True)
    (root / "prompts" / "answer.md").write_text(prompt, encoding="utf-8")
    target = f"""      prompt: prompts/answer.md
      provider: openai
      model: fake-answerer
      base_url: {url}
      api_key_env: FAKE_KEY
      max_tokens: 200"""
    config = root / "gate.yml"
    config.write_text(config_text(url, root, target), encoding="utf-8")
    return config


def _first_row_request(server: FakeOpenAI) -> Any:
    """The target's request for row q01 (rows are asked concurrently, in any order)."""
    return next(
        r.body for r in server.requests if "Row: q01\n" in r.body["messages"][-1]["content"]
    )


def _calls(server: FakeOpenAI) -> tuple[int, int]:
    """(target calls, judge calls) the server received."""
    judge = sum(1 for r in server.requests if is_judge_request(r.body))
    return server.request_count - judge, judge


def test_prompt_target__a_rerun_with_nothing_changed_makes_no_call(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as server:
        config = prompt_project(tmp_path, server.url)
        first, report = invoke(config)
        assert first.exit_code == 0, first.output
        assert _calls(server) == (20, 23)
        second, again = invoke(config)
        assert second.exit_code == 0
        assert _calls(server) == (20, 23)  # no new call: answers and verdicts from the cache
    assert again["targets"][0]["usage"]["cache_hits"] == 20
    assert again["targets"][0]["usage"]["calls"] == 0
    assert [r["metrics"] for r in again["rows"]] != [] and again["scores"] == report["scores"]
    sent = _first_row_request(server)
    assert sent["model"] == "fake-answerer" and sent["max_tokens"] == 200
    assert sent["messages"] == [
        {
            "role": "user",
            "content": "Answer the question from the context only.\nRow: q01\nContext: The X1 "
            "weighs 1 kg. It ships in a blue box.\n\nQ: How much does the X1 weigh?\n",
        }
    ]


def test_prompt_target__another_base_url_asks_again_and_records_the_endpoint_that_answered(
    tmp_path,
):
    with (
        FakeOpenAI(handler=model_and_judge) as first_server,
        FakeOpenAI(handler=model_and_judge) as second_server,
    ):
        config = prompt_project(tmp_path, first_server.url)
        assert invoke(config)[0].exit_code == 0
        text = config.read_text(encoding="utf-8")
        moved = f"      base_url: {second_server.url}"
        config.write_text(text.replace(f"      base_url: {first_server.url}", moved), "utf-8")
        result, report = invoke(config)
        assert result.exit_code == 0, result.output
        answered_there = [
            r for r in second_server.requests if r.body.get("model") == "fake-answerer"
        ]
    (target,) = report["targets"]
    assert len(answered_there) == 20 and target["usage"]["calls"] == 20
    assert target["endpoint"] == second_server.url.removeprefix("http://").removesuffix("/v1")


def test_prompt_target__a_changed_prompt_asks_every_row_again(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as server:
        config = prompt_project(tmp_path, server.url)
        assert invoke(config)[0].exit_code == 0
        (tmp_path / "prompts" / "answer.md").write_text(PROMPT + "Be brief.\n", encoding="utf-8")
        result, report = invoke(config)
        assert result.exit_code == 0
        assert _calls(server) == (40, 23)  # one target call per row; same answers, cached verdicts
    assert report["targets"][0]["digest"].startswith("sha256:")
    assert report["targets"][0]["prompt"] == str(tmp_path / "prompts" / "answer.md")


def test_prompt_target__chat_messages_from_a_yaml_file(tmp_path):
    messages = """- role: system
  content: You answer from the context only.
- role: user
  content: |
    Row: {{id}}
    Context: {{context}}
    Q: {{question}}
"""
    with FakeOpenAI(handler=model_and_judge) as server:
        config = prompt_project(tmp_path, server.url)
        (tmp_path / "prompts" / "answer.yml").write_text(messages, encoding="utf-8")
        config.write_text(config.read_text().replace("answer.md", "answer.yml"))
        result, _ = invoke(config)
    assert result.exit_code == 0, result.output
    assert _first_row_request(server)["messages"] == [
        {"role": "system", "content": "You answer from the context only."},
        {
            "role": "user",
            "content": "Row: q01\nContext: The X1 weighs 1 kg. It ships in a blue box.\n"
            "Q: How much does the X1 weigh?\n",
        },
    ]


def test_prompt_target__a_placeholder_with_no_column_exits_2_before_any_call(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as server:
        config = prompt_project(tmp_path, server.url, PROMPT.replace("{{question}}", "{{qestion}}"))
        result, report = invoke(config)
    assert result.exit_code == 2 and report is None
    assert result.output == (
        f"ground-gate: error: {tmp_path / 'prompts' / 'answer.md'}:5: {{{{qestion}}}}: the row "
        f"at {tmp_path / 'questions.jsonl'}:1 has no column 'qestion' (did you mean "
        "'question'?); it has id, question, context\n"
    )
    assert server.request_count == 0


def test_command_target__depends_on_reuses_answers_while_its_files_are_unchanged(tmp_path):
    counted = tmp_path / "asked.txt"
    app = tmp_path / "app"
    app.mkdir()
    (app / "model.txt").write_text("v1", encoding="utf-8")
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "count", str(counted))
        config.write_text(
            config.read_text().replace(
                "      timeout_s: 20", "      timeout_s: 20\n      depends_on: [app/*.txt]"
            )
        )
        assert invoke(config)[0].exit_code == 0
        result, report = invoke(config)
        assert result.exit_code == 0
        assert len(counted.read_text().split()) == 20  # the second run asked nothing
        assert report["targets"][0]["usage"]["cache_hits"] == 20
        (app / "model.txt").write_text("v2", encoding="utf-8")
        assert invoke(config)[0].exit_code == 0
    assert len(counted.read_text().split()) == 40  # a changed file: every row asked again


def test_command_target__without_depends_on_is_asked_on_every_run(tmp_path):
    counted = tmp_path / "asked.txt"
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "count", str(counted))
        assert invoke(config)[0].exit_code == 0
        assert invoke(config)[0].exit_code == 0
    assert len(counted.read_text().split()) == 40


def _plan(config: Path) -> dict[str, Any]:
    result = CliRunner().invoke(
        cli, ["plan", "-c", str(config), "--format", "json"], env={"FAKE_KEY": "k"}
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_plan__counts_a_prompt_targets_calls_and_what_its_cache_answers(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as server:
        config = prompt_project(tmp_path, server.url)
        config.write_text(
            config.read_text().replace(
                "      max_tokens: 200", "      max_tokens: 200\n      budget: {max_calls: 10}"
            )
        )
        before = _plan(config)
        assert server.request_count == 0  # plan asks nothing
        config.write_text(config.read_text().replace("      budget: {max_calls: 10}\n", ""))
        assert invoke(config)[0].exit_code == 0
        after = _plan(config)
    (target,) = before["targets"]
    assert (target["calls"], target["cached"], target["to_call"]) == (20, 0, 20)
    assert target["completion_tokens"] == 20 * 200  # not known before a run: max_tokens each
    assert target["prompt_tokens"] > 20 * 20
    assert target["over_budget"] == ["max_calls 10 (calls to make: 20)"]
    assert before["judge_calls"] == 20 and before["exact_calls"] == 0  # one made-up sentence a row
    (cached,) = after["targets"]
    assert (cached["cached"], cached["to_call"]) == (20, 0)
    # the run's verdicts from the cache, and the two checks the Mars sentence made
    assert after["to_call"] == 0 and after["judge_calls"] == 23 and after["exact_calls"] == 23


def test_plan__counts_an_http_targets_calls(tmp_path):
    with (
        FakeOpenAI(handler=model_and_judge) as judge,
        FakeOpenAI(handler=app_reply, paths=("/answer",)) as app,
    ):
        config = http_project(tmp_path, judge.url, app.origin)
        result = CliRunner().invoke(cli, ["plan", "-c", str(config)], env={"APP_AUTH": "x"})
    assert result.exit_code == 0, result.output
    assert app.request_count == 0
    assert result.output.endswith("\ntarget of support (http): 20 call(s), 0 cached, 20 to call\n")


def _two_shards(tmp_path: Path, config: Path) -> list[Path]:
    """Shards 1/2 and 2/2 of the config's run: their JSON reports (responses.jsonl apart)."""
    shards = []
    for k in (1, 2):
        out = tmp_path / f"shard-{k}.json"
        result = CliRunner().invoke(
            cli,
            ["run", "-c", str(config), "--shard", f"{k}/2", "--output-json", str(out),
             "--output-responses", str(tmp_path / f"responses-{k}.jsonl"), "--quiet"],
            env={"FAKE_KEY": "k"},
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        shards.append(out)
    return shards


def test_command_target__two_shards_merge_into_the_unsharded_run(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "skip", "q04")
        whole = invoke(config)[1]
        shards = [str(path) for path in _two_shards(tmp_path, config)]
        merged_path = tmp_path / "merged.json"
        result = CliRunner().invoke(
            cli, ["merge", *shards, "--output-json", str(merged_path), "--quiet"]
        )
    assert result.exit_code == 1  # q04 unanswered: on_error fail, as in the unsharded run
    merged = json.loads(merged_path.read_text(encoding="utf-8"))
    assert _ids(merged) == _ids(whole)
    (target,) = merged["targets"]
    (alone,) = whole["targets"]
    assert (target["rows"], target["answered"], target["errors"]) == (20, 19, 1)
    assert target["failed"] == alone["failed"]
    assert target["usage"]["calls"] == alone["usage"]["calls"] == 20
    lines = [
        json.loads(line)
        for k in (1, 2)
        for line in (tmp_path / f"responses-{k}.jsonl").read_text().splitlines()
    ]
    assert sorted(line["id"] for line in lines) == sorted(_ids(whole))


def test_command_target__runs_without_the_actions_inputs_in_its_environment(tmp_path):
    names = tmp_path / "env.txt"
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "env", str(names))
        result, _ = invoke(config, env={"INPUT_GITHUB-TOKEN": "ghs_x", "INPUT_OPENAI-API-KEY": "k"})
    assert result.exit_code == 0, result.output
    seen = names.read_text().split()
    assert "APP_AUTH" in seen and "FAKE_KEY" in seen  # its own secrets, by their own names
    assert not [name for name in seen if name.startswith("INPUT_")]


def test_prompt_target__an_empty_answer_is_that_rows_error(tmp_path):
    def serve(body: Any) -> fake_openai.Reply:
        if not is_judge_request(body) and "Row: q03\n" in body["messages"][-1]["content"]:
            return fake_openai.completion("   ")
        return model_and_judge(body)

    with FakeOpenAI(handler=serve) as server:
        result, report = invoke(prompt_project(tmp_path, server.url))
    assert result.exit_code == 1
    row = next(row for row in report["rows"] if row["id"] == "q03")
    assert row["metrics"]["groundedness"]["error"] == (
        "target: the target's model fake-answerer answered nothing for row 'q03'"
    )


def test_prompt_target__a_model_that_refuses_the_key_stops_the_run(tmp_path):
    def serve(body: Any) -> fake_openai.Reply:
        if is_judge_request(body):
            return model_and_judge(body)
        return fake_openai.error(401, "Incorrect API key provided: sk-judg****-key")

    with FakeOpenAI(handler=serve) as server:
        result, report = invoke(prompt_project(tmp_path, server.url))
    assert result.exit_code == 2
    assert (
        "ground-gate: error: the target of dataset 'support' stopped: the target's model "
        "rejected the API key (HTTP 401) at 127.0.0.1: check the key and its access to model "
        "'fake-answerer'"
    ) in result.output
    assert report["rows"] == [] and len(report["not_run"]) == 20
    assert sum(1 for r in server.requests if is_judge_request(r.body)) == 0


def retrieval_app(broken: bool) -> Any:
    """The http app, its retrieval working (the row's own context; it answers from it) or
    broken (a page about something else; it declines, as a careful app should)."""

    def reply(body: Any) -> fake_openai.Reply:
        if broken:
            payload = {
                "answer": "Sorry, I don't know.",
                "sources": [{"text": "The shop opens at 9."}],
            }
        else:
            payload = {
                "answer": body["ctx"].split(". ")[0] + ".",
                "sources": [{"text": body["ctx"]}],
            }
        return fake_openai.Reply(body=json.dumps(payload).encode("utf-8"))

    return reply


def answers_judge(body: Any) -> fake_openai.Reply:
    """The judge: a source holds a question's answer when it says what the X weighs; a reply
    holds information and answers unless it is sorry; a sentence the source states is
    supported, any other not in it."""
    prompt = body["messages"][-1]["content"]

    def said(yes: bool) -> fake_openai.Reply:
        top = (
            {"Yes": math.log(0.9), "No": math.log(0.1)}
            if yes
            else {"No": math.log(0.9), "Yes": math.log(0.1)}
        )
        return fake_openai.completion("Yes" if yes else "No", logprobs=[top], completion_tokens=1)

    sorry = "Sorry" in prompt.split("<answer>")[-1] if "<answer>" in prompt else False
    if "contain the information needed" in prompt:
        return said("weighs" in prompt.split("</document>")[0])
    if "non-answer" in prompt:
        return said(sorry)
    if fake_openai.says_something(prompt):
        return said(not sorry)
    assert "Yes, No or Unknown" in prompt, prompt
    unit = prompt.split("<sentence>")[1].split("</sentence>")[0].strip()
    token = "Yes" if unit in prompt.split("</document>")[0] else "Unknown"
    top = {token: math.log(0.9), ("No" if token == "Yes" else "Yes"): math.log(0.1)}
    return fake_openai.completion(token, logprobs=[top], completion_tokens=1)


@pytest.mark.parametrize("broken", [False, True])
def test_http_target__retrieval_that_loses_the_answer_fails_context_relevance(tmp_path, broken):
    with (
        FakeOpenAI(handler=answers_judge) as judge,
        FakeOpenAI(handler=retrieval_app(broken), paths=("/answer",)) as app,
    ):
        config = http_project(tmp_path, judge.url, app.origin)
        text = config.read_text(encoding="utf-8").replace(
            "metrics:\n  groundedness: {evidence: none}\n",
            "metrics:\n  groundedness: {evidence: none}\n  answers: {}\n",
        )
        text = text.replace(
            "thresholds:\n",
            "thresholds:\n  answered: {min: 0.8}\n  context_relevance: {min: 0.7}\n",
        )
        config.write_text(text, encoding="utf-8")
        result, report = invoke(config)
    means = {e["score"]: e["mean"] for e in report["scores"]}
    checks = {e["score"]: e["passed"] for e in report["scores"]}
    if not broken:
        assert result.exit_code == 0, result.output
        assert (means["answered"], means["context_relevance"]) == (1.0, 0.9)
        return
    # every row's retrieved page lacks the answer and the app declines, rightly given its
    # page; groundedness has nothing to judge. The rows' own contexts hold the answer, so they
    # stay on the answered side (the pull request does not choose it): 20 declines there, and
    # context relevance, judged on what was retrieved, says why
    assert result.exit_code == 1, result.output
    assert (means["context_relevance"], checks["context_relevance"]) == (0.1, False)
    assert (means["answered"], checks["answered"]) == (0.0, False)
    assert "answered_anyway" not in means or means["answered_anyway"] is None
    assert {r["metrics"]["groundedness"]["status"] for r in report["rows"]} == {"no_claims"}
    markdown = render_markdown(report)
    assert "declined 20 of 20 questions its sources answer" in markdown
    assert re.search(r"\| context_relevance +\| ❌ 0\.10 < 0\.70 +\|", markdown)


def _tamper(path: Path, change: Any) -> None:
    report = json.loads(path.read_text(encoding="utf-8"))
    change(report["targets"])
    path.write_text(json.dumps(report), encoding="utf-8")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda t: t.clear(), "the datasets with a target is not"),
        (lambda t: t.append(dict(t[0])), "the target of dataset support is given twice"),
        (lambda t: t[0].update(dataset="elsewhere"), "a target names dataset elsewhere, which"),
        (lambda t: t[0].update(rows=t[0]["rows"] + 3), "but the shard selected"),
        (lambda t: t[0].update(answered=t[0]["rows"] * 2), "but the shard selected"),
    ],
)
def test_merge__a_shard_whose_targets_disagree_with_its_rows_is_refused(tmp_path, change, said):
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "answer")
        shards = _two_shards(tmp_path, config)
    _tamper(shards[1], change)
    result = CliRunner().invoke(cli, ["merge", *map(str, shards), "--output-json", "-"])
    assert result.exit_code == 2, result.output
    assert said in result.stderr and "Traceback" not in result.output
