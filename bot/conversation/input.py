"""Make a raw chat message safe to search with and to show back in prompts."""

from __future__ import annotations

import re
import unicodedata

DEFAULT_MAX_CHARS = 4000
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")  # NUL and lone surrogates


def storable(text: str) -> str:
    """`text` as Postgres and every client accept it: NUL bytes dropped (a text column
    refuses them) and lone surrogates, which cannot be encoded as UTF-8, replaced by U+FFFD."""
    if not _UNSTORABLE.search(text):
        return text
    return _UNSTORABLE.sub(lambda m: "" if m.group() == "\x00" else "\ufffd", text)


def clean_question(text: str, max_chars: int = DEFAULT_MAX_CHARS) -> tuple[str, str]:
    """Return (cleaned text, notice for the user).

    Control and invisible format characters are dropped (they break prompts and logs),
    line breaks and tabs become spaces, runs of whitespace collapse. A message longer than
    `max_chars` is cut at a word boundary and the notice says so, because answering from a
    silently truncated question would look like the bot ignored the rest. An empty result
    means there was no question to answer.
    """
    cleaned = " ".join(_strip_controls(text).split())
    if not cleaned:
        return "", ""
    if len(cleaned) <= max_chars:
        return cleaned, ""
    notice = f"Your message was {len(cleaned):,} characters; I read the first {max_chars:,}."
    return _cut_at_word(cleaned, max_chars), notice


def _strip_controls(text: str) -> str:
    kept: list[str] = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch in "\t\n\r\v\f" or category in ("Zl", "Zp"):
            kept.append(" ")
        elif category in ("Cc", "Cf", "Cs", "Co", "Cn"):
            continue
        else:
            kept.append(ch)
    return "".join(kept)


def _cut_at_word(text: str, limit: int) -> str:
    """Cut to at most `limit` characters, at the last space if one is reasonably near."""
    head = text[:limit]
    if len(text) > limit and not text[limit].isspace():
        space = head.rfind(" ")
        if space >= limit * 0.8:
            head = head[:space]
    return head.rstrip()
