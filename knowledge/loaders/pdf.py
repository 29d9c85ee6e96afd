"""PDF rulebooks: prose in reading order without running headers and footers, tables whole.

pdfplumber finds the ruled tables; their areas are cut out of the page text, so a table's
values appear once, as header-carrying table chunks, instead of a second time as prose with
the columns run together. Paragraphs are rebuilt from line geometry and font (gaps, short
last lines, bold headings), which is what the outline detection downstream relies on.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pdfplumber
from pdfminer.pdfdocument import PDFPasswordIncorrect
from pdfminer.psexceptions import PSException
from pdfplumber.page import Page
from pdfplumber.utils.exceptions import PdfminerException

from knowledge.blocks import Block, Para, TableBlock
from knowledge.errors import SourceError
from knowledge.loaders.pdf_columns import read_columns
from knowledge.loaders.pdf_figures import read_figures
from knowledge.loaders.pdf_lines import BOLD_FONT, Line, line_from, rejoin_split_words
from knowledge.loaders.pdf_statements import Statement, find_statements
from knowledge.loaders.tables import Grid, RawTable, continues, is_text_grid, merge, normalize
from knowledge.loaders.tables import text_of_grid as grid_text

_MARKER = re.compile(
    r"^(\(?\d{1,3}[.)]\s|\d{1,3}(\.\d{1,3})+\.?\s|\(?[a-zA-Z][.)]\s|\(?[ivxlcIVXLC]{1,6}[.)]\s"
    r"|[-•▪●◦*–]\s)"
)
_PAGE_NUMBER = re.compile(r"(?i)^(page\s*)?[-–]?\s*\d{1,4}\s*[-–]?(\s*(of|/)\s*\d{1,4})?$")
_FIGURE_SHARE = 0.6  # a found table whose lines are mostly figures is read as text
_EDGE_LINES = 6  # running headers and footers sit among a page's first or last lines
_EDGE_ZONE = 0.2  # ... and within this share of the page height from its top or bottom
_RUNNING_SHARE = 0.5  # a line is running if it repeats on at least this share of pages


@dataclass
class _Table:
    top: float
    x0: float
    grid: Grid
    as_text: bool  # a list laid out in a grid: read as text, not rendered as a table

    @property
    def rank(self) -> tuple[float, int]:
        return (self.top, 0)


@dataclass
class _Page:
    number: int
    height: float
    lines: list[Line]
    tables: list[_Table] = field(default_factory=list)


@dataclass(frozen=True)
class _Layout:
    """Document-wide measures that tell headings and list items from body text."""

    body_size: float
    margin: float
    right: float

    @property
    def width(self) -> float:
        return max(1.0, self.right - self.margin)


def read_pdf(path: Path) -> list[Block]:
    """Blocks of a PDF in reading order; SourceError if it cannot be opened."""
    try:
        with pdfplumber.open(path) as pdf:
            pages = [_read_page(page) for page in pdf.pages]
    except (PdfminerException, PSException) as exc:  # damage can surface on any page
        raise _open_error(path, exc) from exc
    rejoin_split_words([line for page in pages for line in page.lines])
    _drop_running_lines(pages)
    _read_statements(pages)
    for page in pages:
        page.lines = read_columns(page.lines)
    lines = [line for page in pages for line in page.lines]
    if not lines and not any(page.tables for page in pages):
        return []
    return list(_blocks(pages, _measure(lines), _vocabulary(lines)))


def _read_statements(pages: list[_Page]) -> None:
    """Tables of figures set as text (financial statements) become tables of their page."""
    carried: Statement | None = None
    for page in pages:
        found, page.lines = find_statements(page.lines, carried)
        page.tables.extend(_Table(s.top, s.x0, s.grid, False) for s in found)
        page.tables.sort(key=lambda t: t.top)
        carried = found[-1] if found else None


def _open_error(path: Path, exc: Exception) -> SourceError:
    cause = exc.args[0] if isinstance(exc, PdfminerException) and exc.args else exc
    if isinstance(cause, PDFPasswordIncorrect):
        reason = "the PDF is encrypted; save an unencrypted copy and ingest that"
    else:
        reason = (
            f"not a readable PDF ({cause}); the file is damaged or not really a PDF — "
            "export or download it again"
        )
    return SourceError(str(path), reason)


def _read_page(page: Page) -> _Page:
    tables, cut = _page_tables(page)
    body = page.filter(lambda obj: not _inside_any(obj, cut)) if cut else page
    lines = [
        line
        for raw in body.extract_text_lines(return_chars=True, strip=True)
        if (line := line_from(raw, page.page_number)) is not None
    ]
    return _Page(page.page_number, float(page.height), lines, tables)


def _page_tables(page: Page) -> tuple[list[_Table], list[tuple[float, float, float, float]]]:
    found = page.find_tables()
    boxes = [t.bbox for t in found]
    tables, cut = [], []
    for table, box in zip(found, boxes, strict=True):
        if any(other != box and _contains(other, box) for other in boxes):
            continue  # a cell pdfplumber also saw as a table of its own
        rows = table.extract()
        if len(rows) < 2 or _figures_as_text(page, box):
            continue  # shaded bands behind a statement's rows: read as text (pdf_statements)
        raw = RawTable(rows, bold=_bold_cells(page, table), pages=[page.page_number] * len(rows))
        grid = normalize(raw)
        if grid is None:
            continue  # a boxed paragraph: leave its text in the flow
        tables.append(_Table(box[1], box[0], grid, is_text_grid(grid)))
        cut.append(box)
    return tables, cut


def _figures_as_text(page: Page, box: tuple[float, float, float, float]) -> bool:
    """Whether a found table is rows of figures laid out as text (a statement drawn over
    bands or rules), which the text reader takes apart better than the cell grid does."""
    x0, top, x1, bottom = box
    area = page.crop((max(x0, 0), max(top, 0), min(x1, page.width), min(bottom, page.height)))
    lines = [
        line
        for raw in area.extract_text_lines(return_chars=True, strip=True)
        if (line := line_from(raw, page.page_number)) is not None
    ]
    rows = sum(1 for line in lines if read_figures(line) is not None)
    return rows >= 2 and rows >= _FIGURE_SHARE * len(lines)


def _bold_cells(page: Page, table: Any) -> list[list[bool]]:
    """Per cell, whether its text is bold: header rows and row-header columns show that way."""
    chars = [c for c in page.chars if c["text"].strip() and _centre_in(c, table.bbox)]
    flags = []
    for row in table.rows:
        in_row = [c for c in chars if _centre_in(c, row.bbox)]
        flags.append([_mostly_bold(in_row, cell) for cell in row.cells])
    return flags


def _mostly_bold(chars: list[dict[str, Any]], cell: Sequence[float] | None) -> bool:
    if cell is None:
        return False
    inside = [c for c in chars if _centre_in(c, cell)]
    bold = sum(1 for c in inside if BOLD_FONT.search(c.get("fontname", "")))
    return bool(inside) and bold >= 0.6 * len(inside)


def _contains(outer: Sequence[float], inner: Sequence[float]) -> bool:
    return (
        outer[0] - 1 <= inner[0]
        and outer[1] - 1 <= inner[1]
        and inner[2] <= outer[2] + 1
        and inner[3] <= outer[3] + 1
    )


def _centre_in(obj: dict[str, Any], box: Sequence[float]) -> bool:
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return box[0] - 1 <= x <= box[2] + 1 and box[1] - 1 <= y <= box[3] + 1


def _inside_any(obj: dict[str, Any], boxes: list[tuple[float, float, float, float]]) -> bool:
    if "x0" not in obj or "top" not in obj:
        return False
    return any(_centre_in(obj, box) for box in boxes)


def _drop_running_lines(pages: list[_Page]) -> None:
    """Remove headers, footers and page numbers that repeat on most pages."""
    counts: Counter[str] = Counter()
    for page in pages:
        counts.update({_shape(line.text) for line in _edges(page)})
    needed = max(2, math.ceil(_RUNNING_SHARE * len(pages)))
    running = {shape for shape, n in counts.items() if n >= needed}
    for page in pages:
        edges = {id(line) for line in _edges(page)}
        page.lines = [
            line
            for line in page.lines
            if id(line) not in edges
            or (_shape(line.text) not in running and not _PAGE_NUMBER.match(line.text))
        ]


def _edges(page: _Page) -> list[Line]:
    lines = page.lines
    head = [x for x in lines[:_EDGE_LINES] if x.top < _EDGE_ZONE * page.height]
    foot = [x for x in lines[-_EDGE_LINES:] if x.bottom > (1 - _EDGE_ZONE) * page.height]
    return head + [x for x in foot if x not in head]


def _shape(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def _measure(lines: list[Line]) -> _Layout:
    sizes: Counter[float] = Counter()
    for line in lines:
        sizes[line.size] += len(line.text)
    body = sizes.most_common(1)[0][0]
    body_lines = [x for x in lines if abs(x.size - body) <= 0.6] or lines
    lefts = Counter(round(x.x0 / 2) * 2 for x in body_lines)
    common = [x for x, n in lefts.items() if n >= 0.1 * len(body_lines)]
    margin = min(common) if common else min(lefts)
    rights = sorted(x.x1 for x in body_lines)
    return _Layout(body, margin, rights[int(0.9 * (len(rights) - 1))])


def _vocabulary(lines: list[Line]) -> set[str]:
    words: set[str] = set()
    for line in lines:
        words.update(
            w.lower() for w in re.findall(r"[A-Za-z]+(?:-[A-Za-z]+)+|[A-Za-z]+", line.text)
        )
    return words


def _blocks(pages: list[_Page], layout: _Layout, vocab: set[str]) -> Iterator[Block]:
    """Lines and tables in reading order, folded into paragraphs and whole tables."""
    para: list[Line] = []
    pending: Grid | None = None  # a table that may continue on the next page or column
    for page in pages:
        items: list[Line | _Table] = [*page.lines, *page.tables]
        items.sort(key=lambda item: (round(item.rank[0]), item.rank[1], round(item.top), item.x0))
        for item in items:
            if isinstance(item, _Table):
                if para:
                    yield _paragraph(para, layout, vocab)
                    para = []
                if item.as_text:
                    if pending is not None:
                        yield TableBlock(pending)
                        pending = None
                    yield from _grid_paragraphs(item.grid)
                elif pending is not None and continues(pending, item.grid):
                    pending = merge(pending, item.grid)
                else:
                    if pending is not None:
                        yield TableBlock(pending)
                    pending = item.grid
                continue
            if pending is not None:
                yield TableBlock(pending)
                pending = None
            if para and _breaks(para[-1], item, layout):
                yield _paragraph(para, layout, vocab)
                para = []
            para.append(item)
    if para:
        yield _paragraph(para, layout, vocab)
    if pending is not None:
        yield TableBlock(pending)


def _grid_paragraphs(grid: Grid) -> Iterator[Para]:
    for text, page in grid_text(grid):
        yield Para(text, ((0, page),) if page is not None else (), can_head=False)


def _breaks(prev: Line, line: Line, layout: _Layout) -> bool:
    """Whether `line` starts a new paragraph rather than continuing `prev`."""
    same_page = line.page == prev.page
    if same_page and (line.top - prev.bottom > 0.8 * line.size or line.top < prev.top - 2):
        return True
    if _MARKER.match(line.text) or abs(line.size - prev.size) > 0.5:
        return True
    if line.bold and not prev.bold and _short(line, layout):  # a heading, not bold emphasis
        return True
    return prev.text.endswith(":") or _short(prev, layout)


def _short(line: Line, layout: _Layout) -> bool:
    """Ends well before the right margin (of its column, when set in one): the last line of
    a paragraph, or a heading."""
    if line.right is not None:
        return line.x1 < line.right - 0.2 * (line.right - layout.margin)
    return line.x1 < layout.right - 0.2 * layout.width


def _paragraph(lines: list[Line], layout: _Layout, vocab: set[str]) -> Para:
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
    )


def _centred(line: Line, layout: _Layout) -> bool:
    """A short line set in the middle of the text area: a title line."""
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
