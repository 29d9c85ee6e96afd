"""Rewrite a question before search: expand acronyms and fix misspellings (follow-ups are
condensed in `follow_ups`).

All of it works without a language model, so the bot searches well even when none is set,
and an LLM condenser (when there is one) starts from a cleaner question.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

from rapidfuzz import process
from rapidfuzz.distance import OSA

from bot.conversation.lexicon import is_english
from bot.conversation.text import normalise_word, stopwords
from bot.conversation.types import Expansion
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
    known, glossary, known_stems, by_initial = _lexicon(vocabulary, tuple(glossary_terms))
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


_Lexicon = tuple[set[str], set[str], set[str], dict[str, list[str]]]
_last_lexicon: tuple[object, tuple[str, ...], _Lexicon] | None = None


def _lexicon(vocabulary: Iterable[str], glossary_terms: tuple[str, ...]) -> _Lexicon:
    """The known words, glossary words, their stems and candidates by first letter. Built
    once per vocabulary: the knowledge service hands out the same set until it reloads,
    and building these from ten thousand words took longer than the rest of the rewrite."""
    global _last_lexicon
    last = _last_lexicon
    if last is not None and last[0] is vocabulary and last[1] == glossary_terms:
        return last[2]
    known = {w.lower() for w in vocabulary if w}
    glossary = {part.lower() for term in glossary_terms for part in re.findall(r"\w+", term)}
    known_stems = {normalise_word(w) for w in known | glossary}
    built = (known, glossary, known_stems, _candidates_by_initial(known))
    _last_lexicon = (vocabulary, glossary_terms, built)
    return built


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
