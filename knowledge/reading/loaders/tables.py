"""Tables rendered so that every value carries its row header and its column header.

A retrieved table line is useless on its own unless it says what it is about: "1% of sum
insured" means nothing until it reads "Plan A | Room rent | 1% of sum insured". Loaders hand
over cell grids as their format gives them (None marks a position covered by a merged cell);
this module repairs those grids — merged and empty columns, captions, rows continued on the
next line or the next page, serial-number columns — and renders one line per cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from itertools import pairwise

RawRow = list[str | None]

_SERIAL_HEADER = re.compile(r"(?i)^(s|sl|sr|s\.?\s*no|sl\.?\s*no|sr\.?\s*no|no|#|item\s*no)\.?$")
_SERIAL_VALUE = re.compile(r"(?i)^(\d{1,3}|[a-z]|[ivxlc]{1,5})[.)]?$")
_LIST_MARKER = re.compile(r"^(\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivxlcIVXLC]{1,5}[.)]|[-•▪●◦*])\s")
_MAX_HEADER_ROWS = 3
_MAX_NAMING_ROWS = 5  # "Total / Corning / Incorporated / shareholders' / equity"
# A currency sign set in a cell of its own, left of the figure it belongs to ("$ | 1,671").
_LONE_SIGN = re.compile(r"^(?:[$€£¥₹]|(?:US|A|C|NZ|HK|S)\$|Rs\.?)$")
_FIGURE = re.compile(r"^\(?[-−]?\d[\d,]*(?:\.\d+)?\)?%?$")
_CLOSING = (")", ")%", "%)", "%")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_FIGURE_SHARE = 0.8  # of a table's value cells, for it to be a table of figures


@dataclass(frozen=True)
class RawTable:
    """A table as the source format gives it, before any repair."""

    rows: list[RawRow]
    header_rows: int | None = None  # known from markup (<th>, Markdown, tblHeader); None: infer
    bold: list[list[bool]] | None = None  # per cell: its text is bold (PDF, DOCX)
    pages: list[int | None] | None = None  # page of each row, for citations


@dataclass
class GridRow:
    cells: list[str]
    page: int | None = None
    group: str = ""  # label of a full-width row above it ("Add-ons available")
    header: list[str] = field(default_factory=list)  # column headers in force for this row


@dataclass
class Grid:
    """A repaired table: logical columns only, one entry per real row."""

    header: list[str]  # one per column; empty list when the table has no header row
    rows: list[GridRow]
    caption: str = ""
    header_guessed: bool = False  # header inferred from shape only, not from formatting
    pages: list[int] = field(default_factory=list)

    @property
    def width(self) -> int:
        return len(self.rows[0].cells) if self.rows else len(self.header)


@dataclass(frozen=True)
class RenderedRow:
    lines: list[str]
    page: int | None
    context: str = ""  # caption, group and column headers: repeated wherever the rows go


def clean_cell(text: str | None) -> str:
    """Join a cell's wrapped lines with spaces; a line ending in a hyphen joins without one."""
    if not text:
        return ""
    lines = [line.strip() for line in text.replace("\r", "\n").split("\n")]
    out = ""
    for line in filter(None, lines):
        if out.endswith("-") and out[-2:-1].isalpha():
            out += line
        else:
            out = f"{out} {line}" if out else line
    return re.sub(r"\s+", " ", out).strip()


def normalize(raw: RawTable) -> Grid | None:
    """Repair a raw table; None when it is not really a table (one column, or no text)."""
    width = max((len(row) for row in raw.rows), default=0)
    rows = [[_clean_or_none(c) for c in row] + [""] * (width - len(row)) for row in raw.rows]
    pages = raw.pages or [None] * len(rows)
    spanning = [_is_spanning(row) for row in rows]
    figures = _of_figures(rows, spanning)
    if figures:
        rows = [_signs_to_figures(row) for row in rows]
    columns = _logical_columns(rows, spanning, gutters=figures)
    cells = [_collapse(row, columns) for row in rows]
    keep = [j for j in range(len(columns)) if _column_has_text(cells, spanning, j)]
    if len(keep) < 2:
        return None
    cells = [[row[j] for j in keep] for row in cells]
    bold = None
    if raw.bold is not None:
        flags = [_collapse_bold(b, row, columns) for b, row in zip(raw.bold, rows, strict=True)]
        bold = [[row[j] for j in keep] for row in flags]
    grid = _assemble(cells, spanning, bold, raw.header_rows, pages, figures)
    return _without_empty_columns(grid) if grid is not None and figures else grid


def _of_figures(rows: list[RawRow], spanning: list[bool]) -> bool:
    """A table of figures (a financial statement): its cells right of the labels are
    figures, currency signs and brackets, bar a few header words."""
    values = [c for row, span in zip(rows, spanning, strict=True) if not span for c in row[1:] if c]
    plain = [v for v in values if not (_LONE_SIGN.match(v) or v in _CLOSING)]
    return bool(plain) and sum(_is_figure(v) for v in plain) >= _FIGURE_SHARE * len(plain)


def _signs_to_figures(row: RawRow) -> RawRow:
    """Currency signs and closing brackets set in cells of their own join their figure
    ("$ | 1,671" is "$1,671", "(20,532 | )" is "(20,532)"): statements rule them into
    columns of their own, which would otherwise read as columns of "$" and ")"."""
    out = list(row)
    for j in range(len(out) - 1):
        left, right = out[j], out[j + 1]
        if not (left and right):
            continue
        if _LONE_SIGN.match(left) and _FIGURE.match(right.rstrip(")")):
            out[j], out[j + 1] = "", f"{left}{right}"
        elif right in _CLOSING and _FIGURE.match(left.lstrip("$€£¥₹")):
            out[j], out[j + 1] = f"{left}{right}", ""
    return out


def _without_empty_columns(grid: Grid) -> Grid:
    """A statement's columns that only ever held signs or brackets, now moved to their
    figures, are dropped (the period headers drawn over them stay on the figures). A
    period header drawn from over such a column into the figures' is the figures' alone,
    not the labels' too."""
    keep = [0] + [j for j in range(1, grid.width) if any(r.cells[j] for r in grid.rows)]

    def pick(values: list[str]) -> list[str]:
        if not values:
            return values
        picked = [values[j] for j in keep]
        return ["", *picked[1:]] if len(picked) > 1 and picked[0] == picked[1] else picked

    rows = [replace(r, cells=[r.cells[j] for j in keep], header=pick(r.header)) for r in grid.rows]
    return replace(grid, header=pick(grid.header), rows=rows)


def _clean_or_none(cell: str | None) -> str | None:
    return None if cell is None else clean_cell(cell)


def _is_spanning(row: RawRow) -> bool:
    """A row whose only cell runs across the whole table: a caption or a group label."""
    return len(row) > 1 and bool(row[0]) and all(c is None for c in row[1:])


def _logical_columns(
    rows: list[RawRow], spanning: list[bool], *, gutters: bool = False
) -> list[tuple[int, int]]:
    """Group raw columns into the columns a reader sees.

    PDF grids often split one visual column into several (a header drawn over three thin
    cells); a boundary survives only if rows put text on both sides of it at least as often
    as text runs across it. With `gutters` (tables of figures, ruled with empty columns
    between label and figures), empty cells between two texts go with the text on their
    left: the boundary that counts is where the next text starts.
    """
    width = len(rows[0]) if rows else 0
    crossed = [0] * (width + 1)
    supported = [0] * (width + 1)
    for row, span in zip(rows, spanning, strict=True):
        if span:
            continue
        cells = _spans(row)
        for (start, end, text), nxt in zip(cells, [*cells[1:], None], strict=True):
            if text:
                for b in range(start + 1, end + 1):
                    crossed[b] += 1
                if nxt is not None and nxt[2]:
                    supported[end + 1] += 1
        if gutters:
            texts = [c for c in cells if c[2]]
            for prev, nxt in pairwise(texts):
                if nxt[0] > prev[1] + 1:  # empty cells between them
                    supported[nxt[0]] += 1
    bounds = [0] + [b for b in range(1, width) if supported[b] and supported[b] >= crossed[b]]
    return [(a, b - 1) for a, b in zip(bounds, [*bounds[1:], width], strict=True)]


def _spans(row: RawRow) -> list[tuple[int, int, str]]:
    """(first, last, text) per cell; None positions extend the cell on their left."""
    cells: list[tuple[int, int, str]] = []
    for j, cell in enumerate(row):
        if cell is None and cells:
            first, _, text = cells[-1]
            cells[-1] = (first, j, text)
        else:
            cells.append((j, j, cell or ""))
    return cells


def _collapse(row: RawRow, columns: list[tuple[int, int]]) -> list[str | None]:
    """One value per logical column; a cell spanning several columns gives its text to each."""
    out: list[str | None] = []
    spans = _spans(row)
    for first, last in columns:
        texts = [t for a, b, t in spans if t and a <= last and b >= first]
        covered = all(row[j] is None for j in range(first, last + 1))
        out.append(None if covered and not texts else " ".join(dict.fromkeys(texts)))
    return out


def _collapse_bold(bold: list[bool], row: RawRow, columns: list[tuple[int, int]]) -> list[bool]:
    flags = [*bold, *[False] * (len(row) - len(bold))]
    out = []
    for first, last in columns:
        with_text = [flags[j] for j in range(first, last + 1) if row[j]]
        out.append(bool(with_text) and all(with_text))
    return out


def _column_has_text(cells: list[list[str | None]], spanning: list[bool], j: int) -> bool:
    return any(row[j] for row, span in zip(cells, spanning, strict=True) if not span)


@dataclass(frozen=True)
class _Shape:
    """What the formatting says about rows: which look like header rows."""

    header_like: list[bool]

    @classmethod
    def of(cls, cells: list[list[str | None]], bold: list[list[bool]] | None) -> _Shape:
        if bold is None:
            return cls([False] * len(cells))
        firsts = [b[0] for row, b in zip(cells, bold, strict=True) if row[0]]
        label_bold = len(firsts) >= 3 and sum(firsts) >= 0.8 * len(firsts)
        if label_bold and cells and len(cells[0]) == 2:
            # bold keys down the side: a bold first row is as likely a key/value pair
            # ("Name | Policy X") as a header, and a false header mislabels every line
            return cls([False] * len(cells))
        start = 1 if label_bold else 0  # a bold row-header column says nothing about rows
        flags = []
        for row, b in zip(cells, bold, strict=True):
            filled = [b[j] for j in range(len(row)) if row[j]]
            rest = [b[j] for j in range(start, len(row)) if row[j]]
            flags.append(len(filled) >= 2 and bool(rest) and all(rest))
        return cls(flags)


def _assemble(
    cells: list[list[str | None]],
    spanning: list[bool],
    bold: list[list[bool]] | None,
    header_rows: int | None,
    pages: list[int | None],
    figures: bool,
) -> Grid | None:
    captions = 0
    while captions < len(cells) and spanning[captions]:
        captions += 1
    caption = " ".join(row[0] or "" for row in cells[:captions])
    body = list(range(captions, len(cells)))
    shape = _Shape.of(cells, bold)
    n_head, guessed, sep = _header_count(
        cells, body, shape, header_rows, captions, bold is not None
    )
    header = _header(cells, body[:n_head], sep)
    mid_headers = bold is not None and not all(shape.header_like[i] for i in body)
    shape_in_body = shape if mid_headers else None
    rows = _data_rows(
        cells, spanning, pages, body[n_head:], header, shape_in_body, caption, figures
    )
    if not rows:
        return None
    page_list = sorted({p for p in pages if p is not None})
    return Grid(header, rows, caption, guessed, page_list)


def _header_count(
    cells: list[list[str | None]],
    body: list[int],
    shape: _Shape,
    header_rows: int | None,
    captions: int,
    bold_known: bool,
) -> tuple[int, bool, str]:
    """How many leading rows are column headers, whether that was only guessed, and
    what joins a column's header rows: ": " for headers over headers ("Plan A: Premium"),
    " " for one name set over several rows ("December 31," over "2022")."""
    if header_rows is not None:
        return max(0, header_rows - captions), False, ": "
    if bold_known:
        count = 0
        while count < min(_MAX_HEADER_ROWS, len(body)) and shape.header_like[body[count]]:
            count += 1
        if 0 < count < len(body):
            return count, False, ": "
    if named := _naming_rows(cells, body):
        return named, False, " "
    width = len(cells[0]) if cells else 0
    guess = 1 if width >= 3 and len(body) >= 2 and all(cells[body[0]]) else 0
    return guess, bool(guess), ": "


def _naming_rows(cells: list[list[str | None]], body: list[int]) -> int:
    """Leading rows that name the columns of a table of figures: words or years over
    the value columns, no figure of their own ("December 31," over "2022"). A row
    naming only the label column ("Year Ended May 31,") is one of them when a naming row
    follows it."""
    count = seen = 0
    while seen < min(_MAX_NAMING_ROWS, len(body) - 1):
        values = [c for c in cells[body[seen]][1:] if c]
        if any(_is_figure(v) and not _YEAR.match(v) for v in values):
            break
        seen += 1
        if values:
            count = seen
    below = [c for i in body[count:] for c in cells[i][1:] if c]
    figures = sum(1 for c in below if _is_figure(c))
    return count if below and figures >= _FIGURE_SHARE * len(below) else 0


def _is_figure(text: str) -> bool:
    return bool(_FIGURE.match(text.lstrip("$€£¥₹").replace(" ", ""))) or text in ("—", "–", "-")


def _header(cells: list[list[str | None]], header_rows: list[int], sep: str = ": ") -> list[str]:
    if not header_rows:
        return []
    width = len(cells[0])
    header = []
    for j in range(width):
        parts = [cells[i][j] or "" for i in header_rows]
        header.append(sep.join(dict.fromkeys(p for p in parts if p)))
    return header


def _data_rows(
    cells: list[list[str | None]],
    spanning: list[bool],
    pages: list[int | None],
    indices: list[int],
    header: list[str],
    shape: _Shape | None,
    caption: str,
    figures: bool,
) -> list[GridRow]:
    """Rows as a reader sees them: continuation lines folded into the row they continue,
    full-width rows kept as group labels, repeated or new header rows taken as headers.
    In a table of figures a label with no figures is a group label too ("As at 31
    December 2019", "Current assets:"), or the start of the next row's label when that
    row's goes on in lower case ("Purchases of property, plant and" / "equipment")."""
    rows: list[GridRow] = []
    group = caption
    wrapped = ""
    for n, i in enumerate(indices):
        row = cells[i]
        values = [c or "" for c in row]
        if spanning[i]:
            group = values[0]
        elif figures and values[0] and not any(values[1:]):
            following = cells[indices[n + 1]][0] if n + 1 < len(indices) else None
            if following and following[:1].islower():
                wrapped = f"{wrapped} {values[0]}".strip()
            else:
                group, wrapped = values[0], ""
        elif (shape is not None and shape.header_like[i]) or _same_text(values, header):
            header = _header(cells, [i])
        elif not any(values):
            continue
        elif not values[0] and rows and _continues_previous(values):
            prev = rows[-1]
            prev.cells = [_join(a, b) for a, b in zip(prev.cells, values, strict=True)]
        else:
            if not values[0] and rows and row[0] is None:
                values[0] = rows[-1].cells[0]  # a row label merged down over several rows
            values[0], wrapped = f"{wrapped} {values[0]}".strip(), ""
            rows.append(GridRow(values, pages[i], group, header))
    return rows


def _same_text(values: list[str], header: list[str]) -> bool:
    def norm(text: str) -> str:
        return re.sub(r"[\W_]+", "", text.lower())

    return bool(header) and [norm(v) for v in values] == [norm(h) for h in header]


def _continues_previous(values: list[str]) -> bool:
    """An unlabelled row with a single value is the previous row's text wrapped onto a new row."""
    return sum(1 for v in values[1:] if v) <= 1 or len(values) == 2


def _join(a: str, b: str) -> str:
    return f"{a} {b}".strip() if b else a


def is_text_grid(grid: Grid) -> bool:
    """True for lists laid out in a grid ("1. Cataract  |  10. Hernia"): text, not a table."""
    if grid.header and not grid.header_guessed:
        return False
    values = [c for row in grid.rows for c in row.cells if c]
    if grid.header_guessed:
        values += [c for c in grid.header if c]
    marked = sum(1 for v in values if _LIST_MARKER.match(v))
    return bool(values) and marked >= 0.6 * len(values)


def text_of_grid(grid: Grid) -> list[tuple[str, int | None]]:
    """A text grid's cells read column by column, as a person reads a two-column list."""
    rows = list(grid.rows)
    if grid.header_guessed and grid.header:
        rows.insert(0, GridRow(list(grid.header), rows[0].page if rows else None))
    return [(row.cells[j], row.page) for j in range(grid.width) for row in rows if row.cells[j]]


def continues(prev: Grid, nxt: Grid) -> bool:
    """Whether `nxt` is `prev` carried over to the next page (or the next column)."""
    if prev.width != nxt.width or (nxt.caption and nxt.caption != prev.caption):
        return False
    if nxt.header and not nxt.header_guessed:
        return nxt.header == prev.header
    return True


def merge(prev: Grid, nxt: Grid) -> Grid:
    """Append a carried-over part; a guessed header on it is a data row unless it repeats
    the header above."""
    rows = list(nxt.rows)
    repeated = _same_text(nxt.header, prev.rows[-1].header)  # the header printed again
    if nxt.header_guessed and nxt.header and not repeated:
        rows.insert(0, GridRow(list(nxt.header), rows[0].page if rows else None, "", nxt.header))
    merged = [replace(r, cells=list(r.cells)) for r in prev.rows]
    for row in rows:
        last = merged[-1]
        if row.header == nxt.header:  # rows before any header of its own: still prev's rows
            row = replace(row, header=last.header, group=row.group or last.group)
        if not row.cells[0] and _continues_previous(row.cells):
            last.cells = [_join(a, b) for a, b in zip(last.cells, row.cells, strict=True)]
        else:
            merged.append(row)
    pages = sorted({*prev.pages, *nxt.pages})
    return Grid(prev.header, merged, prev.caption, prev.header_guessed, pages)


def render(grid: Grid) -> list[RenderedRow]:
    """One line per cell: "row header | column header | value" (or "key | value")."""
    serial = _serial_column(grid)
    label_cols = 2 if serial and grid.width >= 3 else 1
    rendered = []
    for row in grid.rows:
        lines = _cell_lines(row, label_cols, serial)
        if lines:
            rendered.append(RenderedRow(lines, row.page, _context(row)))
    return rendered


def _serial_column(grid: Grid) -> bool:
    """First column only numbers the rows (1, 2, 3 / a, b, c): not a useful row header."""
    headers = {row.header[0] for row in grid.rows if row.header}
    if headers and all(_SERIAL_HEADER.match(h) for h in headers):
        return True
    values = [row.cells[0] for row in grid.rows if row.cells[0]]
    numbered = sum(1 for v in values if _SERIAL_VALUE.match(v))
    return len(values) >= 3 and numbered >= 0.8 * len(values)


def _cell_lines(row: GridRow, label_cols: int, serial: bool) -> list[str]:
    number = row.cells[0].rstrip(".)") if serial else ""
    if serial and label_cols == 1:
        return [f"{number}. {v}" if number else v for v in row.cells[1:] if v]
    name = row.cells[label_cols - 1]
    label = f"{number}. {name}" if number and name else number or name
    lines = []
    for j in range(label_cols, len(row.cells)):
        value = row.cells[j]
        if value:
            column = row.header[j] if row.header else ""
            lines.append(" | ".join(p for p in (label, column, value) if p))
    return lines


def _context(row: GridRow) -> str:
    parts = [row.group] if row.group else []
    if row.header and any(row.header):
        parts.append("columns: " + " | ".join(h or "—" for h in row.header))
    return "; ".join(parts)
