"""What loaders hand to chunking: paragraphs of prose and whole tables, in reading order.

Every format (PDF, DOCX, Markdown, HTML, text) is reduced to these two kinds of block, with
what the format says about each paragraph (markup level, weight, size, indentation), which
is the evidence the outline uses to tell headings from body text.
"""

from __future__ import annotations

from dataclasses import dataclass

from knowledge.reading.loaders.tables import Grid, RawTable, is_text_grid, normalize, text_of_grid

PageMarks = tuple[tuple[int, int], ...]  # (character offset, page) where each page begins


@dataclass(frozen=True)
class Para:
    """One paragraph (or heading line) of prose, with what the format says about it."""

    text: str
    pages: PageMarks = ()  # empty when the format has no pages
    level: int | None = None  # heading level given by markup (Markdown #, <h2>, Heading 2)
    bold: bool = False  # the whole paragraph is emphasised (PDF, DOCX)
    lead: str = ""  # leading bold words: often the clause's own title ("3.1. Accident")
    indented: bool = False  # starts right of the body margin: a list item, not a heading
    large: bool = False  # set larger than body text: a top-level heading or a title
    can_head: bool = True  # False for list items and for cells laid out as text
    size: float = 0.0  # font size in points; 0 when the format does not say
    left: float | None = None  # left edge in points (PDF): items of one list line up
    centred: bool = False  # a single line set in the middle of the page: a title line
    lines: int = 0  # lines the paragraph is set over (PDF); 0 when the format does not say


@dataclass(frozen=True)
class TableBlock:
    grid: Grid


Block = Para | TableBlock


def table_blocks(raw: RawTable) -> list[Block]:
    """A table as a TableBlock, or as paragraphs when it is really text laid out in boxes."""
    grid = normalize(raw)
    if grid is None:
        texts = [" ".join(cell.split()) for row in raw.rows for cell in row if cell]
        return [Para(text, can_head=False) for text in texts if text]
    if is_text_grid(grid):
        return [Para(text, can_head=False) for text, _ in text_of_grid(grid)]
    return [TableBlock(grid)]
