"""Condense a follow-up ("and for Plan B?", "how much is it?") into a standalone question by
carrying the last subject forward, without a language model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.conversation.follow_up_phrases import (
    AUX,
    POSSESSIVE_PRONOUNS,
    PREPOSITIONS,
    PRONOUNS,
    WH,
    Slot,
    Token,
    is_nominal,
    noun_at,
    phrase_kind,
    phrase_stems,
    slots_of,
    tokens_of,
)
from bot.conversation.types import HistoryTurn

_IMPERATIVES = {
    "explain", "list", "tell", "show", "give", "describe", "summarise", "summarize",
    "define", "compare", "provide", "find", "check", "calculate", "help", "please",
}  # fmt: skip
_CHITCHAT = {
    "thanks", "thank", "thx", "ok", "okay", "great", "cool", "hi", "hello", "hey", "bye",
    "yes", "no", "sure", "nice", "perfect", "got", "understood", "noted",
}  # fmt: skip
_LEAD = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|so|well|then|now|and|also|plus|or|but)[\s,]+)*"
    r"(?:(?:what|how)\s+about|as\s+for|same\s+(?:for|with)|and|also|plus|or|but)\b[\s,]*",
    re.IGNORECASE,
)
_EXPLETIVE_IT = re.compile(
    r"\b(?:(?:is|was|will|would)\s+it(?:\s+be)?|it(?:'s|’s|\s+is|\s+was))\s+"
    r"(?:possible|necessary|mandatory|required|compulsory|true|ok|okay|allowed|advisable"
    r"|better|worth|important|safe|legal|enough|too\s+late)\b"
    r"|\bit\s+(?:takes?|took|costs?)\b(?=.*\bto\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Plan:
    mode: str  # "slot" (swap a phrase) | "pronoun" (resolve it/they/her) | "repeat"
    focus: str  # the new phrase, or the question itself for "pronoun"


def _plan(question: str) -> _Plan | None:
    """Decide whether a question leans on the previous one, and how."""
    text = question.strip()
    lead = _LEAD.match(text)
    rest = text[lead.end() :] if lead else text
    rest = rest.strip().rstrip("?.! ").strip()
    toks = tokens_of(rest)
    if not toks:
        return _Plan("repeat", "") if lead else None
    first = toks[0].low
    if first in _CHITCHAT and len(toks) <= 4:
        return None
    full_question = first in WH or first in AUX or first in _IMPERATIVES
    if _needs_antecedent(rest):
        return _Plan("pronoun", rest if lead else text)
    if full_question:
        return None
    words = [t for t in toks if t.text[0].isalnum()]
    if lead or (len(phrase_stems(words)) <= 2 and len(words) <= 6):
        return _Plan("slot", rest)
    return None


def _needs_antecedent(text: str) -> bool:
    """True when a pronoun points outside the question (no noun in front of it)."""
    toks = tokens_of(_without_expletives(text))
    for i, tok in enumerate(toks):
        if tok.low in PRONOUNS and _pronoun_use(toks, i):
            return not any(noun_at(toks, j) for j in range(i))
    return False


def _pronoun_use(toks: Sequence[Token], i: int) -> bool:
    """'this plan' and 'her husband' are determiners; 'is this covered?' is a pronoun."""
    if toks[i].low in ("this", "that", "these", "those", "her"):
        return i + 1 >= len(toks) or not is_nominal(toks[i + 1])
    return True


def _without_expletives(text: str) -> str:
    """Blank out 'is it possible', 'it takes ... to': an 'it' that points at nothing."""
    return _EXPLETIVE_IT.sub(lambda m: " " * len(m.group(0)), text)


def is_follow_up(question: str, history: Sequence[HistoryTurn]) -> bool:
    """True when the question only makes sense together with an earlier user question.

    `history` holds the earlier turns only (not the question itself), oldest first.
    """
    return _previous_question(history) is not None and _plan(question) is not None


def condense_rule_based(question: str, history: Sequence[HistoryTurn]) -> str:
    """Turn a follow-up into a standalone question by carrying the last subject forward.

    "and for Plan B?" after "What is the room rent limit for Plan A?" swaps the matching
    phrase ("for Plan A"); "how much is it?" puts the earlier topic in place of "it". A
    question with its own subject comes back unchanged. `history` holds earlier turns
    only, oldest first.
    """
    previous = _previous_question(history)
    if previous is None:
        return question
    return _condense(question, previous) or question


def _previous_question(history: Sequence[HistoryTurn]) -> str | None:
    """The last user question made standalone, following a chain of follow-ups."""
    user_turns = [t.text.strip() for t in history if t.role == "user" and t.text.strip()]
    standalone: str | None = None
    for text in user_turns[-6:]:
        standalone = text if standalone is None else (_condense(text, standalone) or text)
    return standalone


def _condense(question: str, previous: str) -> str | None:
    plan = _plan(question)
    if plan is None:
        return None
    if plan.mode == "repeat":
        return previous
    if plan.mode == "pronoun":
        return _resolve_pronouns(plan.focus, previous)
    return _swap_phrase(previous, plan.focus)


def _swap_phrase(previous: str, focus: str) -> str:
    prev = tokens_of(previous)
    new = tokens_of(focus)
    lead_prep = new[0].low if new and new[0].low in PREPOSITIONS else ""
    body = new[1:] if lead_prep else new
    body_text = focus[body[0].start :] if body else focus
    slots = slots_of(prev)
    if any(t.low in PREPOSITIONS for t in body[1:]):
        target = _choose_chain(slots, prev, body)  # a whole phrase: "the X for Y"
    else:
        target = _choose_slot(slots, prev, body, lead_prep)
    if target is None and lead_prep:  # a new qualifier: "Is IVF covered" + "in the gold plan"
        head = previous.rstrip(" ?.!")
        return _capitalise(f"{head} {focus}{previous[len(head) :]}")
    if target is None:
        return f"{focus}: {previous}"
    start_tok = prev[target.start]
    end_tok = prev[target.end - 1]
    swapped = previous[: start_tok.start] + body_text + previous[end_tok.end :]
    return _capitalise(swapped)


def _choose_slot(
    slots: Sequence[Slot], prev: Sequence[Token], body: Sequence[Token], prep: str
) -> Slot | None:
    """The earlier phrase a new one replaces: same preposition first, then a shared word
    ("Plan B" for "Plan A"), then the same kind of thing (a person for a person)."""
    if not body:
        return None
    kind = phrase_kind(body, 0, len(body))
    stems = phrase_stems(body)

    def rank(index: int) -> tuple[bool, bool, bool, bool, int]:
        slot = slots[index]
        same_prep = bool(prep) and slot.prep == prep
        shared = bool(stems & phrase_stems(prev[slot.start : slot.end]))
        order = -index if slot.prep else index  # first object of a preposition, last other
        return same_prep, shared, slot.kind == kind, bool(slot.prep), order

    best = max(range(len(slots)), key=rank, default=None)
    if best is None or not any(rank(best)[:3]):
        return None  # nothing in the earlier question is like the new phrase
    return slots[best]


def _chains(slots: Sequence[Slot], drop: frozenset[str] = frozenset()) -> list[Slot]:
    """Each non-prepositional phrase joined with the prepositional phrases right after it
    ("the room rent limit" + "for Plan A"), leaving out those of a kind in `drop`."""
    out: list[Slot] = []
    for i, slot in enumerate(slots):
        if slot.prep:
            continue
        end = reach = slot.end
        for nxt in slots[i + 1 :]:
            if not nxt.prep or nxt.start - 1 != reach:
                break
            reach = nxt.end
            if nxt.kind not in drop:
                end = nxt.end
        out.append(Slot(slot.start, end, slot.kind))
    return out


def _choose_chain(
    slots: Sequence[Slot], prev: Sequence[Token], body: Sequence[Token]
) -> Slot | None:
    """For a follow-up that brings its own phrase ("the waiting period for cataract"),
    replace the earlier phrase it shares words with, or else the earlier topic."""
    chains = [c for c in _chains(slots) if c.kind != "person"]
    stems = phrase_stems(body)
    for chain in chains:
        if stems & phrase_stems(prev[chain.start : chain.end]):
            return chain
    return chains[0] if chains else None


def _topic(previous: str, want: str, drop: frozenset[str]) -> str:
    """The phrase a pronoun stands for: a person for he/she, otherwise the first thing
    with its prepositional phrases ("the room rent limit for Plan A")."""
    prev = tokens_of(previous)
    for chain in _chains(slots_of(prev), drop):
        if chain.kind == "number":
            continue
        if want == "any" or (want == "person") == (chain.kind == "person"):
            return previous[prev[chain.start].start : prev[chain.end - 1].end]
    return ""


def _resolve_pronouns(question: str, previous: str) -> str:
    toks = tokens_of(_without_expletives(question))
    own_kinds = frozenset(s.kind for s in slots_of(toks) if s.prep)  # "for Plan B" overrides
    out: list[str] = []
    last = 0
    for i, tok in enumerate(toks):
        want = PRONOUNS.get(tok.low)
        if want is None or not _pronoun_use(toks, i):
            continue
        phrase = _topic(previous, want, own_kinds) or _topic(previous, "any", own_kinds)
        if not phrase:
            continue
        if tok.low in POSSESSIVE_PRONOUNS:
            phrase += "'s"
        out.extend((question[last : tok.start], phrase))
        last = tok.end
    out.append(question[last:])
    result = "".join(out).strip()
    if not result.endswith(("?", ".", "!")):
        result += "?"
    return _capitalise(result)


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text
