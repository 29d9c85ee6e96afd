"""Read an LLM reply into bullets with the source numbers each one cites.

Models do not always follow the bullet format: some write a paragraph, add a preamble,
put the marker after the full stop, or list the sources again at the end. Parsing is
forgiving so a usable answer is never thrown away over formatting.
"""

from __future__ import annotations

import re

from bot.conversation.text import sentences
from bot.conversation.types import Bullet

_MARKER = re.compile(
    r"\s*[\[【]\s*(?:sources?|src|ref)?\s*[:#]?\s*\^?"
    r"(\d{1,3}(?:\s*(?:[,;–-]|and)\s*\^?\d{1,3})*)\s*[\]】]",
    re.IGNORECASE,
)
_BULLET_LINE = re.compile(r"^(?P<indent>\s*)(?:[-*•▪◦‣–]|\d{1,2}[.)])\s+(?P<body>.*)$")
_PREAMBLE = re.compile(
    r"^(?:here(?:'s| is| are)\b|sure\b|certainly\b|of course\b|okay\b|ok\b|answer\s*:"
    r"|based on (?:the|your) (?:context|sources|documents|information)\b"
    r"|according to the (?:context|sources|documents)\b"
    r"|(?:the )?(?:answer|response|summary)(?: is)?\s*:)",
    re.IGNORECASE,
)
_TRAILER = re.compile(
    r"^\W*(?:sources?|references?|citations?|confidence(?: level)?)\W*(?::|$)", re.IGNORECASE
)
_LEAD_IN = re.compile(
    r"^(?:based on|according to) (?:the|your) (?:provided |given )?"
    r"(?:context|sources|documents|information)\s*,\s*",
    re.IGNORECASE,
)
_MARKER_AFTER_STOP = re.compile(r"([.!?])((?:\s*[\[【][^\]】\n]{1,20}[\]】])+)")
_FENCE = re.compile(r"^\s*```\w*\s*$", re.MULTILINE)


def parse_bullets(text: str, max_source: int) -> list[Bullet]:
    """Bullets from a reply: list lines if there are any, else the paragraph's sentences.

    Markers such as [1][3], [1, 3], [1-3] or [Source 2] become `source_numbers`; numbers
    outside 1..max_source are dropped because they point at nothing the user can open.
    """
    body = _FENCE.sub("", text).replace("\r\n", "\n")
    body = _MARKER_AFTER_STOP.sub(lambda m: f"{m.group(2)}{m.group(1)}", body)
    lines = _drop_trailer([line for line in body.split("\n") if line.strip()])
    if any(_BULLET_LINE.match(line) for line in lines):
        items = _list_items(lines)
    else:
        items = _paragraph_items(" ".join(lines))
    bullets = [_bullet(item, max_source) for item in items]
    return [b for b in bullets if b.text]


def _drop_trailer(lines: list[str]) -> list[str]:
    """Cut a closing 'Sources:' or 'Confidence:' section the model added on its own."""
    for i, line in enumerate(lines):
        if i > 0 and _TRAILER.match(line.strip()):
            return lines[:i]
    return lines


def _list_items(lines: list[str]) -> list[str]:
    """Join wrapped lines to their bullet; a heading bullet ("Plan A:") prefixes its children."""
    items: list[str] = []
    heading: tuple[int, str] | None = None
    current: list[str] | None = None
    for line in lines:
        m = _BULLET_LINE.match(line)
        if m is None:
            if current is not None:
                current.append(line.strip())
            elif _MARKER.search(line) and not _PREAMBLE.match(line.strip()):
                items.append(line.strip())  # a cited sentence before the list
            continue
        if current is not None:
            items.append(" ".join(current))
        indent, item = len(m.group("indent")), m.group("body").strip()
        if heading is not None and indent <= heading[0]:
            heading = None
        if item.endswith(":") and not _MARKER.search(item):
            heading, current = (indent, item), None
            continue
        current = [f"{heading[1]} {item}" if heading else item]
    if current is not None:
        items.append(" ".join(current))
    return items


def _paragraph_items(paragraph: str) -> list[str]:
    items = sentences(paragraph)
    if not items:
        return items
    first = items[0]
    if _PREAMBLE.match(first):
        _, sep, tail = first.partition(":")
        first = tail.strip() if sep else first
    lead_in = _LEAD_IN.match(first)
    if lead_in:
        rest = first[lead_in.end() :]
        first = rest[:1].upper() + rest[1:]
    return [first, *items[1:]] if first else items[1:]


def _bullet(item: str, max_source: int) -> Bullet:
    numbers: list[int] = []
    for m in _MARKER.finditer(item):
        for n in _marker_numbers(m.group(1)):
            if 1 <= n <= max_source and n not in numbers:
                numbers.append(n)
    text = _MARKER.sub("", item)
    text = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(text.split())).strip()
    return Bullet(text=text, source_numbers=tuple(numbers))


def _marker_numbers(inside: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r"\s*(?:[,;]|and)\s*", inside):
        bounds = [int(x) for x in re.findall(r"\d+", part)]
        if len(bounds) == 2 and re.search(r"[–-]", part) and 0 < bounds[1] - bounds[0] < 20:
            out.extend(range(bounds[0], bounds[1] + 1))
        else:
            out.extend(bounds)
    return out


_NOT_FOUND = re.compile(
    r"\b(?:could ?n[o']t|can't|can not|cannot|unable to|did ?n[o']t) "
    r"(?:find|locate|see|identify)\b"
    r"|\bno (?:relevant |specific |such )?(?:information|details|data|mention|answer)\b"
    r"|\bnot (?:found|available|mentioned|covered|present|provided|stated|specified"
    r"|included|given|addressed|contained|described) in the (?:provided |given |available )?"
    r"(?:context|knowledge base|documents?|sources?|information|material|passages?|records?)"
    r"|\b(?:the )?(?:context|sources?|documents?|knowledge base|provided information) "
    r"(?:does|do) ?n[o']t (?:contain|mention|say|specify|include|provide|cover|state|address)"
    r"|\b(?:not enough|insufficient) (?:information|context|data)\b"
    r"|\bi (?:do ?n[o']t|don't) know\b|\bnothing (?:in|about) (?:the|this)\b",
    re.IGNORECASE,
)


def is_not_found(text: str) -> bool:
    """True for an honest 'the knowledge base does not say' reply (or bullet)."""
    return bool(_NOT_FOUND.search(text.replace("’", "'")))
