"""Groundedness asserted beside the app's other tests (ground-gate's pytest plugin).

    pytest examples/pytest                      # the embedded judge (no key, no internet)
    pytest examples/pytest --gg-mode=replay     # the recorded verdicts only: no judge, no model
    OPENAI_API_KEY=... pytest examples/pytest --gg-config examples/pytest/ground-gate.hosted.yml
"""

from __future__ import annotations

import pytest
from support_app import answer, retrieve

from ground_gate.pytest_plugin import GroundednessError, assert_grounded


def test_the_refund_answer_is_grounded_in_the_refund_policy() -> None:
    question = "How long do refunds take?"
    assert_grounded(answer(question), retrieve(question), question=question)


@pytest.mark.grounded(thresholds={"groundedness": 0.9, "contradiction": {"max": 0.05}})
def test_the_warranty_answer_states_nothing_the_policy_does_not() -> None:
    question = "How long is the warranty?"
    assert_grounded(answer(question), retrieve(question), question=question)


@pytest.mark.xfail(raises=GroundednessError, strict=True, reason="the assertion must catch it")
def test_an_invented_warranty_fails_the_assertion() -> None:
    question = "How long is the warranty?"
    invented = "The warranty lasts five years from the date of purchase."
    assert_grounded(invented, retrieve(question), question=question)
