"""The noun phrases of a short question, read from its surface: which words name things,
where each phrase starts and ends, and what kind of thing it names (for `follow_ups`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.conversation.text import normalise_word, stopwords

PREPOSITIONS = {
    "for", "in", "under", "of", "on", "at", "with", "during", "from", "to", "by", "about",
    "after", "before", "within", "without", "between", "per", "regarding", "over", "into",
    "through", "across", "against", "since", "until", "via", "towards",
}  # fmt: skip
_DETERMINERS = {
    "the", "a", "an", "my", "your", "our", "their", "his", "her", "its", "this", "that",
    "these", "those", "any", "each", "every", "all", "some",
}  # fmt: skip
WH = {"what", "which", "who", "whom", "whose", "when", "where", "why", "how"}
AUX = {
    "is", "are", "am", "was", "were", "do", "does", "did", "can", "could", "will", "would",
    "should", "shall", "may", "might", "must", "has", "have", "had",
}  # fmt: skip
_VERBISH = {
    "cover", "covers", "include", "includes", "apply", "applies", "pay", "pays", "cost",
    "costs", "mean", "means", "start", "starts", "begin", "begins", "end", "ends", "get",
    "gets", "need", "needs", "take", "takes", "work", "works", "require", "requires",
    "allow", "allows", "exclude", "excludes", "offer", "offers", "happen", "happens",
    "available", "eligible", "payable", "applicable", "possible", "valid", "necessary",
    "mandatory", "change", "changes", "differ", "differs", "compare", "go", "goes",
}  # fmt: skip
_NOT_VERBS = {"insured", "assured", "limited", "need", "red", "bed", "seed", "speed"}
_PERSON_NOUNS = {
    "wife", "husband", "spouse", "partner", "son", "sons", "daughter", "daughters", "child",
    "children", "kid", "kids", "parent", "parents", "mother", "father", "mom", "mum", "dad",
    "brother", "sister", "sibling", "siblings", "grandparent", "grandparents",
    "grandmother", "grandfather", "in-laws", "mother-in-law", "father-in-law", "employee",
    "employees", "dependent", "dependents", "dependant", "dependants", "nominee",
    "policyholder", "proposer", "customer", "customers", "client", "clients", "colleague",
    "manager", "agent", "baby", "newborn", "infant", "family", "self", "member", "members",
}  # fmt: skip
# What each pronoun may stand for; possessive ones get "'s" on the phrase that replaces them.
PRONOUNS = {
    "it": "thing", "its": "thing", "this": "thing", "that": "thing", "they": "any",
    "them": "any", "their": "any", "these": "any", "those": "any", "he": "person",
    "him": "person", "his": "person", "she": "person", "her": "person",
}  # fmt: skip
POSSESSIVE_PRONOUNS = {"its", "their", "his"}
_SUBJECTS = {"i", "we", "you", "they", "he", "she", "it"}
# Words that follow a question word or pad a question without naming anything.
_FILLERS = {
    "much", "many", "long", "often", "soon", "far", "big", "else", "exactly",
    "also", "please", "still", "really", "ever", "kind", "sort", "type",
}  # fmt: skip
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’.\-][A-Za-z0-9]+)*|[^\sA-Za-z0-9]")


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower()


@dataclass(frozen=True)
class Slot:
    """A noun phrase that a follow-up may swap out: 'the room rent limit', 'for Plan A'."""

    start: int  # token index where the phrase (with its determiner) starts
    end: int  # token index after the phrase
    kind: str  # "named" | "person" | "number" | "common"
    prep: str = ""  # the preposition in front, for prepositional objects


def tokens_of(text: str) -> list[Token]:
    return [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _is_id(toks: Sequence[Token], i: int) -> bool:
    """'A' in 'Plan A', '2' in 'Tier 2', and 'b' in 'plan b?' name which one of a kind."""
    tok = toks[i]
    if tok.text.isdigit() or re.fullmatch(r"\d+[A-Za-z]?", tok.text):
        return True
    if len(tok.text) != 1 or not tok.text.isalpha() or tok.text == "I":
        return False
    at_boundary = i + 1 >= len(toks) or not toks[i + 1].text[0].isalnum()
    return tok.text.isupper() or at_boundary


def _is_verbish(low: str) -> bool:
    return low in _VERBISH or (low.endswith("ed") and len(low) > 4 and low not in _NOT_VERBS)


def is_nominal(tok: Token) -> bool:
    low = tok.low
    if not tok.text[0].isalnum() or low in stopwords() or low in WH or low in AUX:
        return False
    if low in _FILLERS or low in PRONOUNS:
        return False
    return not (low in PREPOSITIONS or low in _DETERMINERS or _is_verbish(low))


def _run_end(toks: Sequence[Token], j: int) -> int:
    """Index after the run of nouns (and trailing ids) that starts at `j`."""
    k = j
    while k < len(toks) and (is_nominal(toks[k]) or (k > j and _is_id(toks, k))):
        k += 1
    return k


def slots_of(toks: Sequence[Token]) -> list[Slot]:
    slots: list[Slot] = []
    i = 0
    while i < len(toks):
        low = toks[i].low
        if low in PREPOSITIONS:
            k = i + 1 + (i + 1 < len(toks) and toks[i + 1].low in _DETERMINERS)
            end = _run_end(toks, k)
            if end > k:
                slots.append(Slot(i + 1, end, phrase_kind(toks, i + 1, end), prep=low))
                i = end
                continue
        elif low in _DETERMINERS or noun_at(toks, i):
            k = i + 1 if low in _DETERMINERS else i
            end = _run_end(toks, k)
            if end > k:
                slots.append(Slot(i, end, phrase_kind(toks, i, end)))
                i = end
                continue
        i += 1
    return slots


def noun_at(toks: Sequence[Token], i: int) -> bool:
    """A nominal word that is not a verb after a subject ('file' in 'how do I file a
    claim') nor the adverb of a 'how' question ('old' in 'how old is it')."""
    before = toks[i - 1].low if i > 0 else ""
    return is_nominal(toks[i]) and before not in _SUBJECTS and before != "how"


def phrase_kind(toks: Sequence[Token], start: int, end: int) -> str:
    """What sort of thing a phrase names, judged by its head (last) word."""
    head_index = end - 1
    head = toks[head_index]
    words = [t for t in toks[start:end] if t.low not in _DETERMINERS]
    if words and all(re.fullmatch(r"\d[\d,.]*", t.text) for t in words):
        return "number"
    if head.low in _PERSON_NOUNS:
        return "person"
    if head_index > start and _is_id(toks, head_index):
        return "named"
    if re.fullmatch(r"[A-Z][A-Z0-9&]+s?", head.text) or (head_index > 0 and head.text[0].isupper()):
        return "named"
    return "common"


def phrase_stems(toks: Sequence[Token]) -> set[str]:
    return {normalise_word(t.low) for t in toks if is_nominal(t) and len(t.text) > 1}
