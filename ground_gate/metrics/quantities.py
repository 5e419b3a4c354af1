"""A number as a fact: its value, its unit, its sign and its scale (metrics/facts.py's numbers).

"20 hours" is not "20 minutes", "-40" is not "40" and "£1.5bn" is not "£1.5m", though their
digits are the same. So a number is read with what stands around it, by rules:

- its value: digits with their separators ("1,500", "2.5") or words ("six", "twenty-five",
  "one million"; "one" alone is far more often a pronoun);
- its sign: a minus written against it ("-40", the Unicode minus U+2212, an en dash) or
  the word "minus" or "negative" before it. A dash after a digit, a letter or a closing mark
  is a range or a compound ("10-40", "COVID-19"), and "fell by 40" or "down 40%" is no sign:
  40 is the size of the fall, and whether it is the source's "-40" is the judge's to say;
- its scale: hundred, thousand, million, billion, trillion and their short forms ("bn", "mn",
  "tn"). "k", "m" and "b" are a scale only beside a currency ("£1.5m", "1.5m euros");
  elsewhere they may be metres or a model's size, and stay a unit written as it is;
- its unit: a currency by symbol, code or word, before or after ("£", "GBP", "euros"),
  percent ("%", "percent", "per cent") apart from percentage points and basis points, and the
  units of time, length, mass, volume and temperature, and an ordinal's suffix ("16th"), each
  spelling to one name. A symbol the table does not know ("W", "kWh", "GB") is its own name,
  case kept; a lower-case word the table does not know only says what is counted ("six
  pots", "three men") and is no unit, as a function word is not. A rate keeps what it is
  per ("$5 a month", "60 km/h", "30,000 vehicles a day").

Two quantities are the same when their signed, scaled values are exactly equal ("1.5
million" is "1,500,000", "£1.5m" is "£1.5 million"; decimals, no floating point) and their
units have the same name. Nothing is converted: "20 hours" and "1200 minutes" differ by these
rules, and the judge is asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from ground_gate.metrics.passages import STOPWORDS

_ONES_TEXT = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
_TENS_TEXT = "twenty thirty forty fifty sixty seventy eighty ninety"
# "may" is left out: far more often the verb
_MONTHS_TEXT = "january february march april june july august september october november december"
_WEEKDAYS_TEXT = "monday tuesday wednesday thursday friday saturday sunday"
_ONES, _TENS = _ONES_TEXT.split(), _TENS_TEXT.split()
# "one" is left out: far more often a pronoun ("one of the", "the one who") than a count
NUMBER_WORDS = {w: i for i, w in enumerate(_ONES) if w != "one"} | {
    w: 20 + 10 * i for i, w in enumerate(_TENS)
}
MONTHS, WEEKDAYS = frozenset(_MONTHS_TEXT.split()), frozenset(_WEEKDAYS_TEXT.split())
_DIGITS = r"\d+(?:[.,]\d+)*"
# digits may carry their unit ("1.5m", "80%"); a number word stands alone
NUMBER = re.compile(rf"(?<![\w.])(?:{_DIGITS}(?![\d])|[a-z]+(?:-[a-z]+)?(?!\w))", re.IGNORECASE)
_SCALES = {"hundred": 2, "thousand": 3, "million": 6, "billion": 9, "trillion": 12}
_SHORT_SCALES = {"mn": 6, "mln": 6, "bn": 9, "bln": 9, "tn": 12, "trn": 12}
_BESIDE_MONEY = {"k": 3, "m": 6, "b": 9}  # a scale only beside a currency
_SCALE = re.compile(
    r"[ \t]*(hundreds?|thousands?|millions?|billions?|trillions?|mn|mln|bn|bln|tn|trn|[kmb])\b",
    re.IGNORECASE,
)
_UNIT = re.compile(
    r"(?:[ \t]*-[ \t]*|[ \t]*)(%|°[ \t]?[CF]\b|°|per[ \t]+cent\b|percentage[ \t]+points?\b"
    r"|basis[ \t]+points?\b|pounds?[ \t]+sterling\b|[a-z]+\b)",
    re.IGNORECASE,
)
_CURRENCY_BEFORE = r"(?:US\$|A\$|C\$|HK\$|[£$€¥₹]|\b(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|INR))[ \t]?"
_DASHES = r"\-\u2212\u2013"  # hyphen-minus, minus sign, en dash (escaped in a class)
# a minus against the number; after a digit, a letter or a closing mark a dash is a range
_MINUS = rf"(?<![\w.,%)\]{_DASHES}])[{_DASHES}]"
_BEFORE = re.compile(
    rf"(?:(?P<word>\b(?:minus|negative)[ \t]+)|(?P<dash>{_MINUS}))?"
    rf"(?P<currency>{_CURRENCY_BEFORE})?(?P<dash2>{_MINUS})?$",
    re.IGNORECASE,
)


_RATE = re.compile(r"(?:[ \t]*/[ \t]*|[ \t]+(?:per|a|an|each)[ \t]+)([a-z]+)\b", re.IGNORECASE)
# a change's direction in words, before its size: "fell by", "down", "rose", "up"...
_MOVED = re.compile(
    r"\b(?:fell|falls?|falling|down|dropped|drops?|declined|declines?|decreased|decreases?"
    r"|lost|loses?|cut|shrank|shrinks?|slumped|rose|rises?|rising|up|increased|increases?"
    r"|gained|gains?|grew|grows?|climbed|climbs?|jumped|jumps?)(?:[ \t]+by)?[ \t]+$",
    re.IGNORECASE,
)


# each unit's name, "=", its spellings (lower case) split by "|"; "16th" an ordinal (a rank,
# not a count); "pound" money or weight, its own name; a symbol's name as the symbol is
# written ("W", "GB": "16 gb" in lower-cased text is 16 GB)
_UNITS_TEXT = """
    %=%|percent|pct|per cent; pp=pp|ppt|percentage point|percentage points;
    bp=bp|bps|basis point|basis points
    millisecond=ms|millisecond|milliseconds; second=s|sec|secs|second|seconds;
    minute=min|mins|minute|minutes; hour=h|hr|hrs|hour|hours; day=day|days;
    week=wk|wks|week|weeks; month=month|months; year=yr|yrs|year|years;
    decade=decade|decades; century=century|centuries
    mm=mm|millimetre|millimetres|millimeter|millimeters;
    cm=cm|centimetre|centimetres|centimeter|centimeters; metre=metre|metres|meter|meters;
    km=km|kilometre|kilometres|kilometer|kilometers; inch=inch|inches; foot=ft|foot|feet;
    yard=yd|yds|yard|yards; mile=mi|mile|miles
    mg=mg|milligram|milligrams; gram=g|gram|grams|gramme|grammes;
    kg=kg|kilo|kilos|kilogram|kilograms|kilogramme|kilogrammes; tonne=tonne|tonnes;
    ton=ton|tons; lb=lb|lbs; oz=oz|ounce|ounces;
    ml=ml|millilitre|millilitres|milliliter|milliliters; litre=l|litre|litres|liter|liters;
    gallon=gallon|gallons
    degree=°|degree|degrees; °C=°c; °F=°f; mph=mph; kph=kph|kmh
    W=w|watt|watts; kW=kw|kilowatt|kilowatts; MW=mw|megawatt|megawatts; Wh=wh; kWh=kwh;
    Hz=hz|hertz; GHz=ghz; KB=kb|kilobyte|kilobytes; MB=mb|megabyte|megabytes;
    GB=gb|gigabyte|gigabytes; TB=tb|terabyte|terabytes; ordinal=st|nd|rd|th
    GBP=£|gbp|sterling|pound sterling|pounds sterling; pound=pound|pounds;
    EUR=€|eur|euro|euros; $=$|dollar|dollars; USD=us$|usd; AUD=a$|aud; CAD=c$|cad;
    HKD=hk$|hkd; ¥=¥; JPY=jpy|yen; CNY=cny|yuan|renminbi; INR=₹|inr|rupee|rupees; CHF=chf;
    cent=cent|cents; pence=p|pence|penny
"""
_UNITS = {
    spelling: name
    for entry in re.split(r"[;\n]", _UNITS_TEXT)
    if entry.strip()
    for name, _, spellings in [entry.strip().partition("=")]
    for spelling in spellings.split("|")
}
CURRENCIES = frozenset(
    ["GBP", "EUR", "$", "USD", "AUD", "CAD", "HKD", "¥", "JPY", "CNY", "INR", "CHF"]
)  # names a scale letter may stand beside


@dataclass(frozen=True)
class Quantity:
    """A number as a text states it: `number` its value as written (unsigned, unscaled),
    `negative`, `scale` (a power of ten), `unit` (a name of the table, a symbol as written, or
    "" for none); `lead`..`reach` the whole of it in the text (sign and currency to unit),
    `start`..`end` the number alone; `word` the word after it (what is counted, or its unit)."""

    number: Decimal
    negative: bool
    scale: int
    unit: str
    lead: int
    start: int
    end: int
    reach: int
    word: str
    written: str
    moved: bool = False  # a verb gives its direction ("fell by 40%"): its sign is not written

    @property
    def amount(self) -> Decimal:
        """The signed, scaled value: -1.5e6 for "minus 1.5 million". Built from the digits,
        not by arithmetic, which rounds to 28 digits: longer numbers differing in their last
        digit stay apart."""
        _, digits, exponent = self.number.as_tuple()
        assert isinstance(exponent, int)  # a number read is finite
        return Decimal((int(self.negative), digits, exponent + self.scale))

    def same(self, other: Quantity) -> bool:
        """Whether `other` states this quantity: its value, sign and scale exactly, its unit."""
        return self.amount == other.amount and self.unit == other.unit


def number_value(text: str) -> float | None:
    """'1,500' -> 1500, '1.5' -> 1.5, 'six' -> 6, 'twenty-five' -> 25; None for other words."""
    value = _decimal(text)
    return None if value is None else float(value)


def _decimal(text: str) -> Decimal | None:
    lowered = text.lower()
    if lowered[:1].isdigit():
        plain = lowered.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+", lowered) else lowered
        try:
            value = Decimal(plain.replace(",", "."))
        except InvalidOperation:
            return None
        return value if value.is_finite() else None
    tens, _, ones = lowered.partition("-")
    if not ones:
        return Decimal(NUMBER_WORDS[tens]) if tens in NUMBER_WORDS else None
    if tens in _TENS and ones in _ONES[1:10]:  # "twenty-one" counts, though "one" alone not
        return Decimal(NUMBER_WORDS[tens] + _ONES.index(ones))
    return None


def quantities(text: str) -> list[Quantity]:
    """Every number `text` writes, in digits or words, read with its sign, scale and unit."""
    found = []
    for match in NUMBER.finditer(text):
        quantity = _read(text, match)
        if quantity is not None:
            found.append(quantity)
    return found


def _read(text: str, match: re.Match[str]) -> Quantity | None:
    number = _decimal(match.group())
    if number is None and match.group().lower() == "one" and _word_scale(text, match.end()):
        number = Decimal(1)  # "one million" counts, though "one" alone not
    if number is None:
        return None
    before = _BEFORE.search(text[max(0, match.start() - 40) : match.start()])
    assert before is not None  # every group is optional
    currency = _unit_name(before.group("currency") or "")
    negative = any(before.group(g) for g in ("word", "dash", "dash2"))
    lead = match.start() - len(before.group())
    scale, at = _scale(text, match.end(), bool(currency))
    word, unit, reach = _unit(text, at)
    if scale is None:  # an ambiguous letter: a scale only if a currency follows
        letter = _SCALE.match(text, match.end())
        assert letter is not None
        if unit in CURRENCIES:
            scale = _BESIDE_MONEY[letter.group(1).lower()]
        else:
            scale, word, unit, reach = 0, letter.group(1), letter.group(1), letter.end()
    if currency and unit not in CURRENCIES:  # "£5 fee": the currency is what it measures
        unit, reach = currency, at
    unit, reach = _per(text, unit, reach)
    moved = bool(_MOVED.search(text[max(0, lead - 40) : lead]))
    return Quantity(
        number, negative, scale, unit, lead, match.start(), match.end(), reach, word,
        text[lead:reach], moved,
    )  # fmt: skip


def _per(text: str, unit: str, reach: int) -> tuple[str, int]:
    """A rate's unit: "$5 a month" is dollars a month ("$/month"), "60 km/h" km an hour, "30,000
    vehicles a day" a count a day ("/day"); the word after "a", "per" or "/" only when the
    table names it (no rate in "5 days a report")."""
    rate = _RATE.match(text, reach)
    name = _unit_name(rate.group(1)) if rate else ""
    if rate is None or not name or name in CURRENCIES:
        return unit, reach
    return f"{unit}/{name}", rate.end()


def _word_scale(text: str, at: int) -> bool:
    scale = _SCALE.match(text, at)
    return scale is not None and scale.group(1).lower().rstrip("s") in _SCALES


def _scale(text: str, at: int, money: bool) -> tuple[int | None, int]:
    """The power of ten the words after the number scale it by ("five hundred thousand": 5)
    and where they end; None when a letter ("m") is a scale only if a currency follows."""
    power = 0
    while scale := _SCALE.match(text, at):
        name = scale.group(1).lower()
        if name.rstrip("s") in _SCALES:
            power += _SCALES[name.rstrip("s")]
        elif name in _SHORT_SCALES:
            power += _SHORT_SCALES[name]
        elif power == 0 and money:
            power = _BESIDE_MONEY[name]
        elif power == 0:
            return None, scale.end()
        else:
            break
        at = scale.end()
    return power, at


def _unit(text: str, at: int) -> tuple[str, str, int]:
    """(the word after a number as written, its unit's name, where it ends): no unit after a
    function word, a month or a day ("26 August" counts no Augusts), a capitalised word (a
    name follows: "Four Royal Navy frigates") or a lower-case word the table does not know."""
    match = _UNIT.match(text, at)
    if match is None:
        return "", "", at
    word = match.group(1)
    lowered = " ".join(word.lower().split())
    if lowered in STOPWORDS | MONTHS | WEEKDAYS | {"per", "each"}:  # "5 per day": a rate
        return "", "", at
    if not (word.islower() or word.isupper() or len(word) <= 3):
        return "", "", at
    name = _unit_name(word)
    if name:
        return word, name, match.end()
    counted = word.isalpha() and word.islower()  # "three men", "1 win": what is counted
    return word, "" if counted else word, match.end()


def _unit_name(written: str) -> str:
    """A unit's one name ("minutes" -> "minute", "£" -> "GBP"); "" when the table has none.
    A short capitalised symbol is read as written ("MB" is not "mb"), a currency code aside."""
    key = " ".join(written.lower().split())
    name = _UNITS.get(key, "")
    if written.islower() or not key.isalpha() or name in CURRENCIES or len(key) > 3:
        return name
    return ""


def filled(said: Quantity, blank: Quantity) -> Quantity:
    """A judge's fill of a blank that kept the number's surroundings ("___ minutes", "£___bn")
    read as the sentence reads it: the sign, scale and unit it does not write are the
    sentence's ("60" in "___ minutes" is 60 minutes)."""
    return replace(
        said,
        negative=said.negative or blank.negative,
        scale=said.scale or blank.scale,
        unit=said.unit or blank.unit,
    )


def resolved(said: Quantity, held: Sequence[Quantity]) -> list[Quantity]:
    """A judge's fill of a whole blank ("___" for "20 hours") read against the quantities
    the passage holds: those it names (its number, or its value, with every part it writes
    the same: "20" names the passage's "20 minutes"); itself when it names none."""

    def agrees(quantity: Quantity) -> bool:
        rate = quantity.unit.partition("/")[2]  # "USD 400" names "USD 400 a year"
        return (
            (not said.negative or quantity.negative)
            and (not said.scale or quantity.scale == said.scale)
            and (not said.unit or quantity.unit in (said.unit, f"{said.unit}/{rate}"))
        )

    named = [
        h for h in held
        if (h.number == said.number and agrees(h)) or (h.amount == said.amount and agrees(h))
    ]  # fmt: skip
    return named or [said]
