"""PDF lines folded into paragraphs, with what their setting says about them.

Paragraphs are rebuilt from line geometry and font (gaps, short last lines, bold headings,
size, indentation, centring), which is the evidence the outline detection downstream
relies on; hyphenation is undone where the document itself does not use the hyphen.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from knowledge.reading.blocks import Para
from knowledge.reading.loaders.pdf_lines import Line

_MARKER = re.compile(
    r"^(\(?\d{1,3}[.)]\s|\d{1,3}(\.\d{1,3})+\.?\s|\(?[a-zA-Z][.)]\s|\(?[ivxlcIVXLC]{1,6}[.)]\s"
    r"|[-•▪●◦*–]\s)"
)


@dataclass(frozen=True)
class Layout:
    """Document-wide measures that tell headings and list items from body text."""

    body_size: float
    margin: float
    right: float

    @property
    def width(self) -> float:
        return max(1.0, self.right - self.margin)


def measure(lines: list[Line]) -> Layout:
    sizes: Counter[float] = Counter()
    for line in lines:
        sizes[line.size] += len(line.text)
    body = sizes.most_common(1)[0][0]
    body_lines = [x for x in lines if abs(x.size - body) <= 0.6] or lines
    lefts = Counter(round(x.x0 / 2) * 2 for x in body_lines)
    common = [x for x, n in lefts.items() if n >= 0.1 * len(body_lines)]
    margin = min(common) if common else min(lefts)
    rights = sorted(x.x1 for x in body_lines)
    return Layout(body, margin, rights[int(0.9 * (len(rights) - 1))])


def vocabulary(lines: list[Line]) -> set[str]:
    words: set[str] = set()
    for line in lines:
        words.update(
            w.lower() for w in re.findall(r"[A-Za-z]+(?:-[A-Za-z]+)+|[A-Za-z]+", line.text)
        )
    return words


def breaks(prev: Line, line: Line, layout: Layout) -> bool:
    """Whether `line` starts a new paragraph rather than continuing `prev`."""
    same_page = line.page == prev.page
    if same_page and (line.top - prev.bottom > 0.8 * line.size or line.top < prev.top - 2):
        return True
    if _MARKER.match(line.text) or abs(line.size - prev.size) > 0.5:
        return True
    if line.bold and not prev.bold and _short(line, layout):  # a heading, not bold emphasis
        return True
    return prev.text.endswith(":") or _short(prev, layout)


def _short(line: Line, layout: Layout) -> bool:
    """Ends well before the right margin (of its column, when set in one): the last line of
    a paragraph, or a heading."""
    if line.right is not None:
        return line.x1 < line.right - 0.2 * (line.right - layout.margin)
    return line.x1 < layout.right - 0.2 * layout.width


def paragraph(lines: list[Line], layout: Layout, vocab: set[str]) -> Para:
    text = ""
    marks: list[tuple[int, int]] = []
    for line in lines:
        text = _join(text, line.text, vocab) if text else line.text
        if not marks or marks[-1][1] != line.page:
            marks.append((max(0, len(text) - len(line.text)), line.page))
    first = lines[0]
    return Para(
        text=text,
        pages=tuple(marks),
        bold=all(x.bold for x in lines),
        lead=first.lead,
        indented=first.x0 > layout.margin + 6,
        large=first.size >= 1.2 * layout.body_size,
        size=first.size,
        left=first.x0,
        centred=len(lines) == 1 and _centred(first, layout),
        lines=len(lines),
        can_head=not any(line.contents for line in lines),
    )


def _centred(line: Line, layout: Layout) -> bool:
    """A short line set in the middle of the text area, alone on its line: a title line.
    One column's share of a line (a cell of a two-column list) is not centred on the page,
    wherever it falls."""
    if line.rank[1] or line.right is not None:
        return False
    middle = (layout.margin + layout.right) / 2
    short = line.x1 - line.x0 < 0.6 * layout.width and line.x0 > layout.margin + 0.1 * layout.width
    return short and abs((line.x0 + line.x1) / 2 - middle) < 0.04 * layout.width


def _join(text: str, nxt: str, vocab: set[str]) -> str:
    """Join wrapped lines, undoing hyphenation the document itself does not use."""
    broken = re.search(r"([A-Za-z]+)-$", text)
    head = re.match(r"[A-Za-z]+", nxt)
    if not broken or not head:
        return f"{text} {nxt}"
    first, second = broken.group(1), head.group(0)
    hyphenated = f"{first}-{second}".lower() in vocab
    closed = f"{first}{second}".lower() in vocab
    if first[-1].islower() and second[0].islower() and (closed or not hyphenated):
        return text[:-1] + nxt
    return text + nxt
