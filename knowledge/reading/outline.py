"""Which paragraphs are headings, and how they nest into a section path.

A rulebook is cited by its clause, so every chunk carries the path of headings above it
("3 COVERAGE > 3.1 Room rent"). Headings come from markup where the format has it, and
otherwise from numbering that continues the document's outline, weight, size and capitals.
`Outline` is the path as paragraphs stream past; which numbered paragraphs may open a
section is chosen beforehand with look-ahead (`knowledge.reading.heading_chain`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from knowledge.reading.blocks import Para
from knowledge.reading.numbering import (
    MAX_TITLE,
    Numbering,
    Style,
    capitalised,
    clip,
    heading_title,
    looks_like_contents_line,
    numberings,
    starts_like_a_list_item,
)

_ROOT_WORDS = re.compile(r"(?i)^(annex(?:ure)?|appendix|schedule|exhibit)\b")
_CONTINUED = re.compile(r"(?i)\s*[(\[]?\b(?:continued|cont['’]?d)\b[)\]]?\.?$")
_RECENT = 16  # unnumbered titles remembered, for "... (Continued)" repeats
_MAX_TITLE_LINES = 120  # characters of a title set over several lines
_MAX_FIRST_BARE = 20  # "83 Tower Road North" on a cover page is an address, not section 83

PLAIN: Style = ("plain", 0)
ROOT: Style = ("root", 0)


@dataclass(frozen=True)
class Heading:
    """One level of a section path, e.g. number "3.1" and title "Room rent"."""

    number: str
    title: str
    style: Style = PLAIN
    value: tuple[int, ...] = ()
    whole: bool = True  # the paragraph is only the heading, so it is not repeated as body
    level: int | None = None  # heading level given by markup
    suffix: int = 0  # "Item 1A"
    origin: int | None = field(default=None, compare=False)  # index of the block it came from
    size: float = field(default=0.0, compare=False)  # font size it was set in, 0 if unknown

    @property
    def label(self) -> str:
        return f"{self.number} {self.title}".strip()

    @property
    def short_label(self) -> str:
        return clip(self.label, 60)


def numbered_candidate(para: Para) -> bool:
    """Whether the paragraph could open a numbered section at all, whatever precedes it."""
    text = " ".join(para.text.split())
    if para.level is not None or not para.can_head or not text:
        return False
    if para.indented and not (para.bold or para.lead):
        return False
    return any(capitalised(n) and not looks_like_contents_line(n) for n in numberings(text))


class Outline:
    """Tracks the current heading path while paragraphs stream past.

    A numbered heading must continue the numbering it belongs to (3.2 after 3.1, 4 after 3),
    which keeps numbered list items and cross-references from becoming sections. Unnumbered
    heading lines that follow one another with no text between are one title, set over
    several lines.
    """

    def __init__(self) -> None:
        self.path: list[Heading] = []
        self._numbered_seen = False
        self._last: dict[Style, tuple[tuple[int, ...], int]] = {}  # runs on across subsections
        self._title_open = False  # the last paragraph was an unnumbered heading
        self._recent: tuple[str, ...] = ()  # the last unnumbered titles, lower case

    def copy(self) -> Outline:
        twin = Outline()
        twin.path = list(self.path)
        twin._numbered_seen = self._numbered_seen
        twin._last = dict(self._last)
        twin._title_open = self._title_open
        twin._recent = self._recent
        return twin

    def find(self, style: Style) -> int | None:
        """Where the innermost heading of this numbering style sits in the path."""
        for i in range(len(self.path) - 1, -1, -1):
            if self.path[i].style == style:
                return i
        return None

    def offer(
        self, para: Para, *, numbered: bool = True, origin: int | None = None
    ) -> Heading | None:
        """The heading this paragraph opens (and the path updated to it), or None.

        With `numbered=False` a numbered paragraph is body text: a list item or a
        cross-reference, never a section.
        """
        text = " ".join(para.text.split())
        if not text:
            return None
        title_open, self._title_open = self._title_open, False
        if para.level is not None:
            return self._explicit(text, para.level, origin)
        if not para.can_head:
            return None
        if starts_like_a_list_item(text) or numberings(text):
            return self._numbered(text, para, origin) if numbered else None
        heading = self._plain(text, para, title_open, origin)
        self._title_open = heading is not None
        return heading

    def body(self) -> None:
        """Something that is not a heading (a table) came next: a title lines run ends."""
        self._title_open = False

    def _explicit(self, text: str, level: int, origin: int | None) -> Heading:
        found = next(iter(numberings(text)), None)
        if found is None:
            heading = Heading("", clip(text), ("h", level), (), True, level, origin=origin)
        else:  # its numbering goes on in headings that are only bold or numbered text
            heading = Heading(
                found.number, clip(found.rest), found.style, found.value, True, level,
                found.suffix, origin,
            )  # fmt: skip
            self._numbered_seen = True
            self._last[found.style] = (found.value, found.suffix)
        while self.path and (self.path[-1].level is None or self.path[-1].level >= level):
            self.path.pop()
        self.path.append(heading)
        return heading

    def _numbered(self, text: str, para: Para, origin: int | None) -> Heading | None:
        if para.indented and not (para.bold or para.lead):
            return None
        jump = 5 if para.bold or para.lead else 2
        readings = sorted(numberings(text), key=lambda n: self.find(n.style) is None)
        for found in readings:
            if not capitalised(found) or looks_like_contents_line(found):
                continue
            title, whole = heading_title(found, para)
            where = self._fit(found, jump, whole)
            if where is None:
                continue
            if not self._numbered_seen:
                self._numbered_seen = True
                if found.style[1] == 1:  # titles above "1." or "I." do not own the document;
                    # above "3.1" an unnumbered heading stands in for the missing "3."
                    self.path = [h for h in self.path if h.level is not None]
                    where = len(self.path)
            if where == len(self.path):
                where = self._after_subtitles()
            level = self.path[where].level if where < len(self.path) else None
            del self.path[where:]
            heading = Heading(
                found.number, title, found.style, found.value, whole, level, found.suffix, origin,
                para.size,
            )  # fmt: skip
            self.path.append(heading)
            self._last[found.style] = (found.value, found.suffix)
            return heading
        return None

    def _fit(self, found: Numbering, jump: int, whole: bool = False) -> int | None:
        """Where in the path the heading goes, or None if it breaks the numbering.

        "4.1" right after "3.7" means the "4." heading was missed (often it is only bold
        text): an untitled "4" is put in its place so 4.2, 5 and 5.1 still fit. A line that
        is only a title may also skip a little ("3.2" after "2.2" in an excerpt of a
        rulebook), which a numbered list item carrying text would not.
        """
        family, depth = found.style
        *prefix, last = found.value
        opens = last == 1 or (whole and last <= jump)
        same = self.find(found.style)
        parent = self.find((family, depth - 1)) if depth > 1 else None
        if same is not None:
            old = self.path[same]
            if list(old.value[:-1]) == prefix:
                return same if 0 < _step(old.value, old.suffix, found) <= jump else None
            if parent is None and opens and _next_prefix(list(old.value[:-1]), prefix, jump):
                return same  # numbered only at this depth: 1.1, 1.2, 2.1
        if parent is not None:
            parent_value = list(self.path[parent].value)
            if parent_value == prefix:  # a title line may open at "2.18" (an excerpt)
                return parent + 1 if same is None and (last <= 2 or whole) else None
            if opens and _next_prefix(parent_value, prefix, jump):  # its heading was missed
                self.path[parent] = Heading(
                    ".".join(map(str, prefix)), "", (family, depth - 1), tuple(prefix)
                )
                return parent + 1
            return None
        if not self._under_own_numbers(found):
            return None  # "3.2.2" cannot sit under "8": its own "3" is not in the path
        earlier = self._last.get(found.style)
        runs_on = earlier is not None and _follows(earlier, found, jump)
        first = not self._numbered_seen and (not found.bare or last <= _MAX_FIRST_BARE)
        if same is None and (last == 1 or runs_on or first):
            return len(self.path)
        return None

    def _set_larger(self, size: float) -> bool:
        """Whether a numbered heading in the path is set larger: then a large title is a
        section inside it ("GENERAL" under "ITEM 1. BUSINESS"), not a new document part."""
        return size > 0 and any(h.value and h.size > size + 0.5 for h in self.path)

    def _open(self, title: str) -> bool:
        """Whether a heading with this title is in the path or was seen lately."""
        wanted = " ".join(title.lower().split())
        return wanted in self._recent or any(h.label.lower() == wanted for h in self.path)

    def _after_subtitles(self) -> int:
        """Where a numbered heading that opens a new level goes: not under the unnumbered
        subtitles that close the path ("Forward-Looking Statements" before "Item 1"), but
        under an unnumbered heading in capitals, which can stand for a missing number."""
        where = len(self.path)
        while where and self.path[where - 1].style == PLAIN:
            if self.path[where - 1].title.isupper():
                break
            where -= 1
        return where

    def _plain_level(self, title: str) -> int | None:
        """Where an unnumbered heading goes: in place of the unnumbered heading under the
        innermost numbered section ("Note 1 > Earnings per share" -> "Note 1 > Leases"), or,
        for a heading in capitals, in place of an earlier one in capitals that stands for
        a missing section number ("WAITING PERIODS > 3.1" -> "CLAIMS")."""
        numbered = max(
            (i for i, h in enumerate(self.path) if h.style not in (PLAIN, ROOT) and h.value),
            default=-1,
        )
        if title.isupper():
            for i in range(numbered):
                if self.path[i].style == PLAIN and self.path[i].title.isupper():
                    return i
        where = self.find(PLAIN)
        return where if where is not None and where > numbered else None

    def _under_own_numbers(self, found: Numbering) -> bool:
        family, depth = found.style
        return all(
            h.value == found.value[: h.style[1]]
            for h in self.path
            if h.style[0] == family and h.style[1] < depth
        )

    def _plain(self, text: str, para: Para, title_open: bool, origin: int | None) -> Heading | None:
        if not _looks_like_plain_heading(text, para):
            return None
        if (more := _CONTINUED.search(text)) and self._open(text[: more.start()]):
            return None  # "NOTES TO THE FINANCIAL STATEMENTS (Continued)" atop the next page
        if any(h.style in (PLAIN, ROOT) and h.title == clip(text.rstrip(":")) for h in self.path):
            return None  # the same title again atop the next page: still that section
        root = (para.large and not self._set_larger(para.size)) or bool(_ROOT_WORDS.match(text))
        style = ROOT if root else PLAIN
        title = clip(text.rstrip(":"))
        if title_open and self.path and _continues_title(self.path[-1], style, title):
            title = f"{self.path[-1].title} {title}"  # one title set over two lines
            self.path.pop()
        elif root:
            self.path = [h for h in self.path if h.level is not None]
        elif (where := self._plain_level(title)) is not None:
            del self.path[where:]
        heading = Heading("", title, style, origin=origin)
        self.path.append(heading)
        self._recent = (*self._recent[-_RECENT + 1 :], " ".join(title.lower().split()))
        return heading


def _continues_title(last: Heading, style: Style, title: str) -> bool:
    """A heading line right under another of its kind goes on with it, unless the first one
    ended like a sentence or the two would be too long for one title."""
    fits = len(last.title) + len(title) < _MAX_TITLE_LINES
    return last.style == style and not last.number and fits and last.title[-1] not in ".:;"


def _step(old: tuple[int, ...], old_suffix: int, new: Numbering) -> int:
    """How far `new` moves on from `old` at the same depth: 1 from 3 to 4 or from 1 to 1A."""
    delta = new.value[-1] - old[-1]
    if delta == 0:
        return 1 if new.suffix > old_suffix else 0
    return delta


def _follows(earlier: tuple[tuple[int, ...], int], new: Numbering, jump: int) -> bool:
    value, suffix = earlier
    return value[:-1] == new.value[:-1] and 0 < _step(value, suffix, new) <= jump


def _next_prefix(old: list[int], new: list[int], jump: int) -> bool:
    return bool(old) and old[:-1] == new[:-1] and 0 < new[-1] - old[-1] <= jump


def _looks_like_plain_heading(text: str, para: Para) -> bool:
    """Short lines set apart by size, weight or capitals (PDFs and text files have no markup).

    A bold line standing alone may run longer: a statement's title and the entity it is for
    share one line ("Consolidated Statements of Cash Flows   Acme Inc. and Subsidiary Companies").
    """
    alone = para.bold and para.lines == 1 and text[-1] not in ".!?"
    if len(text) > (_MAX_TITLE_LINES if para.large or alone else MAX_TITLE) or text[-1] in ",;":
        return False
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 3 or not (text[0].isalnum() or text[0] in "\"'“("):
        return False
    if para.large or para.bold or para.centred:
        return not text[0].islower()
    upper = sum(1 for c in letters if c.isupper())
    return not para.indented and upper >= 0.85 * len(letters) and len(text.split()) <= 12
