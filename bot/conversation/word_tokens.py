"""NLTK's word tokenizer, made fast without changing a single token.

`NLTKWordTokenizer` rewrites the whole text with some thirty regular expressions in turn
and then splits it on spaces. Two things made that the largest cost of scoring an answer
(about 0.7 ms for a 1,200-character chunk, some 50 chunks and passages per question):

- NLTK 3.10 runs every pattern through `nltk.redos` (the `regex` engine under a timeout,
  a guard against patterns a caller supplies). These are NLTK's own linear patterns, so
  here they are compiled by the standard `re`.
- Most steps cannot change most texts: the eight contraction patterns ("cannot",
  "gonna" ...) each scan the whole text to find nothing. Here a step runs only when the
  text holds a character (or, for contractions, the word) without which its pattern
  cannot match; a step that is skipped would have left the text as it was. Runs of
  white space become one space by `str.split`, which splits where `re`'s \\s matches.

That takes a chunk from about 0.7 ms to 0.3.

The tokens are NLTK's; `tests/unit/test_text.py` compares the two on texts that reach
every step.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from nltk.tokenize import NLTKWordTokenizer

_Step = tuple[re.Pattern[str], str, tuple[str, ...]]  # pattern, replacement, what it needs

# What each of NLTK's steps needs, in NLTK's order: its pattern matches only where one of
# these strings occurs, so in a text without any of them the step changes nothing.
_STARTING_NEEDS = ("«“‘„`", '"', "`", "\"'", "'")
_DASHES = "\u2012\u2013\u2014\u2015"
_PUNCTUATION_NEEDS = (".", ":,", ":,", ("..",), ";@#$%&", _DASHES, ".", "?!", "'", "*")
_CLITICS = ("' ", *(f"'{c} " for c in "sSmMdD"))  # ([^' ])('[sS]|'[mM]|'[dD]|') + space
_LONG_CLITICS = tuple(f"{c} " for c in ("'ll", "'LL", "'re", "'RE", "'ve", "'VE", "n't", "N'T"))
_ENDING_NEEDS = ("»”’", "'", '"', _CLITICS, _LONG_CLITICS)
_BRACKETS = "[](){}<>"
# Letters that `re`'s case-insensitive matching takes for ASCII ones while str.lower()
# does not ("ı" is "I" for `re`): a text holding one is checked pattern by pattern.
_CASE_TRAPS = "İıſ"


def _plain(pattern: Any) -> re.Pattern[str]:
    """`pattern` (an NLTK pattern object) compiled by `re`, with the flags `re` knows."""
    return re.compile(pattern.pattern, pattern.flags & (re.I | re.M | re.S | re.X))


def _steps(pairs: Any, needs: tuple[str | tuple[str, ...], ...]) -> tuple[_Step, ...]:
    """NLTK's (pattern, replacement) pairs with what each needs (a string: any character)."""
    return tuple(
        (_plain(p), r, tuple(n) if isinstance(n, str) else n)
        for (p, r), n in zip(pairs, needs, strict=True)
    )


def _word_of(pattern: re.Pattern[str]) -> str:
    """The lower-case text a contraction pattern matches: "cannot" for (can)(?#X)(not)."""
    return re.sub(r"\(\?i\)|\(\?#X\)|\\b|\(\?=\\s\)|[()]", "", pattern.pattern)


class FastWordTokenizer(NLTKWordTokenizer):
    """`NLTKWordTokenizer.tokenize`, step for step, skipping the steps that cannot apply."""

    def __init__(self) -> None:
        base = NLTKWordTokenizer
        self._starting = _steps(base.STARTING_QUOTES, _STARTING_NEEDS)
        self._punctuation = _steps(base.PUNCTUATION, _PUNCTUATION_NEEDS)
        self._brackets = _steps([base.PARENS_BRACKETS, base.DOUBLE_DASHES], (_BRACKETS, "-"))
        quotes, spaces, clitics = (
            base.ENDING_QUOTES[:3],
            base.ENDING_QUOTES[3],
            base.ENDING_QUOTES[4:],
        )
        if spaces[0].pattern != r"\s+" or spaces[1] != " ":  # done below by str.split
            raise RuntimeError("NLTK's word tokenizer changed its steps; see word_tokens.py")
        self._quotes = _steps(quotes, _ENDING_NEEDS[:3])
        self._clitics = _steps(clitics, _ENDING_NEEDS[3:])
        contractions = [_plain(p) for p in (*base.CONTRACTIONS2, *base.CONTRACTIONS3)]
        self._contractions = tuple((p, _word_of(p)) for p in contractions)

    def tokenize(
        self, text: str, convert_parentheses: bool = False, return_str: bool = False
    ) -> list[str]:
        if convert_parentheses or return_str:
            return super().tokenize(text, convert_parentheses, return_str)
        text = _apply(self._starting, text)
        text = _apply(self._punctuation, text)
        text = _apply(self._brackets, text)
        text = _apply(self._quotes, f" {text} ")
        text = f" {' '.join(text.split())} " if not text.isspace() else " "  # \s+ -> " "
        text = _apply(self._clitics, text)
        return self._split_contractions(text).split()

    def _split_contractions(self, text: str) -> str:
        careful = any(c in text for c in _CASE_TRAPS)
        lowered = text.lower()
        for pattern, word in self._contractions:
            if careful or word in lowered:
                text, count = pattern.subn(r" \1 \2 ", text)
                lowered = text.lower() if count else lowered
        return text


def _apply(steps: tuple[_Step, ...], text: str) -> str:
    for pattern, replacement, needs in steps:
        if any(n in text for n in needs):
            text = pattern.sub(replacement, text)
    return text


@cache
def word_tokenizer() -> NLTKWordTokenizer:
    return FastWordTokenizer()
