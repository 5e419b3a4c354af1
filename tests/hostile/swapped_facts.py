"""Facts swapped in a part the digits do not show: the unit, the sign, the scale, the
currency (issue 43). Each swap keeps the source's digits, so a check that compares numbers
alone calls it the same value with no judge call. Read by tests/unit/test_facts.py (every
swap is asked of the judge, and reads "contradicted: says ...; the source says ..." when the
judge fills the blank with the source's value); the real judge reads the same classes in
demo-style rows (bench/data/swapped_units.jsonl, tests/e2e/test_swapped_units.py); `MOVES` are changes whose sign a verb says ("fell by 40%"),
asked and never read as a swap of the source's "-40%"; `SAME` are spellings of one quantity,
settled with no call.
"""

from __future__ import annotations

from typing import NamedTuple


class Swap(NamedTuple):
    name: str  # its class first: unit-, sign-, scale-, currency-
    source: str  # the source's sentence
    response: str  # the sentence swapping one part of one of its facts
    said: str  # the unit's verdict when the judge reads the source's value


SWAPS = (
    Swap(
        "unit-minutes-hours",
        "With the included 65 W adapter it charges to 80% in 60 minutes.",
        "With the included 65 W adapter it charges to 80% in 60 hours.",
        "says 60 hours; the source says 60 minutes",
    ),
    Swap(
        "unit-km-miles",
        "The trail is 12 km long.",
        "The trail is 12 miles long.",
        "says 12 miles; the source says 12 km",
    ),
    Swap(
        "unit-kg-g",
        "The X200 weighs 1.2 kg.",
        "The X200 weighs 1.2 g.",
        "says 1.2 g; the source says 1.2 kg",
    ),
    Swap(
        "unit-percent-points",
        "Unemployment rose by 2 percentage points to 7%.",
        "Unemployment rose by 2% to 7%.",
        "says 2%; the source says 2 percentage points",
    ),
    Swap(
        "unit-written-number",
        "The ferry crossing takes twenty minutes.",
        "The ferry crossing takes twenty hours.",
        "says twenty hours; the source says twenty minutes",
    ),
    Swap(
        "sign-hyphen-minus",
        "The sleeping bag is rated to -40 degrees.",
        "The sleeping bag is rated to 40 degrees.",
        "says 40 degrees; the source says -40 degrees",
    ),
    Swap(
        "sign-unicode-minus",
        "The lake froze at \u221212 degrees.",
        "The lake froze at 12 degrees.",
        "says 12 degrees; the source says \u221212 degrees",
    ),
    Swap(
        "sign-word",
        "Its operating margin was negative 8%.",
        "Its operating margin was 8%.",
        "says 8%; the source says negative 8%",
    ),
    Swap(
        "sign-added",
        "The account held 250 euros at the end of May.",
        "The account held -250 euros at the end of May.",
        "says -250 euros; the source says 250 euros",
    ),
    Swap(
        "scale-m-bn",
        "The tea service sold for £1.5m at auction.",
        "The tea service sold for £1.5bn at auction.",
        "says £1.5bn; the source says £1.5m",
    ),
    Swap(
        "scale-words",
        "The bridge cost 95 million euros.",
        "The bridge cost 95 billion euros.",
        "says 95 billion euros; the source says 95 million euros",
    ),
    Swap(
        "scale-k-m",
        "The grant was worth $20k.",
        "The grant was worth $20m.",
        "says $20m; the source says $20k",
    ),
    Swap(
        "scale-dropped",
        "The city has 1.5 million residents.",
        "The city has 1.5 residents.",
        "says 1.5 residents; the source says 1.5 million residents",
    ),
    Swap(
        "unit-rate",
        "The plan costs $5 a month.",
        "The plan costs $5 a year.",
        "says $5 a year; the source says $5 a month",
    ),
    Swap(
        "currency-words",
        "It costs 349 euros.",
        "It costs 349 dollars.",
        "says 349 dollars; the source says 349 euros",
    ),
    Swap(
        "currency-symbols",
        "Entry costs £5 for adults.",
        "Entry costs $5 for adults.",
        "says $5; the source says £5",
    ),
    Swap(
        "currency-codes",
        "The licence costs USD 400 a year.",
        "The licence costs EUR 400 a year.",
        "says EUR 400 a year; the source says USD 400 a year",
    ),
)

# a size of a change, not a signed value: no minus ("fell by" is no sign), so the rules ask;
# the judge reading the source's "-40%" for it is no swap either (the sentence's verdict decides)
MOVES = (
    ("Sales changed by -40% in 2024.", "Sales fell by 40% in 2024.", "-40%"),
    ("The index moved by \u22123.5 points.", "The index was down 3.5 points.", "\u22123.5 points"),
)

# one quantity spelled two ways: stated, no judge call
SAME = (
    ("The tea service sold for £1.5m.", "The tea service sold for £1.5 million."),
    ("The tea service sold for £1,500,000.", "The tea service sold for £1.5m."),
    ("The tea service sold for 1.5m GBP.", "The tea service sold for GBP 1.5 million."),
    ("The city has 1,500,000 residents.", "The city has 1.5 million residents."),
    ("It rose 5 per cent.", "It rose 5%."),
    ("It takes twenty minutes.", "It takes 20 mins."),
    ("It is rated to \u221240 degrees.", "It is rated to minus 40 degrees."),
    ("It lasts 2 hrs.", "It lasts 2 hours."),
    ("The plan costs $5 a month.", "The plan costs 5 dollars per month."),
    ("It is a 420-metre bridge.", "The bridge is 420 metres long."),
    ("Trips take 10-40 minutes.", "Trips take 10-40 minutes."),  # a range, no minus
)
