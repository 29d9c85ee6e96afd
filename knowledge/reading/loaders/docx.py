"""Word (.docx) rulebooks: paragraphs with their heading styles, and tables, in body order.

Heading styles give the outline directly; many rulebooks instead type "3.1 Room rent" in
bold body text, which the outline detection in `knowledge.reading.outline` also recognises, so
paragraphs carry their boldness. Page numbers do not exist in a .docx, so none are given.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docx
from docx.document import Document
from docx.opc.exceptions import PackageNotFoundError
from docx.oxml.ns import qn
from docx.table import Table, _Cell
from docx.text.paragraph import Paragraph
from lxml.etree import XMLSyntaxError

from knowledge.errors import SourceError
from knowledge.reading.blocks import Block, Para, table_blocks
from knowledge.reading.loaders.tables import RawTable

_HEADING_STYLE = re.compile(r"(?i)^heading\s*(\d)$")
_TITLE_STYLES = {"title"}


def read_docx(path: Path) -> list[Block]:
    """Blocks of a Word document in body order; SourceError if it is not a readable .docx."""
    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, XMLSyntaxError) as exc:
        raise SourceError(
            str(path),
            f"not a readable Word .docx file ({exc}); it may be damaged or an old .doc renamed "
            "— open it in Word and save it as .docx",
        ) from exc
    return list(_blocks(document, document.element.body))


def _blocks(document: Document, container: Any) -> Iterator[Block]:
    for child in container.iterchildren():
        if child.tag == qn("w:p"):
            para = _paragraph(Paragraph(child, document))
            if para is not None:
                yield para
        elif child.tag == qn("w:tbl"):
            yield from _table(Table(child, document))
        elif child.tag == qn("w:sdt"):  # content controls wrap ordinary paragraphs and tables
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                yield from _blocks(document, content)


def _paragraph(paragraph: Paragraph) -> Para | None:
    text = " ".join(paragraph.text.split())
    if not text:
        return None
    level = _heading_level(paragraph)
    listed = paragraph._p.pPr is not None and paragraph._p.pPr.numPr is not None
    return Para(
        text,
        level=level,
        bold=_all_bold(paragraph),
        can_head=level is not None or not listed,  # auto-numbered list items are not sections
    )


def _heading_level(paragraph: Paragraph) -> int | None:
    style = paragraph.style
    names = {getattr(style, "name", "") or "", getattr(style, "style_id", "") or ""}
    for name in names:
        if match := _HEADING_STYLE.match(name):
            return int(match.group(1))
        if name.lower() in _TITLE_STYLES:
            return 1
    return None


def _all_bold(paragraph: Paragraph) -> bool:
    runs = [run for run in paragraph.runs if run.text.strip()]
    style_font = getattr(paragraph.style, "font", None)
    style_bold = bool(style_font is not None and style_font.bold)
    return bool(runs) and all(run.bold or (run.bold is None and style_bold) for run in runs)


def _table(table: Table) -> Iterator[Block]:
    rows: list[list[str | None]] = []
    bold: list[list[bool]] = []
    above: list[Any] = []
    header_rows = 0
    for index, row in enumerate(table.rows):
        cells = row.cells
        values: list[str | None] = []
        for j, cell in enumerate(cells):
            merged_left = j > 0 and cell._tc is cells[j - 1]._tc
            merged_up = j < len(above) and cell._tc is above[j]
            values.append(None if merged_left or merged_up else cell.text)
        rows.append(values)
        bold.append([_cell_bold(cell) for cell in cells])
        above = [cell._tc for cell in cells]
        if index == header_rows and _repeats_as_header(row._tr):
            header_rows += 1
    yield from table_blocks(RawTable(rows, header_rows or None, bold))


def _cell_bold(cell: _Cell) -> bool:
    paragraphs = [p for p in cell.paragraphs if p.text.strip()]
    return bool(paragraphs) and all(_all_bold(p) for p in paragraphs)


def _repeats_as_header(tr: Any) -> bool:
    """Word's "repeat as header row" flag: the author marked this row as the header."""
    props = tr.trPr
    return props is not None and props.find(qn("w:tblHeader")) is not None
