"""PDF rulebooks: prose in reading order without running headers and footers, tables whole.

A page is read as ruled tables (`pdf_tables`), tables of figures set as text such as
financial statements (`pdf_statements`), and lines of prose, with two-column regions read
column by column (`pdf_columns`); lines are then folded into paragraphs
(`pdf_paragraphs`) and tables carried over a page break are joined.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pdfplumber
from pdfminer.pdfdocument import PDFPasswordIncorrect
from pdfminer.psexceptions import PSException
from pdfplumber.page import Page
from pdfplumber.utils.exceptions import PdfminerException

from knowledge.errors import SourceError
from knowledge.reading.blocks import Block, Para, TableBlock
from knowledge.reading.loaders.pdf_columns import read_columns
from knowledge.reading.loaders.pdf_figures import page_numbers, read_figures
from knowledge.reading.loaders.pdf_lines import Line, line_from, rejoin_split_words
from knowledge.reading.loaders.pdf_paragraphs import Layout, breaks, measure, paragraph, vocabulary
from knowledge.reading.loaders.pdf_statements import Statement, find_statements
from knowledge.reading.loaders.pdf_tables import PageTable, inside_any, page_tables
from knowledge.reading.loaders.tables import Grid, continues, merge
from knowledge.reading.loaders.tables import text_of_grid as grid_text

_PAGE_NUMBER = re.compile(r"(?i)^(page\s*)?[-–]?\s*\d{1,4}\s*[-–]?(\s*(of|/)\s*\d{1,4})?$")
_DIGITS = re.compile(r"\d+")
_MIN_CONTENTS_ENTRIES = 5  # entries ending in page numbers that count up: a contents page
_MIN_RUNNING = 3  # pages a running header or footer must be on, however short the document
_SECTION_RUN = 3  # pages in a row with the same line atop them: a running section title
_EDGE_LINES = 6  # running headers and footers sit among a page's first or last lines
_EDGE_ZONE = 0.2  # ... and within this share of the page height from its top or bottom
_RUNNING_SHARE = 0.35  # a line is running if it repeats on this share of pages (left and
# right pages often alternate two footers, each on half the pages)


@dataclass
class _Page:
    number: int
    height: float
    lines: list[Line]
    tables: list[PageTable] = field(default_factory=list)


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
    _mark_contents_pages(pages)
    for page in pages:
        page.lines = read_columns(page.lines)
    lines = [line for page in pages for line in page.lines]
    if not lines and not any(page.tables for page in pages):
        return []
    return list(_blocks(pages, measure(lines), vocabulary(lines)))


def _mark_contents_pages(pages: list[_Page]) -> None:
    """Lines of a table-of-contents page ("ITEM 1 Business ... 4") name headings that come
    later; taken as headings themselves, they would own the document's outline."""
    for page in pages:
        entries = [k for k, line in enumerate(page.lines) if _page_reference(line) is not None]
        numbers = [_page_reference(page.lines[k]) or "" for k in entries]
        if len(numbers) >= _MIN_CONTENTS_ENTRIES and page_numbers(numbers):
            for line in page.lines[entries[0] : entries[-1] + 1]:
                line.contents = True  # the list itself; a heading above it ("ITEM 8") stays


def _page_reference(line: Line) -> str | None:
    """The page number a contents entry ends with, set apart ("Properties    12")."""
    if len(line.words) < 2 or not re.fullmatch(r"\d{1,3}", line.words[-1].text):
        return None
    before = line.words[-2]
    apart = line.words[-1].x0 - before.x1 >= 2 * line.size or before.text.endswith("...")
    return line.words[-1].text if apart else None


def _read_statements(pages: list[_Page]) -> None:
    """Tables of figures set as text (financial statements) become tables of their page."""
    carried: Statement | None = None
    for page in pages:
        found, page.lines = find_statements(page.lines, carried)
        page.tables.extend(PageTable(s.top, s.x0, s.grid, False) for s in found)
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
    tables, cut = page_tables(page)
    body = page.filter(lambda obj: not inside_any(obj, cut)) if cut else page
    lines = [
        line
        for raw in body.extract_text_lines(return_chars=True, strip=True)
        if (line := line_from(raw, page.page_number)) is not None
    ]
    return _Page(page.page_number, float(page.height), lines, tables)


def _drop_running_lines(pages: list[_Page]) -> None:
    """Remove headers, footers and page numbers that repeat on most pages."""
    counts: Counter[str] = Counter()
    numbers: dict[str, set[tuple[str, ...]]] = {}
    for page in pages:
        for line in {_shape(x.text): x for x in _edges(page)}.values():
            counts[_shape(line.text)] += 1
            numbers.setdefault(_shape(line.text), set()).add(tuple(_DIGITS.findall(line.text)))
    needed = max(_MIN_RUNNING, math.ceil(_RUNNING_SHARE * len(pages)))
    running = {s for s, n in counts.items() if n >= needed and _one_number_varies(numbers[s])}
    for page, section_titles in zip(pages, _section_headers(pages), strict=True):
        edges = {id(line) for line in _edges(page)}
        dropped = running | section_titles
        page.lines = [
            line
            for line in page.lines
            if id(line) not in edges
            or (_shape(line.text) not in dropped and not _PAGE_NUMBER.match(line.text))
        ]


def _section_headers(pages: list[_Page]) -> list[set[str]]:
    """Per page, the lines atop it that also top the pages around it: the running title of
    a part of the document ("NOTES TO CONSOLIDATED FINANCIAL STATEMENTS" on every page of
    the notes), which is not a new heading on each page."""
    tops = [
        {_shape(x.text) for x in page.lines[:_EDGE_LINES] if _titles_the_page(x, page)}
        for page in pages
    ]
    out: list[set[str]] = [set() for _ in pages]
    for i, shapes in enumerate(tops):
        for shape in shapes:
            start, end = i, i
            while start > 0 and shape in tops[start - 1]:
                start -= 1
            while end + 1 < len(tops) and shape in tops[end + 1]:
                end += 1
            if end - start + 1 >= _SECTION_RUN:
                out[i].add(shape)
    return out


def _titles_the_page(line: Line, page: _Page) -> bool:
    """A line of words near the top (not the period header of a table of figures)."""
    return line.top < _EDGE_ZONE * page.height and read_figures(line) is None


def _edges(page: _Page) -> list[Line]:
    """Lines where running headers and footers stand: near the top or bottom of the page,
    and the very first and last lines wherever they are (a footer right under short text)."""
    lines = page.lines
    head = [x for x in lines[:_EDGE_LINES] if x.top < _EDGE_ZONE * page.height]
    foot = [x for x in lines[-_EDGE_LINES:] if x.bottom > (1 - _EDGE_ZONE) * page.height]
    ends = [*lines[:1], *lines[-1:]]
    return list({id(x): x for x in [*head, *foot, *ends]}.values())


def _shape(text: str) -> str:
    """A line without its numbers (but how many it has): "2 NIKE, INC." and "NIKE, INC. 3"
    are one running line; "NIKE, Inc." on the cover is not."""
    words = " ".join(_DIGITS.sub(" ", text.lower()).split())
    return f"{words} {'#' * len(_DIGITS.findall(text))}"


def _one_number_varies(seen: set[tuple[str, ...]]) -> bool:
    """A running line changes its page number only ("Annual Report 2022 | 56"); rows of a
    table carried over a page ("Item 63   63,130") change in every figure."""
    return sum(1 for values in zip(*seen, strict=True) if len(set(values)) > 1) <= 1


def _blocks(pages: list[_Page], layout: Layout, vocab: set[str]) -> Iterator[Block]:
    """Lines and tables in reading order, folded into paragraphs and whole tables."""
    para: list[Line] = []
    pending: Grid | None = None  # a table that may continue on the next page or column
    for page in pages:
        items: list[Line | PageTable] = [*page.lines, *page.tables]
        items.sort(key=lambda item: (round(item.rank[0]), item.rank[1], round(item.top), item.x0))
        for item in items:
            if isinstance(item, PageTable):
                if para:
                    yield paragraph(para, layout, vocab)
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
            if para and breaks(para[-1], item, layout):
                yield paragraph(para, layout, vocab)
                para = []
            para.append(item)
    if para:
        yield paragraph(para, layout, vocab)
    if pending is not None:
        yield TableBlock(pending)


def _grid_paragraphs(grid: Grid) -> Iterator[Para]:
    for text, page in grid_text(grid):
        yield Para(text, ((0, page),) if page is not None else (), can_head=False)
