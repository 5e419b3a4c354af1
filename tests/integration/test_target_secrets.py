"""A header's secret is a secret (issue 31): an http app that echoes its Authorization header
(whole, without its scheme, in another letter case) in its answer and its contexts gets it
masked in every file the run writes, and a config that interpolates the header's variable is
refused. Real HTTP on 127.0.0.1; the judge is scripted."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from click.testing import CliRunner

from ground_gate.cli import cli
from tests.integration import fake_openai
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.target_app import answer_for, model_and_judge
from tests.integration.test_cli_targets import SECRET, http_project
from tests.unit.test_masking_forms import any_form_in

TOKEN = SECRET.split(" ", 1)[1]  # "app-secret-7f3a": what an echo quotes without "Bearer "


def echoing_app(body: Any) -> fake_openai.Reply:
    """Answers from the row's context, then echoes the credential it was sent, three ways."""
    said = f"{answer_for(body['id'], body['ctx'])} (auth: {SECRET}; {TOKEN.upper()}; {TOKEN})"
    payload = {"answer": said, "sources": [{"text": f"{body['ctx']} token={TOKEN}"}]}
    return fake_openai.Reply(body=json.dumps(payload).encode("utf-8"))


def _run_against(app_reply: Any, root: Path) -> tuple[Any, dict[str, str]]:
    """`ground-gate run` with the http app answering by `app_reply`, every report written:
    (the CLI's result, each report file's text by name)."""
    with (
        FakeOpenAI(handler=model_and_judge) as judge,
        FakeOpenAI(handler=app_reply, paths=("/answer",)) as app,
    ):
        config = http_project(root, judge.url, app.origin)
        out = root / "out"
        result = CliRunner().invoke(
            cli,
            ["run", "-c", str(config), "--output-json", str(out / "report.json"),
             "--output-md", str(out / "comment.md"), "--output-html", str(out / "page.html"),
             "--output-junit", str(out / "junit.xml")],
            env={"FAKE_KEY": "sk-judge-key", "APP_AUTH": SECRET},
        )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    return result, {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}


def test_http_target__an_echoed_header_secret_is_masked_in_every_output(tmp_path: Path) -> None:
    result, written = _run_against(echoing_app, tmp_path)
    assert set(written) >= {
        "report.json",
        "comment.md",
        "page.html",
        "junit.xml",
        "responses.jsonl",
    }
    written["stdout"] = result.output
    for name, text in written.items():
        assert TOKEN.lower() not in text.lower(), f"{name} holds the header's secret"
    report = json.loads(written["report.json"])
    assert report["rows"][0]["text"]["response"].endswith("(auth: ***; ***; ***)")


def test_http_target__a_header_variable_interpolated_into_a_name_is_refused(
    tmp_path: Path,
) -> None:
    config = http_project(tmp_path, "http://127.0.0.1:9/v1", "http://127.0.0.1:9")
    text = config.read_text(encoding="utf-8").replace("name: support", "name: app-${APP_AUTH}")
    config.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["validate", "-c", str(config)], env={"FAKE_KEY": "k", "APP_AUTH": SECRET}
    )
    assert result.exit_code == 2
    assert "${APP_AUTH} holds a secret" in result.output
    assert TOKEN not in result.output


def _refused_before_any_call(tmp_path: Path, env: dict[str, str], header: str) -> str:
    with (
        FakeOpenAI(handler=model_and_judge) as judge,
        FakeOpenAI(handler=echoing_app, paths=("/answer",)) as app,
    ):
        config = http_project(tmp_path, judge.url, app.origin)
        text = config.read_text(encoding="utf-8").replace("{Authorization: APP_AUTH}", header)
        config.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(cli, ["run", "-c", str(config)], env={"FAKE_KEY": "k", **env})
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert app.request_count == 0 and judge.request_count == 0
    return result.output


def test_http_target__a_header_value_a_header_cannot_carry_is_refused_unshown(
    tmp_path: Path,
) -> None:
    said = _refused_before_any_call(
        tmp_path, {"APP_AUTH": "Bearer clé-secrète-42"}, "{Authorization: APP_AUTH}"
    )
    assert said == (
        "ground-gate: error: datasets[0].target.http.headers_env.Authorization: the environment "
        "variable APP_AUTH holds a character a header cannot carry (only printable ASCII); its "
        "value is not shown\n"
    )


def test_http_target__a_header_the_request_sets_itself_is_refused(tmp_path: Path) -> None:
    said = _refused_before_any_call(tmp_path, {"LEN": "12"}, "{Content-Length: LEN}")
    assert said.startswith(
        "ground-gate: error: datasets[0].target.http.headers_env.Content-Length: not a header "
        "ground-gate lets a config set"
    )


def disguising_app(body: Any) -> fake_openai.Reply:
    """Answers, then quotes the credential as a reply may disguise it (issue 43, item 9): zero
    width spaces between its letters, split by spaces and a line break, in the base64 of a Basic
    header, URL-encoded, in hex; once each in the answer and in its source."""
    forms = [
        "\u200b".join(TOKEN),
        f"{TOKEN[:3]} {TOKEN[3:7]}\n{TOKEN[7:]}",
        base64.b64encode(f"user:{TOKEN}".encode()).decode(),
        quote(f"?key={TOKEN}", safe=""),
        TOKEN.encode().hex(),
    ]
    said = f"{answer_for(body['id'], body['ctx'])} ({'; '.join(forms)})"
    payload = {"answer": said, "sources": [{"text": f"{body['ctx']} {' '.join(forms)}"}]}
    return fake_openai.Reply(body=json.dumps(payload).encode("utf-8"))


def test_http_target__a_disguised_header_secret_is_masked_in_every_output(
    tmp_path: Path,
) -> None:
    result, written = _run_against(disguising_app, tmp_path)
    written["stdout"] = result.output
    assert len(written) >= 6
    for name, text in written.items():
        assert not any_form_in(text, TOKEN), f"{name} holds a form of the header's secret"
    report = json.loads(written["report.json"])
    assert report["rows"][0]["text"]["response"].count("***") == 5
