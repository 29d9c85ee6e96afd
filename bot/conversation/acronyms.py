"""Acronyms a question uses that no glossary expanded (those are expanded earlier, in
`rewrite`), read as the phrase the retrieved texts spell them with."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from bot.conversation.focus import Focus
from bot.conversation.text import content_words

_ACRONYM = re.compile(r"\b[A-Z]{2,6}s?\b")
_SKIPPABLE = frozenset({"of", "and", "the", "for", "to", "in", "on", "&"})


def with_acronyms(focus: Focus, texts: Iterable[str]) -> Focus:
    """Acronyms the question uses ("NCD") and the texts never write, read as the phrase
    the texts spell them with ("No Claim Discount"), when no glossary expanded them."""
    words = [w for text in texts for w in re.findall(r"[A-Za-z]+|&", text)]
    used = {w.upper() for w in words if w.isupper()}
    found = {a.rstrip("s") for a in _ACRONYM.findall(focus.question)} - used
    if not found:
        return focus
    swap: dict[str, frozenset[str]] = {}
    for acronym in found:
        phrase = _spelled_out(acronym, words)
        if phrase:
            swap[acronym.lower()] = frozenset(content_words(phrase))
    if not swap:
        return focus

    def swapped(stems: frozenset[str]) -> frozenset[str]:
        out = set(stems)
        for acronym, expansion in swap.items():
            if acronym in out:
                out = (out - {acronym}) | expansion
        return frozenset(out)

    head = focus.head
    if head in swap:
        head = sorted(swap[head])[-1]
    return replace(focus, terms=swapped(focus.terms), asked=swapped(focus.asked), head=head)


def _spelled_out(acronym: str, words: list[str]) -> str:
    """The first run of capitalised words whose initials spell `acronym`."""
    letters = acronym.upper()
    for start, word in enumerate(words):
        if not word[:1].isupper() or word[0] != letters[0]:
            continue
        picked: list[str] = []
        for candidate in words[start:]:
            if len(picked) == len(letters):
                break
            if candidate.lower() in _SKIPPABLE and picked:
                continue
            if candidate[:1].upper() != letters[len(picked)]:
                break
            picked.append(candidate)
        if len(picked) == len(letters) and len(letters) >= 2:
            return " ".join(picked)
    return ""
