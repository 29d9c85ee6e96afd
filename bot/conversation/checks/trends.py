"""Direction words agree with the numbers beside them ("fell 12%" in a source, "rose 12%"
in the answer fails; "increased by -5%" contradicts itself)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.conversation.quantities import Quantity, quantities
from bot.conversation.text import NumberMention, number_mentions, readable, sentences
from bot.conversation.types import Bullet, Source

UP = re.compile(
    r"\b(?:increas\w*|ris(?:e|es|ing|en)|rose|gr[eo]w(?:s|n|ing|th)?|growth|up|higher|gain\w*"
    r"|climb\w*|jump\w*|surg(?:e|ed|es|ing)|soar\w*|rall(?:y|ied|ies)|hike[sd]?|spik\w*)\b",
    re.IGNORECASE,
)
# Words saying a figure went down (also read by the numbers check: "a 25% decrease").
DOWN = re.compile(
    r"\b(?:decreas\w*|fall(?:s|ing|en)?|fell|declin\w*|drop\w*|down|lower|reduc\w*"
    r"|shr[iau]nk\w*|dip(?:s|ped|ping)?|slump\w*|plung\w*|slid(?:e|es|ing)?)\b",
    re.IGNORECASE,
)
# Direction words that state a cap or a choice, not a change: "up to 1%", "whichever is lower".
NOT_A_CHANGE = re.compile(
    r"\bup\s*to\b|\bupto\b|\bwhichever is (?:higher|lower|more|less)\b"
    r"|\b(?:higher|lower) of\b",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r";|,\s|\b(?:but|while|whereas|although|though|however|and)\b", re.IGNORECASE
)
# A comparison runs across commas ("231,619 in 2018, lower than 224,312"), not across a
# contrast or a new statement.
_STATEMENT_BREAK = re.compile(r";|\b(?:but|while|whereas|although|though|however)\b", re.IGNORECASE)
_DETACHED = re.compile(r"\b(?:to|from|at|of about|reaching)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Claim:
    """A number with the direction a clause gives it: +1 up, -1 down."""

    number: NumberMention
    direction: int
    worded: bool  # the direction comes from a word, not only from the number's sign


def directions_agree(bullets: Sequence[Bullet], sources: Sequence[Source]) -> bool:
    """Direction words agree with the signs beside them, and with what the context says
    about the same number ("fell 12%" in a source, "rose 12%" in the answer fails)."""
    said = [c for b in bullets for c in _claims(b.text)]
    if any(_against_own_sign(claim) for claim in said):
        return False
    if not all(
        _changes_agree(part)
        for b in bullets
        for s in sentences(b.text)
        for part in _STATEMENT_BREAK.split(s)
        if part.strip()
    ):
        return False
    if not said:  # no number the answer moves: nothing to hold against the sources
        return True
    seen = [c for s in sources for c in _claims(readable(s.text))]
    for claim in said:
        same = [c.direction for c in seen if _same_number(claim.number, c.number)]
        if same and claim.direction not in same:
            return False
    return True


def _against_own_sign(claim: _Claim) -> bool:
    """'increased by −5%' or 'fell +3%'. A fall written with a minus ('declined -5%') is
    how finance tables write it, so that is not a contradiction."""
    sign = claim.number.explicit_sign
    return claim.worded and sign == ("-" if claim.direction > 0 else "+")


def _claims(text: str) -> list[_Claim]:
    out: list[_Claim] = []
    for sentence in sentences(text):
        for clause in _clauses(sentence):
            out.extend(_clause_claims(clause))
    return out


def _clauses(sentence: str) -> list[str]:
    return [p for p in _CLAUSE_BREAK.split(sentence) if p.strip()]


def _clause_claims(clause: str) -> list[_Claim]:
    scrubbed = NOT_A_CHANGE.sub(lambda m: " " * len(m.group(0)), clause)
    cues = [(m.start(), 1) for m in UP.finditer(scrubbed)]
    cues += [(m.start(), -1) for m in DOWN.finditer(scrubbed)]
    claims: list[_Claim] = []
    for number in number_mentions(scrubbed):
        if _is_year(scrubbed, number):
            continue  # "rose 12% in 2023": the year dates the change, it does not move
        direction = _nearest_cue(scrubbed, number, cues)
        if direction:
            claims.append(_Claim(number, direction, worded=True))
        elif number.explicit_sign:
            claims.append(_Claim(number, 1 if number.explicit_sign == "+" else -1, False))
    return claims


def _is_year(clause: str, number: NumberMention) -> bool:
    written = clause[number.start : number.end].strip("() ")
    return bool(re.fullmatch(r"(?:19|20)\d\d", written))


def _nearest_cue(clause: str, number: NumberMention, cues: Sequence[tuple[int, int]]) -> int:
    """The direction of the closest direction word not cut off by 'to'/'from' ("rose to 5%"
    gives a level, not a change)."""
    best: tuple[int, int] | None = None
    for position, direction in cues:
        lo, hi = sorted((position, number.start))
        if _DETACHED.search(clause[lo:hi]):
            continue
        distance = abs(position - number.start)
        if best is None or distance < best[0]:
            best = (distance, direction)
    return best[1] if best else 0


def _same_number(said: NumberMention, seen: NumberMention) -> bool:
    """Equal after normalisation, ignoring sign; a rounded figure ("1.2 million",
    "12.3%") also matches the exact one it rounds ("1,234,567", "12.34%")."""
    seen_values = (abs(seen.value), abs(seen.raw))
    if any(math.isclose(v, abs(said.value)) or math.isclose(v, abs(said.raw)) for v in seen_values):
        return True
    scaled = said.raw != 0 and not math.isclose(said.value, said.raw)
    if said.decimals == 0 and not scaled:
        return False
    unit = abs(said.value / said.raw) if said.raw else 1.0
    return any(math.isclose(round(v / unit, said.decimals), abs(said.raw)) for v in seen_values)


_FROM = re.compile(r"\bfrom\b", re.IGNORECASE)
_TO = re.compile(r"\bto\b", re.IGNORECASE)


_COMPARED = re.compile(
    r"\b(?P<word>higher|more|greater|larger|above|lower|less|fewer|smaller|below)\s+than\b",
    re.IGNORECASE,
)
_MORE = {"higher", "more", "greater", "larger", "above"}
_CHANGE_OF = re.compile(r"\b(?:an?\s+)?(?P<word>\w+)\s+of\b", re.IGNORECASE)


def _changes_agree(sentence: str) -> bool:
    """Stated changes and comparisons point the way the figures go: "rose from 2,717 to
    6,706" (and its "an increase of 3,989"), "7.2% in 2019, a decrease from 11.6% in
    2018", "231,619 in 2018, lower than 224,312". Years only date the figures."""
    figures = [q for q in quantities(sentence) if not _is_year_text(q.text)]
    if len(figures) < 2:
        return True
    cues = [(m.start(), 1) for m in UP.finditer(sentence)]
    cues += [(m.start(), -1) for m in DOWN.finditer(sentence)]
    moved = None
    for start in _FROM.finditer(sentence):
        before = [c for c in cues if 0 <= start.start() - c[0] <= 30]
        after = [q for q in figures if q.start >= start.end()]
        if not before or not after:
            continue
        position, direction = max(before)
        old = after[0]
        to = _TO.search(sentence, old.end, old.end + 40)
        later = [q for q in figures if to is not None and q.start >= to.end()]
        earlier = [q for q in figures if q.end <= position]
        new = later[0] if later else earlier[-1] if earlier else None
        if new is None or not new.same_kind(old) or new.value == old.value:
            continue
        moved = 1 if _signed(sentence, new) > _signed(sentence, old) else -1
        if moved != direction:
            return False
    if moved is not None and not _changes_of_agree(sentence, cues, moved):
        return False
    return all(_comparison_holds(sentence, m, figures) for m in _COMPARED.finditer(sentence))


def _changes_of_agree(sentence: str, cues: list[tuple[int, int]], moved: int) -> bool:
    """ "..., an increase of 300": the change named agrees with how the figures moved."""
    for m in _CHANGE_OF.finditer(sentence):
        here = [d for position, d in cues if position == m.start("word")]
        if here and here[0] != moved:
            return False
    return True


def _comparison_holds(sentence: str, m: re.Match[str], figures: list[Quantity]) -> bool:
    """The figure compared is the last one before the comparison of the same kind as the
    first one after it: "$58.3 million a year for the next five years, higher than the
    $49.1 million" compares the two amounts, not five years. After a preposition it bounds
    the figure that follows and compares nothing ("coverage for more than 12 months")."""
    if _BOUNDING.search(sentence[: m.start()]):
        return True
    after = [q for q in figures if q.start >= m.end()]
    before = [q for q in figures if q.end <= m.start() and after and q.same_kind(after[0])]
    if not before or not after:
        return True
    one, other = _signed(sentence, before[-1]), _signed(sentence, after[0])
    if one == other:
        return True
    return (one > other) == (m.group("word").lower() in _MORE)


_BOUNDING = re.compile(r"\b(?:for|of|by|at|in|with|over|to|within)\s+$", re.IGNORECASE)


def _signed(sentence: str, q: Quantity) -> float:
    """An accounting negative is written in parentheses: "(16,377)" is below "(16,086)"."""
    opened = sentence[max(0, q.start - 1) : q.start] == "("
    closed = sentence[q.end : q.end + 1] == ")"
    return -q.value if opened and closed else q.value


def _is_year_text(text: str) -> bool:
    return bool(re.fullmatch(r"(?:fy\s*)?(?:19|20)\d\d", text.strip().lower()))


def only_changes(text: str) -> bool:
    """Every figure the text states is how much something moved ("decreased $477
    million", "an increase in tax payments of $346 million", "a $3 million decline"),
    none what it was ("rose 5% to $2.1 billion" states both)."""
    scrubbed = NOT_A_CHANGE.sub(lambda m: " " * len(m.group(0)), text)
    found = [q for q in quantities(scrubbed) if not q.is_year]
    return bool(found) and all(_moved(scrubbed, q) for q in found)


# Between a direction word and the figure it moves by: "by", "of", "in <what> of".
_MOVED_BY = re.compile(
    r"\s*(?:in\s+(?:[\w'&()-]+\s+){0,6}?)?(?:(?:by|of)\s+)?"
    r"(?:(?:approximately|about|nearly|almost|roughly|around|some|over)\s+)?",
    re.IGNORECASE,
)


def _moved(text: str, q: Quantity) -> bool:
    before = text[max(0, q.start - 80) : q.start]
    cues = [m for pattern in (UP, DOWN) for m in pattern.finditer(before)]
    if cues and _MOVED_BY.fullmatch(before[max(m.end() for m in cues) :]):
        return True
    after = re.match(r"\s*([A-Za-z]+)", text[q.end :])
    return after is not None and bool(
        UP.fullmatch(after.group(1)) or DOWN.fullmatch(after.group(1))
    )


def asks_a_change(question: str) -> bool:
    """The question asks how much something moved ("what was the increase in ...")."""
    scrubbed = NOT_A_CHANGE.sub(" ", question)
    return bool(UP.search(scrubbed) or DOWN.search(scrubbed))
