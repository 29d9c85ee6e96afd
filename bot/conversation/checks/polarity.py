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

_I = re.IGNORECASE
_NEGATION = re.compile(
    r"\b(?:not|no|never|nor|none|nil|neither|without|cannot|can't|won't|isn't|aren't|doesn't"
    r"|don't|didn't|wasn't|weren't|shan't|excluded|excludes|exclude|exclusions?|ineligible"
    r"|inadmissible|disallowed|denied|barred|prohibited)\b",
    _I,
)
_AFFIRMS = re.compile(
    r"\b(?:covered|covers|cover|payable|paid|pays|pay|included|includes|eligible|allowed"
    r"|available|admissible|reimbursed|reimburses|entitled|applies|apply|granted|accepted)\b",
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
_OPPOSITES = (
    (r"increas\w*|ris(?:e|es|ing|en)|rose|gr[eo]w\w*|gain\w*|climb\w*",
     r"decreas\w*|fall(?:s|ing|en)?|fell|declin\w*|drop\w*|reduc\w*|shr[iau]nk\w*"),
    (r"higher|more|above|exceed\w*|greater|larger", r"lower|less|fewer|below|smaller"),
    (r"maximum|at most|upper limit|ceiling", r"minimum|at least|lower limit|floor"),
    (r"earlier|sooner", r"later"),
    (r"before|prior to", r"after|following"),
    (r"include[sd]?|including|inclusive", r"exclude[sd]?|excluding|exclusive"),
)  # fmt: skip


def same_polarity(match: Match) -> bool:
    """The claim and its passage agree in negation, period side and direction words."""
    if match.passage is None:
        return True  # nothing to compare with: the citation check fails it
    claim = match.claim.text
    passage = f"{match.passage.context} {match.passage.text}"
    said, written = _sense(claim), _sense(passage)
    if said and written and said != written:
        return False
    return not any(_reversed(claim, passage, a, b) for a, b in _OPPOSITES)


def _sense(text: str) -> int:
    """+1 or -1 for what a clause says holds; 0 when it says nothing either way (a quoted
    list item under an "Exclusions" heading asserts nothing by itself)."""
    if _NEGATION.search(text):
        negated = -1
    elif _AFFIRMS.search(text):
        negated = 1
    else:
        return 0
    return negated * _side(text)


def _side(text: str) -> int:
    """-1 when the clause speaks of the time before a period it states ("until the expiry
    of 36 months"), +1 for after it or when it states none: the word nearest before the
    period decides."""
    period = next((q for q in quantities(text) if q.kind == "duration"), None)
    if period is None:
        return 1
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
