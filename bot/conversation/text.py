"""Tokenisation shared by the rewrite, scoring and extractive steps.

Everything here is pure and offline. NLTK data cannot be downloaded on this machine, so the
sentence splitter and stopword list come from the copy that llama-index-core ships inside
its wheel. Named things in a text are found in `entities`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache

from nltk.tokenize.punkt import PunktTokenizer

from bot.conversation.word_tokens import word_tokenizer
from knowledge.nlp import ensure_nltk_data, normalise_word, stopwords

# Abbreviations common in policy and finance text that punkt would otherwise end a sentence on.
_EXTRA_ABBREVIATIONS = {
    "rs", "sec", "cl", "no", "nos", "e.g", "i.e", "viz", "approx", "incl", "max", "min",
    "p", "pp", "para", "art", "fig", "vs", "cf", "govt", "dept", "est", "yr", "yrs", "mo",
}  # fmt: skip

# Blocks end at blank lines and where a new list item starts; inside a block, line breaks
# are only PDF wrapping.
_BLOCK_BREAK = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•▪◦]|\d+(?:\.\d+)*[.)]|\(?[a-z]\))\s)")
_AFTER_ID = re.compile(r"(?<=\s[A-Z]\.)\s+(?=[A-Z])")
_BULLET_MARK = re.compile(r"^[-*•▪◦]\s+")
_TABLE_LINE = " | "  # how table blocks write a row's cells (one row per line)
_WORDLIKE = re.compile(r"[^\W_]", re.UNICODE)


@cache
def _sentence_splitter() -> PunktTokenizer:
    ensure_nltk_data()
    splitter = PunktTokenizer("english")
    # Punkt has no public way to add abbreviations to a trained model.
    splitter._params.abbrev_types.update(_EXTRA_ABBREVIATIONS)
    return splitter


# The same retrieved chunks are read by several checks for every answer, and again by later
# questions: tokenising them once keeps scoring to a few milliseconds.
TEXT_CACHE = 4096


def clear_caches() -> None:
    """Forget tokenised texts (benchmarks measure a question whose chunks are all new)."""
    for cached in (_sentences, _words, _content_words, _number_mentions):
        cached.cache_clear()


def sentences(text: str) -> list[str]:
    """Split into sentences; list items, headings and paragraphs never run into each other.

    Punkt reads "Plan A." as an initial and would glue the next sentence on, so a single
    capital letter after a space also ends a sentence when a capital follows.
    """
    return list(_sentences(text))


@lru_cache(maxsize=TEXT_CACHE)
def _sentences(text: str) -> tuple[str, ...]:
    splitter = _sentence_splitter()
    out: list[str] = []
    for block in _blocks(text):
        flat = _BULLET_MARK.sub("", " ".join(block.split()))
        for sentence in splitter.tokenize(flat):
            out.extend(p.strip() for p in _AFTER_ID.split(sentence) if p.strip())
    return tuple(out)


def _blocks(text: str) -> list[str]:
    """Paragraphs and list items; a short line without end punctuation is a heading, and
    a table's line ("Net increase (decrease) in cash | 2018 | $(663.3)") stands alone."""
    blocks: list[str] = []
    for chunk in _BLOCK_BREAK.split(text):
        lines = chunk.split("\n")
        current: list[str] = []
        for line, following in zip(lines, [*lines[1:], ""], strict=True):
            if _TABLE_LINE in line:
                blocks += [" ".join(current), line]
                current = []
                continue
            current.append(line)
            if _is_heading(line, following):
                blocks.append(" ".join(current))
                current = []
        blocks.append(" ".join(current))
    return [b for b in blocks if b.strip()]


def _is_heading(line: str, following: str) -> bool:
    stripped = line.strip()
    return (
        0 < len(stripped.split()) <= 6
        and not re.search(r"[.,;:!?]$", stripped)
        and following.strip()[:1].isupper()
    )


def words(text: str) -> list[str]:
    """Word and number tokens in their original case, punctuation and clitics dropped."""
    return list(_words(text))


@lru_cache(maxsize=TEXT_CACHE)
def _words(text: str) -> tuple[str, ...]:
    text = unglued(text.replace("’", "'"))
    tokens = word_tokenizer().tokenize(text)
    return tuple(t for t in tokens if _WORDLIKE.search(t) and t[0] != "'" and t.lower() != "n't")


# Words set against each other without a space: a unit over its scale ("RMB'Million") or
# a currency code before its amount ("RMB135,936", "HK$2.5"). A clitic ("company's",
# "they're"), a name ("O'Brien") or an id ("FY2023", "A320") stays one word.
_SCALE = re.compile(r"(?<=[A-Za-z]{2})['’](?=[A-Za-z]{2,})(?!(?:ll|re|ve)\b)")
# An amount written as one, or with its scale, which a code of capitals before it makes a
# currency's ("RMB135,936", "RMB16 million"): an id ("FY2019", "A320") is written without
# separators or scale.
AMOUNT_AFTER_CODE = (
    r"\d{1,3}(?:,\d{3})+(?!\d)|\d+\.\d|\d+(?=\s?(?:thousand|million|billion|trillion|mn|bn)\b)"
)
_CURRENCY = re.compile(rf"\b([A-Z]{{2,3}}|[A-Z]{{0,3}}\$)(?={AMOUNT_AFTER_CODE}|(?<=\$)\d)")
# A code of capitals set against an amount is its currency, a unit, not a named thing:
# "RMB25,484 million", "USD 5 million", "HK$2.5 billion" (not "ISO 9001", "FY2019").
CURRENCY_CODE = re.compile(
    rf"\b[A-Z]{{2,3}}(?=\s?(?:{AMOUNT_AFTER_CODE}))"
    r"|\b[A-Z]{1,3}(?=\$\d)"
)


def currency_codes(text: str) -> frozenset[str]:
    """The currency codes `text` sets against amounts, as content words ("rmb"): units,
    which name nothing and say nothing a claim must share with its passage."""
    return frozenset(m.group(0).lower() for m in CURRENCY_CODE.finditer(text))


# A trademark sign is not part of its word: "Chef Boyardee®" names "Boyardee".
_MARKS = str.maketrans(dict.fromkeys("®™℠©", " "))


def unglued(text: str) -> str:
    """`text` with a unit and its scale, or a currency code and its amount, set apart, and
    no trademark signs."""
    return _CURRENCY.sub(r"\1 ", _SCALE.sub(" ", text.translate(_MARKS)))


def content_words(text: str) -> list[str]:
    """Normalised words that carry meaning: no stopwords, punctuation or bare numbers."""
    return list(_content_words(text))


@lru_cache(maxsize=TEXT_CACHE)
def _content_words(text: str) -> tuple[str, ...]:
    stop = stopwords()
    out: list[str] = []
    for token in _words(text):
        lowered = token.lower()
        parts = _JOINED.split(lowered) if "-" in lowered or "/" in lowered else (lowered,)
        for part in parts:  # "pre-existing" meets "existing"
            part = part.strip(".")  # "Rs." is "rs", "b." is no word
            if len(part) > 1 and part not in stop and not part.isdigit() and _has_letter(part):
                out.append(normalise_word(_SAME_WORD.get(part, part)))
    return tuple(out)


_JOINED = re.compile(r"[-/]")


def _has_letter(part: str) -> bool:
    return part.isalpha() or any(c.isalpha() for c in part)


# Spellings of one unit that documents and questions mix ("Rs 3 lakh" / "Rs. 5 Lacs").
_SAME_WORD = {"lac": "lakh", "lacs": "lakh", "lakhs": "lakh", "daily": "day"}


# ---- numbers -------------------------------------------------------------------------------

_SCALES = {
    "thousand": 1e3, "thousands": 1e3, "k": 1e3,
    "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5,
    "million": 1e6, "millions": 1e6, "mn": 1e6,
    "crore": 1e7, "crores": 1e7, "cr": 1e7,
    "billion": 1e9, "billions": 1e9, "bn": 1e9,
    "trillion": 1e12,
}  # fmt: skip

# Removed before scanning (replaced by spaces so offsets stay true): citation markers,
# the day and month of dates (the year stays: "30/9/2019" still says 2019), times, dotted
# ids with two or more dots, and numbers naming a place in a document ("section 3.1").
_NOT_QUANTITIES = re.compile(
    r"\[\^?\d+(?:\s*[-–,;]\s*\d+)*\]"
    r"|\b\d{1,2}[/.-]\d{1,2}[/.-](?=\d{2,4}\b)|(?<=\b\d{4})-\d{1,2}-\d{1,2}\b"
    r"|\b\d{1,2}:\d{2}(?::\d{2})?\b"
    r"|\b\d+(?:\.\d+){2,}\b"
    r"|\b(?:sections?|sec|clauses?|cl|articles?|art|chapters?|ch|paras?|paragraphs?|rules?"
    r"|pages?|pp?|items?|tables?|fig|figures?|annexures?|schedules?|appendix|no|nos)"
    r"\.?\s*\d+(?:\.\d+)*[a-z]?\b",
    re.IGNORECASE,
)
# A list number or section id at the start of a line: "1. Submit", "2) Wait", "3.1 Room rent".
_LINE_NUMBERING = re.compile(
    r"(?m)^[ \t]*(?:[-*•][ \t]*)?(?:\d+[.)]|\d+(?:\.\d+)+\.?(?=[ \t]+[A-Z]))(?=[ \t])"
)

_NUMBER = re.compile(
    r"(?P<open>\(\s*)?"
    r"(?P<sign1>[-−–+](?=[ \t]?(?:rs\.?|inr|usd|[$€£₹])?[ \t]?\d))?"
    r"(?P<cur>(?:\b(?:rs\.?|inr|usd|eur|gbp)|[$€£₹])[ \t]?)?"
    r"(?P<sign2>[-−+])?"
    r"(?P<num>\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
    r"|\.\d+)"
    r"(?P<ord>st|nd|rd|th)?"
    r"(?P<scale>[ \t]?(?:thousands?|lakhs?|lacs?|millions?|crores?|billions?|trillion|mn|bn"
    r"|cr|k)\b)?"
    r"(?P<pct>[ \t]?(?:%|per ?cent\b|percent\b))?"
    r"(?P<close>[ \t]*\)(?P<pct_after>%)?)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class NumberMention:
    """One quantity in a text, with where it sits so callers can look at nearby words."""

    value: float  # signed and scaled: "Rs 2 lakh" -> 200000.0, "(3.1)" -> -3.1
    raw: float  # signed, unscaled: "2 lakh" -> 2.0
    decimals: int  # digits written after the point: rounding tolerance for comparisons
    percent: bool
    explicit_sign: str  # "-", "+" or "" as written (parentheses count as "-")
    start: int
    end: int


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def number_mentions(text: str) -> list[NumberMention]:
    """Find quantities, skipping citation markers, dates, section ids and list numbering.

    A number glued to letters ("COVID-19", "H1N1", "Form16") is part of a name, not a
    quantity. A bare integer in parentheses is an enumeration ("(3)") or a year ("(2019)"),
    so only a parenthesised amount with a decimal point, thousands separator, currency or
    percent sign is read as an accounting negative.
    """
    return list(_number_mentions(text))


@lru_cache(maxsize=TEXT_CACHE)
def _number_mentions(text: str) -> tuple[NumberMention, ...]:
    scrubbed = _LINE_NUMBERING.sub(_blank, _NOT_QUANTITIES.sub(_blank, text))
    out: list[NumberMention] = []
    for m in _NUMBER.finditer(scrubbed):
        mention = _mention(scrubbed, m)
        if mention is not None:
            out.append(mention)
    return tuple(out)


def _mention(text: str, m: re.Match[str]) -> NumberMention | None:
    if _glued_to_word(text, m):
        return None  # part of a name: "COVID-19", "H1N1"
    after = text[m.end("num") : m.end("num") + 1]
    if after.isalpha() and not (m.group("ord") or m.group("scale")):
        return None  # "36months", "10x", "Form16b"
    number = m.group("num")
    raw = float(number.replace(",", ""))
    sign = _sign(text, m)
    if sign is None:
        return None
    scale = _SCALES.get((m.group("scale") or "").strip().lower(), 1.0)
    signed = -raw if sign == "-" else raw
    return NumberMention(
        value=signed * scale,
        raw=signed,
        decimals=len(number.split(".", 1)[1]) if "." in number else 0,
        percent=bool(m.group("pct") or m.group("pct_after")),
        explicit_sign=sign,
        start=m.start(),
        end=m.end(),
    )


def _glued_to_word(text: str, m: re.Match[str]) -> bool:
    """A letter right before the number (or before its sign) makes it part of a name; a
    currency symbol may follow letters ("US$5")."""
    if m.group("cur"):
        return False
    first = m.start("sign1") if m.group("sign1") else m.start("num")
    before = text[first - 1 : first] if first else ""
    return before.isalpha() or before == "_"


def _sign(text: str, m: re.Match[str]) -> str | None:
    """'-', '+' or '' as written; None for an enumeration like '(3)'."""
    number = m.group("num")
    sign = m.group("sign1") or m.group("sign2") or ""
    if sign in ("−", "–"):
        sign = "-"
    if sign == "-" and _is_range_dash(text, m):
        sign = ""
    if not (m.group("open") and m.group("close")):
        return sign
    if "," in number or "." in number or m.group("cur") or m.group("pct") or m.group("pct_after"):
        return "-"  # accounting negative: "(3.1)", "(1,200)", "($5)", "(66)%"
    return sign if float(number) >= 100 else None


def _is_range_dash(text: str, m: re.Match[str]) -> bool:
    """'10-20' and '10 – 20' are ranges, not a negative twenty."""
    head = text[: m.start()].rstrip("( ")
    return bool(head) and (head[-1].isdigit() or head[-1] == "%")


def numbers(text: str) -> list[float]:
    """The signed, scaled values of the quantities in `text` (see `number_mentions`)."""
    return [n.value for n in number_mentions(text)]


def readable(text: str) -> str:
    """A row chunk (a JSON object) as 'key: value, ...'; any other text unchanged.

    Rows are indexed as JSON so their keys stay searchable, but people and overlap
    measures read "plan: A, premium: 12000" better than braces and quotes.
    """
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return text
    try:
        row = json.loads(stripped)
    except ValueError:
        return text
    if not isinstance(row, dict):
        return text
    parts = []
    for key, value in row.items():
        if value is None or value == "":
            continue
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"{str(key).replace('_', ' ')}: {shown}")
    return ", ".join(parts)


_FRAMING = (
    "increase increased increases decrease decreased decreases higher lower rise rose risen "
    "fall fell fallen grow grew growth decline declined more less greater smaller change "
    "changed state states stated note notes noted report reports reported mention mentions "
    "according respectively compared policy document company group thousand thousands "
    "million millions billion billions"  # a scale says how much, not of what
)


@cache
def framing_words() -> frozenset[str]:
    """Stems of words that report or compare rather than name a thing: a source may use
    "increase" or "states" once, yet an answer saying "rose from 1.8 to 2.1, an increase
    of 0.3" or "the policy states" borrowed nothing from elsewhere (the direction checks
    judge those words)."""
    return frozenset(content_words(_FRAMING))
