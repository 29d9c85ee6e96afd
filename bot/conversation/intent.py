"""What kind of answer a question wants, decided without a network call.

The intent picks the prompt template and which derived facts (ranks, trends) to fetch, so
a cheap rule-based guess is used whenever no LLM is configured, and as the fallback when
an LLM's label cannot be parsed.
"""

from __future__ import annotations

import re

from bot.conversation.types import Intent

INTENT_DESCRIPTIONS: dict[Intent, str] = {
    Intent.LOOKUP: "asks for a fact, a value or the meaning of a term (what is X, define X)",
    Intent.YES_NO: "asks whether something is true, covered, allowed or eligible",
    Intent.HOW_TO: "asks for the steps or procedure to get something done",
    Intent.COMPARE: "asks how two or more things differ or which is better (X vs Y)",
    Intent.RANK: "asks for the highest, lowest, top or bottom items in a group",
    Intent.TREND: "asks how something changed over time (rising, falling, growth)",
    Intent.WHY: "asks for the reason or cause of something",
    Intent.SUMMARISE: "asks for an overview or summary of a document or topic",
}

_I = re.IGNORECASE

# Checked in this order: the first rule that matches wins. A request to summarise or to
# explain a cause shapes the whole answer, so it beats the words it summarises or explains
# ("why did sales fall" is a why, not a trend); a superlative beats a trend word ("which
# region grew the most" is a ranking); a how-to phrase beats the yes/no opening ("can you
# tell me how to claim").
_RULES: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    (
        Intent.SUMMARISE,
        re.compile(
            r"\bsummar(?:ise|ize|ised|ized|y|ies)\b|\boverview\b|\boutline\b|\btl;?dr\b"
            r"|\bgist\b|\bkey (?:points|takeaways|features|highlights)\b|\bhighlights\b"
            r"|\bin (?:brief|short|a nutshell)\b|\bbrief me\b|\brecap\b",
            _I,
        ),
    ),
    (
        Intent.WHY,
        re.compile(
            r"\bwhy\b|\bhow come\b|\bwhat (?:caused|causes|is the cause|was the cause)\b"
            r"|\bwhat (?:is|was|were|are) the reasons?\b|\breasons? (?:for|why|behind)\b"
            r"|\bdue to what\b|\bwhat led to\b",
            _I,
        ),
    ),
    (
        Intent.COMPARE,
        re.compile(
            r"\bcompar(?:e|ed|es|ing|ison)\b|\bvs\.?(?!\w)|\bversus\b|\bdifferences?\b"
            r"|\bdiffer(?:s)?\b|\b(?:better|worse|cheaper|costlier) than\b"
            r"|\bwhich is (?:better|cheaper|best for me)\b|\bpros and cons\b"
            r"|\bsame as\b|\bsimilar to\b|\bcontrast\b",
            _I,
        ),
    ),
    (
        Intent.RANK,
        re.compile(
            r"\b(?:highest|lowest|largest|smallest|biggest|greatest|worst|fewest|bottom"
            r"|leading|rank|ranking|ranked)\b|\bbest\b(?! (?:way|time|practice))"
            r"|(?<!\bat )\b(?:most|least)\b|\btop\b(?![- ]?up)"
            r"|^\W*(?:which|who)\b.*\b(?:max(?:imum)?|min(?:imum)?)\b",
            _I,
        ),
    ),
    (
        Intent.TREND,
        re.compile(
            r"\btrends?\b|\bover (?:time|the (?:last|past|years|months|quarters))\b"
            r"|\b(?:increas|decreas|declin|grow|grew|growth|rising|rose|fall|fell|falling"
            r"|drop|dropp|chang)\w*\b.*\b(?:since|from|between|over|during|year|month|quarter"
            r"|\d{4})\b"
            r"|\b(?:year[- ]over[- ]year|yoy|month[- ]on[- ]month|qoq|cagr)\b"
            r"|\bhow (?:has|have|did) .+ (?:changed?|moved|evolved|grown|performed)\b",
            _I,
        ),
    ),
    (
        Intent.HOW_TO,
        re.compile(
            r"\bhow (?:do|does|can|could|should|would|shall|to|may)\b(?! .*\b(?:cost|differ)\b)"
            r"|\bsteps?\b|\b(?:procedure|process) (?:to \w+|for \w+ing)\b"
            r"|\bwhat (?:do|should|must) (?:i|we) (?:need to )?do\b"
            r"|\bwhere (?:do|can|should) (?:i|we)\b|\binstructions\b"
            r"|\bguide me\b|\bwalk me through\b|\b(?:best|right|correct) way to\b",
            _I,
        ),
    ),
    (
        Intent.YES_NO,
        re.compile(
            r"^\W*(?:is|are|am|was|were|do|does|did|can|could|will|would|should|shall|may"
            r"|might|must|has|have|had|isn't|aren't|don't|doesn't|can't|won't)\b"
            r"|\beligib\w*\b|\bentitled\b|\bqualif(?:y|ies|ied)\b|\ballowed\b",
            _I,
        ),
    ),
)


def classify_intent(question: str) -> Intent:
    """Keyword and pattern rules with a fixed precedence; lookup when nothing else fits."""
    text = " ".join(question.split())
    for intent, pattern in _RULES:
        if pattern.search(text):
            return intent
    return Intent.LOOKUP


# Words an LLM may use for a label, each mapped to the label it means.
_LABEL_WORDS: dict[str, Intent] = {
    "lookup": Intent.LOOKUP, "look up": Intent.LOOKUP, "look-up": Intent.LOOKUP,
    "definition": Intent.LOOKUP, "define": Intent.LOOKUP, "fact": Intent.LOOKUP,
    "yes_no": Intent.YES_NO, "yes/no": Intent.YES_NO, "yes-no": Intent.YES_NO,
    "yes or no": Intent.YES_NO, "yesno": Intent.YES_NO, "eligibility": Intent.YES_NO,
    "how_to": Intent.HOW_TO, "how-to": Intent.HOW_TO, "how to": Intent.HOW_TO,
    "howto": Intent.HOW_TO, "procedure": Intent.HOW_TO,
    "compare": Intent.COMPARE, "comparison": Intent.COMPARE,
    "rank": Intent.RANK, "ranking": Intent.RANK,
    "trend": Intent.TREND,
    "why": Intent.WHY, "diagnose": Intent.WHY, "diagnosis": Intent.WHY, "cause": Intent.WHY,
    "summarise": Intent.SUMMARISE, "summarize": Intent.SUMMARISE,
    "summary": Intent.SUMMARISE, "overview": Intent.SUMMARISE,
}  # fmt: skip
_LABEL_PATTERN = re.compile(
    r"(?<![a-z])("
    + "|".join(re.escape(w) for w in sorted(_LABEL_WORDS, key=len, reverse=True))
    + r")(?![a-z])"
)


def parse_intent_label(text: str) -> Intent | None:
    """Read an intent label out of an LLM reply ("compare", "Intent: yes_no", JSON ...).

    The earliest label mentioned wins, since models put the answer first and explain after;
    None when the reply names no label, so the caller can fall back to the rules.
    """
    low = text.lower().replace("`", " ").replace('"', " ").replace("'", " ")
    exact = low.strip(" .:\n\t*")
    if exact in _LABEL_WORDS:
        return _LABEL_WORDS[exact]
    match = _LABEL_PATTERN.search(low)
    return _LABEL_WORDS[match.group(1)] if match else None
