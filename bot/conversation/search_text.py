"""What to search for: a question without the sentences that only say how to answer it."""

from __future__ import annotations

import re

from bot.conversation.periods import unglued
from bot.conversation.text import content_words, sentences
from knowledge.vocabulary import active

_I = re.IGNORECASE

# Sentences that tell the answerer how to answer rather than what is asked.
_INSTRUCTION = re.compile(
    r"^\W*(?:assume\b|answer (?:in|with|using|as|only)\b|round\b"
    r"|give (?:a|your) (?:response|answer)|respond\b|please\b|note that\b|we need to\b"
    r"|if .{3,80}\b(?:then )?(?:state|say|explain)\b"
    r"|express\b|report (?:it|the answer)\b|show your\b|use (?:only )?the\b)",
    _I,
)
# "(mentioned) in this 10-K report", "under the policy": where the asker found it, not what
# is asked. The words after the determiner must all say what kind of document it is (the
# packs' kind words), and the phrase must end the clause.
_REFERENCE = re.compile(
    r"(?:\b(?:as\s+)?(?:mentioned|stated|described|given|listed|disclosed|reported|shown"
    r"|set\s+out|outlined|specified)\s+)?\b(?:in|within|under|per|according\s+to|throughout)"
    r"\s+(?:this|the|these|its|their|your|our)\s+(?P<kinds>[\w-]+(?:\s+[\w-]+){0,3}?)"
    r"(?=\s*(?:[?.,;:!)]|$|\b(?:for|and|or|if|when|that|which|about|on|to|with|by|at|as"
    r"|during|between|is|are|was|were)\b))",
    _I,
)


def search_text(question: str) -> str:
    """What to search for: the question without sentences that only say how to answer
    ("Answer in USD millions.", "Assume you are an analyst.") — keeping any part of the
    document they point to ("... by relying on the cash flow statement") — and without
    the words saying where the asker read about it ("... mentioned in this 10K report"):
    the search is already in the knowledge, and "report" would find the auditor's report."""
    found = sentences(unglued(_unreferenced(question)))
    kept: list[str] = []
    for sentence in found:
        if _INSTRUCTION.search(sentence):
            parts = active().document_parts  # named by the packs in use
            if parts is not None:
                kept.extend(m.group(0) for m in parts.finditer(sentence))
        else:
            kept.append(sentence)
    text = " ".join(kept).strip()
    return text if content_words(text) else question


def _unreferenced(question: str) -> str:
    kinds = active().document_kind_words

    def drop(match: re.Match[str]) -> str:
        words = [w.replace("-", "") for w in match.group("kinds").lower().split()]
        return "" if all(w in kinds for w in words) else match.group(0)

    text = _REFERENCE.sub(drop, question)
    if text == question:
        return question
    text = re.sub(r"\s+(?=[?.,;:!])", "", text)
    text = re.sub(r"\s{2,}", " ", text).strip()
    return re.sub(r"[,;:]+(?=[?.!]|$)|^[,;:]\s*", "", text)
