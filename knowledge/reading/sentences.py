"""Sentence boundaries for packing and quoting, from NLTK's Punkt without any download."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

_ABBREVIATIONS = {
    "rs", "no", "nos", "sr", "sl", "viz", "etc", "i.e", "e.g", "cl", "art", "sec", "para",
    "approx", "max", "min", "inc", "ltd", "co", "dr", "mr", "mrs", "ms", "st", "vs", "fig",
    "p", "pp", "vol", "govt", "dept", "u.s", "u.k", "s.i", "a.m", "p.m", "incl", "excl", "ref",
}  # fmt: skip


@lru_cache(maxsize=1)
def _punkt() -> Callable[[str], Iterable[tuple[int, int]]] | None:
    """NLTK's Punkt model from the copy that ships inside llama-index-core; never downloads."""
    import nltk
    from nltk.tokenize.punkt import PunktTokenizer

    spec = find_spec("llama_index.core")
    for location in spec.submodule_search_locations or [] if spec else []:
        cache = str(Path(location) / "_static" / "nltk_cache")
        if cache not in nltk.data.path:
            nltk.data.path.append(cache)
    try:
        tokenizer = PunktTokenizer("english")
    except LookupError:
        return None
    tokenizer._params.abbrev_types.update(_ABBREVIATIONS)
    return tokenizer.span_tokenize


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence boundaries as (start, end) offsets; a regex split if Punkt is unavailable."""
    punkt = _punkt()
    if punkt is not None:
        return list(punkt(text))
    spans, start = [], 0
    for m in re.finditer(r"(?<=[.!?])\s+(?=[A-Z(\"'])", text):
        spans.append((start, m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans
