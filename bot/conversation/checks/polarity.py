"""Polarity and direction: "covered" is not "not covered", "before" is not "after",
"increase" is not "decrease". Each claim is compared with the passage it was aligned to.

A rulebook and a faithful answer often say one thing two ways: "excluded until the expiry
of 36 months" and "covered only after 36 months". So a clause's sense is the product of
its negation (not, no, without, excluded ...) and, when it states a period, of which side
of the period it speaks about (until/before/within against after/from/once): the two
phrasings agree, and flipping either word of one of them does not.
"""

from __future__ import annotations

import re

from bot.conversation.checks.claims import Match
from bot.conversation.quantities import quantities
from bot.conversation.text import content_words, sentences

_I = re.IGNORECASE
_NEGATION = re.compile(
    r"\b(?:not|no|never|nor|none|nil|neither|without|cannot|can't|won't|isn't|aren't|doesn't"
    r"|don't|didn't|wasn't|weren't|shan't|excluded|excludes|exclude|exclusions?|ineligible"
    r"|inadmissible|disallowed|denied|barred|prohibited|exempt(?:ed)?)\b",
    _I,
)
_BEFORE = re.compile(
    r"\b(?:until|till|before|prior to|within|(?:in|for|during) the first|first|up to|upto"
    r"|earlier than)\b",
    _I,
)
_AFTER = re.compile(
    r"\b(?:after|once|from|following|beyond|later than|on completion of|on expiry of"
    r"|after the expiry of|at the end of)\b",
    _I,
)
# Words with a direction and their opposites: a claim using one where its passage uses the
# other (and not the word itself) says the opposite.
_CONDITIONS = (
    r"unless|except (?:when|if|where)|other than",
    r"only if|only when|provided that|if and only if",
)
_OPPOSITES = (
    _CONDITIONS,
    (r"increas\w*|ris(?:e|es|ing|en)|rose|gr[eo]w\w*|gain\w*|climb\w*",
     r"decreas\w*|fall(?:s|ing|en)?|fell|declin\w*|drop\w*|reduc\w*|shr[iau]nk\w*"),
    (r"higher|more|above|exceed\w*|greater|larger", r"lower|less|fewer|below|smaller"),
    (r"improv\w*|better|strengthen\w*", r"worsen\w*|worse|deteriorat\w*|weaken\w*"),
    (r"maximum|at most|upper limit|ceiling", r"minimum|at least|lower limit|floor"),
    (r"earlier|sooner", r"later"),
    (r"before|prior to", r"after|following"),
    (r"include[sd]?|including|inclusive", r"exclude[sd]?|excluding|exclusive"),
)  # fmt: skip
# A row label bounding an amount ("Rs. 5 Lacs and Above") is a condition, not a change.
_BOUNDS = (r"(?:and|or) (?:above|more|over|higher)", r"(?:and|or) (?:below|less|under|lower)")
_ROW_OPPOSITES = (_CONDITIONS, _BOUNDS, *_OPPOSITES[4:])  # conditions first in both


_CLAUSE_BREAK = re.compile(
    r",\s+|;\s*|:\s+|(?<!\bonly)(?<!\bexcept)(?<!\beven)"
    r"\s+(?=(?:but|or|if|unless|provided|except|whereas|while|subject to|and then|and (?:in )?no"
    r"|and not)\b)",
    _I,
)


def same_polarity(match: Match) -> bool:
    """Each clause of the claim agrees with the clause of its passage it speaks of: in
    negation (read together with the side of a period it states), in conditions
    ("unless" is not "only if") and in opposite words. Table rows are compared on
    conditions and on minimum/maximum, include/exclude and before/after only: a row's
    label names a measure ("Revenue growth"), it does not assert a direction. The claim's
    clauses about one clause of the passage are read together for negation: "Until the
    expiry of 36 months, PED expenses are excluded" moves the period of "PED expenses shall
    be excluded until the expiry of 36 months" across a comma."""
    if match.passage is None:
        return True  # nothing to compare with: the citation check fails it
    passage = match.passage
    own = _clauses_of(passage.text) or [passage.text]
    around = _clauses_of(match.nearby)
    quoted = _flat(f"{passage.context} {passage.text} {match.nearby}")
    opposites = _ROW_OPPOSITES if passage.kind == "row" else _OPPOSITES
    whole = f"{passage.context}\n{passage.text}\n{match.nearby}"
    speaking: dict[str, list[str]] = {}  # each clause of the passage, the claim's about it
    for clause in _clauses(match.claim.text):
        if _flat(clause) in quoted or not _says_something(clause):
            continue  # quoted as written (perhaps cut short), or only "Per the policy"
        target = _closest(clause, own)
        if around and _shared(clause, target) < 0.5:
            target = _closest(clause, own + around)
        speaking.setdefault(target, []).append(clause)
        if any(_reversed(clause, target, a, b) for a, b in opposites[1:]):
            return False
        if _reversed(clause, whole, *_CONDITIONS):  # a condition opens its own clause
            return False
    context = f"{passage.path}\n{passage.context}"
    return all(_same_sense(" ".join(said), target, context) for target, said in speaking.items())


def _clauses_of(text: str) -> list[str]:
    """The clauses of each sentence: one never runs on into the next sentence."""
    return [clause for sentence in sentences(text) for clause in _clauses(sentence)]


def _flat(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9%]+", text.lower()))


def _says_something(clause: str) -> bool:
    return len(content_words(clause)) >= 2 or bool(quantities(clause))


def _same_sense(said: str, written: str, context: str) -> bool:
    """Negation agrees, unless the period side flips with it ("excluded until 36 months"
    is "covered after 36 months"); a claim may state the "not" that a quoted item under an
    "Exclusions" heading leaves to its heading."""
    said_not, written_not = _negative(said), _negative(written)
    sides = (_side(said), _side(written))
    sides_differ = 0 not in sides and sides[0] != sides[1]
    if said_not == written_not:
        listed_as_not = (
            not said_not
            and bool(_EXCLUSIONS.search(context))
            and bool(_GRANTS.search(said))
            and not _GRANTS.search(written)
        )
        return not sides_differ and not listed_as_not
    if sides_differ:
        return True
    return said_not and not written_not and bool(_NEGATION.search(context))


def _negative(text: str) -> bool:
    """Negated, a negated exclusion being none: "shall not be excluded" is covered."""
    return bool(_NEGATION.search(_NOT_EXCLUDED.sub(" ", _ASIDE.sub(" ", text))))


# Words that say a thing is paid for: said of an item under a heading of exclusions, wrong.
_EXCLUSIONS = re.compile(r"\b(?:exclusions?|excluded|not covered|not payable)\b", _I)
_GRANTS = re.compile(r"\b(?:covered|covers|payable|paid|reimbursed|included|allowed)\b", _I)
# A parenthesis explains a term ("each claim free year (where no claims are reported)"); its
# "no" is not the clause's.
_ASIDE = re.compile(r"\([^()]*\)")
_NOT_EXCLUDED = re.compile(
    r"\b(?:not|never|no|cannot|won't|isn't|aren't|shan't)\s+(?:\w+\s+){0,2}?(?:excluded"
    r"|excludes|exclude|ineligible|inadmissible|disallowed|denied|barred|prohibited|exempt)\b",
    _I,
)


def _clauses(text: str) -> list[str]:
    """Clauses; a short "or B" after a clause is the end of its list, not a clause of its
    own ("no cover for A or B" says "not" of B too)."""
    out: list[str] = []
    for clause in (c for c in _CLAUSE_BREAK.split(text) if c.strip()):
        if out and _LIST_END.match(clause) and len(clause.split()) <= LIST_END_WORDS:
            out[-1] = f"{out[-1]} {clause}"
        else:
            out.append(clause)
    return out or [text]


_LIST_END = re.compile(r"(?:or|nor)\s", _I)
LIST_END_WORDS = 5


def _closest(clause: str, candidates: list[str]) -> str:
    """The candidate sharing most words (and numbers) with `clause`."""
    return max(candidates, key=lambda other: _shared(clause, other))


def _shared(one: str, other: str) -> float:
    mine = set(content_words(one)) | {q.text for q in quantities(one)}
    theirs = set(content_words(other)) | {q.text for q in quantities(other)}
    return len(mine & theirs) / (len(mine | theirs) or 1)


def _side(text: str) -> int:
    """-1 when the clause speaks of the time before a period it states ("until the expiry
    of 36 months", "within 30 days"), +1 for after it, 0 when it states no period: the
    word nearest before the period decides."""
    period = next((q for q in quantities(text) if q.kind == "duration"), None)
    if period is None:
        return 0
    window = text[max(0, period.start - 48) : period.start]
    marks = [(m.end(), -1) for m in _BEFORE.finditer(window)]
    marks += [(m.end(), 1) for m in _AFTER.finditer(window)]
    return max(marks)[1] if marks else 1


def _reversed(claim: str, passage: str, one: str, other: str) -> bool:
    for word, opposite in ((one, other), (other, one)):
        said = re.search(rf"\b(?:{word})\b", claim, _I)
        written = re.search(rf"\b(?:{word})\b", passage, _I)
        if said and not written and re.search(rf"\b(?:{opposite})\b", passage, _I):
            return True
    return False
