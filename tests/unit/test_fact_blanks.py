"""The per-fact check at the cost it is worth (issue 45): a fact no fill could find
"different", or a sentence already called contradicted, asks nothing; several facts of one
sentence go in one call (metrics/blanks.py), whose reply is read strictly and fails closed."""

import math

import pytest

from ground_gate.config.model import GroundednessConfig
from ground_gate.datasets import Sample
from ground_gate.judge.base import Completion, JudgeRequest
from ground_gate.leaves.results import SWAPPED_FACT
from ground_gate.leaves.usage import Usage
from ground_gate.metrics import RowSession
from ground_gate.metrics.blanks import answers, numbered
from ground_gate.metrics.facts import could_differ, find
from ground_gate.metrics.groundedness import Groundedness
from tests.fakes import FakeJudge, said, unit_of

SOURCE = (
    "The X200 laptop weighs 1.2 kg and has a 14-inch display. With the included 65 W adapter "
    "it charges to 80% in 60 minutes. It went on sale in March."
)
UNSURE = {"Unknown": 0.5, "No": 0.4, "Yes": 0.1}


def tokens(*pieces: tuple[str, float]) -> Completion:
    """A reply made of greedy tokens, each with the probability of NOT beside it."""
    top = tuple(
        {piece: math.log(1 - p_not), "NOT": math.log(p_not)} if p_not else {piece: 0.0}
        for piece, p_not in pieces
    )
    text = "".join(piece for piece, _ in pieces)
    return Completion(text=text, top_logprobs=top, usage=Usage(calls=1))


def judge_of(facts_reply: Completion | str, verdict: dict[str, float] = UNSURE) -> FakeJudge:
    def script(request: JudgeRequest) -> Completion:
        step = request.purpose.rpartition(".")[2]
        if step == "facts":
            return said(facts_reply) if isinstance(facts_reply, str) else facts_reply
        if step == "fact":
            return said("NOT STATED", NOT=1.0)
        if step == "informs":
            return said("Yes", Yes=1.0)
        assert step == "verdict", step
        return said(max(verdict, key=verdict.__getitem__), **verdict)

    return FakeJudge(script)


async def judged(response: str, judge: FakeJudge, source: str = SOURCE):
    metric = Groundedness(GroundednessConfig())
    row = Sample(id="r", sources=(source,), response=response)
    session = RowSession(judge, metric.name, memo={})
    return await metric.score(row, await metric.prepare(row, session), session)


TWO = "The X200 charges to 80% in 20 minutes with its 100 W adapter."


async def test_check__several_facts_of_a_sentence_in_one_numbered_call():
    judge = judge_of(tokens(("1", 0), (":", 0), (" 60", 0.2), (" minutes", 0), ("\n", 0),
                            ("2", 0), (":", 0), (" 65", 0.1), (" W", 0)))  # fmt: skip
    result = await judged(TWO, judge)
    assert judge.purposes() == ["groundedness.verdict", "groundedness.facts"]
    blanked = unit_of(judge.requests[1], "sentence")
    assert blanked == "The X200 charges to 80% in ___(1) minutes with its ___(2) W adapter."
    unit = result.units[0]
    assert unit.verdict == "contradicted"
    assert unit.detail[SWAPPED_FACT] == (
        "says 20 minutes; the source says 60 minutes; says 100 W; the source says 65 W"
    )
    # each blank's P(stated) read at its own answer's first token; the surest decides
    assert unit.detail["p_contradicted"] == 0.9


@pytest.mark.parametrize(
    "reply",
    [
        "60 minutes, 65 W",  # not line by line
        "1: 60 minutes",  # a line missing
        "1: 60 minutes\n2: 65 W\n3: 14",  # one too many
        "2: 65 W\n1: 60 minutes",  # out of order
        "60 minutes\n65 W",  # unnumbered
        "1: 60 minutes\n\n2: 65 W\nThe document says so.",  # words after the lines
    ],
)
async def test_check__a_malformed_numbered_reply_leaves_every_fact_absent(reply):
    result = await judged(TWO, judge_of(reply))
    unit = result.units[0]
    assert (unit.verdict, unit.detail["p_contradicted"]) == ("not in source", 0.4)
    assert SWAPPED_FACT not in unit.detail


async def test_check__a_reply_cut_at_its_token_limit_is_no_answer():
    cut = Completion(text="1: 60 minutes\n2: 6", usage=Usage(calls=1, completion_tokens=40))
    result = await judged(TWO, judge_of(cut))
    assert SWAPPED_FACT not in result.units[0].detail
    assert answers(cut, 2, 40) == [] and answers(cut, 2, 41) != []


def test_answers__each_line_s_forms_and_p_stated_without_log_probabilities():
    reply = Completion(text="(1): 60 minutes\n2. NOT STATED\n___(3) Linz\n")
    assert answers(reply, 3, 60) == [("60 minutes", 1.0), ("NOT STATED", 1.0), ("Linz", 1.0)]
    # tokens that do not give the text: no P(stated) is read from them
    unaligned = Completion(text="1: 60", top_logprobs=({"1": 0.0}, {":": 0.0}, {" 6": 0.0}))
    assert answers(unaligned, 1, 60) == [("60", 1.0)]


def test_numbered__blanks_in_order_apart():
    assert numbered("a 1 b 2 c", [(2, 3), (6, 7)]) == "a ___(1) b ___(2) c"
    with pytest.raises(ValueError):
        numbered("a 1 b 2 c", [(6, 7), (2, 3)])


@pytest.mark.parametrize(
    ("sentence", "source", "asked"),
    [
        # no quantity in the source but its own: no fill can be another value
        ("It weighs 2 kg.", "It weighs a lot.", False),
        ("It weighs 2 kg.", "It weighs 1.2 kg.", True),
        # a date beside no word of its calendar; a weekday beside only months
        ("It went on sale in June.", "It went on sale last spring.", False),
        ("It went on sale on Monday.", "It went on sale in March.", False),
        ("It went on sale in June.", "It went on sale in March.", True),
        # a name may be any words of the source
        ("Ana Silva sold it.", "Mei Ru sold it.", True),
    ],
)
def test_could_differ__only_a_fact_some_fill_could_find_different(sentence, source, asked):
    (fact,) = [f for f in find(sentence) if f.kind != "name" or f.text != "It"]
    assert could_differ(fact, source) is asked


async def test_groundedness__a_fact_no_fill_could_differ_costs_no_call():
    judge = judge_of("1: 60 minutes\n2: 65 W")
    await judged("It charges fully in 20 minutes.", judge, "It charges fully, and fast.")
    assert judge.purposes() == ["groundedness.verdict", "groundedness.informs"]


async def test_groundedness__a_sentence_already_contradicted_asks_no_fact():
    contradicted = {"No": 0.5, "Yes": 0.3, "Unknown": 0.2}
    judge = judge_of("1: 60 minutes\n2: 65 W", contradicted)
    result = await judged(TWO, judge)
    assert judge.purposes() == ["groundedness.verdict"]
    assert (result.units[0].verdict, result.units[0].detail["p_contradicted"]) == (
        "contradicted",
        0.5,
    )
    # a tie between supported and contradicted reads supported: its facts are asked
    tie = judge_of("1: 60 minutes\n2: 65 W", {"Yes": 0.4, "No": 0.4, "Unknown": 0.2})
    assert (await judged(TWO, tie)).units[0].verdict == "contradicted"
    assert tie.purposes() == ["groundedness.verdict", "groundedness.facts"]
