"""Numbers and periods as rows hold them: a cell's number and its unit, and periods
("2023", "2023-Q4", "Q1 2024", "2024-03") in time order."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

_MISSING = frozenset({"", "-", "—", "–", "n/a", "na", "n.a.", "nan", "null", "none"})


_NUMBER = re.compile(
    r"(?P<pre0>[$€£¥₹])?\s*(?P<open>\()?\s*(?P<sign>[-+])?\s*(?P<pre>[$€£¥₹])?\s*(?P<sign2>[-+])?\s*"
    r"(?P<num>(?:\d{1,3}(?:[,\u00a0\u202f ]\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
    r"\s*(?P<post>[$€£¥₹%])?\s*(?P<close>\))?\s*(?P<pct>%)?"
)


def parse_number(value: Any) -> float | None:
    """A metric cell as a number: "$1,250", "12.5%", "(3.1)" (accounting negative), "−4".

    Anything ambiguous ("1,2", "12k", "n/a") is None, so it is skipped, never misread.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):
        number = float(value)
        return number if math.isfinite(number) else None
    match = _match_number(str(value))
    if match is None:
        return None
    number = float(re.sub(r"[,\u00a0\u202f ]", "", match["num"]))
    negative = bool(match["open"]) != (match["sign"] == "-" or match["sign2"] == "-")
    return -number if negative else number


def _match_number(text: str) -> re.Match[str] | None:
    text = text.strip().replace("\u2212", "-")
    if text.lower() in _MISSING:
        return None
    match = _NUMBER.fullmatch(text)
    if match is None or bool(match["open"]) != bool(match["close"]):
        return None
    if (match["pre0"] and match["pre"]) or (match["post"] and match["pct"]):
        return None
    return match


@dataclass(frozen=True)
class Unit:
    """A currency sign or percent shared by every cell of a metric, kept for display."""

    prefix: str = ""
    suffix: str = ""

    @classmethod
    def detect(cls, cells: Iterable[Any]) -> Unit:
        marks: set[tuple[str, str]] = set()
        for cell in cells:
            if parse_number(cell) is None:
                continue
            match = _match_number(cell) if isinstance(cell, str) else None
            post = (match["post"] or match["pct"] or "") if match else ""
            pre = (match["pre0"] or match["pre"] or "") if match else ""
            marks.add((pre, post if post == "%" else ""))
        if len(marks) != 1:
            return cls()
        prefix, suffix = marks.pop()
        return cls(prefix, suffix)

    def show(self, number: float) -> str:
        sign = "−" if number < 0 else ""
        return f"{sign}{self.prefix}{_plain(abs(number))}{self.suffix}"

    def change(self, old: float, new: float) -> str:
        """ "+150,000, +13.6%": the difference, then the relative change when it means something."""
        delta = new - old
        sign = "+" if delta >= 0 else "−"
        if self.suffix == "%":
            text = f"{sign}{_plain(abs(delta))} percentage points"
        else:
            text = f"{sign}{self.prefix}{_plain(abs(delta))}"
        if old != 0:
            text += f", {sign}{abs(delta) / abs(old) * 100:.1f}%"
        return text


def _plain(number: float) -> str:
    if number == int(number) and number < 1e15:
        return f"{int(number):,}"
    if number >= 1:
        return f"{number:,.2f}".rstrip("0").rstrip(".")
    return f"{number:.3g}"


_QUARTER = re.compile(r"(?:FY)?\s*(\d{4})\s*[-/ ]?\s*([QH])([1-4])", re.IGNORECASE)


_QUARTER_FIRST = re.compile(r"([QH])([1-4])\s*[-/ ]?\s*(?:FY)?\s*(\d{4})", re.IGNORECASE)


_YEAR_MONTH = re.compile(r"(?:FY)?\s*(\d{4})(?:[-/](\d{1,2}))?", re.IGNORECASE)


def period_key(text: str) -> tuple[int, int, int, float] | None:
    """A sortable (year, month, day, seconds) for a period label, or None if unknown.

    Understands 2026, FY2026, 2026-03, 2026/3, Mar 2026, 2026-Q1, Q1 2026, 2026-H2 and
    ISO dates or date-times.
    """
    text = text.strip()
    if match := _QUARTER.fullmatch(text):
        return _part_key(int(match[1]), match[2], int(match[3]))
    if match := _QUARTER_FIRST.fullmatch(text):
        return _part_key(int(match[3]), match[1], int(match[2]))
    if match := _YEAR_MONTH.fullmatch(text):
        month = int(match[2] or 1)
        return (int(match[1]), month, 1, 0.0) if 1 <= month <= 12 else None
    for form in ("%b %Y", "%B %Y"):
        try:
            parsed = datetime.strptime(text, form)
        except ValueError:
            continue
        return (parsed.year, parsed.month, 1, 0.0)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    seconds = moment.hour * 3600 + moment.minute * 60 + moment.second + moment.microsecond / 1e6
    return (moment.year, moment.month, moment.day, seconds)


def _part_key(year: int, kind: str, number: int) -> tuple[int, int, int, float] | None:
    if kind.upper() == "H" and number > 2:
        return None
    months_per_part = 3 if kind.upper() == "Q" else 6
    return (year, (number - 1) * months_per_part + 1, 1, 0.0)


def sort_periods(periods: Iterable[str]) -> list[str]:
    """Distinct periods in time order, or in source order when any label is not understood."""
    distinct = list(dict.fromkeys(periods))
    keys = {p: period_key(p) for p in distinct}
    if any(k is None for k in keys.values()):
        return distinct
    return sorted(distinct, key=lambda p: keys[p] or (0, 0, 0, 0.0))
