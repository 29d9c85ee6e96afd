"""Numbers as quantities: a value with its kind (days, money, percent ...).

"30 days", "thirty (30) days", "Rs. 5,000/-", "₹ 10L", "2% of Sum Insured" and "three
months" are quantities a reader compares by meaning: "3 months" is "90 days", and "7%" is
not "7 Lac".
Everything here is pure and offline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from bot.conversation.text import AMOUNT_AFTER_CODE, content_words

DURATION_DAYS = {
    "hour": 1 / 24, "hr": 1 / 24, "day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0,
}  # fmt: skip
SCALES = {
    "thousand": 1e3, "k": 1e3, "lakh": 1e5, "lac": 1e5, "l": 1e5, "crore": 1e7, "cr": 1e7,
    "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "b": 1e9,
    "trillion": 1e12,
}  # fmt: skip
_ONES = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip

# The numbers that count a band's bounds ("less than one year", "one to three years").
SMALL_NUMBER_WORDS = tuple(word for word, value in _ONES.items() if value <= 12)
_SCALES_WRITTEN = ("hundred", "thousand", "million", "billion", "trillion", "lakh", "crore")
_SPELLED = (
    rf"(?:(?:{'|'.join(_TENS)})(?:[\s-](?:{'|'.join(k for k in _ONES if _ONES[k] < 10)}))?"
    rf"|{'|'.join(sorted(_ONES, key=len, reverse=True))})(?:\s+hundred)?"
)
# A currency: a known code or sign, or a code of capitals set against an amount written
# as one ("RMB135,936", "HK$2.5"), not an id ("A320", "FY2019"). Not "Cove|rs 1".
_CURRENCY = (
    r"(?:(?<![a-z])(?:rs\.?|inr|usd|us\$|eur|gbp)|[$€£₹]"
    rf"|(?<![a-z])(?-i:[A-Z]{{2,3}})(?={AMOUNT_AFTER_CODE})"
    r"|(?<![a-z])(?-i:[A-Z]{1,3})\$)"
)
_SCALE = r"(?:thousands?|lakhs?|lacs?|crores?|millions?|billions?|trillions?|mn|bn|cr|k|l)"
_UNIT = r"(?:hours?|hrs?|days?|weeks?|months?|years?|yrs?)"
_QUANTITY = re.compile(
    rf"(?P<cur>{_CURRENCY}\s?)?"
    rf"(?P<num>\d{{1,3}}(?:,\d{{2,3}}(?!\d))+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+|(?P<sp>{_SPELLED}))"
    rf"(?P<frac>/\d+(?:st|nd|rd|th)?)?"
    rf"(?:\s*\((?P<paren>[^()]{{1,30}})\))?"
    rf"(?P<scale>\s?{_SCALE}\b)?"
    r"(?P<dash>\s?/-)?"
    rf"(?P<pct>\s?(?:%|per\s?cent\b|percent(?:age points?)?\b|basis points?\b|bps\b))?"
    rf"(?P<unit>[\s-]?(?:(?:continuous|consecutive|calendar|clear|working|full|[a-z]+-[a-z]+)\s)?"
    rf"{_UNIT}\b['’]?)?",
    re.IGNORECASE,
)
_CITATION = re.compile(r"\[\d+(?:\s*[-–,;]\s*\d+)*\]")
_PLACE = re.compile(
    r"(?i)\b(?:sections?|clauses?|articles?|chapters?|paras?|paragraphs?|rules?|pages?|pp?"
    r"|items?|tables?|annexures?|schedules?|notes?|exclusions?|excl|code|no|nos|v|part)"
    r"\.?\s*[-–]?\s*\d+(?:\.\d+)*[a-z]?\b"
)
# A kind and its short number name a thing ("type 2 diabetes", "Tier 1 capital").
_KIND_NUMBER = re.compile(r"(?i)\b(?:type|stage|grade|class|tier|phase|category) ?\d{1,2}\b")
# The day of a date ("December 31, 2018", "31 March 2019"): the year stays a number.
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = re.compile(
    rf"(?i)\b(?P<month>{MONTH}\s)(?P<day>\d{{1,2}}(?:st|nd|rd|th)?)\b(?=,?\s*(?:19|20)\d\d)"
    rf"|\b(?P<day2>\d{{1,2}}(?:st|nd|rd|th)?)(?=\s+{MONTH}\b)"
)
_LIST_NUMBER = re.compile(
    r"(?m)^[ \t]*\(?\d{1,2}[.)](?=\s)"  # "1. Cataract" opening a line
    r"|(?:(?<=[:;|—]\s)|(?<=[(:]))\d{1,2}\.(?=\s+[A-Z][A-Za-z])"  # "Expenses: 25. EXTRA DIET"
    r"|(?<=\s)(?P<inline>\d{1,2})\.(?=\s+[A-Z][A-Za-z])"  # "... Ulcer 20. Internal"
)


def _list_numbers(text: str) -> str:
    """`text` with its list numbers blanked. One inside a line after a heading's colon is
    one ("Expenses: 25. EXTRA DIET"); one after a word follows the number before it
    ("... 19. Hernia 20. Internal") or opens a list ("1."), else it ends a sentence
    ("... aged 65. The policy")."""

    def blank(m: re.Match[str]) -> str:
        n = m.group("inline")
        if n and int(n) > 1 and f"{int(n) - 1}." not in text[: m.start()]:
            return m.group(0)
        return " " * len(m.group(0))

    return _LIST_NUMBER.sub(blank, text)


@dataclass(frozen=True)
class Quantity:
    """A number with what it counts; `value` is in the kind's base unit (days for
    durations, currency units for money), so "3 months" and "90 days" compare equal."""

    value: float
    kind: str  # "duration" | "money" | "percent" | "fraction" | "number"
    start: int
    end: int
    text: str
    scaled: bool = False  # written with a scale word ("5 lakh", "$2.1 billion")
    precision: float = 0.0  # the rounding its writing implies ("1.2 million": 100,000)
    raw: float | None = None  # the number as written, before scale and unit ("3.1")

    @property
    def is_year(self) -> bool:
        """A year ("2019"): it dates figures rather than being one."""
        return (
            self.kind == "number"
            and not self.scaled
            and bool(re.fullmatch(r"(?:19|20)\d\d", self.text.strip()))
        )

    def _same_digits(self, other: Quantity) -> bool:
        """A table "in millions" writes 3.1 where the text says "$3.1 million"."""
        if self.scaled == other.scaled or self.raw is None or other.raw is None:
            return False
        return _close(self.raw, other.raw) and not self.kind == other.kind == "duration"

    def _unit_left_out(self, other: Quantity) -> bool:
        """The same number with its unit of time written on one side only: "older than 75"
        beside "75 years". (A share is not: "7%" is not the 7 of "6/ 7/ 8 Lac".)"""
        number = self if self.kind == "number" else other
        if {self.kind, other.kind} != {"number", "duration"} or number.scaled:
            return False
        return self.raw is not None and other.raw is not None and _close(self.raw, other.raw)

    def same_kind(self, other: Quantity) -> bool:
        if self.kind == other.kind:
            return True
        loose = {"money", "number"}  # amounts in tables often drop the currency
        return {self.kind, other.kind} <= loose

    def matches(self, other: Quantity) -> bool:
        """The same quantity: same kind, equal value; a figure written rounded ("1.2
        million", "61.3%") matches the exact one it rounds ("1,234,567", "61.34%")."""
        if self._unit_left_out(other):
            return True
        if not self.same_kind(other):
            return False
        if _close(self.value, other.value) or self._same_digits(other):
            return True
        return self.precision > 0 and abs(self.value - other.value) < self.precision / 2


def _close(a: float, b: float) -> bool:
    """Equal but for float arithmetic: 1,406,546 is not 1,406,246. (A figure written
    rounded matches by its precision instead.)"""
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def quantities(text: str) -> list[Quantity]:
    """Every quantity in `text`, in order; section numbers, list numbers, citation marks
    and numbers glued to words ("COVID-19", "Form16") are not quantities."""
    return list(_quantities(text))


@lru_cache(maxsize=4096)
def _quantities(text: str) -> tuple[Quantity, ...]:
    named = _blank(_KIND_NUMBER, _blank(_PLACE, _blank(_CITATION, text)))
    scrubbed = _DAY.sub(_without_day, _list_numbers(named))
    out: list[Quantity] = []
    for m in _QUANTITY.finditer(scrubbed):
        found = _quantity(scrubbed, text, m)
        if found is not None:
            out.append(found)
    return tuple(out)


def _without_day(m: re.Match[str]) -> str:
    if m.group("month"):
        return m.group("month") + " " * len(m.group("day"))
    return " " * len(m.group(0))


def _blank(pattern: re.Pattern[str], text: str) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _quantity(scrubbed: str, text: str, m: re.Match[str]) -> Quantity | None:
    start = m.start("num") if not m.group("cur") else m.start()
    before = scrubbed[start - 1 : start] if start else ""
    minus = before in ("-", "−") and (start < 2 or not scrubbed[start - 2].isalnum())  # "| -22%"
    glued = before.isalpha() or before == "_" or (before == "-" and not minus)
    grouped = "," in (m.group("num") or "")  # "up to11,600,000": an amount glued in a PDF
    if m.group("sp") is None and glued and not m.group("cur") and not grouped:
        return None  # part of a name: "COVID-19", "H1N1"
    after = scrubbed[m.end("num") : m.end("num") + 1]
    if m.group("sp") is None and after.isalpha() and not (m.group("scale") or m.group("unit")):
        return None  # "10x", "36months" glued: not a clean quantity
    if m.group("sp") is not None and not _word_bounded(scrubbed, m.start("num"), m.end("num")):
        return None  # "someone", "often"
    value = _value(m)
    if value is None:
        return None
    kind, value = _kind(m, value)
    if m.group("sp") is not None and kind == "number" and not m.group("paren"):
        return None  # a bare spelled number ("one of the") is rarely a quantity
    end = m.end()
    while end > m.start() and scrubbed[end - 1].isspace():
        end -= 1
    scaled = bool(m.group("scale"))
    raw = _raw_value(m)
    precision = _precision(m, value, raw=raw) if scaled or "." in m.group("num") else 0.0
    if minus and kind != "duration":
        value, raw = -value, -raw
    return Quantity(value, kind, m.start(), end, text[m.start() : end], scaled, precision, raw)


def _raw_value(m: re.Match[str]) -> float:
    raw = m.group("num")
    return float(_spelled_value(raw)) if m.group("sp") is not None else float(raw.replace(",", ""))


def _precision(m: re.Match[str], value: float, *, raw: float) -> float:
    """One unit of the last digit written, in the quantity's base unit."""
    number = m.group("num")
    decimals = len(number.split(".", 1)[1]) if "." in number and m.group("sp") is None else 0
    unit = value / raw if raw else 1.0
    return abs(unit) * 10.0**-decimals


def _word_bounded(text: str, start: int, end: int) -> bool:
    left = text[start - 1 : start] if start else ""
    right = text[end : end + 1]
    return not (left.isalpha() or right.isalpha())


def _value(m: re.Match[str]) -> float | None:
    number = _raw_value(m)
    if m.group("frac"):
        denominator = float(re.sub(r"\D", "", m.group("frac")) or 0)
        if not denominator:
            return None
        number /= denominator
    scale = (m.group("scale") or "").strip().lower().rstrip("s")
    if scale:
        number *= SCALES.get(scale, 1.0)
    return number


@cache
def number_words() -> frozenset[str]:
    """Stems of the words that write a number or its scale ("one", "thirty", "thousand"):
    a quantity, checked as one, not a word a passage must share."""
    return frozenset(content_words(" ".join([*_ONES, *_TENS, *_SCALES_WRITTEN])))


def spelled_numbers(text: str) -> set[int]:
    """The numbers `text` writes in words ("thirty", "twenty-four")."""
    return {_spelled_value(m.group(0)) for m in _SPELLED_WORDS.finditer(text)}


_SPELLED_WORDS = re.compile(rf"(?<![\w-])(?:{_SPELLED})(?![\w-])", re.IGNORECASE)


def _spelled_value(words: str) -> int:
    total = 0
    for word in re.split(r"[\s-]+", words.lower()):
        if word == "hundred":
            total = max(total, 1) * 100
        else:
            total += _TENS.get(word, _ONES.get(word, 0))
    return total


def _kind(m: re.Match[str], value: float) -> tuple[str, float]:
    words = re.split(r"[\s-]+", (m.group("unit") or "").lower().rstrip("'’").strip(" -"))
    unit = words[-1].rstrip("s") if words else ""
    if not unit and m.group("paren"):
        unit = _unit_in(m.group("paren"))
    if m.group("pct"):  # "41% year on year" is a share, not 41 years
        basis = m.group("pct").strip().lower().startswith(("b", "bps"))
        return "percent", value / 100 if basis else value  # 70 basis points = 0.7%
    if unit:
        unit = {"yr": "year", "hour": "hour", "hr": "hr"}.get(unit, unit)
        return "duration", value * DURATION_DAYS.get(unit, 1.0)
    if m.group("frac"):
        return "fraction", value
    if m.group("cur") or m.group("dash"):
        return "money", value
    if (m.group("scale") or "").strip().lower().rstrip("s") in ("lakh", "lac", "crore", "l", "cr"):
        return "money", value
    return "number", value


def _unit_in(text: str) -> str:
    m = re.search(rf"(?i)\b{_UNIT}\b", text)
    return m.group(0).lower().rstrip("s") if m else ""


def merged(found: list[Quantity]) -> list[Quantity]:
    """ "36 (thirty six)" or "thirty six (36)" written twice is one quantity."""
    out: list[Quantity] = []
    for q in found:
        if out and _close(out[-1].value, q.value) and q.start - out[-1].end <= 3:
            continue
        out.append(q)
    return out


def is_date(text: str) -> bool:
    """A date or a month, not a name ("December", "December 31, 2019", "31 March")."""
    day = r"\d{1,2}(?:st|nd|rd|th)?"
    return bool(
        re.fullmatch(
            rf"(?:{day}\s+)?{MONTH}(?:\s+{day})?(?:,?\s+(?:19|20)\d\d)?", text.strip(), re.I
        )
    )


def figure_row(text: str) -> bool:
    """A table line whose value is a figure ("Share of net earnings | 2018 | 3,711"): it
    says how much, not what an item is, holds or is for."""
    cells = [c.strip(" .") for c in text.split(" | ")]
    return (
        len(cells) >= 2 and states_figure(cells[-1]) and not re.search(r"[A-Za-z]{3,}", cells[-1])
    )


def states_figure(text: str) -> bool:
    """The text states a figure other than a date ("438.1p", "$1,234", "12%"; not "the
    year ended August 31, 2019", nor the number of a name: "IFRS 16", "COVID-19", nor a
    note's marker)."""
    return bool(re.search(r"\d", _DATE.sub(" ", _NAME_NUMBER.sub(" ", _FOOTNOTE.sub(" ", text)))))


# A note's marker before its first word ("2 Unlevered free cash flow is ..."), not a figure.
_FOOTNOTE = re.compile(r"^\s*\d{1,2}\s+(?=[A-Z][a-z])")


_NAME_NUMBER = re.compile(r"\b(?!(?:USD|INR|EUR|GBP|RS)\b)[A-Z]{2,}[\s-]?\d+\b")


_DATE = re.compile(
    rf"\b(?:19|20)\d\d\b|\b{MONTH}\s+\d{{1,2}}\b|\b\d{{1,2}}\s+{MONTH}(?![a-z])", re.IGNORECASE
)
