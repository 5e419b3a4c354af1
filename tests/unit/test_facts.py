"""The swapped fact: numbers, dates and names found by rules, each checked against its passage
(metrics/facts.py), and what groundedness's verdict makes of them."""

import pytest

from ground_gate.config.model import GroundednessConfig
from ground_gate.datasets import Sample
from ground_gate.judge.base import Completion, JudgeRequest
from ground_gate.leaves.results import SWAPPED_FACT
from ground_gate.metrics import RowSession
from ground_gate.metrics.facts import Fact, find, number_value, read_answer, stated, swapped
from ground_gate.metrics.groundedness import Groundedness
from ground_gate.metrics.quantities import quantities
from ground_gate.review.words import unit_verdict
from tests.fakes import FakeJudge, said, unit_of
from tests.hostile.swapped_facts import MOVES, SAME, SWAPS, Swap

SOURCE = (
    "The X200 laptop weighs 1.2 kg and has a 14-inch display. With the included 65 W adapter "
    "it charges to 80% in 60 minutes. It went on sale in March."
)


def kinds(sentence: str) -> list[tuple[str, str, str]]:
    return [(f.kind, f.text, f.unit) for f in find(sentence)]


def test_find__numbers_with_their_units_dates_and_names():
    assert kinds("Ana Silva said the X200 charges to 80% in 20 minutes on Monday in March.") == [
        ("name", "Ana Silva", ""),
        ("name", "X200", ""),
        ("number", "80", "%"),
        ("number", "20", "minutes"),
        ("date", "Monday", ""),
        ("date", "March", ""),
    ]


def test_find__words_and_written_forms_of_numbers():
    found = find("It sold for £1.5m, with six pots, twenty-five plates and 1,500 cups.")
    assert [(f.text, f.value, f.unit) for f in found] == [
        ("1.5", 1.5, "m"),
        ("six", 6, "pots"),
        ("twenty-five", 25, "plates"),
        ("1,500", 1500, "cups"),
    ]
    written = ("2.5", "1,000", "ninety-nine", "twenty-one", "one", "twenty-day", "cat")
    assert [number_value(t) for t in written] == [2.5, 1000, 99, 21, None, None, None]


def test_find__what_is_no_fact():
    # a capitalised first word, "I", the verb "may", "one" the pronoun, a day of a month
    # counting no months
    assert kinds("Officials may say I'm one of the late ones.") == []
    assert kinds("On 26 August") == [("number", "26", ""), ("date", "August", "")]


def test_find__a_name_without_the_words_before_it_that_name_nothing():
    # the sentence's capitalised first word, a number, "The": no part of a name; a
    # capitalised word after a number is a name, not its unit; two shouted words name nothing
    assert kinds("Four Royal Navy frigates were seen by The Portuguese side. CLICK HERE") == [
        ("number", "Four", ""),
        ("name", "Royal Navy", ""),
        ("name", "Portuguese", ""),
    ]
    assert kinds("Its 56 Wh battery, 100 W adapter and 16 GB") == [
        ("number", "56", "Wh"),
        ("number", "100", "W"),
        ("number", "16", "GB"),
    ]


def test_find__lower_cased_tokenised_text_keeps_its_numbers_and_dates():
    sentence = "the wedgwood collection was sold for £ 1.5 m in june , with six items ."
    assert kinds(sentence) == [
        ("number", "1.5", "m"),
        ("date", "june", ""),
        ("number", "six", "items"),
    ]


def test_stated__a_number_in_words_or_digits_a_name_by_its_words():
    six, name = Fact("number", "six", 0, 3, 6.0), Fact("name", "Van Zyl", 0, 7)
    assert stated(six, "It has 6 ports.") and not stated(six, "It has 16 ports.")
    assert stated(name, "said van zyl, who led.") and not stated(name, "said Zyl.")


def test_read_answer__another_value_the_passage_holds_contradicts_with_its_sentence():
    minutes = find("It charges to 80% in 20 minutes.")[1]
    checked = read_answer(minutes, "60", SOURCE, p_stated=0.8)
    assert (checked.verdict, checked.other, checked.p_stated) == ("different", "60 minutes", 0.8)
    assert checked.evidence == "With the included 65 W adapter it charges to 80% in 60 minutes."
    assert checked.said() == "says 20 minutes; the source says 60 minutes"
    percent = find("It charges to 70% in 60 minutes.")[0]
    assert read_answer(percent, "80%", SOURCE).said() == "says 70%; the source says 80%"


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("20 minutes", "equal"),  # the judge read the sentence's own value
        ("NOT STATED", "absent"),
        ("Not stated.", "absent"),
        ("", "absent"),
        ("45", "absent"),  # a value the passage does not hold: no evidence of another
        ("quickly", "absent"),  # no number at all
    ],
)
def test_read_answer__only_another_stated_value_is_different(answer, verdict):
    minutes = find("It charges to 80% in 20 minutes.")[1]
    assert read_answer(minutes, answer, SOURCE + " It took 20 minutes.").verdict == verdict


def test_read_answer__names_and_dates():
    name = find("The talk was given by Ana Silva.")[0]
    passage = "Maria Costa gave the talk. Ana Silva chaired it."
    assert read_answer(name, "Maria Costa", passage).verdict == "different"
    assert read_answer(name, "Silva", passage).verdict == "equal"
    # one word in common, or initials: the same name written otherwise
    honorific = Fact("name", "Mrs Ru", 0, 6)
    assert read_answer(honorific, "Mei Ru", "Mei Ru, 50, went.").verdict == "equal"
    league = Fact("name", "National Football League", 0, 24)
    assert read_answer(league, "NFL", "The NFL said so.").verdict == "equal"
    assert read_answer(Fact("name", "NFL", 0, 3), "National Football League", "The "
                       "National Football League said so.").verdict == "equal"  # fmt: skip
    assert read_answer(name, "the speaker", passage).verdict == "absent"  # no name
    assert read_answer(name, "Jo Park", passage).verdict == "absent"  # not in the passage
    month = find("It went on sale in May or June.")[0]
    assert read_answer(month, "March", SOURCE).verdict == "different"
    assert read_answer(month, "Monday", SOURCE + " Monday.").verdict == "absent"  # not a month


def test_swapped__every_different_fact_said_the_surest_decides():
    twenty, hundred = find("It charges in 20 minutes with a 100 W adapter.")
    together = swapped(
        [
            read_answer(twenty, "60", SOURCE, p_stated=0.6),
            read_answer(hundred, "65", SOURCE, p_stated=0.9),
            read_answer(twenty, "NOT STATED", SOURCE),
        ]
    )
    assert together is not None
    assert together.p_stated == 0.9
    assert together.said == (
        "says 20 minutes; the source says 60 minutes; says 100 W; the source says 65 W"
    )
    # both values stand in one source sentence: quoted once
    assert together.evidence == "With the included 65 W adapter it charges to 80% in 60 minutes."
    assert swapped([read_answer(twenty, "NOT STATED", SOURCE)]) is None


def test_swapped__values_in_two_sentences_quote_the_surest_ones_sentence_a_passage_of_the_source():
    source = "It costs 899 euros. The X200 laptop weighs 1.2 kg."
    _, price, weight = find("The X200 costs 2,499 dollars and weighs 3 kg.")  # name, numbers
    for p_price, p_weight, wanted in ((0.9, 0.6, "It costs 899 euros."),
                                      (0.6, 0.9, "The X200 laptop weighs 1.2 kg.")):  # fmt: skip
        both = swapped(
            [
                read_answer(price, "899", source, p_price),
                read_answer(weight, "1.2", source, p_weight),
            ]
        )
        assert both is not None and both.evidence == wanted and wanted in source
        assert "the source says 899 euros" in both.said and "the source says 1.2 kg" in both.said


def fills(minutes: str, p_stated: float = 0.85, verdict: dict[str, float] | None = None):
    """A judge that calls every sentence mostly not in the source (as the small judge did for
    the demo's charging time), and fills a blank of minutes with `minutes`."""
    shares = verdict or {"Unknown": 0.5, "No": 0.4, "Yes": 0.1}

    def script(request: JudgeRequest) -> Completion:
        step = request.purpose.rpartition(".")[2]
        if step == "fact":
            blanked = unit_of(request, "sentence")
            assert "___" in blanked and "Other parts of the sentence may be wrong" in (
                request.messages[-1].content
            )
            if "___ minutes" in blanked:
                return said(minutes, **{minutes[:1]: p_stated, "NOT": 1 - p_stated})
            return said("NOT STATED", NOT=1.0)
        if step == "informs":
            return said("Yes", Yes=1.0)
        assert step == "verdict", step
        return said(max(shares, key=shares.__getitem__), **shares)

    return FakeJudge(script)


async def judged(response: str, judge: FakeJudge, source: str = SOURCE, **config: object):
    metric = Groundedness(GroundednessConfig(**config))  # type: ignore[arg-type]
    row = Sample(id="r", sources=(source,), response=response)
    session = RowSession(judge, metric.name, memo={})
    return await metric.score(row, await metric.prepare(row, session), session)


async def test_groundedness__a_swapped_number_makes_the_sentence_contradicted():
    judge = fills("60")
    result = await judged("The X200 charges to 80% in 20 minutes.", judge, evidence="all")
    unit = result.units[0]
    # 80 stands in the passage (no call); the minutes are asked; the evidence is the
    # sentence stating the other value, so no quote is asked either
    assert judge.purposes() == ["groundedness.verdict", "groundedness.fact"]
    assert unit.verdict == "contradicted"
    assert unit.detail[SWAPPED_FACT] == "says 20 minutes; the source says 60 minutes"
    assert unit.evidence == "With the included 65 W adapter it charges to 80% in 60 minutes."
    # P(contradicted) rises to the judge's P(stated); the other two keep their ratio
    assert unit.detail["p_contradicted"] == 0.85
    assert unit.detail["p_absent"] == pytest.approx(0.15 * 0.5 / 0.6, abs=1e-4)
    assert result.scores["contradiction"] == 0.85
    text = unit_verdict({"verdict": unit.verdict, "detail": unit.detail})
    assert text == "contradicted: says 20 minutes; the source says 60 minutes"


async def test_groundedness__facts_the_passage_states_cost_no_call_and_change_nothing():
    judge = fills("60")
    result = await judged("The X200 charges to 80% in 60 minutes in March.", judge)
    assert judge.purposes() == ["groundedness.verdict", "groundedness.informs"]
    assert SWAPPED_FACT not in result.units[0].detail
    assert result.units[0].detail["p_contradicted"] == 0.4


@pytest.mark.parametrize("answer", ["NOT STATED", "20", "45"])
async def test_groundedness__a_fact_not_found_different_leaves_the_verdict(answer):
    result = await judged("The X200 charges to 80% in 20 minutes.", fills(answer))
    assert result.units[0].verdict == "not in source"
    assert result.units[0].detail["p_contradicted"] == 0.4
    assert SWAPPED_FACT not in result.units[0].detail


async def test_groundedness__an_unsure_fill_raises_contradiction_but_says_it_only_if_it_decides():
    supported = {"Yes": 0.8, "No": 0.1, "Unknown": 0.1}
    result = await judged(
        "The X200 charges to 80% in 20 minutes.", fills("60", p_stated=0.3, verdict=supported)
    )
    unit = result.units[0]
    assert (unit.verdict, unit.detail["p_contradicted"]) == ("supported", 0.3)
    assert SWAPPED_FACT not in unit.detail and unit.evidence is None


@pytest.mark.parametrize("config", [{"facts": False}, {"method": "rating"}])
async def test_groundedness__no_fact_call_when_facts_are_off_or_the_method_rates(config):
    def script(request: JudgeRequest) -> Completion:
        assert not request.purpose.endswith("fact")
        return said("5", **{"5": 1.0}) if request.purpose.endswith("rate") else said("Yes", Yes=1)

    await judged("The X200 charges to 80% in 20 minutes.", FakeJudge(script), **config)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("£1.5m", [("£1.5m", "1.5E+6", "GBP")]),
        ("£ 1.5 m in june", [("£ 1.5 m", "1.5E+6", "GBP")]),  # tokenised text
        (
            "1.5m GBP or 1.5m euros",
            [("1.5m GBP", "1.5E+6", "GBP"), ("1.5m euros", "1.5E+6", "EUR")],
        ),
        (
            "a 1.5 m wall, a 5k run",
            [("1.5 m", "1.5", "m"), ("5k", "5", "k")],
        ),  # no currency: no scale
        (
            "one million and five hundred thousand",
            [("one million", "1E+6", ""), ("five hundred thousand", "5E+5", "")],
        ),
        (
            "-40, \u221240, \u201340 or minus 40",
            [
                ("-40", "-40", ""),
                ("\u221240", "-40", ""),
                ("\u201340", "-40", ""),
                ("minus 40", "-40", ""),
            ],
        ),
        ("10-40 and COVID-19", [("10", "10", ""), ("40", "40", ""), ("19", "19", "")]),  # no minus
        ("it fell by 40%", [("40%", "40", "%")]),  # a fall is no sign
        (
            "5 per cent, 5 percentage points, 30 bps",
            [("5 per cent", "5", "%"), ("5 percentage points", "5", "pp"), ("30 bps", "30", "bp")],
        ),
        (
            "20 mins, 2 hrs, a 420-metre span",
            [("20 mins", "20", "minute"), ("2 hrs", "2", "hour"), ("420-metre", "420", "metre")],
        ),
        (
            "USD 5, US$5, $5 and 5 dollars",
            [
                ("USD 5", "5", "USD"),
                ("US$5", "5", "USD"),
                ("$5", "5", "$"),
                ("5 dollars", "5", "$"),
            ],
        ),
        # a rate keeps what it is per
        (
            "$5 a month, 60 km/h, 30,000 cars a day",
            [
                ("$5 a month", "5", "$/month"),
                ("60 km/h", "60", "km/hour"),
                ("30,000 cars a day", "30000", "/day"),
            ],
        ),
        # what is counted is no unit; an ordinal is a rank
        (
            "three men, 1 win, the 16th",
            [("three men", "3", ""), ("1 win", "1", ""), ("16th", "16", "ordinal")],
        ),
        (
            "16 GB, 16 gb, 100 W, six pots",
            [
                ("16 GB", "16", "GB"),
                ("16 gb", "16", "GB"),
                ("100 W", "100", "W"),
                ("six pots", "6", ""),
            ],
        ),
    ],
)
def test_quantities__value_unit_sign_and_scale_read_by_rules(text, read):
    assert [(q.written, str(q.amount), q.unit) for q in quantities(text)] == read


def fills_source(answer: str, purposes: list[str]):
    """The small judge of issue 43: every sentence read as supported (0.97), the blank
    filled with `answer`, 90% sure the document gives it a value."""

    def script(request: JudgeRequest) -> Completion:
        step = request.purpose.rpartition(".")[2]
        purposes.append(step)
        if step == "fact":
            return said(answer, **{answer.split()[0]: 0.9, "NOT": 0.1})
        assert step == "verdict", step
        return said("Yes", Yes=0.97, No=0.02, Unknown=0.01)

    return FakeJudge(script)


@pytest.mark.parametrize("swap", SWAPS, ids=[s.name for s in SWAPS])
async def test_groundedness__a_unit_sign_scale_or_currency_swap_is_asked_and_contradicted(
    swap: Swap,
):
    # the source's digits in a sentence measuring them otherwise: never settled with no call
    (asked,) = [f for f in find(swap.response) if not stated(f, swap.source)]
    purposes: list[str] = []
    source_says = swap.said.partition("; the source says ")[2]
    result = await judged(swap.response, fills_source(source_says, purposes), swap.source)
    unit = result.units[0]
    assert purposes == ["verdict", "fact"]
    assert unit_verdict({"verdict": unit.verdict, "detail": unit.detail}) == (
        f"contradicted: {swap.said}"
    )
    assert unit.detail["p_contradicted"] == 0.9 and unit.evidence == swap.source
    # a fill of the number alone names the source's quantity the same
    bare = read_answer(asked, str(asked.measure and asked.measure.number), swap.source)
    assert bare.said() == swap.said


@pytest.mark.parametrize(("source", "response"), SAME)
async def test_groundedness__one_quantity_spelled_two_ways_costs_no_call(source, response):
    purposes: list[str] = []
    result = await judged(response, fills_source("NOT STATED", purposes), source)
    assert purposes == ["verdict"]
    assert result.units[0].verdict == "supported"


@pytest.mark.parametrize(("source", "response", "answer"), MOVES)
async def test_groundedness__a_fall_by_the_source_s_minus_is_no_swap_and_not_asked(
    source, response, answer
):
    # asked only where the source holds another quantity (2024): the fall signed is none
    purposes: list[str] = []
    result = await judged(response, fills_source(answer, purposes), source)
    assert purposes == (["verdict", "fact"] if "2024" in source else ["verdict"])
    fact = find(response)[0]
    assert read_answer(fact, answer, source).verdict != "different"
    assert result.units[0].verdict == "supported"
    assert SWAPPED_FACT not in result.units[0].detail


def test_read_answer__a_fill_is_read_as_written_as_the_blank_reads_it_and_in_the_source():
    source = "It costs 899 euros. It held 21 thousand. Trips take 60 minutes."
    price, held, trip = find("It costs 2,499 dollars, held -21000 and takes 20 minutes.")
    # "899" in "___ dollars": the source's 899 is in euros, said so
    assert read_answer(price, "899", source).said() == (
        "says 2,499 dollars; the source says 899 euros"
    )
    # as written, "21 thousand" is the source's; read with the blank's minus it would be -21000
    assert read_answer(held, "21 thousand", source).said() == (
        "says -21000; the source says 21 thousand"
    )
    # the sentence's own value echoed: no swap; the source's value: said with its unit
    assert read_answer(trip, "20", source).verdict == "equal"
    assert read_answer(trip, "60", source).said() == "says 20 minutes; the source says 60 minutes"


def test_stated__numbers_longer_than_decimal_arithmetic_keeps_stay_apart():
    long = "1234567890" * 3
    fact = find(f"It holds {long}1 units.")[0]
    assert not stated(fact, f"It holds {long}2 units.")
    assert stated(fact, f"It holds {long}1 units.")
    assert not stated(find(f"It holds -{long}1 units.")[0], f"It holds {long}1 units.")
