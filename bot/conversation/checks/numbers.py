"""Numbers as quantities: each one an answer states is in its context as the same kind of
quantity ("7%" is not "INR 6/ 7/ 8 Lac"), was given in the question, or is plain
arithmetic (a difference, a sum, a ratio, a percent change) on two grounded numbers the
answer states, in the same bullet or one before it ("Sales rose from $670.7 million to
$849.8 million." then "That is $179.1 million more.") — an answer that computes shows its
operands, and a changed number is not excused by some pair of context numbers that happens
to add up to it."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from bot.conversation.checks.trends import DOWN, UP
from bot.conversation.quantities import SCALES, Quantity, merged, quantities
from bot.conversation.text import readable
from bot.conversation.types import Bullet, Source


def context_quantities(question: str, sources: Iterable[Source]) -> list[Quantity]:
    pool = merged(quantities(question))
    for source in sources:
        pool.extend(in_units(merged(quantities(readable(source.text))), table_scale(source.text)))
    return pool


def numbers_grounded(question: str, bullets: Sequence[Bullet], sources: Sequence[Source]) -> bool:
    """Every quantity in the answer is a quantity of its context (or derived from two the
    answer states)."""
    pool = context_quantities(question, sources)
    shown: list[Quantity] = []
    return all(not ungrounded(bullet.text, pool, shown) for bullet in bullets)


def ungrounded(
    text: str, pool: Sequence[Quantity], shown: list[Quantity] | None = None
) -> list[Quantity]:
    """The quantities of `text` that are neither in `pool` nor computed from ones that are
    (stated in `text` or `shown` by the bullets before it; `text`'s are added to `shown`)."""
    said = merged(quantities(text))
    found = [q for q in said if any(matches_as_stated(q, other, text) for other in pool)]
    operands = [*(shown or []), *found]
    if shown is not None:
        shown.extend(found)
    return [q for q in said if q not in found and not derived(q, operands, text)]


def matches_as_stated(q: Quantity, other: Quantity, text: str) -> bool:
    """`q`, as `text` states it, is `other`: also a fall written as its size ("a 25%
    decrease", "down 25%") beside the signed figure ("-25%")."""
    if q.matches(other):
        return True
    if other.value >= 0 or q.value <= 0:
        return False
    near = text[max(0, q.start - 40) : q.end + 30]
    raw = None if other.raw is None else -other.raw
    return bool(DOWN.search(near)) and q.matches(replace(other, value=-other.value, raw=raw))


def derived(q: Quantity, operands: Sequence[Quantity], text: str = "") -> bool:
    """`q` is the difference, sum, ratio or percent change of two of `operands`. A percent
    change `text` calls a rise or a fall is taken on the figure it moved from: revenue
    rising from 1,958 to 2,222 is up 13.5%, not 11.9% (which is 264 of 2,222)."""
    way = _direction(q, text)
    for a, b in itertools.permutations(operands, 2):
        if not a.same_kind(b):
            continue
        combined = (a.value - b.value, a.value + b.value)
        if q.same_kind(a) and any(_near(q, v) for v in combined):
            return True
        if b.value and q.kind in ("percent", "number") and a.kind != "percent":
            change = (a.value - b.value) / abs(b.value) * 100
            if q.kind == "percent" and way * change >= 0 and _near(q, change, either_sign=True):
                return True
            if q.kind == "number" and _near(q, a.value / b.value):
                return True
    return False


def _direction(q: Quantity, text: str) -> int:
    """1 when the nearest word of change around `q` says a rise, -1 a fall, else 0."""
    before = [
        (q.start - m.end(), d)
        for d, cue in ((1, UP), (-1, DOWN))
        for m in cue.finditer(text, max(0, q.start - 60), q.start)
    ]
    after = [
        (m.start() - q.end, d)
        for d, cue in ((1, UP), (-1, DOWN))
        for m in cue.finditer(text, q.end, q.end + 30)
    ]
    return min(before + after, default=(0, 0))[1]


def _near(q: Quantity, exact: float, *, either_sign: bool = False) -> bool:
    """`exact`, rounded as `q` is written, is `q`: within half a unit of its last digit
    ("9,247" is not 9,246; "9,200" and "9.2 thousand" are; "16%" is 15.98%)."""
    said = abs(q.value) if either_sign else q.value
    exact = abs(exact) if either_sign else exact
    return abs(said - exact) <= _unit(q) / 2 + 1e-9 * max(1.0, abs(exact))


def _unit(q: Quantity) -> float:
    """One unit of the last digit `q` writes, in its base unit ("9,200": 100)."""
    if q.precision:
        return q.precision
    raw = q.raw if q.raw else q.value
    digits = str(int(abs(raw))) if raw == int(raw) else ""
    zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
    return 10.0**zeros * abs(q.value / raw if raw else 1.0)


# A table's note of the units its figures are in: "(in thousands of U.S. dollars, except
# percentages)", "(Dollars in millions)", "$'000".
NOTED_SCALES = "thousands|millions|billions"
_SCALE_NOTE = re.compile(rf"\bin\s+(?P<word>{NOTED_SCALES})\b|[$£€]\s?['’]000\b", re.I)


def table_scale(block: str) -> float:
    """What a table block's figures are counted in, by the note in its header (the lines
    before its first cell): 1,000 for "(in thousands)"; 1.0 for no note or no table."""
    header = []
    for line in block.splitlines():
        if " | " in line and not line.startswith("columns:"):
            break
        header.append(line)
    else:
        return 1.0
    note = _SCALE_NOTE.search("\n".join(header))
    if note is None:
        return 1.0
    return SCALES[(note.group("word") or "thousands").lower().removesuffix("s")]


def in_units(found: list[Quantity], scale: float) -> list[Quantity]:
    """`found`, and each plain amount of a table noted in thousands (or millions) also as
    the amount it stands for: the cell "279,059" is "$279.1 million". Without a note (a
    filing may give it once, pages away), an amount written in thousands ("$198,500")
    may stand for thousands too ("$198.5 million")."""
    plain = [q for q in found if q.kind in ("number", "money") and not q.scaled and not q.is_year]
    if scale == 1.0:
        grouped = (q for q in plain if "," in q.text and q.value >= 1000)
        return found + [replace(q, value=q.value * 1000, scaled=True) for q in grouped]
    return found + [replace(q, value=q.value * scale, scaled=True) for q in plain]
