"""How a paragraph's leading number reads: "3.1", "IV.", "A.", "Section 4", "Item 1A", "Note 21".

A number alone does not make a heading (list items and cross-references are numbered too);
this module only says what the number could be and what title follows it. Which readings
become headings is the outline's decision (`knowledge.reading.outline`,
`knowledge.reading.heading_chain`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.reading.blocks import Para

_KEYWORD = re.compile(
    r"(?i)^(section|article|chapter|part|clause|rule|item|note)\s+"
    r"(\d{1,3}(?:\.\d{1,3})*[a-z]?|[ivxlc]{1,6}|[a-z])\b\.?\s*[-–—:.]?\s*(.*)$",
    re.S,
)
_DOTTED = re.compile(r"^(\d{1,3}(?:\.\d{1,3})+)\.?\s+(\S.*)$", re.S)
_SINGLE = re.compile(r"^(\d{1,3})[.)]\s+(\S.*)$", re.S)
_BARE = re.compile(r"^(\d{1,3})\s+([A-Z].{0,58})$")
_ROMAN = re.compile(r"^([IVXL]{1,6})[.)]\s+(\S.*)$", re.S)
_UPPER = re.compile(r"^([A-Z])[.)]\s+(\S.*)$", re.S)
_CAPS_LEAD = re.compile(r"^((?:[A-Z][A-Z0-9/&()'’,.-]*\s+)*[A-Z][A-Z0-9/&()'’,.-]+)(?=\s+\S*[a-z])")
_TITLE_END = re.compile(r"\s*(?::|\s[-–—]\s|—|\smeans\b|\sshall mean\b)")
_SUB_MARKER = re.compile(r"^\(?(?:[a-z]|[ivx]{1,4}|\d{1,2})\)\s+|^\((?:[a-z]|[ivx]{1,4})\)\s*")
_DEFINES = re.compile(r"\s(?:means|shall mean)\b")
_LIST_MARKER = re.compile(
    r"^(\(?\d{1,3}[.)]\s|\d{1,3}(\.\d{1,3})+\.?\s|\(?[a-zA-Z][.)]\s|\(?[ivxlcIVXLC]{1,6}[.)]\s)"
)
_CONTENTS_LINE = re.compile(r"(?:\s\d{1,3}|\.{4,}\s*\d{0,3})$")  # "ITEM 1 Business 4"
MAX_TITLE = 80
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}

Style = tuple[str, int]  # numbering family and depth: ("num", 2) for "3.1"


@dataclass(frozen=True)
class Numbering:
    """One reading of a paragraph's leading number."""

    number: str  # as printed, without a trailing dot for arabic numbers: "3.1", "IV.", "A."
    style: Style
    value: tuple[int, ...]
    rest: str  # the text after the number
    suffix: int = 0  # the letter of "Item 1A" (1), which comes after "Item 1" and before 2
    bare: bool = False  # "83 Tower Road": no dot or bracket after the number


def numberings(text: str) -> list[Numbering]:
    """Every reading of the text's leading number ("I." may be roman one or the letter I)."""
    if m := _KEYWORD.match(text):
        word, raw = m.group(1).capitalize(), m.group(2)
        value, suffix = _keyword_value(raw)
        style = (word.lower(), len(value))
        return [Numbering(f"{word} {raw}", style, value, m.group(3), suffix)]
    if m := _DOTTED.match(text):
        value = tuple(int(x) for x in m.group(1).split("."))
        return [Numbering(m.group(1), ("num", len(value)), value, m.group(2))]
    if m := _SINGLE.match(text):
        return [Numbering(m.group(1), ("num", 1), (int(m.group(1)),), m.group(2))]
    if m := _BARE.match(text):
        return [Numbering(m.group(1), ("num", 1), (int(m.group(1)),), m.group(2), bare=True)]
    found = []
    if (m := _ROMAN.match(text)) and (roman := _roman(m.group(1))):
        found.append(Numbering(m.group(1) + ".", ("roman", 1), (roman,), m.group(2)))
    if m := _UPPER.match(text):
        found.append(Numbering(m.group(1) + ".", ("upper", 1), (ord(m.group(1)) - 64,), m.group(2)))
    return found


def starts_like_a_list_item(text: str) -> bool:
    """ "1. ...", "2.3 ...", "(a) ...", "iv) ...": never a plain (unnumbered) heading."""
    return bool(_LIST_MARKER.match(text))


def looks_like_contents_line(found: Numbering) -> bool:
    """A table-of-contents entry ("ITEM 1 Business 4", "3. Claims ........ 12"): the
    heading it names comes later, with its text."""
    return bool(_CONTENTS_LINE.search(found.rest.strip()))


def _keyword_value(raw: str) -> tuple[tuple[int, ...], int]:
    if raw[0].isdigit():
        suffix = ord(raw[-1].upper()) - 64 if raw[-1].isalpha() else 0
        digits = raw[:-1] if suffix else raw
        return tuple(int(x) for x in digits.split(".")), suffix
    if len(raw) > 1 or raw.upper() in "IVX":
        return (_roman(raw) or 1,), 0
    return (ord(raw.upper()) - 64,), 0


def _roman(text: str) -> int:
    values = [_ROMAN_VALUES.get(c, 0) for c in text.lower()]
    if not values or 0 in values:
        return 0
    pairs = zip(values, [*values[1:], 0], strict=True)
    return max(0, sum(-v if v < nxt else v for v, nxt in pairs))


def capitalised(found: Numbering) -> bool:
    """Headings start with a capital; "1. the receipt of premium" is a list item."""
    rest = _SUB_MARKER.sub("", found.rest.strip(), count=1)  # "17. a) Stem cell ..."
    if not rest:  # "PART II" alone is a heading; "Item 3." alone is a contents-table cell
        return found.style[0] not in ("num", "roman", "upper", "item", "note")
    first = next((c for c in rest if c.isalpha()), "")
    return first.isupper() and not rest[0].isdigit()


def heading_title(found: Numbering, para: Para) -> tuple[str, bool]:
    """The title to show, and whether the paragraph is nothing but the heading."""
    rest = _SUB_MARKER.sub("", found.rest.strip(), count=1)
    if len(rest) <= MAX_TITLE and not _is_sentence(rest):
        if defined := _DEFINES.search(rest):  # "8. DAY CARE TREATMENT means ... which is:"
            return tidy(rest[: defined.start()]), False
        return tidy(rest), True
    lead = _strip_number(" ".join(para.lead.split()), found.number)
    if 2 <= len(lead) <= MAX_TITLE and len(lead) < len(rest):
        return tidy(lead), False
    if (caps := _CAPS_LEAD.match(rest)) and sum(c.isalpha() for c in caps.group(1)) >= 3:
        return tidy(caps.group(1)), False
    end = _TITLE_END.search(rest, 0, MAX_TITLE + 1)
    if end and end.start() >= 3:
        return tidy(rest[: end.start()]), False
    return clip(rest, 60), False


def tidy(title: str) -> str:
    return title.strip().rstrip(":;,.-–— ").strip() or title.strip()


def _is_sentence(text: str) -> bool:
    return text.endswith((".", ";", ",")) and len(text.split()) > 6


def _strip_number(lead: str, number: str) -> str:
    core = number.rstrip(".")
    return lead[len(core) :].lstrip(".) ").strip() if lead.startswith(core) else lead


def clip(text: str, limit: int = 120) -> str:
    """Whitespace collapsed and cut at a word boundary, with an ellipsis when cut."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
