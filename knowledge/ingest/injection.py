"""Text that talks to an AI assistant instead of to staff: "ignore all previous
instructions", "reply only with", "system prompt", chat-template role tags, prompt fence
markers. A rulebook has no business saying such things, so a chunk that does is flagged at
ingest, and a sentence that does is never quoted as an answer on its own. (A model still
sees it, fenced as reference data, as it sees everything retrieved.)"""

from __future__ import annotations

import re

_I = re.IGNORECASE | re.MULTILINE
_PATTERNS = (
    # "ignore (all) previous instructions", "disregard the above rules" ...
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)*"
    r"(?:previous|prior|above|earlier|preceding|other|existing|system)\s+"
    r"(?:instructions?|prompts?|rules|directions|guidelines|messages?)",
    r"\b(?:reply|respond|answer|output|say|print|return)\s+only\s+(?:with|the\s+word)\b",
    r"\bsystem\s+prompt\b",
    r"\bnew\s+instructions?\s*:",
    r"\b(?:notice|note|message|instructions?)\s+(?:to|for)\s+(?:all\s+)?"
    r"(?:ai|llms?|language\s+models?|assistants?|chatbots?)\b",
    r"\byou\s+are\s+(?:chatgpt|an?\s+ai\b|a\s+language\s+model|the\s+assistant)",
    # chat-template role tags and prompt fences
    r"<\|\s*(?:system|user|assistant|im_start|im_end|endoftext)\s*\|?>",
    r"\[/?INST\]|<</?SYS>>",
    r"^\s*#{2,}\s*(?:system|instructions?|assistant|user)\s*:",
    r"</?\s*(?:context|system|instructions?)\s*>",
    r"^\s*```",
)
_ASSISTANT_TALK = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), _I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def addresses_assistant(text: str) -> bool:
    """True when `text` contains an instruction aimed at an AI assistant."""
    return _ASSISTANT_TALK.search(text) is not None


def without_instructions(text: str) -> str:
    """`text` less every line or sentence that addresses an assistant."""
    if not addresses_assistant(text):
        return text
    kept: list[str] = []
    for line in text.splitlines():
        sentences = [s for s in _SENTENCE_END.split(line) if not addresses_assistant(s)]
        if sentences:
            kept.append(" ".join(sentences))
    return "\n".join(kept).strip()
