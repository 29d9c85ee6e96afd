"""Sentence splitting and content words, shared by loaders and answer scoring.

NLTK data cannot be downloaded here, but llama-index-core ships punkt_tab and the stopword
lists inside its wheel; `ensure_nltk_data` points NLTK at that copy. Only those two
resources are used, so nothing here needs taggers or chunkers.
"""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from pathlib import Path

import nltk
from nltk.stem import PorterStemmer
from nltk.tokenize import sent_tokenize

_WORD = re.compile(r"\w+(?:[-'’.]\w+)*")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)")
_SPACE = re.compile(r"\s+")
_LIST_MARK = re.compile(r"^(?:[-*•]|\d+[.)])\s+")


def bundled_nltk_dir() -> Path | None:
    """Where llama-index-core keeps its NLTK data, found without importing the package.

    Importing llama_index.core takes seconds; locating its folder through the import
    machinery does not.
    """
    spec = importlib.util.find_spec("llama_index.core")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "_static" / "nltk_cache"
        if candidate.is_dir():
            return candidate
    return None


@cache
def ensure_nltk_data() -> None:
    """Make punkt_tab and stopwords findable; fail with a fix if they are nowhere.

    Cached, so every caller may call it cheaply before touching NLTK.
    """
    bundled = bundled_nltk_dir()
    if bundled is not None and str(bundled) not in nltk.data.path:
        nltk.data.path.append(str(bundled))
    for resource in ("tokenizers/punkt_tab/english/", "corpora/stopwords"):
        try:
            nltk.data.find(resource)
        except LookupError as exc:
            raise RuntimeError(
                f"NLTK resource {resource} not found (looked in {nltk.data.path}); "
                "reinstall llama-index-core, which ships it, or set NLTK_DATA to a copy"
            ) from exc


def normalize_whitespace(text: str) -> str:
    """One space between words, none at the ends: how names and cells are compared."""
    return _SPACE.sub(" ", text).strip()


def sentences(text: str) -> list[str]:
    """Sentences of `text`, treating blank lines and list items as hard breaks.

    Punkt alone would glue a heading or a bullet to the next sentence. List marks are
    dropped: whoever shows the sentences adds their own.
    """
    ensure_nltk_data()
    found: list[str] = []
    for block in _PARAGRAPH_BREAK.split(text):
        block = _LIST_MARK.sub("", normalize_whitespace(block))
        if block:
            found.extend(s for s in sent_tokenize(block) if s.strip())
    return found


def words(text: str) -> list[str]:
    """Lower-cased word tokens; keeps inner dots and hyphens ("u.s.", "covid-19")."""
    return [w.lower() for w in _WORD.findall(text)]


@cache
def stopwords() -> frozenset[str]:
    """English stopwords from the bundled NLTK list."""
    ensure_nltk_data()
    from nltk.corpus import stopwords as corpus

    return frozenset(corpus.words("english"))


def content_words(text: str) -> list[str]:
    """Words that carry meaning: lower-cased, no stopwords, no single letters."""
    stop = stopwords()
    return [w for w in words(text) if w not in stop and (len(w) > 1 or w.isdigit())]


@cache
def _stemmer() -> PorterStemmer:
    return PorterStemmer()


@cache
def normalise_word(word: str) -> str:
    """Lowercase, British to American '-ise' spelling, then a Porter stem.

    The spelling step comes first because Porter stems "hospitalisation" and
    "hospitalization" differently, and both spellings turn up in the same corpus.
    """
    w = word.lower().replace("'", "").replace("’", "")
    if len(w) > 4:  # so "raise" and "raised" share a stem
        w = re.sub(r"is(ation|ations|e|ed|es|ing)$", r"iz\1", w)
    return _stemmer().stem(w)


def content_stems(text: str) -> list[str]:
    """Stems of the content words, so "vaccines" and "vaccinated" meet "vaccine"."""
    return [normalise_word(w) for w in content_words(text)]
