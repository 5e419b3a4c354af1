"""The swapped fact: numbers, dates and names of a sentence checked against the source.

A small judge reading a whole sentence against an article calls "charges to 80% in 20 minutes"
supported when the article says 60: most of the sentence matches. One fact against the passage
that states it is a question it can answer. So, per sentence (groundedness's verdict method):

1. Rules find the checkable facts (`find`): numbers in digits or words with the unit after
   them ("20 minutes", "80%", "£1.5m", "six"), months and weekdays, and names (a run of
   capitalised words that is not just the sentence's first word). Lower-cased, tokenised text
   works for numbers and dates; it has no capitals to find names by.
2. A fact the passages the sentence is about already state is "equal": no call. Nor is a
   fact no fill could find "different" (`could_differ`: a number beside no other quantity, a
   date beside no word of its calendar), nor any fact of a sentence the verdict already calls
   contradicted (groundedness.py): the check only raises P(contradicted).
3. Any other fact is asked of the judge: the sentence with the fact blanked out, "which words
   of the document fill the blank? Other parts of the sentence may be wrong"
   (`prompts.fill_blank`; told only to fill it, the judge refused a blank in a sentence that
   disagreed with the document elsewhere: bench/RESULTS.md, "Swapped facts"); several facts of
   one sentence in one call, as numbered blanks (metrics/blanks.py). An answer
   of the same kind that the passages hold and that differs from the fact is "different": the
   source states another value (the sentence is contradicted, and the source sentence holding
   that value is its evidence); an answer equal to the fact is "equal"; anything else (NOT
   STATED, another kind of answer, words the source does not hold, a reply not read line by
   line) is "absent", which leaves the sentence's own verdict to decide.

The rules never decide a contradiction alone: a number the passages do not hold may be a sum
the sentence made, and only the judge can say which passage value, if any, the blank is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ground_gate.leaves.sentences import split_sentences
from ground_gate.metrics import blanks, prompts
from ground_gate.metrics.base import RowSession
from ground_gate.metrics.blanks import FILL_TOKENS, p_stated
from ground_gate.metrics.passages import GAP, STOPWORDS, content_words, focus, words
from ground_gate.metrics.quantities import (
    MONTHS,
    WEEKDAYS,
    Quantity,
    filled,
    number_value,
    quantities,
    resolved,
)

_NAME = re.compile(r"[A-Z][\w'\-]*(?:\s+(?:of\s+|the\s+|de\s+|van\s+|von\s+)?[A-Z][\w'\-]*)*")
_PRONOUN = re.compile(r"I(?:'\w+)?")
_WORD = re.compile(r"\w+")
_NOT_STATED = ("not stated", "not mentioned", "none", "n/a", "unknown", "nothing")


@dataclass(frozen=True)
class Fact:
    """One checkable fact of a sentence: its kind ("number", "date" or "name"), its text as
    the sentence writes it and where (start, end in the sentence); a number's value, the
    words after it (its unit, or what is counted: "minutes"), and the whole of it as
    metrics/quantities.py reads it (value, unit, sign and scale: `quantity`)."""

    kind: str
    text: str
    start: int
    end: int
    value: float | None = None
    unit: str = ""
    reach: int = 0  # where the fact ends with its unit ("100 W": after the W)
    quantity: Quantity | None = None

    @property
    def measure(self) -> Quantity | None:
        """A number's quantity (read from its text when the fact was made without one)."""
        if self.kind != "number":
            return None
        return self.quantity or next(iter(quantities(self.text)), None)

    @property
    def lead(self) -> int:
        """Where the fact starts with its sign and currency ("£1.5m": at the £)."""
        return self.quantity.lead if self.quantity else self.start

    @property
    def written(self) -> str:
        """The fact as the sentence writes it, a number with its sign, scale and unit."""
        return self.quantity.written if self.quantity else self.text


@dataclass(frozen=True)
class Checked:
    """A fact as the source states it: "equal", "different" (the source states `other`, in
    `evidence`, the source sentence holding it) or "absent"; `p_stated` the judge's
    probability that the passage states a value for the blank at all (1.0 when the rules
    decided, or when the judge gave no probabilities)."""

    fact: Fact
    verdict: str
    other: str = ""
    evidence: str = ""
    p_stated: float = 1.0

    def said(self) -> str:
        """'says 20 minutes; the source says 60 minutes': a number with its sign, scale and
        unit on both sides, the source's as the source writes it."""
        return f"says {self.fact.written}; the source says {self.other}"


def find(sentence: str) -> list[Fact]:
    """The checkable facts of `sentence`, in order, none overlapping another."""
    found = _numbers(sentence) + _dates(sentence) + _names(sentence)
    kept: list[Fact] = []
    for fact in sorted(found, key=lambda f: (f.lead, -max(f.end, f.reach))):
        if not kept or fact.lead >= max(kept[-1].end, kept[-1].reach):
            kept.append(fact)
    return kept


def _numbers(sentence: str) -> list[Fact]:
    return [_number(sentence, q) for q in quantities(sentence)]


def _number(sentence: str, q: Quantity) -> Fact:
    unit = sentence[q.end : q.reach].strip(" \t-")
    return Fact("number", sentence[q.start : q.end], q.start, q.end, float(q.number), unit,
                q.reach, q)  # fmt: skip


def _dates(sentence: str) -> list[Fact]:
    return [
        Fact("date", m.group(), m.start(), m.end())
        for m in _WORD.finditer(sentence)
        if m.group().lower() in MONTHS | WEEKDAYS
    ]


def _names(sentence: str) -> list[Fact]:
    found = []
    for match in _NAME.finditer(sentence):
        start, text = match.start(), match.group()
        # a run's leading function or number words are no part of the name ("The Portuguese",
        # "Four Royal Navy frigates"): a sentence's first word is capitalised whatever it is
        while (lead := re.match(r"(\S+)\s+", text)) and _not_a_name(lead.group(1)):
            start, text = start + lead.end(), text[lead.end() :]
        parts = text.split()
        if (start == 0 and len(parts) == 1) or _not_a_name(text) or _PRONOUN.fullmatch(text):
            continue
        if len(parts) > 1 and text.isupper():  # "CLICK HERE" shouts; it names nothing
            continue
        found.append(Fact("name", text, start, start + len(text)))
    return found


def _not_a_name(text: str) -> bool:
    """A capitalised word that names nothing: a function word, a number, a month or day."""
    calendar = MONTHS | WEEKDAYS
    parts = text.lower().split()
    return all(w in STOPWORDS or w in calendar or number_value(w) is not None for w in parts)


def stated(fact: Fact, passage: str) -> bool:
    """Whether `passage` states `fact` as the sentence does (no judge call): a number with the
    same value, unit, sign and scale (metrics/quantities.py); a name or date by its words."""
    measure = fact.measure
    if fact.kind == "number":
        return measure is not None and any(measure.same(q) for q in quantities(passage))
    return words(fact.text) <= words(passage)


async def check(sentence: str, document: str, source: str, session: RowSession) -> list[Checked]:
    """The facts of `sentence` that could be found "different" (`could_differ`) and that the
    passages it is about do not state as it does, checked against `document` (what the
    sentence's verdict read): one judge call for one such fact, one call for several
    (metrics/blanks.py)."""
    passage = focus(sentence, source)
    asked = [f for f in find(sentence) if not stated(f, passage) and could_differ(f, passage)]
    if len(asked) > 1:
        return await _ask_together(asked, sentence, document, passage, session)
    return [await _ask(f, sentence, document, passage, session) for f in asked]


def could_differ(fact: Fact, passage: str) -> bool:
    """Whether any fill of the blank could read "different" (`read_answer`): a number needs a
    quantity of `passage` other than its own and not its move ("fell by 40%" beside -40%), a
    date a word of its calendar; a name may be any words of a passage sentence. A fact no
    answer can find different changes no verdict: it is not asked."""
    if fact.kind == "number":
        measure = fact.measure
        return measure is not None and any(
            not measure.same(q) and not _a_move_of(measure, q) for q in quantities(passage)
        )
    if fact.kind == "date":
        return bool(words(passage) & _calendar(fact))
    return True


def _blank(fact: Fact, sentence: str, passage: str) -> tuple[int, int]:
    """The span of `sentence` a fact's blank takes: a number the passage writes, measured
    otherwise ("20 minutes" for "20 hours"), with its unit, sign and scale, so the judge reads
    them off the document; else its value alone (a number's unit kept)."""
    if _whole(fact, passage):
        return fact.lead, max(fact.end, fact.reach)
    return fact.start, fact.end


async def _ask(
    fact: Fact, sentence: str, document: str, passage: str, session: RowSession
) -> Checked:
    start, end = _blank(fact, sentence, passage)
    completion = await session.ask(
        "fact", prompts.fill_blank(document, sentence[:start] + "___" + sentence[end:]),
        max_tokens=FILL_TOKENS, logprobs=True,
    )  # fmt: skip
    first = completion.top_logprobs[0] if completion.top_logprobs else {}
    return read_answer(fact, _fill(completion.text), passage, p_stated(first) if first else 1.0)


async def _ask_together(
    asked: list[Fact], sentence: str, document: str, passage: str, session: RowSession
) -> list[Checked]:
    """Several facts of one sentence in one call; each "absent" when the reply is not read
    line by line (metrics/blanks.py)."""
    spans = [_blank(f, sentence, passage) for f in asked]
    filled = await blanks.fill(session, document, sentence, spans)
    if not filled:
        return [Checked(f, "absent") for f in asked]
    return [read_answer(f, _fill(a), passage, p) for f, (a, p) in zip(asked, filled, strict=True)]


def _fill(text: str) -> str:
    """A fill as the judge wrote it, without tags, quotes or a closing full stop."""
    return " ".join(prompts.strip_tags(text).split()).strip("\"'.` ")


def read_answer(fact: Fact, answer: str, passage: str, p_stated: float = 1.0) -> Checked:
    """What the judge's fill of the blank says of `fact`, against `passage`."""
    lowered = answer.lower()
    if not lowered or lowered.startswith(_NOT_STATED):
        return Checked(fact, "absent", p_stated=p_stated)
    if fact.kind == "number":
        return _read_number(fact, answer, passage, p_stated)
    else:
        told = Fact(fact.kind, answer, 0, 0)
        if _same_name(fact.text, answer):
            return Checked(fact, "equal", p_stated=p_stated)
        if not _same_kind(fact, answer):
            return Checked(fact, "absent", p_stated=p_stated)
        holding = _sentence_holding(passage, lambda s: stated(told, s))
    if holding is None:
        return Checked(fact, "absent", p_stated=p_stated)
    return Checked(fact, "different", answer, holding, p_stated)


def _whole(fact: Fact, passage: str) -> bool:
    """Whether `passage` writes the number of `fact` (then measured otherwise: a fact it
    states is not asked), so the whole fact is blanked, its unit, sign and scale too."""
    measure = fact.measure
    return measure is not None and any(q.number == measure.number for q in quantities(passage))


def _read_number(fact: Fact, answer: str, passage: str, p_stated: float) -> Checked:
    """A number's fill read with its unit, sign and scale: "different" when, as written, it
    is another quantity the passage holds (said as the passage writes it); else "equal" when
    it is the fact's, read as the sentence reads a blank that kept the unit ("60" in "___
    minutes") or, for a whole blank, as the passage's quantity with its number; else
    "different" when either reading, or a quantity of the passage with its number ("899" for
    the source's "899 euros"), is another quantity the passage holds; else "absent"."""
    measure, held = fact.measure, quantities(passage)
    if measure is None:
        return Checked(fact, "absent", p_stated=p_stated)
    said = quantities(answer)
    named = [r for q in said for r in resolved(q, held)]
    readings = named if _whole(fact, passage) else [filled(q, measure) for q in said]
    other = _held(said, held, measure)
    if other is None and any(measure.same(r) for r in readings):
        return Checked(fact, "equal", p_stated=p_stated)
    other = other or _held(readings + named, held, measure)
    if other is None or _a_move_of(measure, other):
        return Checked(fact, "absent", p_stated=p_stated)
    holding = _sentence_holding(passage, lambda s: any(other.same(q) for q in quantities(s)))
    if holding is None:
        return Checked(fact, "absent", p_stated=p_stated)
    return Checked(fact, "different", other.written, holding, p_stated)


def _held(readings: list[Quantity], held: list[Quantity], measure: Quantity) -> Quantity | None:
    """The first quantity of the passage that one of `readings` is, other than the fact's."""
    return next((h for h in held if not measure.same(h) and any(h.same(r) for r in readings)), None)


def _a_move_of(measure: Quantity, other: Quantity) -> bool:
    """Whether `measure` is the size of a change a verb gives the direction of ("fell by 40%")
    and `other` the same change signed ("-40%"): the sign is the verb's, no swap."""
    return measure.moved and measure.unit == other.unit and other.amount == -measure.amount


def _same_name(said: str, answer: str) -> bool:
    """Whether the judge's answer names what the sentence does: a word in common ("Mrs Ru",
    "Mei Ru"), or one is the other's initials ("NFL", "National Football League")."""
    ours, theirs = content_words(said), content_words(answer)
    if ours & theirs:
        return True
    return any(
        _initials(a) == b.replace(".", "").upper() for a, b in ((said, answer), (answer, said))
    )


def _initials(text: str) -> str:
    parts = [w for w in _WORD.findall(text) if w.lower() not in STOPWORDS]
    return "".join(w[0] for w in parts).upper() if len(parts) > 1 else ""


def _same_kind(fact: Fact, answer: str) -> bool:
    """A date's blank filled by a date of the same calendar; a name's by a name."""
    said = words(answer)
    if fact.kind == "date":
        return bool(said & _calendar(fact))
    return bool(_NAME.search(answer)) and len(said) <= 6


def _calendar(fact: Fact) -> frozenset[str]:
    """The words of a date's calendar: the months, or the weekdays."""
    return MONTHS if fact.text.lower() in MONTHS else WEEKDAYS


def _sentence_holding(passage: str, holds: Callable[[str], bool]) -> str | None:
    """The first sentence of `passage` that `holds` the judge's answer: the evidence."""
    sentences = split_sentences(passage.replace(GAP.strip(), " "))
    return next((s for s in sentences if holds(s)), None)


@dataclass(frozen=True)
class Swapped:
    """The facts of a unit its passages state otherwise: how sure the judge is (the surest
    one's p_stated), every one in words, and the source sentence holding the surest one's
    value: one passage of the source, which the page highlights where it stands."""

    p_stated: float
    said: str
    evidence: str


def swapped(checked: Sequence[Checked]) -> Swapped | None:
    """The facts found "different", together; None when there is none."""
    different = [c for c in checked if c.verdict == "different"]
    if not different:
        return None
    surest = max(different, key=lambda c: c.p_stated)  # the first of equals
    return Swapped(surest.p_stated, "; ".join(c.said() for c in different), surest.evidence)
