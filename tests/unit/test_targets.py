"""targets/: templates, prompt files, request bodies, the answer cache and responses.jsonl,
without any call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ground_gate.config.model import HttpTarget, TargetConfig
from ground_gate.config.target import depends_on_files
from ground_gate.datasets import Sample
from ground_gate.judge.cache import JudgeCache
from ground_gate.leaves.errors import ConfigError
from ground_gate.render.targets import target_lines
from ground_gate.targets.answers import Answer, Answered
from ground_gate.targets.cache import AnswerCache, depends_on_digest
from ground_gate.targets.command import stdin_line
from ground_gate.targets.http import body_for, body_templates, shown_url
from ground_gate.targets.prompt import messages_for, read_prompt_file
from ground_gate.targets.responses import responses_text
from ground_gate.targets.templates import check_names, parse, render, row_values


def _sample(**row: object) -> Sample:
    values = {"id": "r1", "question": "How heavy?", "contexts": ["It weighs 2 kg.", "Blue."], **row}
    return Sample(
        id=str(values["id"]),
        sources=tuple(values["contexts"]),  # type: ignore[arg-type]
        response="",
        question=str(values["question"]),
        line=3,
        row=values,
    )


def test_template__fills_roles_and_columns_and_prints_lists_as_json() -> None:
    template = parse(
        "{{id}}: {{question}}\n{{context}}\n{{contexts}} {{missing_ok | default('-')}}", "p.md"
    )
    text = render(template, row_values(_sample()), "rows.jsonl:3")
    assert text == 'r1: How heavy?\nIt weighs 2 kg.\n\nBlue.\n["It weighs 2 kg.", "Blue."] -'


def test_template__a_loop_variable_is_not_a_column() -> None:
    template = parse("{% for c in contexts %}- {{ c }}\n{% endfor %}", "p.md")
    assert template.names == (("contexts", 1),)
    assert render(template, row_values(_sample()), "x") == "- It weighs 2 kg.\n- Blue.\n"


def test_template__a_name_no_row_has_is_refused_with_its_line_and_a_suggestion() -> None:
    template = parse("Context: {{context}}\n\nQ: {{ questoin }}\n", "prompts/a.md")
    with pytest.raises(ConfigError) as caught:
        check_names([template], _sample(), {}, "rows.jsonl:3")
    assert str(caught.value) == (
        "prompts/a.md:3: {{questoin}}: the row at rows.jsonl:3 has no column 'questoin' (did "
        "you mean 'question'?); it has id, question, context, contexts"
    )


def test_template__keeps_the_trailing_newline_and_escapes_nothing() -> None:
    template = parse("<b>{{question}}</b>\n", "p.md")
    assert render(template, {"question": "a < b & c"}, "x") == "<b>a < b & c</b>\n"


def test_template__the_sandbox_refuses_python_internals() -> None:
    template = parse("{{ question.__class__.__mro__ }}", "p.md")
    with pytest.raises(ConfigError) as caught:
        render(template, {"question": "q"}, "rows.jsonl:3")
    assert str(caught.value).startswith("p.md:1: cannot fill in the row at rows.jsonl:3: ")


def test_prompt_file__yaml_messages_with_lines_of_their_placeholders(tmp_path: Path) -> None:
    path = tmp_path / "answer.yml"
    path.write_text(
        "- role: system\n  content: Be brief.\n- role: user\n  content: |\n    Context: {{context}}\n"
        "    Q: {{qestion}}\n",
        encoding="utf-8",
    )
    prompt = read_prompt_file(path)
    assert [role for role, _ in prompt.messages] == ["system", "user"]
    assert prompt.messages[1][1].names == (("context", 5), ("qestion", 6))
    assert prompt.digest.startswith("sha256:")


def test_prompt_file__markdown_is_one_user_message(tmp_path: Path) -> None:
    path = tmp_path / "answer.md"
    path.write_text("Answer: {{question}}\n", encoding="utf-8")
    messages = messages_for(read_prompt_file(path), _sample(), "x")
    assert [(m.role, m.content) for m in messages] == [("user", "Answer: How heavy?\n")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the prompt file is empty"),
        ("- role: user\n", ":1: messages[0]: expected role and content (text), and nothing else"),
        ("[]", ":1: expected a list of chat messages"),
        ("- {role: user, content: x, name: y}", ":1: messages[0]: expected role and content"),
        ("- role: user\n  content: '  '\n", ":1: messages[0].content: empty"),
    ],
)
def test_prompt_file__refused_with_its_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / ("answer.md" if not text else "answer.yml")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        read_prompt_file(path)
    assert message in str(caught.value)


def test_http_body__a_lone_placeholder_sends_the_value_itself() -> None:
    spec = HttpTarget(
        url="http://app:8000/answer",
        body={"q": "{{question}}", "docs": "{{ contexts }}", "meta": {"n": 3, "tag": "id {{id}}"}},
    )
    found = body_templates(spec, "gate.yml")
    assert body_for(spec, found, _sample(), "x") == {
        "q": "How heavy?",
        "docs": ["It weighs 2 kg.", "Blue."],
        "meta": {"n": 3, "tag": "id r1"},
    }
    assert body_for(HttpTarget(url="http://a"), {}, _sample(), "x") == {
        "id": "r1",
        "question": "How heavy?",
        "context": "It weighs 2 kg.\n\nBlue.",
    }


def test_shown_url__drops_credentials_and_the_query() -> None:
    assert shown_url("https://user:pw@app.example:8443/v1/answer?key=s3cret") == (
        "https://app.example:8443/v1/answer"
    )


def test_stdin_line__is_the_rows_columns_then_id_question_context() -> None:
    line = stdin_line(_sample(id=7))
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert json.loads(line) == {
        "id": "7",
        "question": "How heavy?",
        "contexts": ["It weighs 2 kg.", "Blue."],
        "context": "It weighs 2 kg.\n\nBlue.",
    }


def test_answer_cache__keyed_by_the_depends_on_files_contents(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    source = tmp_path / "app" / "main.py"
    source.write_text("v1", encoding="utf-8")
    target = TargetConfig(
        command=("python3", "app/main.py"), depends_on=("app/*.py",), base_dir=tmp_path
    )
    store = JudgeCache(tmp_path / "cache")
    cache = AnswerCache(store, target)
    cache.put("line 1", Answer("r1", "It weighs 2 kg.", ("ctx",)))
    cache.put("line 2", Answer("r2", None, error="boom"))  # a failure is never kept
    assert AnswerCache(store, target).get("r1", "line 1") == Answer(
        "r1", "It weighs 2 kg.", ("ctx",), cached=True
    )
    assert AnswerCache(store, target).get("r2", "line 2") is None
    before = depends_on_digest(("app/*.py",), tmp_path)
    source.write_text("v2", encoding="utf-8")
    assert depends_on_digest(("app/*.py",), tmp_path) != before
    assert AnswerCache(store, target).get("r1", "line 1") is None
    assert not AnswerCache(store, TargetConfig(command=("x",), base_dir=tmp_path)).enabled


def test_responses_text__one_line_per_answer_in_row_order() -> None:
    answered = Answered("support", {"kind": "command"}, order=["a", "b", "c"])
    answered.answers = {
        "b": Answer("b", None, seconds=0.5, error="the command `app` answered nothing"),
        "a": Answer("a", "It weighs 2 kg.", ("Retrieved.",), seconds=0.1234, cached=True),
    }
    assert responses_text([answered]) == (
        '{"dataset": "support", "id": "a", "response": "It weighs 2 kg.", "contexts": '
        '["Retrieved."], "seconds": 0.123, "cached": true, "error": null}\n'
        '{"dataset": "support", "id": "b", "response": null, "contexts": null, "seconds": 0.5, '
        '"cached": false, "error": "the command `app` answered nothing"}\n'
    )


def test_markdown__says_who_answered_with_every_string_escaped() -> None:
    usage = {"calls": 20, "cache_hits": 2, "prompt_tokens": 1234, "completion_tokens": 56}
    entry = {"usage": {**usage, "retries": 0, "seconds": 1.0}, "rows": 20, "answered": 19}
    entry |= {"errors": 1, "failed": [], "stopped": None, "seconds": 2.0}
    report = {
        "targets": [
            {"dataset": "support", "kind": "prompt", "prompt": "prompts/answer.md",
             "model": "gpt-4o-mini", **entry},
            {"dataset": "@octo-org <b>", "kind": "command", "argv": ["python3", "x`y @team"],
             **entry},
        ]
    }  # fmt: skip
    assert target_lines(report) == [  # type: ignore[arg-type]
        "Answered by the target of **support**, prompt `prompts/answer.md` on gpt-4o-mini: 19 "
        "of 20 row(s), 1 failed; 20 call(s), 2 from the cache, 1,234 prompt + 56 completion "
        "tokens.",
        "Answered by the target of **@\u200bocto-org &lt;b&gt;**, command `python3 x'y "
        "@\u200bteam`: 19 of 20 row(s), 1 failed; 20 call(s), 2 from the cache.",
        "",
    ]


def test_depends_on_digest__a_dotfile_or_dot_folder_the_globs_match_is_part_of_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "app" / ".settings").mkdir(parents=True)
    (tmp_path / "app" / "main.py").write_text("v1", encoding="utf-8")
    mode = tmp_path / "app" / ".mode"
    mode.write_text("strict", encoding="utf-8")
    nested = tmp_path / "app" / ".settings" / "prompt.txt"
    nested.write_text("one", encoding="utf-8")
    before = depends_on_digest(("app/**",), tmp_path)
    mode.write_text("loose", encoding="utf-8")
    after_mode = depends_on_digest(("app/**",), tmp_path)
    nested.write_text("two", encoding="utf-8")
    assert len({before, after_mode, depends_on_digest(("app/**",), tmp_path)}) == 3
    assert (tmp_path / "app" / ".mode") in depends_on_files("app/*", tmp_path)
