"""Ruled tables on a PDF page, found by pdfplumber and repaired into grids.

Their areas are cut out of the page text, so a table's values appear once, as
header-carrying table chunks, instead of a second time as prose with the columns run
together. Shaded bands behind the rows of a financial statement look like tables too; those
are left to the text reader (`pdf_statements`), which keeps their header lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pdfplumber.page import Page

from knowledge.reading.loaders.pdf_figures import page_numbers, read_figures
from knowledge.reading.loaders.pdf_lines import BOLD_FONT, line_from
from knowledge.reading.loaders.tables import Grid, RawTable, is_text_grid, normalize

_FIGURE_SHARE = 0.6  # a found table whose lines are mostly figures is read as text

Box = tuple[float, float, float, float]


@dataclass
class PageTable:
    top: float
    x0: float
    grid: Grid
    as_text: bool  # a list laid out in a grid: read as text, not rendered as a table

    @property
    def rank(self) -> tuple[float, int]:
        return (self.top, 0)


def page_tables(page: Page) -> tuple[list[PageTable], list[Box]]:
    found = page.find_tables()
    boxes = [t.bbox for t in found]
    tables, cut = [], []
    for table, box in zip(found, boxes, strict=True):
        if any(other != box and _contains(other, box) for other in boxes):
            continue  # a cell pdfplumber also saw as a table of its own
        rows = table.extract()
        if _figures_as_text(page, box):
            continue  # shaded bands behind a statement's rows: read as text (pdf_statements)
        raw = RawTable(rows, bold=_bold_cells(page, table), pages=[page.page_number] * len(rows))
        grid = normalize(raw)
        if grid is None or page_numbers([r.cells[-1] for r in grid.rows if r.cells[-1]]):
            continue  # a boxed paragraph or a table of contents: leave its text in the flow
        tables.append(PageTable(box[1], box[0], grid, is_text_grid(grid)))
        cut.append(box)
    return tables, cut


def _figures_as_text(page: Page, box: Box) -> bool:
    """Whether a found table is rows of figures laid out as text (a statement drawn over
    bands or rules), which the text reader takes apart better than the cell grid does."""
    x0, top, x1, bottom = box
    area = page.crop((max(x0, 0), max(top, 0), min(x1, page.width), min(bottom, page.height)))
    lines = [
        line
        for raw in area.extract_text_lines(return_chars=True, strip=True)
        if (line := line_from(raw, page.page_number)) is not None
    ]
    figures = [f for line in lines if (f := read_figures(line)) is not None]
    if len(lines) == 1:
        return len(figures) == 1  # one shaded row of a statement
    if len(figures) < 2 or len(figures) < _FIGURE_SHARE * len(lines):
        return False
    values_from = min(f.values[0].x0 for f in figures)
    first = lines[0]
    return read_figures(first) is not None or first.x1 < values_from  # no header row inside


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


def inside_any(obj: dict[str, Any], boxes: list[Box]) -> bool:
    if "x0" not in obj or "top" not in obj:
        return False
    return any(_centre_in(obj, box) for box in boxes)
