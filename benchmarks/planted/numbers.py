"""Numbers as an answer writes them (digits, spelled out, "36 (thirty six)"), and a changed
number written in the same style: same grouping, decimals, spelling and capitals."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

_UNITS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SPELLED = rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_UNITS[1:10])}))?|{'|'.join(_UNITS[1:])})"
_DIGITS = r"(?:\d{1,3}(?:,\d{2,3})+|\d+)(?:\.\d+)?"
_PERIOD = r"(?:days?|months?|years?|hours?|weeks?)"
_UNIT_AFTER = rf"\s*(?:%|per\s?cent|{_PERIOD}|beds?|lacs?|lakhs?|crores?|claims?)\b"
_NUMBER = re.compile(
    rf"(?P<both>(?P<d1>{_DIGITS})\s*\((?P<s1>{_SPELLED})\)|(?P<s2>{_SPELLED})\s*\((?P<d2>{_DIGITS})\))"
    rf"|(?<![\w.,/-])(?P<digits>{_DIGITS})(?![\w/]|[.,]\d|-\w)"
    rf"|(?<![\w-])(?P<spelled>{_SPELLED})(?=[- ]?{_UNIT_AFTER})",
    re.IGNORECASE,
)
# A number right after these words names a clause, code or item, not a quantity.
_LABEL_WORDS = re.compile(
    r"(?:excl|code|icd|clause|section|table|note|annexure|page|uin|item|cover|covers|topic"
    r"|schedule|form|article|rule|regulation|no|part|chapter|level|tier|phase|class|group"
    r"|series|type|step|option|plan|grade)\W{0,3}$",
    re.IGNORECASE,
)
_MONTH = re.compile(
    r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s*$", re.IGNORECASE
)
_MONTH_AFTER = re.compile(
    r"\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b", re.IGNORECASE
)
_COMMON = {
    "day": [3, 7, 10, 14, 15, 21, 30, 45, 60, 90, 120, 180],
    "month": [3, 6, 9, 12, 18, 24, 30, 36, 48, 60],
    "year": [1, 2, 3, 4, 5, 7, 10],
    "hour": [12, 24, 36, 48, 72],
    "week": [2, 4, 6, 8, 12, 16, 24],
    "%": [1, 2, 5, 10, 15, 20, 25, 30, 35, 40, 50, 60, 75, 80, 90],
}


@dataclass(frozen=True)
class NumberSpan:
    start: int
    end: int
    value: float
    text: str
    unit: str  # "day", "month", "%", "" ...
    digits: str = ""  # the number in digits, if written so
    words: str = ""  # the number in words, if written so


def spelled_value(text: str) -> int:
    parts = re.split(r"[- ]+", text.lower())
    total = 0
    for part in parts:
        total += _TENS.index(part) * 10 + 20 if part in _TENS else _UNITS.index(part)
    return total


def spell(value: int, like: str) -> str:
    """`value` (1-99) in words, with the separator and capitals of `like`."""
    tens, units = divmod(value, 10)
    if value < 20:
        words = _UNITS[value]
    else:
        joiner = "-" if "-" in like else " "
        words = _TENS[tens - 2] + (f"{joiner}{_UNITS[units]}" if units else "")
    if like.isupper() and len(like) > 1:
        return words.upper()
    if like[:1].isupper():
        return words[0].upper() + words[1:] if " " in like or "-" in like else words.title()
    return words


def digit_value(text: str) -> float:
    return float(text.replace(",", ""))


def number_spans(text: str) -> list[NumberSpan]:
    """Quantities in `text`; list markers, codes and clause numbers are left out."""
    out = []
    for m in _NUMBER.finditer(text):
        before = text[max(0, m.start() - 12) : m.start()]
        if _LABEL_WORDS.search(before) or _MONTH.search(before) or _is_marker(text, m.start()):
            continue
        if _quoted(text, m.start()) or _MONTH_AFTER.match(text[m.end() :]):
            continue
        digits = m.group("d1") or m.group("d2") or m.group("digits") or ""
        words = m.group("s1") or m.group("s2") or m.group("spelled") or ""
        value = digit_value(digits) if digits else spelled_value(words)
        unit = _unit(text, m.end())
        if unit and value == 1:
            continue  # 'one month' -> 'five month': the noun would need changing too
        out.append(NumberSpan(m.start(), m.end(), value, m.group(), unit, digits, words))
    return out


def _quoted(text: str, at: int) -> bool:
    """Inside “...”: a name such as “2016 Facility”, not a quantity."""
    return text.count("“", 0, at) > text.count("”", 0, at)


def _is_marker(text: str, start: int) -> bool:
    """'1.' or '(ii)' opening a list item."""
    head = text[:start].rstrip(" (")
    return (head == "" or head.endswith(("\n", ":"))) and bool(
        re.match(r"\d{1,2}[.)]\s", text[start:])
    )


def _unit(text: str, end: int) -> str:
    m = re.match(rf"[- ]?\s*(%|per\s?cent|{_PERIOD})", text[end:], re.IGNORECASE)
    if not m:
        return ""
    word = m.group(1).lower()
    return "%" if word in ("%", "percent", "per cent") else word.rstrip("s")


def changed_text(span: NumberSpan, rng: random.Random) -> str:
    """The same kind of number, written the same way, with another plausible value."""
    new = _new_value(span, rng)
    out = span.text
    if span.digits:
        out = out.replace(span.digits, write_like(new, span.digits), 1)
    if span.words:
        out = out.replace(span.words, spell(int(new), span.words), 1)
    return out


def _new_value(span: NumberSpan, rng: random.Random) -> float:
    value = span.value
    spelled = bool(span.words)
    whole = value == int(value)
    if whole and 1900 <= value <= 2100 and not span.unit:
        return value + rng.choice([-3, -2, -1, 1, 2])
    common = _COMMON.get(span.unit)
    if common and whole:
        near = [
            c
            for c in common
            if c != value and 0.4 <= c / max(value, 1) <= 2.6 and (c > 1 or value == 1)
        ]
        if near:
            return float(rng.choice(near))
    if spelled:
        return float(rng.choice([v for v in range(max(1, int(value) - 12), 99) if v != value][:24]))
    if whole and value >= 100 and value % 100 == 0:
        return _rescaled(value, rng)
    if whole and value <= 12:
        return float(rng.choice([v for v in (value - 2, value - 1, value + 1, value * 2) if v > 0]))
    return _digit_tweak(span.text, rng)


def _rescaled(value: float, rng: random.Random) -> float:
    zeros = len(str(int(value))) - len(str(int(value)).rstrip("0"))
    step = 10**zeros
    for _ in range(20):
        factor = rng.choice([0.5, 0.6, 0.75, 0.8, 1.2, 1.25, 1.5, 2.0])
        new = round(value * factor / step) * step
        if new not in (value, 0):
            return float(new)
    return value * 2


def _digit_tweak(text: str, rng: random.Random) -> float:
    """One digit changed or two neighbours swapped (a misread figure), never the first."""
    digits = re.sub(r"[^\d.]", "", text)
    positions = [i for i, ch in enumerate(digits) if ch.isdigit() and i > 0]
    if not positions:
        positions = [0]
    for _ in range(20):
        chars = list(digits)
        i = rng.choice(positions)
        if rng.random() < 0.4 and i + 1 < len(chars) and chars[i + 1].isdigit():
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        else:
            chars[i] = str((int(chars[i]) + rng.choice([1, 2, 3, 7, 8, 9])) % 10)
        new = "".join(chars)
        if new != digits and not (new.startswith("0") and len(new.split(".")[0]) > 1):
            return float(new)
    return float(digits) + 1


def write_like(value: float, like: str) -> str:
    """`value` with the grouping (1,234,567 or 12,34,567 or none) and decimals of `like`."""
    decimals = len(like.split(".")[1]) if "." in like else 0
    whole = f"{abs(value):.{decimals}f}"
    head, _, tail = whole.partition(".")
    if "," in like:
        head = _group(head, indian=bool(re.search(r"\d,\d\d,", like)))
    sign = "-" if value < 0 else ""
    return sign + head + (f".{tail}" if tail else "")


def _group(digits: str, *, indian: bool) -> str:
    if len(digits) <= 3:
        return digits
    if not indian:
        return f"{int(digits):,}"
    head, last = digits[:-3], digits[-3:]
    pairs: list[str] = []
    while len(head) > 2:
        pairs.insert(0, head[-2:])
        head = head[:-2]
    return ",".join([head, *pairs, last]) if head else ",".join([*pairs, last])
