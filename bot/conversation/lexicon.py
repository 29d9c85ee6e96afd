"""Which words are ordinary English, so a spelling fix never turns a real word into a
different one ("ratio" into "radio", "count" into "court") just because the knowledge base
happens to use the other word.

The word list is pyspellchecker's English frequency dictionary, shipped inside its wheel
(nothing is downloaded); it is read once per process, on first use (about a second).
"""

from __future__ import annotations

import re
from functools import cache


@cache
def _english() -> frozenset[str]:
    from spellchecker import SpellChecker

    return frozenset(SpellChecker(distance=1).word_frequency.dictionary)


def load() -> None:
    """Read the word list now (a server does this before it reports ready)."""
    _english()


def is_english(word: str) -> bool:
    """A dictionary word, in British or American spelling ("hospitalisation" too)."""
    low = word.lower()
    words = _english()
    if low in words:
        return True
    american = re.sub(r"is(ation|ations|e|ed|es|ing)$", r"iz\1", low)
    return american != low and american in words
