"""Property tests of text whose visibility the gate cannot establish (issue 43, item 4).

Hypothesis writes the hiding styles (CSS properties and values in many spellings, comments
inside declarations, !important, upper case, character references, `<style>` rules with
compound, attribute, child and descendant selectors, SVG, presentational attributes) and wraps
them around sentences of the source placed inside an answer the source does not support.
The judge is scripted (`SourceJudge`): it says "supported" exactly for the source's sentences,
for every metric. The invariants:

- padding hidden by any generated style raises no score of any metric on the row, compared
  with the same answer without the padding;
- a claim the source does not hold, in a span styled but visible, is judged: it lowers the
  scores of a supported answer.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ground_gate.config.model import AnswersConfig, SummaryAccuracyConfig
from ground_gate.config.scores import LOWER_IS_BETTER
from ground_gate.datasets import Sample
from ground_gate.judge.base import Completion, JudgeRequest
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.leaves.usage import Usage
from ground_gate.metrics.answers import Answers
from ground_gate.metrics.faithfulness import Faithfulness
from ground_gate.metrics.groundedness import Groundedness
from ground_gate.metrics.hidden import HIDDEN_ELEMENT
from ground_gate.metrics.rating import Rating
from ground_gate.metrics.screen import screen_sample
from ground_gate.metrics.styles import UNCERTAIN
from ground_gate.metrics.summary_accuracy import SummaryAccuracy
from ground_gate.metrics.worse_reading import MAX_ALONE, judged_on, worse
from ground_gate.stages.runner import score_row
from tests.examples import examples
from tests.fakes import FakeJudge, json_reply, said, unit_of
from tests.hostile.hidden_styles import HIDING, VISIBLE

SOURCE = (
    "The Aurora pump runs at forty watts.",
    "Its filter is rinsed under cold water every month.",
    "The warranty covers the motor for three years.",
    "Replacement filters are sold in packs of two.",
)
INVENTED = (
    "The pump was designed by a team in Oslo.",
    "Customers can return it within ninety days for any reason.",
    "Its motor is made of recycled titanium.",
    "The pump doubles as a room humidifier.",
    "Each unit ships with a lifetime guarantee on the casing.",
)
QUESTION = "What should I know about the Aurora pump?"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=\.)\s+", " ".join(text.split())) if s.strip()]


def _supported(text: str) -> bool:
    sentences = _sentences(text)
    return bool(sentences) and all(s in SOURCE for s in sentences)


def _asked_about(question: str) -> str:
    return question.removeprefix("Is it stated that ").removesuffix("?") + "."


def _judge(request: JudgeRequest, contradicted: frozenset[str] = frozenset()) -> Completion:
    """Supported exactly for the source's sentences, whatever the metric asks; an invented
    sentence is not in the source, or contradicted when `contradicted` holds it."""
    step = request.purpose.split(".")[1]
    content = request.messages[-1].content
    if step == "informs":
        return said("Yes", Yes=0.95, No=0.05)
    if step == "statements":
        return json_reply({"statements": [unit_of(request, "sentence")]})
    if step == "questions":
        sentence = unit_of(request, "sentence").rstrip(".")
        return json_reply({"questions": [f"Is it stated that {sentence}?"]})
    if step in ("answer_summary", "answer_document"):
        asked = _asked_about(unit_of(request, "question"))
        text = unit_of(request, "summary" if step == "answer_summary" else "document")
        found = asked in _sentences(text)
        return said("Yes" if found else "Unknown", **{"Yes" if found else "Unknown": 0.9})
    if step == "evades":
        evades = not any(s in SOURCE for s in _sentences(unit_of(request, "answer")))
        return said("Yes" if evades else "No", **{"Yes" if evades else "No": 0.9})
    if step == "answerable":
        return said("Yes", Yes=0.9, No=0.1)
    if step == "rate":
        tag = "sentence" if "<sentence>" in content else "answer"
        good = _supported(unit_of(request, tag))
        return said("5" if good else "1", **{"5" if good else "1": 1.0})
    if step == "verdict":
        tag = "sentence" if "<sentence>" in content else "statement"
        good = unit_of(request, tag) in SOURCE
        if unit_of(request, tag) in contradicted:
            return said("No", No=0.95)
        if tag == "statement":
            return said("Yes" if good else "No", **{"Yes" if good else "No": 0.95})
        return said("Yes" if good else "Unknown", **{"Yes" if good else "Unknown": 0.95})
    if step == "fact":
        return said("Unknown", Unknown=1.0)
    raise AssertionError(request.purpose)


METRICS = (
    Groundedness(),
    Faithfulness(),
    Answers(AnswersConfig()),
    Rating(),
    SummaryAccuracy(SummaryAccuracyConfig(n_questions=4, questions_per_sentence=1)),
)


async def judged(response: str, contradicted: frozenset[str] = frozenset()) -> RowResult:
    sample = Sample(
        id="r1", sources=(" ".join(SOURCE),), response=response, question=QUESTION,
        answerable=True,
    )  # fmt: skip
    judge = FakeJudge(lambda request: _judge(request, contradicted))
    return await score_row("d", screen_sample(sample), METRICS, judge)


def scores(row: RowResult) -> dict[tuple[str, str], float]:
    for metric in row.metrics:
        assert metric.status == "ok", (metric.metric, metric.error)
    return {(m.metric, name): v for m in row.metrics for name, v in m.scores.items()}


def better(name: str, after: float, before: float) -> bool:
    """Whether `after` is a better score than `before` (beyond rounding)."""
    gap = after - before
    return gap < -1e-9 if name in LOWER_IS_BETTER else gap > 1e-9


# --- hiding styles, written many ways -------------------------------------------------------

ZEROS = ("0", "0px", "0em", "0rem", "0%", "0.0001px", "calc(0px)", "calc(1px - 1px)", "-0",
         "0PX", "1e-9px", "calc(0 * 1em)")  # fmt: skip
INVISIBLE_COLOURS = (
    "white", "WHITE", "#fff", "#FFF", "#ffffff", "#fff0", "#ffffff00", "rgb(255,255,255)",
    "rgb(255 255 255)", "rgba(255, 255, 255, 0.01)", "rgb(0 0 0 / 0)", "hsl(0 0% 100%)",
    "hsla(0,0%,100%,.0)", "transparent", "TRANSPARENT", "Canvas", "snow", "#FeFeFe",
    "color-mix(in srgb, white 100%, black)",
)  # fmt: skip
FAR = ("-9999px", "-100vw", "-999em", "calc(-100vw - 50px)", "-10000PX", "-1e4px")


@st.composite
def declarations(draw: st.DrawFn) -> str:
    """One declaration block that hides its element, in one of many spellings."""
    zero, far, colour = draw(st.sampled_from(ZEROS)), draw(st.sampled_from(FAR)), None
    colour = draw(st.sampled_from(INVISIBLE_COLOURS))
    options = [
        f"color:{colour}",
        f"color: {colour}; background: {colour}",
        f"font-size:{zero}",
        f"font-size:{zero};line-height:0",
        f"opacity:{draw(st.sampled_from(('0', '0.0', '.001', '0%', 'calc(0)')))}",
        f"transform:scale({draw(st.sampled_from(('0', '0.001', '0,0', '0 0', '.0')))})",
        f"transform:translate({far})",
        f"transform:translateX({far})",
        f"position:absolute;left:{far}",
        f"position:fixed;top:{far}",
        f"margin-left:{far}",
        f"text-indent:{far};overflow:hidden",
        f"height:{zero};overflow:hidden",
        f"max-height:{zero};overflow:clip",
        f"width:{zero};height:{zero};overflow:hidden;display:inline-block",
        f"clip:rect({zero},{zero},{zero},{zero});position:absolute",
        "clip-path:inset(100%)",
        "clip-path:circle(0)",
        "clip-path:polygon(0 0,0 0,0 0)",
        f"letter-spacing:{far};font-size:1px",
        "filter:opacity(0)",
        "visibility:hidden",
        "display:none",
        "content-visibility:hidden",
        "mix-blend-mode:screen;color:white",
    ]
    text = draw(st.sampled_from(options))
    return _respell(draw, text)


def _respell(draw: st.DrawFn, text: str) -> str:
    """The same declarations written another way: comments, !important, case, references."""
    way = draw(st.sampled_from(("plain", "comment", "important", "upper", "entity", "spaces")))
    if way == "comment":
        return text.replace(":", ":/* note */", 1).replace(";", "/**/;")
    if way == "important":
        return ";".join(f"{d} !important" for d in text.split(";"))
    if way == "upper":
        return text.upper()
    if way == "entity":
        return "".join(f"&#{ord(c)};" if c in "co:" else c for c in text)
    if way == "spaces":
        return text.replace(":", " :\n ").replace(";", " ; ")
    return text


SHEET_SELECTORS = (
    "span.pad.q", "p > span", "p span", "span[lang]", "span[lang='en']", "[role~=note]",
    "*", "body *", "span:not(.z)", "span:nth-child(1)", "p span:first-of-type", "#pad",
    "span#pad", "span + span", ".pad", "SPAN", "div > p", "p", "span.pad, em",
    ":is(span, em)", "p:has(span)",
)  # fmt: skip
TAGS = ("span", "em", "b", "small", "label", "i", "sub", "q", "strong")


@st.composite
def hiding(draw: st.DrawFn, kinds: tuple[str, ...] = ()) -> tuple[str, str]:
    """A (style sheet, opening tag, closing tag) way to hide a passage, as (before, after)
    around it; the sheet, when there is one, goes first."""
    tag = draw(st.sampled_from(TAGS))
    kind = draw(st.sampled_from(kinds or ("inline", "sheet", "class", "svg", "font", "math")))
    if kind == "inline":
        quote = draw(st.sampled_from(('"', "'")))
        return f"<{tag} style={quote}{draw(declarations())}{quote}>", f"</{tag}>"
    if kind == "sheet":
        selector = draw(st.sampled_from(SHEET_SELECTORS))
        sheet = f"<style>{selector} {{ {draw(declarations())} }}</style>\n\n"
        opening = '<span class="pad" id="pad" lang="en" dir="ltr" role="note">'
        return sheet + opening, "</span>"
    if kind == "class":
        name = draw(st.sampled_from(("sr-only", "visually-hidden", "d-none", "hidden", "x")))
        return f'<{tag} class="{name}">', f"</{tag}>"
    if kind == "svg":
        size = draw(st.sampled_from(('width="0" height="0"', "", 'width="1"')))
        place = draw(st.sampled_from(("", 'x="-9999"', 'y="0"', 'fill="none"', 'font-size="0"')))
        return f"<svg {size}><text {place}>", "</text></svg>"
    if kind == "math":
        return '<math><mtext mathcolor="white">', "</mtext></math>"
    colour = draw(st.sampled_from(("white", "#ffffff", "#fefefe")))
    return f'<font color="{colour}" size="1">', "</font>"


@st.composite
def attacks(draw: st.DrawFn, kinds: tuple[str, ...] = ()) -> tuple[str, str]:
    """(the unsupported answer, the same answer with source sentences hidden inside it)."""
    said_ = draw(st.lists(st.sampled_from(INVENTED), min_size=1, max_size=3, unique=True))
    padding = draw(st.lists(st.sampled_from(SOURCE), min_size=1, max_size=3, unique=True))
    before, after = draw(hiding(kinds))
    where = draw(st.integers(min_value=0, max_value=len(said_)))
    hidden = before + " ".join(padding) + after
    block = draw(st.booleans())
    pieces = list(said_)
    pieces.insert(where, hidden)
    clean = " ".join(said_)
    if before.startswith("<style>") or block:
        return clean, "\n\n".join(pieces)
    return clean, " ".join(pieces)


@settings(max_examples=examples(60))
@given(attacks())
async def test_source_sentences_hidden_by_any_style_raise_no_score_of_any_metric(attack):
    clean, attacked = attack
    row = await judged(attacked)
    assert {kind for _, kind, _ in row.hidden} & {UNCERTAIN, HIDDEN_ELEMENT}, attacked
    before, after = scores(await judged(clean)), scores(row)
    assert before.keys() == after.keys()
    risen = {k: (before[k], after[k]) for k in before if better(k[1], after[k], before[k])}
    assert not risen, (attacked, risen)


@settings(max_examples=examples(60))
@given(attacks())
async def test_padding_hidden_beside_a_contradicted_claim_dilutes_no_score(attack):
    """Padding beside a claim the source contradicts, by any hiding style, a style sheet that
    leaves nothing surely visible included (each styled passage is then read alone too):
    neither contradiction nor any other score reads better than for the claim alone."""
    clean, attacked = attack
    wrong = frozenset(INVENTED)
    before, after = scores(await judged(clean, wrong)), scores(await judged(attacked, wrong))
    risen = {k: (before[k], after[k]) for k in before if better(k[1], after[k], before[k])}
    assert not risen, (attacked, risen)


STYLED_VISIBLE = (
    '<span style="color:red">{}</span>',
    '<b style="font-family:serif">{}</b>',
    '<em class="note">{}</em>',
    '<font color="#c00">{}</font>',
    '<span style="background:#ff0">{}</span>',
    '<style>.note {{ color: navy }}</style>\n\n<span class="note">{}</span>',
)


@settings(max_examples=examples(30))
@given(
    st.lists(st.sampled_from(SOURCE), min_size=1, max_size=3, unique=True),
    st.sampled_from(INVENTED),
    st.sampled_from(STYLED_VISIBLE),
)
async def test_an_invented_claim_in_a_styled_visible_span_is_judged(supported, claim, styled):
    clean = " ".join(supported)
    attacked = f"{clean}\n\n{styled.format(claim)}"
    before, row = scores(await judged(clean)), await judged(attacked)
    after = scores(row)
    assert any(kind == UNCERTAIN for _, kind, _ in row.hidden)
    for metric in ("groundedness", "faithfulness", "rating", "agreement"):
        name = metric
        owner = {"agreement": "summary_accuracy"}.get(metric, metric)
        assert after[(owner, name)] < before[(owner, name)], (attacked, metric)
    assert not any(better(k[1], after[k], before[k]) for k in before)
    assert {m.metric: m.uncertain_text for m in row.metrics}["groundedness"] == "kept"


async def test_a_row_without_uncertain_text_is_judged_once_as_before():
    response = f"{SOURCE[0]} {INVENTED[0]} <!-- a note -->"
    sample = Sample(id="r1", sources=(" ".join(SOURCE),), response=response, question=QUESTION)
    screened = screen_sample(sample)
    assert screened.uncertain_kept is None
    judge = FakeJudge(_judge)
    row = await score_row("d", screened, METRICS, judge)
    assert all(m.uncertain_text is None for m in row.metrics)
    again = FakeJudge(_judge)
    await score_row("d", screened, METRICS, again)
    assert [r.messages for r in judge.requests] == [r.messages for r in again.requests]
    plain = FakeJudge(_judge)
    await score_row("d", Sample(id="r1", sources=sample.sources, response=response.split(" <!")[0],
                                question=QUESTION), METRICS, plain)  # fmt: skip
    assert len(plain.requests) == len(judge.requests)


async def test_a_row_read_both_ways_says_which_reading_each_metric_kept_and_counts_both():
    padded = f'{INVENTED[0]} <span style="color:#fffffe">{SOURCE[0]}</span>'
    judge = FakeJudge(_judge)
    row = await judged(padded)
    assert row.hidden == (("response", UNCERTAIN, SOURCE[0]),)
    assert {m.metric: m.uncertain_text for m in row.metrics} == {
        "groundedness": "removed",
        "faithfulness": "removed",
        "answers": "removed",
        "rating": "kept",
        "summary_accuracy": "removed",
    }  # fmt: skip  (the rating is its lowest sentence's: a tie, and a tie keeps the text)
    once = await score_row(
        "d", screen_sample(Sample(id="r1", sources=(" ".join(SOURCE),), response=INVENTED[0],
                                  question=QUESTION, answerable=True)), METRICS, judge,
    )  # fmt: skip
    spent = {m.metric: m.usage.calls + m.usage.cache_hits for m in row.metrics}
    alone = {m.metric: m.usage.calls + m.usage.cache_hits for m in once.metrics}
    assert all(spent[name] > alone[name] for name in spent), (spent, alone)
    assert scores(row) == scores(once)


@pytest.mark.parametrize(
    "response",
    [
        f'<span style="color:white">{SOURCE[0]} {SOURCE[1]}</span>',
        f"I cannot say. <svg><text>{SOURCE[0]}</text></svg>",
    ],
)
async def test_padding_with_nothing_else_surely_visible_raises_no_score(response):
    row = await judged(response)
    empty = scores(await judged(INVENTED[0]))
    for (metric, name), value in scores(row).items():
        assert not better(name, value, empty[(metric, name)]), (metric, name, value)


async def test_evidence_is_quoted_from_the_reading_the_metric_kept():
    row = await judged(f"{SOURCE[0]}\n\n<em class='note'>{INVENTED[1]}</em>")
    sample = screen_sample(
        Sample(id="r1", sources=(" ".join(SOURCE),), response=f"{SOURCE[0]}\n\n"
               f"<em class='note'>{INVENTED[1]}</em>", question=QUESTION, answerable=True)
    )  # fmt: skip
    grounded = next(m for m in row.metrics if m.metric == "groundedness")
    assert grounded.uncertain_text == "kept"
    assert judged_on(sample, grounded) is sample.uncertain_kept
    assert INVENTED[1] in judged_on(sample, grounded).response
    removed = next(m for m in row.metrics if m.metric == "rating")
    assert judged_on(sample, replace(removed, uncertain_text="removed")) is sample


@pytest.mark.parametrize("name", sorted(HIDING))
async def test_the_hostile_corpus_of_hiding_styles_raises_no_score(name):
    clean = f"{INVENTED[0]} {INVENTED[1]}"
    attacked = f"{clean}\n\n{HIDING[name].format(f'{SOURCE[0]} {SOURCE[1]}')}"
    row = await judged(attacked)
    kinds = {kind for _, kind, text in row.hidden if SOURCE[0] in text}
    assert kinds & {UNCERTAIN, HIDDEN_ELEMENT}, (name, row.hidden)
    before, after = scores(await judged(clean)), scores(row)
    assert not {k for k in before if better(k[1], after[k], before[k])}, name


@pytest.mark.parametrize("name", sorted(VISIBLE))
async def test_the_hostile_corpus_of_visible_styles_has_an_invented_claim_judged(name):
    clean = f"{SOURCE[0]} {SOURCE[1]}"
    row = await judged(f"{clean}\n\n{VISIBLE[name].format(INVENTED[2])}")
    before, after = scores(await judged(clean)), scores(row)
    assert after[("groundedness", "groundedness")] < before[("groundedness", "groundedness")]
    assert after[("rating", "rating")] < before[("rating", "rating")]


def test_worse__each_score_is_the_worse_of_the_two_readings_and_both_costs_count():
    kept = MetricResult(
        "groundedness", "ok", {"groundedness": 0.3, "hallucination": 0.2, "contradiction": 0.5},
        (UnitResult("A styled claim.", 0.0, "contradicted"),), usage=Usage(calls=2),
    )  # fmt: skip
    removed = MetricResult(
        "groundedness", "ok", {"groundedness": 0.2, "hallucination": 0.8, "contradiction": 0.0},
        usage=Usage(calls=1),
    )  # fmt: skip
    chosen = worse(kept, removed)
    assert chosen.uncertain_text == "removed" and chosen.units == ()
    assert chosen.scores == {"groundedness": 0.2, "hallucination": 0.8, "contradiction": 0.5}
    assert chosen.usage.calls == 3
    failed = MetricResult("groundedness", "error", error="judge down")
    assert worse(kept, failed).status == "error" and worse(failed, removed).status == "error"
    nothing = MetricResult("groundedness", "no_claims")
    assert worse(kept, nothing).uncertain_text == "kept"


async def test_nothing_surely_visible_and_more_passages_than_can_be_read_alone_is_an_error():
    """Seven styled paragraphs under a style sheet read as a whole: more than MAX_ALONE to
    read one by one, so no metric passes the row; each says why."""
    paragraphs = [*SOURCE, *INVENTED][: MAX_ALONE + 1]
    response = "<style>p.a.b { color:white }</style>\n\n" + "\n\n".join(paragraphs)
    row = await judged(response)
    assert {m.status for m in row.metrics} == {"error"}
    assert all(f"more than the {MAX_ALONE} read one by one" in (m.error or "") for m in row.metrics)
