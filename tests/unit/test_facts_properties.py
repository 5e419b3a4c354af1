"""Property tests of the per-fact check (metrics/facts.py, metrics/quantities.py): generated
numbers with units, signs and scales, each spelled many ways (digits with separators,
decimals, words; currency symbols and codes before or after; scale words and suffixes; units
of time, length, mass, percent and percentage points). The invariants:

- a sentence and a source whose quantity differs in any part (value, unit, sign or scale) are
  never "the same": the fact is asked of the judge, and when the judge fills the blank with
  the source's quantity the unit reads "says <the sentence's>; the source says <the source's>";
- one quantity spelled two exact ways is stated: no judge call, as a fact written alike always
  was.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import NamedTuple

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ground_gate.judge.base import Completion, JudgeRequest
from ground_gate.metrics import RowSession
from ground_gate.metrics.facts import check, find, read_answer, stated
from ground_gate.metrics.quantities import NUMBER_WORDS
from tests.examples import examples
from tests.fakes import FakeJudge, said

WORDS = {v: w for w, v in NUMBER_WORDS.items()}
SCALE_WORDS = {2: "hundred", 3: "thousand", 6: "million", 9: "billion", 12: "trillion"}
SHORT_SCALES = {6: ["mn", "m"], 9: ["bn", "b"], 3: ["k"], 12: ["tn"]}  # letters by money only
CURRENCY = {  # a currency's spellings: before the number, after it
    "GBP": (["£", "GBP "], ["GBP", "pounds sterling"]),
    "EUR": (["€", "EUR "], ["EUR", "euros"]),
    "USD": (["US$", "USD "], ["USD"]),
    "$": (["$"], ["dollars"]),
}
UNITS = {  # every other unit's spellings, after the number
    "minute": ["minutes", "mins", "min"],
    "hour": ["hours", "hrs", "h"],
    "day": ["days"],
    "second": ["seconds", "secs", "s"],
    "km": ["km", "kilometres"],
    "metre": ["metres", "meters"],
    "mile": ["miles"],
    "kg": ["kg", "kilograms"],
    "gram": ["g", "grams"],
    "%": ["%", " percent", " per cent"],
    "pp": ["percentage points", "pp"],
    "W": ["W"],
    "": [""],
}
PER = {"month": ["month"], "year": ["year"], "day": ["day"], "hour": ["hour", "h"]}
RATES = ["$/month", "EUR/year", "km/hour", "/day", "%/year"]  # "$5 a month", "60 km/h"


class Spec(NamedTuple):
    """A quantity: its value as written (unsigned, unscaled), sign, scale and unit."""

    number: Decimal
    negative: bool
    scale: int
    unit: str

    @property
    def amount(self) -> Decimal:
        return (-self.number if self.negative else self.number).scaleb(self.scale)

    def same(self, other: Spec) -> bool:
        return self.amount == other.amount and self.unit == other.unit


numbers = st.one_of(
    st.integers(0, 99).map(Decimal),
    st.integers(100, 999_999).map(Decimal),
    st.builds(
        lambda n, places: Decimal(n).scaleb(-places), st.integers(1, 9999), st.integers(1, 2)
    ),
)
specs = st.builds(
    Spec,
    numbers,
    st.booleans(),
    st.sampled_from([0, 0, 3, 6, 9]),
    st.sampled_from(sorted(CURRENCY) + sorted(UNITS) + RATES),
)


def digits(number: Decimal, separators: bool) -> str:
    text = f"{number:,f}" if separators else f"{number:f}"
    return text


@st.composite
def spelled(draw: st.DrawFn, spec: Spec) -> str:
    """One way to write `spec` (exact: a scale written out as digits only when whole)."""
    number, scale = spec.number, spec.scale
    unit, _, per = spec.unit.partition("/")
    money = unit in CURRENCY
    if scale and draw(st.booleans()) and spec.number.scaleb(scale) == int(number.scaleb(scale)):
        number, scale = number.scaleb(scale), 0  # "1.5 million" as "1,500,000"
    whole = number == int(number)
    if whole and int(number) in WORDS and draw(st.booleans()):
        value = WORDS[int(number)]
    elif whole and int(number) == 1 and scale in SCALE_WORDS and draw(st.booleans()):
        value = "one"
    else:
        value = digits(number, draw(st.booleans()))
    if scale:  # a suffix beside digits only ("1.5m", not "sixm"); a letter beside money only
        short = [s for s in SHORT_SCALES.get(scale, []) if value[-1].isdigit()]
        short = [s for s in short if money or len(s) > 1]
        value += draw(st.sampled_from([f" {SCALE_WORDS[scale]}", *short]))
    before, after = "", ""
    if money:
        befores, afters = CURRENCY[unit]
        if draw(st.booleans()):
            before = draw(st.sampled_from(befores))
        else:
            after = " " + draw(st.sampled_from(afters))
    else:
        spelling = draw(st.sampled_from(UNITS[unit]))
        after = spelling if spelling[:1] in ("%", " ") or not spelling else " " + spelling
    if per:  # "a month", "per month", "/h"
        spelling = draw(st.sampled_from(PER[per]))
        joins = ["/"] if len(spelling) == 1 else [" a ", " per ", "/"]
        after += draw(st.sampled_from(joins)) + spelling
    if spec.negative:
        sign = draw(st.sampled_from(["-", "\u2212", "\u2013", "minus ", "negative "]))
        if before and sign in ("-", "\u2212") and draw(st.booleans()):
            return f"{before}{sign}{value}{after}"  # "£-40"
        return f"{sign}{before}{value}{after}"
    return f"{before}{value}{after}"


def sentence(quantity: str) -> str:
    return f"The figure was {quantity} in the report."


def source(quantity: str) -> str:
    return f"Our records show that the figure was {quantity} in the report."


def the_fact(text: str):
    facts = [f for f in find(text) if f.kind == "number"]
    assert len(facts) == 1, (text, [f.written for f in facts])
    return facts[0]


@given(st.data())
def test_a_quantity_is_read_as_written(data: st.DataObject) -> None:
    spec = data.draw(specs)
    written = data.draw(spelled(spec))
    measure = the_fact(sentence(written)).measure
    assert measure is not None
    assert (measure.amount, measure.unit) == (spec.amount, spec.unit), written


@given(st.data())
def test_one_quantity_spelled_two_ways_is_stated(data: st.DataObject) -> None:
    spec = data.draw(specs)
    ours, theirs = data.draw(spelled(spec)), data.draw(spelled(spec))
    assert stated(the_fact(sentence(ours)), source(theirs)), (ours, theirs)


def one_part_changed(spec: Spec, part: str, other: Spec) -> Spec:
    return spec._replace(**{part: getattr(other, part)})


@given(st.data())
def test_a_quantity_differing_in_any_part_is_never_the_same(data: st.DataObject) -> None:
    spec = data.draw(specs)
    part = data.draw(st.sampled_from(["number", "negative", "scale", "unit", "all"]))
    drawn = data.draw(specs)
    other = drawn if part == "all" else one_part_changed(spec, part, drawn)
    assume(not spec.same(other))
    ours, theirs = data.draw(spelled(spec)), data.draw(spelled(other))
    fact, passage = the_fact(sentence(ours)), source(theirs)
    assert not stated(fact, passage), (ours, theirs)
    # the judge filling the blank with the source's quantity makes it a swap, said in full
    checked = read_answer(fact, theirs, passage)
    assert checked.verdict == "different", (ours, theirs)
    assert checked.said() == f"says {ours}; the source says {theirs.strip()}"


def fill_with(answer: str, asked: list[str]) -> FakeJudge:
    def script(request: JudgeRequest) -> Completion:
        asked.append(request.messages[-1].content)
        return said(answer, **{answer.split()[0]: 0.9, "NOT": 0.1})

    return FakeJudge(script)


@settings(max_examples=examples(40))  # each example runs the check's session
@given(st.data())
def test_the_check_asks_the_judge_for_a_differing_part_and_only_then(
    data: st.DataObject,
) -> None:
    spec, drawn = data.draw(specs), data.draw(specs)
    part = data.draw(st.sampled_from(["number", "negative", "scale", "unit"]))
    other = one_part_changed(spec, part, drawn)
    ours, theirs = data.draw(spelled(spec)), data.draw(spelled(other))
    asked: list[str] = []
    session = RowSession(fill_with(theirs.strip(), asked), "groundedness", memo={})
    text = sentence(ours)
    checked = asyncio.run(check(text, source(theirs), source(theirs), session))
    if spec.same(other):
        assert (asked, checked) == ([], [])
    else:
        assert len(asked) == 1 and [c.verdict for c in checked] == ["different"], (ours, theirs)
