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
from bot.conversation.periods import years_in
from bot.conversation.quantities import Quantity, quantities
from bot.conversation.text import content_words, sentences

_I = re.IGNORECASE
_MONEY = r"(?:rs\.?|inr|usd|\$|₹)"  # a currency written before its amount
_NEGATION = re.compile(
    r"\b(?:not|no|never|nor|none|nil|neither|without|cannot|can't|won't|isn't|aren't|doesn't"
    r"|don't|didn't|wasn't|weren't|shan't|excluded|excludes|exclude|exclusions?|ineligible"
    r"|inadmissible|disallowed|denied|barred|prohibited|exempt(?:ed)?|unable to"
    r"|fail(?:s|ed|ing|ures?)?)\b",
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
    (r"increas\w*|ris(?:e|es|ing|en)|rose|gr[eo]w\w*|gain\w*|climb\w*|add(?:s|ed|ing)?",
     r"decreas\w*|fall(?:s|ing|en)?|fell|declin\w*|drop\w*|reduc\w*|shr[iau]nk\w*"),
    (r"higher|more|above|exceed\w*|greater|larger", r"lower|less|fewer|below|smaller"),
    (r"improv\w*|better|strengthen\w*", r"worsen\w*|worse|deteriorat\w*|weaken\w*"),
    (r"maximum|at most|upper limit|ceiling", r"minimum|at least|lower limit|floor"),
    (r"earlier|sooner", r"later"),
    (r"before|prior to", r"after|following"),
    (r"include[sd]?|including|inclusive", r"exclude[sd]?|excluding|exclusive"),
)  # fmt: skip
# A bound written after its amount ("Rs. 5 Lacs and Above", "35 or more"): compared as a
# bound (see _bound_flipped), never as a direction ("35 or more" beside "less invasive").
_BOUNDS = (r"(?:and|or) (?:above|more|over|higher)", r"(?:and|or) (?:below|less|under|lower)")
_OPEN_BOUND = re.compile(rf"\b{_BOUNDS[0]}\b|\b{_BOUNDS[1]}\b", _I)
_ROW_OPPOSITES = (_CONDITIONS, *_OPPOSITES[4:])  # conditions first in both


# "provided (that) ..." joins a condition; "provided for", "provided by" is the verb.
_CONJUNCTION = (
    r"(?:but|or|if|unless|provided(?!\s+(?:for|by|to|with|in|on|under|at)\b)|except|whereas"
    r"|while|which|subject to|and then|and (?:in )?no"
    r"|and not|and (?:shall|will|is|are|does|do|can|may|must) not)\b"
)
_CLAUSE_BREAK = re.compile(
    rf",\s+|;\s*|:\s+|(?<!\bonly)(?<!\bexcept)(?<!\beven)(?<!\bhe)(?<!\bhis)(?<!\bhim)"
    rf"\s+(?={_CONJUNCTION})",
    _I,
)
_OPENS_CLAUSE = re.compile(rf"\s*(?:and\s+)?{_CONJUNCTION}", _I)


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
        if _bound_flipped(clause, passage.text, match.nearby):
            return False
        if _reversed(clause, whole, *_CONDITIONS):  # a condition opens its own clause
            return False
    context = f"{passage.path}\n{passage.context}"
    excluding = _EXCLUSIONS.search(context)  # only there does what it spares matter
    excepted = _excepted(f"{passage.text}\n{match.nearby}") if excluding else set()
    return all(
        _same_sense(" ".join(said), target, context, target in excepted)
        for target, said in speaking.items()
    )


_EXCEPTION = re.compile(r"\s*(?:unless|except|other than|save for|save as)\b", _I)


def _excepted(text: str) -> set[str]:
    """The clauses that state an exception, from the "unless" or "except" that opens one
    to the end of its sentence: what an exclusion spares ("... unless for reconstruction
    following an Accident, Burn(s) or Cancer or as part of medically necessary
    treatment")."""
    out: set[str] = set()
    for sentence in sentences(text):
        inside = False
        for clause in _clauses(sentence):
            inside = inside or bool(_EXCEPTION.match(clause))
            if inside:
                out.add(clause)
    return out


def _clauses_of(text: str) -> list[str]:
    """The clauses of each sentence: one never runs on into the next sentence."""
    return [clause for sentence in sentences(text) for clause in _clauses(sentence)]


def _flat(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9%]+", text.lower()))


def _says_something(clause: str) -> bool:
    return len(content_words(clause)) >= 2 or bool(quantities(clause))


def _same_sense(said: str, written: str, context: str, excepted: bool = False) -> bool:
    """Negation agrees, unless the period side flips with it ("excluded until 36 months"
    is "covered after 36 months"); a claim may state the "not" that a quoted item under an
    "Exclusions" heading leaves to its heading, and must, unless the item is an exception
    the exclusion spares (`excepted`)."""
    said_not = _negative(said) != _negated_word(said, written)
    written_not = (_negative(written) or _none_in(written, said)) != _negated_word(written, said)
    sides = _sides(said, written)
    sides_differ = 0 not in sides and sides[0] != sides[1]
    if said_not == written_not:
        listed_as_not = (
            not said_not
            and not excepted
            and bool(_EXCLUSIONS.search(context))
            and bool(_GRANTS.search(said))
            and not _GRANTS.search(written)
            and not _ONLY.search(said)
        )
        return not sides_differ and not listed_as_not
    if sides_differ:
        return True
    return said_not and not written_not and bool(_NEGATION.search(context))


def _negative(text: str) -> bool:
    """Negated, a negated exclusion being none ("shall not be excluded" is covered) and a
    negated rise past an amount a cap ("can't go above 10%" is "limited to 10%")."""
    kept = _NOT_PAST.sub(" at most ", _NOT_EXCLUDED.sub(" ", _ASIDE.sub(" ", text)))
    return bool(_NEGATION.search(kept))


def _none_in(written: str, said: str) -> bool:
    """A table line whose cell is a dash states none for its column's year, to a clause
    about that year: "Long-term debt | 2015 | $—" beside "no long-term debt in 2015"."""
    parts = written.split("|")
    if len(parts) < 2 or not _NONE_CELL.fullmatch(parts[-1]):
        return False
    return bool(years_in(parts[-2]) & years_in(said))


_NONE_CELL = re.compile(r"\s*[$€£]?\s*(?:[—–-]+|nil)\s*", _I)


def _negated_word(text: str, written: str) -> bool:
    """The text negates a word of `written` by its prefix: "unsecured" beside "secured",
    "non-cash" beside "cash"."""
    theirs = set(re.findall(r"[a-z]+", written.lower()))
    return any(m.group(1).lower() in theirs for m in _PREFIXED.finditer(text))


_PREFIXED = re.compile(r"(?i)\b(?:non-|un(?!less\b)(?=[a-z]{4}))([a-z]{3,})\b")


# Words that say a thing is paid for: said of an item under a heading of exclusions, wrong.
_EXCLUSIONS = re.compile(r"\b(?:exclusions?|excluded|not covered|not payable)\b", _I)
# "covered only when ..." grants on a condition: the exclusion of what fails it, said the
# other way round.
_ONLY = re.compile(r"\bonly(?:\s+\w+){0,2}\s+(?:if|when|where|after|once|provided)\b", _I)
_GRANTS = re.compile(r"\b(?:covered|covers|payable|paid|reimbursed|included|allowed)\b", _I)
# A parenthesis explains a term ("each claim free year (where no claims are reported)"); its
# "no" is not the clause's.
_ASIDE = re.compile(r"\([^()]*\)")
_NOT_EXCLUDED = re.compile(
    r"\b(?:not|never|no|cannot|won't|isn't|aren't|shan't)\s+(?:\w+\s+){0,2}?(?:excluded"
    r"|excludes|exclude|ineligible|inadmissible|disallowed|denied|barred|prohibited|exempt)\b",
    _I,
)


_NOT_PAST = re.compile(
    r"\b(?:not|never|cannot|can't|won't|shan't|mustn't|isn't|aren't|doesn't|don't)\s+"
    r"(?:\w+\s+){0,3}?(?:exceed\w*|above|beyond|more than|over|higher than|greater than)"
    rf"(?=\s*(?:the\s+)?{_MONEY}?\s*\d)",
    _I,
)


def _clauses(text: str) -> list[str]:
    """Clauses; a short "or B" after a clause is the end of its list, not a clause of its
    own ("no cover for A or B" says "not" of B too), and a predicate left alone by a comma
    ("Treatment for A, such as B, | is covered") ends the clause before it, as the
    consequence does a condition that opens a sentence ("If the child is financially
    independent, | he or she shall be ineligible")."""
    out: list[str] = []
    for clause in (c for c in _CLAUSE_BREAK.split(text) if c.strip()):
        ends_list = _LIST_END.match(clause) and len(clause.split()) <= LIST_END_WORDS
        alone = not _says_something(clause) and not _OPENS_CLAUSE.match(clause)
        follows = len(out) == 1 and bool(_IF.match(out[0])) and not _OPENS_CLAUSE.match(clause)
        if out and (ends_list or alone or follows):
            out[-1] = f"{out[-1]} {clause}"
        else:
            out.append(clause)
    return out or [text]


_LIST_END = re.compile(r"(?:or|nor)\s", _I)
_IF = re.compile(r"\s*(?:if|where|in case)\b", _I)
LIST_END_WORDS = 5


def _closest(clause: str, candidates: list[str]) -> str:
    """The candidate sharing most words (and numbers) with `clause`."""
    return max(candidates, key=lambda other: _shared(clause, other))


def _shared(one: str, other: str) -> float:
    mine = set(content_words(one)) | {q.text for q in quantities(one)}
    theirs = set(content_words(other)) | {q.text for q in quantities(other)}
    return len(mine & theirs) / (len(mine | theirs) or 1)


def _sides(said: str, written: str) -> tuple[int, int]:
    """Which side of one period the claim and its passage speak of: the claim's first
    period the passage also states (a claim joining "30 days before" and "60 days after"
    is compared on the period its passage states); (0, 0) when they share none."""
    theirs = [q for q in quantities(written) if q.kind == "duration"]
    for mine in (q for q in quantities(said) if q.kind == "duration"):
        same = next((q for q in theirs if q.matches(mine)), None)
        if same is not None:
            return _side(said, mine), _side(written, same)
    return 0, 0


def _side(text: str, period: Quantity) -> int:
    """-1 when the clause speaks of the time before `period` ("until the expiry of 36
    months", "within 30 days"), +1 for after it: the word nearest before the period
    decides, unless another quantity stands between them ("up to 1% of ... 3 years")."""
    before = [q.end for q in quantities(text) if q.end <= period.start]
    window = text[max(0, period.start - 48, *before) : period.start]
    marks = [(m.end(), -1) for m in _BEFORE.finditer(window)]
    marks += [(m.end(), 1) for m in _AFTER.finditer(window)]
    return max(marks)[1] if marks else 1


def _reversed(claim: str, passage: str, one: str, other: str) -> bool:
    """The claim uses one word of a pair the passage lacks, and the passage uses the
    other more often than the claim: "because of an increase" beside "the decrease ... as
    a result of a decrease", but not "30 days before admission and 60 days after
    discharge" beside "up to 60 days after the discharge"."""
    claim, passage = _OPEN_BOUND.sub(" ", claim), _OPEN_BOUND.sub(" ", passage)
    for word, opposite in ((one, other), (other, one)):
        if (
            _count(word, claim)
            and not _count(word, passage)
            and _count(opposite, passage) > _count(opposite, claim)
        ):
            return True
    return False


def _count(words: str, text: str) -> int:
    return len(re.findall(rf"\b(?:{words})\b", text, _I))


# Words bounding the amount right after them (_BOUNDS: written after it).
_UPPER = r"up\s?to|below|under|less than|not (?:more than|exceeding)|at most|maximum of|max\.?|<|≤"
_LOWER = r"above|over|more than|exceeding|greater than|older than|at least|minimum of|min\.?|>|≥"


def _bound_flipped(claim: str, passage: str, nearby: str) -> bool:
    """An amount (not a period: see _side) the claim bounds one way and its passage only
    the other: "up to Rs. 5 lacs" for "Above Rs. 5 Lacs". An amount the passage does not
    state is looked for in the sentences (or rows) beside it."""
    for q in quantities(claim):
        said = _bound(claim, q) if q.kind != "duration" else 0
        if not said:
            continue
        written = _bounds(passage, q) or _bounds(nearby, q)
        if written - {0} and said not in written:
            return True
    return False


def _bounds(text: str, q: Quantity) -> set[int]:
    """How `text` bounds the amount `q` where it states it (0: there, unbounded); empty
    when it does not state it."""
    return {_bound(text, other) for other in quantities(text) if other.matches(q)}


def _bound(text: str, q: Quantity) -> int:
    """+1 when `q` is a lower bound ("above Rs. 5 lacs", "5 lacs and above"), -1 an upper
    one, 0 neither."""
    before = text[max(0, q.start - 24) : q.start].lower()
    after = text[q.end : q.end + 12].lower()
    if re.search(rf"(?:^|[^a-z])(?:{_UPPER})\s*{_MONEY}?\s*$", before) or re.match(
        rf"\s*(?:{_BOUNDS[1]})\b", after
    ):
        return -1
    if re.search(rf"(?:^|[^a-z])(?:{_LOWER})\s*{_MONEY}?\s*$", before) or re.match(
        rf"\s*(?:{_BOUNDS[0]})\b", after
    ):
        return 1
    return 0
