"""Structured output with one repair: a reply that holds no schema-valid JSON value is sent back
once with the problem named; a second failure is an unusable reply (counted in Usage).

What comes back is made writable (ground_gate/leaves/writable.py): the JSON may spell a lone
surrogate as an escape even when the reply's text is plain ASCII.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ground_gate.judge.base import ChatMessage, JudgeRequest, Speaker, UnusableReplyError
from ground_gate.judge.response import Reply
from ground_gate.judge.structured import StructuredOutputError, parse_and_validate, repair_message
from ground_gate.leaves.usage import Usage
from ground_gate.leaves.writable import writable_value

# One request with these messages, retried as the failure table says.
Call = Callable[[Sequence[ChatMessage]], Awaitable[Reply]]


async def valid_data(
    request: JudgeRequest, reply: Reply, call: Call, usage: Usage, speaker: Speaker
) -> tuple[Reply, Any, int]:
    """The reply that holds a value valid against `request.json_schema` (the first or the
    repaired one), the value, and how many of its code points were made writable."""
    schema = request.json_schema
    assert schema is not None
    try:
        data = parse_and_validate(reply.text, schema)
    except StructuredOutputError as problem:
        usage.parse_failures += 1
        repair = (
            *request.messages,
            ChatMessage("assistant", reply.text),
            ChatMessage("user", repair_message(str(problem), schema)),
        )
        reply = await call(repair)
        try:
            data = parse_and_validate(reply.text, schema)
        except StructuredOutputError as second:
            usage.parse_failures += 1
            raise UnusableReplyError(
                f"the {speaker.name}'s reply for {request.purpose} was not usable JSON after "
                f"one repair attempt: {second}"
            ) from None
    data, replaced = writable_value(data)
    return reply, data, replaced
