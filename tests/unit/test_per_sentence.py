"""Statements and questions are drawn one sentence at a time, each sentence read with those
before it: a sentence added after them adds its own units and changes none of theirs, nor
the text their answers are read from (issue 32)."""

from __future__ import annotations

import asyncio

import pytest

from ground_gate.config.model import SummaryAccuracyConfig
from ground_gate.datasets import Sample
from ground_gate.judge.base import Completion, JudgeRequest
from ground_gate.leaves.errors import JudgeError
from ground_gate.leaves.results import OFF_SOURCE
from ground_gate.metrics import RowSession
from ground_gate.metrics.base import together
from ground_gate.metrics.faithfulness import Faithfulness
from ground_gate.metrics.summary_accuracy import Question, SummaryAccuracy, in_turns
from tests.fakes import FakeJudge, json_reply, said, unit_of

SOURCE = "The X200 weighs 1.2 kg. Its battery lasts 10 hours. It ships in a grey box."
ANSWER = "The X200 weighs 1.2 kg. Its battery lasts 12 hours."
# a note that shares words with the source (so no rule sets it apart) and that this judge,
# like the 1.5B one on some rows, calls supported
NOTE = "Every battery figure above was checked against the X200 source."


def sample(response: str) -> Sample:
    return Sample(id="r1", sources=(SOURCE,), response=response, question="How is the X200?")


async def score(metric, s: Sample, judge: FakeJudge):
    session = RowSession(judge, metric.name, memo={})
    return await metric.score(s, await metric.prepare(s, session), session)


def judge_script(request: JudgeRequest) -> Completion:
    """Statements: the sentence itself; questions: two per sentence; every verdict and
    answer: Yes where the text holds "1.2 kg" or "checked", else Unknown (No for 12 hours)."""
    step = request.purpose.split(".")[1]
    if step == "informs":
        return said("Yes", Yes=0.9, No=0.1)
    if step == "statements":
        return json_reply({"statements": [unit_of(request, "sentence")]})
    if step == "questions":
        sentence = unit_of(request, "sentence").rstrip(".")
        return json_reply({"questions": [f"Is it true that {sentence}?", f"Does {sentence}?"]})
    tag = "statement" if step == "verdict" else "question"
    unit = unit_of(request, tag)
    if step == "answer_summary" or "1.2 kg" in unit or "checked" in unit:
        return said("Yes", Yes=0.9, No=0.1, Unknown=0.0)
    if "12 hours" in unit:
        return said("No", No=0.8, Yes=0.1, Unknown=0.1)
    return said("Unknown", Unknown=0.8, Yes=0.1, No=0.1)


def asked(judge: FakeJudge, step: str) -> list[str]:
    return [
        "\n".join(m.content for m in r.messages) for r in judge.requests if r.purpose.endswith(step)
    ]


async def test_faithfulness__an_appended_sentence_changes_no_other_statement():
    clean_judge, attacked_judge = FakeJudge(judge_script), FakeJudge(judge_script)
    clean = await score(Faithfulness(), sample(ANSWER), clean_judge)
    attacked = await score(Faithfulness(), sample(f"{ANSWER}\n\n{NOTE}"), attacked_judge)
    # the first two sentences' extraction requests are the same requests (same cache keys)
    assert asked(attacked_judge, "statements")[:2] == asked(clean_judge, "statements")
    assert [u.text for u in attacked.units] == [*(u.text for u in clean.units), NOTE]
    assert clean.scores == {"faithfulness": 0.5}
    # the note adds one unit of its own (which this judge believes) and moves no other
    assert [u.verdict for u in attacked.units] == ["supported", "unsupported", "supported"]


async def test_faithfulness__a_sentence_in_none_of_the_source_words_is_unsupported_unasked():
    judge = FakeJudge(judge_script)
    note = "Zero fabrication, verified."
    result = await score(Faithfulness(), sample(f"{ANSWER} {note}"), judge)
    assert [u.verdict for u in result.units] == ["supported", "unsupported", "unsupported"]
    apart = result.units[2]
    assert apart.text == note and apart.detail[OFF_SOURCE] and apart.score == 0.0
    assert all(note not in text for text in asked(judge, "statements") + asked(judge, "verdict"))
    assert result.scores == {"faithfulness": 0.3333}


async def test_summary_accuracy__an_appended_sentence_changes_no_other_question_or_answer():
    config = SummaryAccuracyConfig(n_questions=10)
    clean_judge, attacked_judge = FakeJudge(judge_script), FakeJudge(judge_script)
    clean = await score(SummaryAccuracy(config), sample(ANSWER), clean_judge)
    attacked = await score(SummaryAccuracy(config), sample(f"{ANSWER}\n\n{NOTE}"), attacked_judge)
    for step in ("questions", "answer_summary", "answer_document"):
        before = asked(clean_judge, step)
        assert [a for a in asked(attacked_judge, step) if a in before] == before, step
    # each question is answered from the summary up to the sentence it was drawn from
    first = next(r for r in clean_judge.requests if r.purpose.endswith("answer_summary"))
    assert unit_of(first, "summary") == "The X200 weighs 1.2 kg."
    verdicts = {u.text: u.verdict for u in attacked.units}
    assert len(clean.units) == 4 and len(verdicts) == 6
    assert all(verdicts[u.text] == u.verdict for u in clean.units)


def test_in_turns__the_first_question_of_every_sentence_before_any_second():
    def drawn(sentence: str, n: int) -> list[Question]:
        return [Question(f"{sentence} {i}?", sentence) for i in range(n)]

    a, b, c = drawn("a", 3), drawn("b", 1), drawn("c", 2)
    assert [q.text for q in in_turns([a, b, c], 4)] == ["a 0?", "b 0?", "c 0?", "a 1?"]
    assert [q.text for q in in_turns([a, b, c], 10)] == [
        "a 0?", "b 0?", "c 0?", "a 1?", "c 1?", "a 2?",
    ]  # fmt: skip
    assert [q.text for q in in_turns([a, a], 10)] == ["a 0?", "a 1?", "a 2?"]  # once each
    assert in_turns([], 3) == []


async def test_together__every_call_finishes_before_the_first_failure_is_raised():
    """A row's sentences are asked side by side: one failing must not leave the others
    asking the judge after the row's error (and its usage) was written."""
    finished: list[str] = []

    async def fails() -> str:
        raise JudgeError("unusable reply")

    async def slow() -> str:
        await asyncio.sleep(0.02)
        finished.append("slow")
        return "slow"

    with pytest.raises(JudgeError):
        await together(fails(), slow())
    assert finished == ["slow"]
    assert await together(slow(), slow()) == ["slow", "slow"]
