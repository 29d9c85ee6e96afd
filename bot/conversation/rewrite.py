"""Rewrite a question before search: expand acronyms, fix misspellings, condense follow-ups.

All of it works without a language model, so the bot searches well even when none is set,
and an LLM condenser (when there is one) starts from a cleaner question.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import OSA

from bot.conversation.lexicon import is_english
from bot.conversation.text import normalise_word, stopwords
from bot.conversation.types import Expansion, HistoryTurn
from knowledge.documents import GlossaryEntry

_URL = re.compile(r"<[^>\s]+>|\bhttps?://\S+|\bwww\.\S+|\S+@\S+\.\w+")


def _protected_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _URL.finditer(text)]


def _inside(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    return any(a <= start and end <= b for a, b in spans)


def _is_shouting(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return len(letters) > 8 and sum(c.isupper() for c in letters) > 0.7 * len(letters)


# ---- acronyms ------------------------------------------------------------------------------


def expand_acronyms(text: str, glossary: Sequence[GlossaryEntry]) -> tuple[str, list[Expansion]]:
    """Replace acronyms from the glossary with their expansion, whole words only.

    Matching is case-sensitive ("PED" but not "ped"), accepts the dotted spelling
    ("P.E.D."), the plural ("PEDs") and the possessive ("PED's"). URLs and e-mail
    addresses are left alone, and so is an acronym already explained next to it
    ("pre-existing disease (PED)"). A term with two different expansions in the glossary
    is skipped: guessing the wrong one would send the search somewhere else.
    """
    table = _acronym_table(glossary)
    if not table or not text:
        return text, []
    pattern = _acronym_pattern(table)
    protected = _protected_spans(text)
    shouting = _is_shouting(text)
    parts: list[str] = []
    expansions: list[Expansion] = []
    last = 0
    for m in pattern.finditer(text):
        key = _letters(m.group("term"))
        expansion = table[key]
        if _inside(protected, m.start(), m.end()) or (shouting and key.lower() in stopwords()):
            continue
        if _already_explained(text, m.start(), m.end(), expansion):
            continue
        replacement = _inflect(expansion, m.group("suffix") or "")
        if m.group("term").endswith(".") and re.match(r"\s*(?:$|[A-Z])", text[m.end() :]):
            replacement += "."  # the dot also ended the sentence
        parts.extend((text[last : m.start()], replacement))
        last = m.end()
        found = Expansion(original=m.group(0), replacement=replacement.rstrip("."))
        if found not in expansions:
            expansions.append(found)
    parts.append(text[last:])
    return "".join(parts), expansions


def _letters(term: str) -> str:
    return term.replace(".", "")


def _is_acronym(term: str) -> bool:
    """'PED', 'D.C.', 'eKYC', 'ISO9001'; not 'Sum Insured' or 'Claim'."""
    bare = _letters(term)
    if not bare or " " in term or not bare.isalnum():
        return False
    return sum(c.isupper() for c in bare) >= 2 and bare[0].isalpha()


def _acronym_table(glossary: Sequence[GlossaryEntry]) -> dict[str, str]:
    seen: dict[str, set[str]] = defaultdict(set)
    first: dict[str, str] = {}
    for entry in glossary:
        if _is_acronym(entry.term.strip()) and entry.expansion.strip():
            key = _letters(entry.term.strip())
            seen[key].add(entry.expansion.strip().lower())
            first.setdefault(key, entry.expansion.strip())
    return {key: first[key] for key, options in seen.items() if len(options) == 1}


def _acronym_pattern(table: dict[str, str]) -> re.Pattern[str]:
    forms: list[str] = []
    for key in sorted(table, key=len, reverse=True):
        forms.append(re.escape(key))
        if key.isalpha():
            forms.append(r"\.".join(map(re.escape, key)) + r"\.")
    return re.compile(
        r"(?<![\w.&/@#])(?P<term>" + "|".join(forms) + r")"
        r"(?P<suffix>s['’]|['’]s|s)?(?![\w&])"
    )


def _already_explained(text: str, start: int, end: int, expansion: str) -> bool:
    reach = len(expansion) + 4
    window = text[max(0, start - reach) : end + reach].lower()
    return expansion.lower() in window


def _inflect(expansion: str, suffix: str) -> str:
    if suffix in ("'s", "’s"):
        return expansion + suffix
    if suffix.startswith("s"):
        plural = _pluralise_phrase(expansion)
        return plural + ("'" if len(suffix) > 1 else "")
    return expansion


def _pluralise_phrase(phrase: str) -> str:
    """'pre-existing disease' -> '... diseases'; 'statement of account' -> 'statements of ...'."""
    head, sep, tail = phrase.partition(" of ")
    words = head.split(" ")
    words[-1] = _pluralise(words[-1])
    return " ".join(words) + (sep + tail if sep else "")


def _pluralise(word: str) -> str:
    low = word.lower()
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


# ---- spelling ------------------------------------------------------------------------------

_WORD = re.compile(r"(?<![\w@/])[A-Za-z]+(?![\w@/])")


def correct_spelling(
    text: str, vocabulary: Iterable[str], glossary_terms: Iterable[str]
) -> tuple[str, list[Expansion]]:
    """Fix plain misspellings of words the knowledge base uses ("catarct" -> "cataract").

    Deliberately timid, because a wrong "fix" silently changes the question: only words of
    five letters or more that are neither known, nor an inflection of a known word, nor an
    ordinary English word ("ratio" stays although the documents say "radio"); one edit
    (two from eight letters up, a swap of neighbours counting as one); same first letter;
    and a single best candidate. Numbers, acronyms, mixed-case words, URLs and glossary
    terms are never touched.
    """
    known = {w.lower() for w in vocabulary if w}
    glossary = {part.lower() for term in glossary_terms for part in re.findall(r"\w+", term)}
    known_stems = {normalise_word(w) for w in known | glossary}
    by_initial = _candidates_by_initial(known)
    protected = _protected_spans(text)
    parts: list[str] = []
    fixes: list[Expansion] = []
    last = 0
    for m in _WORD.finditer(text):
        word = m.group(0)
        if _inside(protected, m.start(), m.end()) or not _checkable(word):
            continue
        low = word.lower()
        if low in known or low in glossary or low in stopwords() or is_english(low):
            continue
        if normalise_word(low) in known_stems:
            continue
        best = _best_candidate(low, by_initial.get(low[0], ()))
        if best is None:
            continue
        fixed = best.capitalize() if word[0].isupper() else best
        parts.extend((text[last : m.start()], fixed))
        last = m.end()
        fix = Expansion(original=word, replacement=fixed, kind="spelling")
        if fix not in fixes:
            fixes.append(fix)
    parts.append(text[last:])
    return "".join(parts), fixes


def _checkable(word: str) -> bool:
    """Long enough to tell a typo from a different word; not an acronym or a name-like token."""
    return len(word) >= 5 and not any(c.isupper() for c in word[1:])


def _candidates_by_initial(known: Iterable[str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for word in known:
        if len(word) >= 4 and word.isalpha():
            groups[word[0]].append(word)
    return groups


def _best_candidate(word: str, candidates: Sequence[str]) -> str | None:
    limit = 1 if len(word) < 8 else 2
    pool = [c for c in candidates if abs(len(c) - len(word)) <= limit]
    if not pool:
        return None
    hits = process.extract(word, pool, scorer=OSA.distance, score_cutoff=limit, limit=5)
    if not hits:
        return None
    best_distance = min(h[1] for h in hits)
    best = {h[0] for h in hits if h[1] == best_distance}
    return best.pop() if len(best) == 1 else None


# ---- follow-ups ----------------------------------------------------------------------------

_PREPOSITIONS = {
    "for", "in", "under", "of", "on", "at", "with", "during", "from", "to", "by", "about",
    "after", "before", "within", "without", "between", "per", "regarding", "over", "into",
    "through", "across", "against", "since", "until", "via", "towards",
}  # fmt: skip
_DETERMINERS = {
    "the", "a", "an", "my", "your", "our", "their", "his", "her", "its", "this", "that",
    "these", "those", "any", "each", "every", "all", "some",
}  # fmt: skip
_WH = {"what", "which", "who", "whom", "whose", "when", "where", "why", "how"}
_AUX = {
    "is", "are", "am", "was", "were", "do", "does", "did", "can", "could", "will", "would",
    "should", "shall", "may", "might", "must", "has", "have", "had",
}  # fmt: skip
_IMPERATIVES = {
    "explain", "list", "tell", "show", "give", "describe", "summarise", "summarize",
    "define", "compare", "provide", "find", "check", "calculate", "help", "please",
}  # fmt: skip
_CHITCHAT = {
    "thanks", "thank", "thx", "ok", "okay", "great", "cool", "hi", "hello", "hey", "bye",
    "yes", "no", "sure", "nice", "perfect", "got", "understood", "noted",
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
_PRONOUNS = {
    "it": "thing", "its": "thing", "this": "thing", "that": "thing", "they": "any",
    "them": "any", "their": "any", "these": "any", "those": "any", "he": "person",
    "him": "person", "his": "person", "she": "person", "her": "person",
}  # fmt: skip
_POSSESSIVE_PRONOUNS = {"its", "their", "his"}
_SUBJECTS = {"i", "we", "you", "they", "he", "she", "it"}
# Words that follow a question word or pad a question without naming anything.
_FILLERS = {
    "much", "many", "long", "often", "soon", "far", "big", "else", "exactly",
    "also", "please", "still", "really", "ever", "kind", "sort", "type",
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
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’.\-][A-Za-z0-9]+)*|[^\sA-Za-z0-9]")


@dataclass(frozen=True)
class _Tok:
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower()


@dataclass(frozen=True)
class _Slot:
    """A noun phrase that a follow-up may swap out: 'the room rent limit', 'for Plan A'."""

    start: int  # token index where the phrase (with its determiner) starts
    end: int  # token index after the phrase
    kind: str  # "named" | "person" | "number" | "common"
    prep: str = ""  # the preposition in front, for prepositional objects


def _tokens(text: str) -> list[_Tok]:
    return [_Tok(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _is_id(toks: Sequence[_Tok], i: int) -> bool:
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


def _is_nominal(tok: _Tok) -> bool:
    low = tok.low
    if not tok.text[0].isalnum() or low in stopwords() or low in _WH or low in _AUX:
        return False
    if low in _FILLERS or low in _PRONOUNS:
        return False
    return not (low in _PREPOSITIONS or low in _DETERMINERS or _is_verbish(low))


def _run_end(toks: Sequence[_Tok], j: int) -> int:
    """Index after the run of nouns (and trailing ids) that starts at `j`."""
    k = j
    while k < len(toks) and (_is_nominal(toks[k]) or (k > j and _is_id(toks, k))):
        k += 1
    return k


def _slots(toks: Sequence[_Tok]) -> list[_Slot]:
    slots: list[_Slot] = []
    i = 0
    while i < len(toks):
        low = toks[i].low
        if low in _PREPOSITIONS:
            k = i + 1 + (i + 1 < len(toks) and toks[i + 1].low in _DETERMINERS)
            end = _run_end(toks, k)
            if end > k:
                slots.append(_Slot(i + 1, end, _kind(toks, i + 1, end), prep=low))
                i = end
                continue
        elif low in _DETERMINERS or _noun_at(toks, i):
            k = i + 1 if low in _DETERMINERS else i
            end = _run_end(toks, k)
            if end > k:
                slots.append(_Slot(i, end, _kind(toks, i, end)))
                i = end
                continue
        i += 1
    return slots


def _noun_at(toks: Sequence[_Tok], i: int) -> bool:
    """A nominal word that is not a verb after a subject ('file' in 'how do I file a
    claim') nor the adverb of a 'how' question ('old' in 'how old is it')."""
    before = toks[i - 1].low if i > 0 else ""
    return _is_nominal(toks[i]) and before not in _SUBJECTS and before != "how"


def _kind(toks: Sequence[_Tok], start: int, end: int) -> str:
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


def _content_stems(toks: Sequence[_Tok]) -> set[str]:
    return {normalise_word(t.low) for t in toks if _is_nominal(t) and len(t.text) > 1}


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
    toks = _tokens(rest)
    if not toks:
        return _Plan("repeat", "") if lead else None
    first = toks[0].low
    if first in _CHITCHAT and len(toks) <= 4:
        return None
    full_question = first in _WH or first in _AUX or first in _IMPERATIVES
    if _needs_antecedent(rest):
        return _Plan("pronoun", rest if lead else text)
    if full_question:
        return None
    words = [t for t in toks if t.text[0].isalnum()]
    if lead or (len(_content_stems(words)) <= 2 and len(words) <= 6):
        return _Plan("slot", rest)
    return None


def _needs_antecedent(text: str) -> bool:
    """True when a pronoun points outside the question (no noun in front of it)."""
    toks = _tokens(_without_expletives(text))
    for i, tok in enumerate(toks):
        if tok.low in _PRONOUNS and _pronoun_use(toks, i):
            return not any(_noun_at(toks, j) for j in range(i))
    return False


def _pronoun_use(toks: Sequence[_Tok], i: int) -> bool:
    """'this plan' and 'her husband' are determiners; 'is this covered?' is a pronoun."""
    if toks[i].low in ("this", "that", "these", "those", "her"):
        return i + 1 >= len(toks) or not _is_nominal(toks[i + 1])
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
    prev = _tokens(previous)
    new = _tokens(focus)
    lead_prep = new[0].low if new and new[0].low in _PREPOSITIONS else ""
    body = new[1:] if lead_prep else new
    body_text = focus[body[0].start :] if body else focus
    slots = _slots(prev)
    if any(t.low in _PREPOSITIONS for t in body[1:]):
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
    slots: Sequence[_Slot], prev: Sequence[_Tok], body: Sequence[_Tok], prep: str
) -> _Slot | None:
    """The earlier phrase a new one replaces: same preposition first, then a shared word
    ("Plan B" for "Plan A"), then the same kind of thing (a person for a person)."""
    if not body:
        return None
    kind = _kind(body, 0, len(body))
    stems = _content_stems(body)

    def rank(index: int) -> tuple[bool, bool, bool, bool, int]:
        slot = slots[index]
        same_prep = bool(prep) and slot.prep == prep
        shared = bool(stems & _content_stems(prev[slot.start : slot.end]))
        order = -index if slot.prep else index  # first object of a preposition, last other
        return same_prep, shared, slot.kind == kind, bool(slot.prep), order

    best = max(range(len(slots)), key=rank, default=None)
    if best is None or not any(rank(best)[:3]):
        return None  # nothing in the earlier question is like the new phrase
    return slots[best]


def _chains(slots: Sequence[_Slot], drop: frozenset[str] = frozenset()) -> list[_Slot]:
    """Each non-prepositional phrase joined with the prepositional phrases right after it
    ("the room rent limit" + "for Plan A"), leaving out those of a kind in `drop`."""
    out: list[_Slot] = []
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
        out.append(_Slot(slot.start, end, slot.kind))
    return out


def _choose_chain(
    slots: Sequence[_Slot], prev: Sequence[_Tok], body: Sequence[_Tok]
) -> _Slot | None:
    """For a follow-up that brings its own phrase ("the waiting period for cataract"),
    replace the earlier phrase it shares words with, or else the earlier topic."""
    chains = [c for c in _chains(slots) if c.kind != "person"]
    stems = _content_stems(body)
    for chain in chains:
        if stems & _content_stems(prev[chain.start : chain.end]):
            return chain
    return chains[0] if chains else None


def _topic(previous: str, want: str, drop: frozenset[str]) -> str:
    """The phrase a pronoun stands for: a person for he/she, otherwise the first thing
    with its prepositional phrases ("the room rent limit for Plan A")."""
    prev = _tokens(previous)
    for chain in _chains(_slots(prev), drop):
        if chain.kind == "number":
            continue
        if want == "any" or (want == "person") == (chain.kind == "person"):
            return previous[prev[chain.start].start : prev[chain.end - 1].end]
    return ""


def _resolve_pronouns(question: str, previous: str) -> str:
    toks = _tokens(_without_expletives(question))
    own_kinds = frozenset(s.kind for s in _slots(toks) if s.prep)  # "for Plan B" overrides
    out: list[str] = []
    last = 0
    for i, tok in enumerate(toks):
        want = _PRONOUNS.get(tok.low)
        if want is None or not _pronoun_use(toks, i):
            continue
        phrase = _topic(previous, want, own_kinds) or _topic(previous, "any", own_kinds)
        if not phrase:
            continue
        if tok.low in _POSSESSIVE_PRONOUNS:
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
