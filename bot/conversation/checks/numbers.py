"""Numbers as quantities: each one an answer states is in its context as the same kind of
quantity ("7%" is not "INR 6/ 7/ 8 Lac"), was given in the question, or is plain
arithmetic (a difference, a sum, a ratio, a percent change) on two grounded numbers the
same bullet states — an answer that computes shows its operands, and a changed number is
not excused by some pair of context numbers that happens to add up to it."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import replace

from bot.conversation.checks.trends import DOWN
from bot.conversation.quantities import Quantity, merged, quantities
from bot.conversation.text import readable
from bot.conversation.types import Bullet, Source


def context_quantities(question: str, sources: Iterable[Source]) -> list[Quantity]:
    pool = merged(quantities(question))
    for source in sources:
        pool.extend(merged(quantities(readable(source.text))))
    return pool


def numbers_grounded(question: str, bullets: Sequence[Bullet], sources: Sequence[Source]) -> bool:
    """Every quantity in the answer is a quantity of its context (or derived from two)."""
    pool = context_quantities(question, sources)
    return all(ungrounded(bullet.text, pool) == [] for bullet in bullets)


def ungrounded(text: str, pool: Sequence[Quantity]) -> list[Quantity]:
    """The quantities of `text` that are neither in `pool` nor computed from ones that are."""
    said = merged(quantities(text))
    found = [q for q in said if any(matches_as_stated(q, other, text) for other in pool)]
    return [q for q in said if q not in found and not derived(q, found)]


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


def derived(q: Quantity, operands: Sequence[Quantity]) -> bool:
    """`q` is the difference, sum, ratio or percent change of two of `operands`."""
    for a, b in itertools.permutations(operands, 2):
        if not a.same_kind(b):
            continue
        combined = (a.value - b.value, a.value + b.value)
        if q.same_kind(a) and any(_near(q, v) for v in combined):
            return True
        if b.value and q.kind in ("percent", "number") and a.kind != "percent":
            change = (a.value - b.value) / abs(b.value) * 100
            if q.kind == "percent" and _near(q, change, either_sign=True):
                return True
            if q.kind == "number" and _near(q, a.value / b.value):
                return True
    return False


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
