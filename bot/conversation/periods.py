"""The period a question asks about, and the period a table line reports.

A filing prints the same line for several periods side by side ("Adjusted EBITDA | Three
Months Ended June 30, 2022 | 609", "... | Twelve Months Ended June 30, 2023 | 2,018"). A
question about "FY 2023" is answered by the second, and quoting the first answers another
question: the year is as much a part of what was asked as "Plan B" is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# a year, not part of an amount ("$2,018", "2,019.5") or a longer number
_YEAR = re.compile(r"(?<![\d$])(?<!\d\.)((?:19|20)\d\d)(?!\d|[,.]\d)")
_SHORT_FISCAL = re.compile(r"\bFY\s*['’]?(\d{2})\b", re.IGNORECASE)  # FY23
_CELL = " | "
_MAX_SPAN = 10  # "from 2016 to 2018" asks about 2017 too; a wider spread is a list
_QUARTER = re.compile(
    r"\b(?:three|3)[- ]months?\b|\bquarter(?:ly)?\b|(?:\b|(?<=\d))Q[1-4]\b"
    r"|\b(?:first|second|third|fourth)"
    r" quarter\b",
    re.IGNORECASE,
)
_FULL_YEAR = re.compile(
    r"\b(?:twelve|12)[- ]months?\b|\bfull[- ]year\b|\b(?:fiscal )?years? ended\b|\bFY\s*['’]?\d"
    r"|\bfiscal (?:year )?(?:19|20)\d{2}\b|\bannual\b",
    re.IGNORECASE,
)


_GLUED = (
    (re.compile(r"\b(Q[1-4])['’]?((?:19|20)\d{2})\b", re.IGNORECASE), r"\1 \2"),  # Q22023
    (re.compile(r"\b(FY['’]?(?:19|20)?\d{2})(Q[1-4])\b", re.IGNORECASE), r"\1 \2"),  # FY2023Q1
)


def unglued(text: str) -> str:
    """Periods written as one token, as words a search can match: "Q22023" -> "Q2 2023",
    "FY2023Q1" -> "FY2023 Q1" ("FY2023" stays one word, as filings and questions write it)."""
    for pattern, spaced in _GLUED:
        text = pattern.sub(spaced, text)
    return text


@dataclass(frozen=True)
class Period:
    """The years a question asks about (with those between the first and the last), and
    whether it asks about a quarter or a whole year."""

    years: frozenset[int] = frozenset()
    quarter: bool = False
    full_year: bool = False


def period_asked(question: str) -> Period:
    years = set(years_in(question))
    years |= {2000 + int(m) for m in _SHORT_FISCAL.findall(question)}
    if len(years) >= 2 and max(years) - min(years) <= _MAX_SPAN:
        years |= set(range(min(years), max(years) + 1))
    quarter = bool(_QUARTER.search(unglued(question)))
    return Period(frozenset(years), quarter, bool(_FULL_YEAR.search(question)) and not quarter)


def years_in(text: str) -> frozenset[int]:
    """The years `text` names ("Q22023" names 2023)."""
    return frozenset(int(y) for y in _YEAR.findall(unglued(text)))


def line_period(line: str) -> Period:
    """The period a table line ("label | column | value") reports: its column's years
    (else its label's), and whether the column is a quarter or a year. Prose has none."""
    parts = line.split(_CELL)
    if len(parts) < 3:
        return Period()
    label, column = parts[0], parts[-2]
    years = years_in(column) or years_in(label)
    return Period(years, bool(_QUARTER.search(column)), bool(_FULL_YEAR.search(column)))


def other_period(line: str, asked: Period) -> bool:
    """The table line reports a period the question did not ask about: other years only,
    or a quarter when a whole year was asked (and the other way round)."""
    own = line_period(line)
    if asked.years and own.years and not asked.years & own.years:
        return True
    return (asked.full_year and own.quarter) or (asked.quarter and own.full_year)


_ORDINALS = ("first", "second", "third", "fourth")


def quarter_written(name: str, text: str) -> bool:
    """`name` is a quarter ("Q4") that `text` writes out ("the fourth quarter of 2019")."""
    code = re.fullmatch(r"Q([1-4])", name.strip(), re.IGNORECASE)
    ordinal = _ORDINALS[int(code.group(1)) - 1] if code else ""
    return bool(ordinal) and re.search(rf"\b{ordinal} quarter\b", text, re.IGNORECASE) is not None
