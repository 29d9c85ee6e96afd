"""Numbers as quantities: each one an answer states is in its context as the same kind of
quantity ("7%" is not "INR 6/ 7/ 8 Lac"), was given in the question, or is plain
arithmetic (a difference, a sum, a ratio, a percent change) on two grounded numbers the
same bullet states — an answer that computes shows its operands, and a changed number is
not excused by some pair of context numbers that happens to add up to it."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

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
    found = [q for q in said if any(q.matches(other) for other in pool)]
    return [q for q in said if q not in found and not derived(q, found)]


def derived(q: Quantity, operands: Sequence[Quantity]) -> bool:
    """`q` is the difference, sum, ratio or percent change of two of `operands`."""
    for a, b in itertools.permutations(operands, 2):
        if not a.same_kind(b):
            continue
        combined = (a.value - b.value, a.value + b.value)
        if q.same_kind(a) and any(_near(q.value, v) for v in combined):
            return True
        if b.value and q.kind in ("percent", "number") and a.kind != "percent":
            change = (a.value - b.value) / abs(b.value) * 100
            if q.kind == "percent" and _near(abs(q.value), abs(change)):
                return True
            if q.kind == "number" and _near(q.value, a.value / b.value):
                return True
    return False


def _near(said: float, exact: float) -> bool:
    """Equal once `exact` is rounded as `said` was written (to two significant decimals)."""
    if said == exact:
        return True
    scale = max(abs(said), abs(exact))
    return scale > 0 and abs(said - exact) <= max(0.005 * scale, 0.05)
