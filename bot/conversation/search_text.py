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


def search_text(question: str) -> str:
    """What to search for: the question without sentences that only say how to answer
    ("Answer in USD millions.", "Assume you are an analyst.") — keeping any part of the
    document they point to ("... by relying on the cash flow statement")."""
    found = sentences(unglued(question))
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
