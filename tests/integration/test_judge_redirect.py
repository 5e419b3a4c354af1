"""The judge follows no redirect (issue 31): a 307 from the configured endpoint to another host
would resend the API key and the rows' text there. Refused, never a verdict; the other host
gets nothing. Real HTTP on 127.0.0.1."""

from __future__ import annotations

import pytest

from ground_gate.judge.base import ChatMessage, JudgeRequest
from ground_gate.judge.clients import build_openai_client
from ground_gate.judge.openai_judge import OpenAIJudge
from ground_gate.leaves.errors import GroundGateError
from tests.integration.fake_openai import FakeOpenAI, Reply, completion


async def _no_wait(seconds: float) -> None:
    return None


@pytest.mark.parametrize("status", [301, 302, 307, 308])
async def test_openai_judge__a_redirect_to_another_host_is_not_followed(status: int) -> None:
    with FakeOpenAI() as endpoint, FakeOpenAI() as elsewhere:
        elsewhere.push(completion("Yes"))
        location = f"{elsewhere.url}/chat/completions"
        endpoint.set_handler(
            lambda body: Reply(status=status, body=b"", headers={"Location": location})
        )
        judge = OpenAIJudge(
            build_openai_client("sk-test-0123456789abcdef", endpoint.url, 5.0),
            model="fake-model", prompt_version="test-1", max_concurrency=1, max_retries=1,
            timeout_s=5.0, cache=None, sleep=_no_wait,
        )  # fmt: skip
        request = JudgeRequest(
            messages=(ChatMessage("user", "Is the sky blue?"),), purpose="test", logprobs=True
        )
        try:
            with pytest.raises(GroundGateError) as caught:
                await judge.complete(request)
        finally:
            await judge.aclose()
        assert elsewhere.request_count == 0
    assert str(status) in str(caught.value)
    assert "sk-test-0123456789abcdef" not in str(caught.value)
