"""Named things in a text (glossary terms, acronyms, capitalised spans) and whole-word
phrase matching, found with surface heuristics since there is no tagger offline."""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.conversation.text import CURRENCY_CODE, sentences, unglued
from knowledge.nlp import stopwords

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9&]*(?:[.'’-][A-Za-z0-9&]+)*\.?|[^\sA-Za-z0-9]")
_ACRONYM = re.compile(r"^(?:[A-Z][A-Z0-9&]+s?|(?:[A-Z]\.){2,}[A-Z]?\.?)$")
_ID = re.compile(r"^(?:[A-Z]|\d+[A-Za-z]?|[IVX]+)$")
_CONNECTORS = {"of", "&"}
_CURRENCIES = {"rs", "inr", "usd", "eur", "gbp"}
# "plan b", "vitamin d"; a lone "a" or "i" only where no word can follow it ("plan a?").
_LOWER_ID = re.compile(
    r"\b([a-z]{3,}) (?:[b-hj-z](?=[?.!,;:]?(?:\s|$))|[ai](?=[?.!,;:]?$|[?.!,;:]\s))"
)


def entities(text: str, known_terms: Iterable[str] = ()) -> list[str]:
    """Named things in a text: known glossary terms, acronyms, and capitalised spans.

    Without a tagger this is a surface guess: a run of capitalised words (optionally
    joined by "of"/"&"), extended by a trailing id ("Plan B", "Form 16"); a capitalised
    word that only opens a sentence is not counted. A lowercase "plan b" is also a name,
    because a lone letter other than "a"/"i" is never a word of its own.
    """
    found: list[str] = []
    low_text = text.lower()
    for term in known_terms:
        if term and _contains_phrase(low_text, term.lower()):
            found.append(term)
    for sentence in sentences(unglued(CURRENCY_CODE.sub(_blank, text))):
        found.extend(_sentence_entities(sentence))
    found.extend(m.group(0) for m in _LOWER_ID.finditer(text) if m.group(1) not in stopwords())
    return _unique(found)


def _sentence_entities(sentence: str) -> list[str]:
    raw_tokens = _TOKEN.findall(sentence)
    possessive = [bool(re.search(r"['’]s$", t)) for t in raw_tokens]
    tokens = [re.sub(r"['’]s$", "", t) for t in raw_tokens]
    stop = stopwords()
    alpha = [t for t in tokens if t[:1].isalpha()]
    shouting = len(alpha) > 2 and sum(t.isupper() for t in alpha) > 0.6 * len(alpha)
    if shouting:
        return []  # an all-caps message has no case signal to read
    spans: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i] if _ACRONYM.match(tokens[i]) else tokens[i].rstrip(".")
        if _ACRONYM.match(tok) and len(tok.strip(".")) > 1:
            if tok.lower() not in stop:
                spans.append(tok)
            i += 1
            continue
        if tok[:1].isupper() and tok.lower() not in stop | _CURRENCIES and tok != "I":
            j = _span_end(tokens, possessive, i)
            if i > 0 or j - i > 1:
                spans.append(" ".join(t.rstrip(".") for t in tokens[i:j]))
            i = j
            continue
        i += 1
    return spans


def _span_end(tokens: list[str], possessive: list[bool], i: int) -> int:
    """Where a capitalised span starting at `i` ends: more capitals, an id, or 'of' + capital."""
    j = i + 1
    while j < len(tokens) and not possessive[j - 1]:
        nxt = tokens[j].rstrip(".")
        after = tokens[j + 1] if j + 1 < len(tokens) else ""
        if _continues_span(nxt, after):
            j += 1
        elif nxt.lower() in _CONNECTORS and after[:1].isupper():
            j += 2
        else:
            break
    return j


def _continues_span(token: str, after: str) -> bool:
    """Another capitalised word, or an id like 'A' / '16' (but not '15' of '15,000')."""
    if token[:1].isupper() and token.lower() not in _CURRENCIES:
        return True
    is_amount = token[:1].isdigit() and after in (",", "%")
    return bool(_ID.match(token)) and token != "I" and not is_amount


def _contains_phrase(low_text: str, low_phrase: str) -> bool:
    pattern = r"(?<![\w])" + r"[\s-]+".join(map(re.escape, low_phrase.split())) + r"(?![\w])"
    return re.search(pattern, low_text) is not None


def contains_phrase(text: str, phrase: str) -> bool:
    """Whole-word, case-insensitive phrase match that treats spaces and hyphens alike."""
    return bool(phrase.strip()) and _contains_phrase(text.lower(), phrase.lower())


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        key = " ".join(item.lower().split())
        if key and key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))
