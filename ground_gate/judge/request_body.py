"""The body of one chat-completions request: the arguments the SDK sends, and the
response_format the judge's structured-output mode asks for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ground_gate.judge.base import ChatMessage, JudgeRequest
from ground_gate.judge.response import TOP_LOGPROBS
from ground_gate.judge.structured import json_object_format, json_schema_format

StructuredFormat = Literal["json_schema", "json_object", "prompt"]


def format_for(request: JudgeRequest, structured: StructuredFormat) -> dict[str, Any] | None:
    """The response_format for a request: none when it asks for no JSON or when the server
    takes the schema in the prompt only."""
    if request.json_schema is None or structured == "prompt":
        return None
    if structured == "json_schema":
        return json_schema_format(request.json_schema, request.purpose)
    return json_object_format(request.json_schema)


def chat_arguments(
    request: JudgeRequest,
    messages: Sequence[ChatMessage],
    *,
    model: str,
    temperature: float,
    timeout_s: float,
    response_format: dict[str, Any] | None,
) -> dict[str, Any]:
    """The keyword arguments of `chat.completions.create` for one attempt."""
    arguments: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "temperature": temperature,
        "max_tokens": request.max_tokens,
        "timeout": timeout_s,
    }
    if request.logprobs:
        arguments["logprobs"] = True
        arguments["top_logprobs"] = TOP_LOGPROBS
    if response_format is not None:
        arguments["response_format"] = response_format
    return arguments
