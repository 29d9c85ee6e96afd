"""Which paragraphs are headings, and how they nest into a section path.

A rulebook is cited by its clause, so every chunk carries the path of headings above it
("3 COVERAGE > 3.1 Room rent"). Headings come from markup where the format has it, and
otherwise from numbering that continues the document's outline, weight, size and capitals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.blocks import Para

_ROOT_WORDS = re.compile(r"(?i)^(annex(?:ure)?|appendix|schedule|exhibit)\b")
_KEYWORD = re.compile(
    r"(?i)^(section|article|chapter|part|clause|rule)\s+"
    r"(\d{1,3}(?:\.\d{1,3})*|[ivxlc]{1,6}|[a-z])\b\.?\s*[-–—:.]?\s*(.*)$",
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
_MAX_TITLE = 80
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}

Style = tuple[str, int]  # numbering family and depth: ("num", 2) for "3.1"
_PLAIN: Style = ("plain", 0)
_ROOT: Style = ("root", 0)


@dataclass(frozen=True)
class Heading:
    """One level of a section path, e.g. number "3.1" and title "Room rent"."""

    number: str
    title: str
    style: Style = _PLAIN
    value: tuple[int, ...] = ()
    whole: bool = True  # the paragraph is only the heading, so it is not repeated as body
    level: int | None = None  # heading level given by markup

    @property
    def label(self) -> str:
        return f"{self.number} {self.title}".strip()

    @property
    def short_label(self) -> str:
        return clip(self.label, 60)


@dataclass(frozen=True)
class _Numbering:
    number: str  # as printed, without a trailing dot for arabic numbers: "3.1", "IV.", "A."
    style: Style
    value: tuple[int, ...]
    rest: str  # the text after the number


class Outline:
    """Tracks the current heading path while paragraphs stream past.

    A numbered heading must continue the numbering it belongs to (3.2 after 3.1, 4 after 3),
    which keeps numbered list items and cross-references from becoming sections.
    """

    def __init__(self) -> None:
        self.path: list[Heading] = []
        self._numbered_seen = False
        self._last: dict[Style, tuple[int, ...]] = {}  # numbering can run on across subsections

    def offer(self, para: Para) -> Heading | None:
        """The heading this paragraph opens (and the path updated to it), or None."""
        text = " ".join(para.text.split())
        if not text:
            return None
        if para.level is not None:
            return self._explicit(text, para.level)
        if not para.can_head:
            return None
        return self._numbered(text, para) or self._plain(text, para)

    def _explicit(self, text: str, level: int) -> Heading:
        found = next(iter(_numberings(text)), None)
        if found is None:
            heading = Heading("", clip(text), ("h", level), (), True, level)
        else:  # its numbering goes on in headings that are only bold or numbered text
            heading = Heading(found.number, clip(found.rest), found.style, found.value, True, level)
            self._numbered_seen = True
            self._last[found.style] = found.value
        while self.path and (self.path[-1].level is None or self.path[-1].level >= level):
            self.path.pop()
        self.path.append(heading)
        return heading

    def _numbered(self, text: str, para: Para) -> Heading | None:
        if para.indented and not (para.bold or para.lead):
            return None
        jump = 5 if para.bold or para.lead else 2
        candidates = sorted(_numberings(text), key=lambda n: self._find(n.style) is None)
        for found in candidates:
            if not _capitalised(found):
                continue
            title, whole = _title(found, para)
            where = self._fit(found, jump, whole)
            if where is None:
                continue
            if not self._numbered_seen:
                self._numbered_seen = True
                if found.style[1] == 1:  # titles above "1." or "I." do not own the document;
                    # above "3.1" an unnumbered heading stands in for the missing "3."
                    self.path = [h for h in self.path if h.level is not None]
                    where = len(self.path)
            level = self.path[where].level if where < len(self.path) else None
            del self.path[where:]
            heading = Heading(found.number, title, found.style, found.value, whole, level)
            self.path.append(heading)
            self._last[found.style] = found.value
            return self.path[-1]
        return None

    def _fit(self, found: _Numbering, jump: int, whole: bool = False) -> int | None:
        """Where in the path the heading goes, or None if it breaks the numbering.

        "4.1" right after "3.7" means the "4." heading was missed (often it is only bold
        text): an untitled "4" is put in its place so 4.2, 5 and 5.1 still fit. A line that
        is only a title may also skip a little ("3.2" after "2.2" in an excerpt of a
        rulebook), which a numbered list item carrying text would not.
        """
        family, depth = found.style
        *prefix, last = found.value
        opens = last == 1 or (whole and last <= jump)
        same = self._find(found.style)
        parent = self._find((family, depth - 1)) if depth > 1 else None
        if same is not None:
            *old_prefix, old_last = self.path[same].value
            if old_prefix == prefix:
                return same if 0 < last - old_last <= jump else None
            if parent is None and opens and _next_prefix(old_prefix, prefix, jump):
                return same  # numbered only at this depth: 1.1, 1.2, 2.1
        if parent is not None:
            parent_value = list(self.path[parent].value)
            if parent_value == prefix:
                return parent + 1 if same is None and last <= 2 else None
            if opens and _next_prefix(parent_value, prefix, jump):  # its heading was missed
                self.path[parent] = Heading(
                    ".".join(map(str, prefix)), "", (family, depth - 1), tuple(prefix)
                )
                return parent + 1
            return None
        earlier = self._last.get(found.style)
        runs_on = earlier is not None and _follows(list(earlier), found.value, jump)
        if same is None and (last == 1 or runs_on or not self._numbered_seen):
            return len(self.path)
        return None

    def _find(self, style: Style) -> int | None:
        for i in range(len(self.path) - 1, -1, -1):
            if self.path[i].style == style:
                return i
        return None

    def _plain(self, text: str, para: Para) -> Heading | None:
        if not _looks_like_plain_heading(text, para):
            return None
        root = para.large or bool(_ROOT_WORDS.match(text))
        heading = Heading("", clip(text.rstrip(":")), _ROOT if root else _PLAIN)
        if root:
            self.path = [h for h in self.path if h.level is not None]
        elif (where := self._find(_PLAIN)) is not None:
            del self.path[where:]
        self.path.append(heading)
        return heading


def _follows(old: list[int], new: tuple[int, ...], jump: int) -> bool:
    return old[:-1] == list(new[:-1]) and 0 < new[-1] - old[-1] <= jump


def _next_prefix(old: list[int], new: list[int], jump: int) -> bool:
    return bool(old) and old[:-1] == new[:-1] and 0 < new[-1] - old[-1] <= jump


def _numberings(text: str) -> list[_Numbering]:
    """Every reading of the text's leading number ("I." may be roman one or the letter I)."""
    if m := _KEYWORD.match(text):
        word, raw = m.group(1).capitalize(), m.group(2)
        value = _keyword_value(raw)
        return [_Numbering(f"{word} {raw}", (word.lower(), len(value)), value, m.group(3))]
    if m := _DOTTED.match(text):
        value = tuple(int(x) for x in m.group(1).split("."))
        return [_Numbering(m.group(1), ("num", len(value)), value, m.group(2))]
    if m := _SINGLE.match(text) or _BARE.match(text):
        return [_Numbering(m.group(1), ("num", 1), (int(m.group(1)),), m.group(2))]
    found = []
    if (m := _ROMAN.match(text)) and (roman := _roman(m.group(1))):
        found.append(_Numbering(m.group(1) + ".", ("roman", 1), (roman,), m.group(2)))
    if m := _UPPER.match(text):
        found.append(
            _Numbering(m.group(1) + ".", ("upper", 1), (ord(m.group(1)) - 64,), m.group(2))
        )
    return found


def _keyword_value(raw: str) -> tuple[int, ...]:
    if raw[0].isdigit():
        return tuple(int(x) for x in raw.split("."))
    if len(raw) > 1 or raw.upper() in "IVX":
        return (_roman(raw) or 1,)
    return (ord(raw.upper()) - 64,)


def _roman(text: str) -> int:
    values = [_ROMAN_VALUES.get(c, 0) for c in text.lower()]
    if not values or 0 in values:
        return 0
    pairs = zip(values, [*values[1:], 0], strict=True)
    return max(0, sum(-v if v < nxt else v for v, nxt in pairs))


def _capitalised(found: _Numbering) -> bool:
    """Headings start with a capital; "1. the receipt of premium" is a list item."""
    rest = _SUB_MARKER.sub("", found.rest.strip(), count=1)  # "17. a) Stem cell ..."
    if not rest:
        return found.style[0] not in ("num", "roman", "upper")
    first = next((c for c in rest if c.isalpha()), "")
    return first.isupper() and not rest[0].isdigit()


def _title(found: _Numbering, para: Para) -> tuple[str, bool]:
    """The title to show, and whether the paragraph is nothing but the heading."""
    rest = _SUB_MARKER.sub("", found.rest.strip(), count=1)
    if len(rest) <= _MAX_TITLE and not _is_sentence(rest):
        if defined := _DEFINES.search(rest):  # "8. DAY CARE TREATMENT means ... which is:"
            return _tidy(rest[: defined.start()]), False
        return _tidy(rest), True
    lead = _strip_number(" ".join(para.lead.split()), found.number)
    if 2 <= len(lead) <= _MAX_TITLE and len(lead) < len(rest):
        return _tidy(lead), False
    if (caps := _CAPS_LEAD.match(rest)) and sum(c.isalpha() for c in caps.group(1)) >= 3:
        return _tidy(caps.group(1)), False
    end = _TITLE_END.search(rest, 0, _MAX_TITLE + 1)
    if end and end.start() >= 3:
        return _tidy(rest[: end.start()]), False
    return clip(rest, 60), False


def _tidy(title: str) -> str:
    return title.strip().rstrip(":;,.-–— ").strip() or title.strip()


def _is_sentence(text: str) -> bool:
    return text.endswith((".", ";", ",")) and len(text.split()) > 6


def _strip_number(lead: str, number: str) -> str:
    core = number.rstrip(".")
    return lead[len(core) :].lstrip(".) ").strip() if lead.startswith(core) else lead


def _looks_like_plain_heading(text: str, para: Para) -> bool:
    """Short lines set apart by size, weight or capitals (PDFs and text files have no markup)."""
    if len(text) > (120 if para.large else _MAX_TITLE) or text[-1] in ",;":
        return False
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 3 or not (text[0].isalnum() or text[0] in "\"'“("):
        return False
    if para.large or para.bold:
        return not text[0].islower()
    upper = sum(1 for c in letters if c.isupper())
    return not para.indented and upper >= 0.85 * len(letters) and len(text.split()) <= 12


def clip(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
