"""Text set in two columns, read down the left column and then down the right one.

pdfplumber builds a line from every word on the same baseline, so a list set in two
columns comes out interleaved ("a. Cataract m. Surgery of gall bladder ... b. Benign
prostatic hypertrophy malignancy"). A run of lines with a vertical gutter that no word
crosses, with text on both sides, is such a region: its lines are cut at the gutter and
ranked so that the left column reads first. Lines above and below that cross the gutter
stay whole.

Two tests keep key/value layouts ("Name   Arogya Sanjeevani") out, since their rows must
stay paired: both sides are numbered lists, or the left side is running text that fills
its column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from knowledge.reading.loaders.pdf_lines import Line, Word, sub_line

_MARKER = re.compile(r"^(\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivxlcIVXLC]{1,6}[.)]|[-•▪●◦*–])$")
_MIN_LINES = 3  # lines with text on both sides of the gutter
_GUTTER = 1.5  # times the font size: the narrowest gutter
_LINE_GAP = 2.0  # times the font size: a wider vertical gap ends a region
_FILLED = 0.8  # a left-column line reaching this share of its column's width is running text
_FILLED_SHARE = 0.4
_MIN_WIDTH = 0.2  # each column's share of the region's width


@dataclass
class _Region:
    first: int
    last: int
    left: float  # the gutter: no word between these two x positions
    right: float
    both: int = 0  # lines with words on both sides


def read_columns(lines: list[Line]) -> list[Line]:
    """The page's lines with two-column regions split at their gutter, left column first."""
    out: list[Line] = []
    i = 0
    while i < len(lines):
        region = _region_at(lines, i)
        if region is None or not _is_text_columns(lines, region):
            out.append(lines[i])
            i += 1
            continue
        out.extend(_split(lines[region.first : region.last + 1], region))
        i = region.last + 1
    return out


def _region_at(lines: list[Line], i: int) -> _Region | None:
    """The two-column region whose first two-sided line is `i`, if there is one."""
    line = lines[i]
    minimum = _GUTTER * line.size
    for a, b in _gaps(line.words, minimum):
        region = _Region(i, i, a, b, 1)
        for k in range(i + 1, len(lines)):
            below, above = lines[k], lines[k - 1]
            if below.top - above.bottom > _LINE_GAP * below.size:
                break
            if below.x0 < line.x0 - 0.5 * below.size:
                break  # starts left of the left column: the text after the columns
            left, right = _narrow(region.left, region.right, below.words)
            if right - left < minimum:
                break
            region.left, region.right, region.last = left, right, k
            sides = _sides(below.words, left, right)
            region.both += all(sides)
        if region.both >= _MIN_LINES:
            return region
    return None


def _gaps(words: list[Word], minimum: float) -> list[tuple[float, float]]:
    return [(a.x1, b.x0) for a, b in pairwise(words) if b.x0 - a.x1 >= minimum]


def _narrow(left: float, right: float, words: list[Word]) -> tuple[float, float]:
    """The gutter left free by one more line's words (the widest free part, if cut)."""
    for word in words:
        if word.x1 <= left or word.x0 >= right:
            continue
        if word.x0 - left >= right - word.x1:
            right = word.x0
        else:
            left = word.x1
    return left, right


def _sides(words: list[Word], left: float, right: float) -> tuple[bool, bool]:
    return any(w.x1 <= left for w in words), any(w.x0 >= right for w in words)


def _is_text_columns(lines: list[Line], region: _Region) -> bool:
    """Lists or running text on both sides, not labels paired with values."""
    rows = lines[region.first : region.last + 1]
    left_words = [[w for w in x.words if w.x1 <= region.left] for x in rows]
    right_words = [[w for w in x.words if w.x0 >= region.right] for x in rows]
    if not _mostly_text(left_words) or not _mostly_text(right_words):
        return False
    start = min(ws[0].x0 for ws in left_words if ws)
    end = max(ws[-1].x1 for ws in right_words if ws)
    if min(region.left - start, end - region.right) < _MIN_WIDTH * (end - start):
        return False  # a hanging list marker ("i.   Central or State ..."), not a column
    if _markers(left_words) >= 2 and _markers(right_words) >= 2:
        return True
    width = region.left - start
    filled = sum(1 for ws in left_words if ws and ws[-1].x1 - start >= _FILLED * width)
    return filled >= _FILLED_SHARE * sum(1 for ws in left_words if ws)


def _mostly_text(parts: list[list[Word]]) -> bool:
    words = [w for ws in parts for w in ws]
    return bool(words) and sum(any(c.isalpha() for c in w.text) for w in words) * 2 > len(words)


def _markers(parts: list[list[Word]]) -> int:
    return sum(1 for ws in parts if ws and _MARKER.match(ws[0].text))


def _split(rows: list[Line], region: _Region) -> list[Line]:
    top = rows[0].top
    left: list[Line] = []
    right: list[Line] = []
    for line in rows:
        before = [w for w in line.words if w.x1 <= region.left]
        after = [w for w in line.words if w.x0 >= region.right]
        if before:
            part = sub_line(line, before)
            part.right, part.rank = region.left, (top, 0)
            left.append(part)
        if after:
            part = sub_line(line, after)
            part.rank = (top, 1)
            right.append(part)
    return left + right
