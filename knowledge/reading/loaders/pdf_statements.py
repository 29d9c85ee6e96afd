"""Financial statements and other tables of figures set as text, read back as tables.

A balance sheet is a label column and period columns of right-aligned figures under header
lines ("December 31," / "2018"). Read as prose its rows run together ("Finished goods 2,120
1,915 Work in process 1,292 ...") and its header becomes a heading; here each such region
of a page becomes one Grid whose every value keeps its row label and its column header
("Total current assets | December 31, 2018 | 13,709"), with the captions inside it
("Current assets") as row groups and the scale note ("(Dollars in millions)") as caption.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from knowledge.reading.loaders.pdf_figures import (
    Column,
    Figures,
    find_columns,
    page_numbers,
    place,
    read_figures,
)
from knowledge.reading.loaders.pdf_headers import (
    column_pitch,
    is_note,
    leading_note,
    read_headers,
    split_phrases,
)
from knowledge.reading.loaders.pdf_lines import Line
from knowledge.reading.loaders.tables import Grid, GridRow

_MIN_ROWS = 3  # rows of figures before a run of lines counts as a table
_MIN_ROWS_UNDER_HEADER = 1  # ... or under header lines over its figures
_LINE_GAP = 3.0  # times the font size: a wider vertical gap ends a table
_HEADER_SPAN = 2.5  # column pitches: the widest header phrase ("Years ended December 31,")
_MIN_HEADER_WIDTH = 150.0


@dataclass
class Statement:
    """A table of figures found on a page, and the lines it was read from."""

    grid: Grid
    top: float
    x0: float
    lines: list[Line]
    columns: int


def find_statements(
    lines: list[Line], carried: Statement | None = None
) -> tuple[list[Statement], list[Line]]:
    """Tables of figures among a page's lines, and the lines left over as prose.

    `carried` is the last table of the page before: a table that goes on at the top of
    this page without header lines of its own keeps that one's headers.
    """
    figures = [read_figures(line) for line in lines]
    found: list[Statement] = []
    used: set[int] = set()
    i = 0
    while i < len(lines):
        if not _is_row(figures[i]):
            i += 1
            continue
        end = _extend_down(lines, figures, i)
        rows = [f for f in figures[i:end] if f is not None and not f.years_only]
        columns = find_columns(rows)
        if not columns:  # dashes only: nothing to line up
            i += 1
            continue
        region = _Region(lines, figures, rows, columns)
        start = region.extend_up(i)
        if len(rows) < (_MIN_ROWS_UNDER_HEADER if start < i else _MIN_ROWS):
            i += 1
            continue
        statement = region.build(start, end, carried if not found else None)
        if statement is not None and not _contents(statement.grid):
            found.append(statement)
            used.update(range(start, end))
        i = end
    return found, [line for k, line in enumerate(lines) if k not in used]


def _contents(grid: Grid) -> bool:
    """A table of contents set as text: left as text (it holds no facts to look up)."""
    return grid.width == 2 and page_numbers([row.cells[1] for row in grid.rows if row.cells[1]])


def _is_row(figures: Figures | None) -> bool:
    return figures is not None and not figures.years_only


def _extend_down(lines: list[Line], figures: list[Figures | None], first: int) -> int:
    """End (exclusive) of the run of figure rows and captions that starts at `first`."""
    row = figures[first]
    assert row is not None
    value_left = row.values[0].x0
    last = first
    for k in range(first + 1, len(lines)):
        line, prev = lines[k], lines[k - 1]
        if line.top - prev.bottom > _LINE_GAP * line.size:
            break
        here = figures[k]
        if _is_row(here):
            assert here is not None
            if here.values[-1].x1 < value_left:
                break  # figures somewhere else: another table or a sentence
            value_left = min(value_left, here.values[0].x0)
            last = k
        elif here is not None or line.x1 >= value_left - line.size:
            break  # a header line of another table, or prose across the page
    return last + 1


class _Region:
    """The lines of one table of figures: where its columns and label area are."""

    def __init__(
        self,
        lines: list[Line],
        figures: list[Figures | None],
        rows: list[Figures],
        columns: list[Column],
    ):
        self.lines = lines
        self.figures = figures
        self.columns = columns
        self.value_left = min(c.x0 for c in self.columns)
        label_right = max((r.label[-1].x1 for r in rows if r.label), default=0.0)
        self.size = median(row.line.size for row in rows)
        self.boundary = min(self.value_left, label_right + 0.5 * self.size)

    def extend_up(self, first: int) -> int:
        """Header lines above the first row, with the captions between them and it."""
        start, seen_header = first, False
        for k in range(first - 1, -1, -1):
            line, below = self.lines[k], self.lines[k + 1]
            if below.top - line.bottom > _LINE_GAP * line.size:
                break
            kind = self._kind(line, self.figures[k])
            if kind == "header":
                seen_header, start = True, k
            elif kind != "caption" or seen_header:
                break
        return start if seen_header else first

    def _kind(self, line: Line, figures: Figures | None) -> str:
        if _is_row(figures):
            return ""
        if is_note(line.text):
            return "header"  # "(dollars in millions, except per share amounts)"
        note, words = leading_note(line)
        over = [w for w in words if w.x0 >= self.boundary]
        if not over:
            return "caption" if line.x1 < self.value_left else ""
        if any(w.x0 < self.boundary < w.x1 for w in words):
            return ""  # prose running across the label area into the figures
        stub = note or [w for w in words if w.x1 <= self.boundary]
        if stub and over[0].x0 - stub[-1].x1 < 2 * line.size:
            return ""
        pitch = column_pitch(self.columns)
        if over[0].x0 < self.columns[0].x0 - 0.5 * pitch:
            return ""  # a title centred on the page, not a header over the figures
        widest = max(p[-1].x1 - p[0].x0 for p in split_phrases(over, line.size))
        if widest > max(_HEADER_SPAN * pitch, _MIN_HEADER_WIDTH):
            return ""  # a line of prose, not a column header
        return "header" if line.size <= self.size + 1 else ""

    def build(self, start: int, end: int, carried: Statement | None) -> Statement | None:
        lines = self.lines[start:end]
        first_row = next(k for k in range(start, end) if _is_row(self.figures[k]))
        heads = {
            k for k in range(start, first_row) if self._kind(self.lines[k], self.figures[k])
            == "header"
        }  # fmt: skip
        header, notes = read_headers(
            [self.lines[k] for k in sorted(heads)], self.columns, self.boundary
        )
        if not header and carried is not None and carried.columns == len(self.columns):
            header, notes = list(carried.grid.header), carried.grid.caption
        body = [(self.lines[k], self.figures[k]) for k in range(start, end) if k not in heads]
        rows = _rows(body, self.columns, header)
        if not rows:
            return None
        pages = sorted({line.page for line in lines})
        grid = Grid(header, rows, notes, False, pages)
        return Statement(grid, lines[0].top, min(x.x0 for x in lines), lines, len(self.columns))


@dataclass
class _Caption:
    text: str
    rank: tuple[bool, float]  # (not bold or capitals, indent): smaller is a higher level


def _rows(
    lines: list[tuple[Line, Figures | None]], columns: list[Column], header: list[str]
) -> list[GridRow]:
    """Grid rows from the table's lines: wrapped labels joined, captions kept as groups."""
    rows: list[GridRow] = []
    groups: list[_Caption] = []
    pending: list[Line] = []
    after_row = False
    for line, figures in lines:
        if figures is None:
            if pending and line.text[:1].islower():
                pending.append(line)  # a caption wrapped onto a second line
                continue
            if pending:
                groups = _push(groups, pending, after_row)
                after_row = False
            pending = [line]
            continue
        label = figures.label_text
        if pending:
            joined = " ".join(x.text for x in pending)
            if not label or label[:1].islower():  # a label wrapped above its figures
                label = f"{joined} {label}".strip()
            else:
                groups = _push(groups, pending, after_row)
            pending = []
        groups = _close(groups, label, line.x0)
        cells = [label or "Total", *place(figures.values, columns)]
        group = ": ".join(g.text for g in groups)
        rows.append(GridRow(cells, line.page, group, header))
        after_row = True
    return rows


def _push(groups: list[_Caption], lines: list[Line], after_row: bool) -> list[_Caption]:
    """A caption opens a group; it closes the groups it does not belong under.

    Bold or capitalised captions ("Assets", "LIABILITIES") are above plain ones ("Current
    assets"), and indents nest. After rows, a caption closes those at its own level too;
    right under another caption it is that one's subgroup.
    """
    text = " ".join(x.text for x in lines).rstrip(":").strip()
    strong = lines[0].bold or text.isupper()
    caption = _Caption(text, (not strong, round(lines[0].x0)))
    while groups and (
        groups[-1].rank >= caption.rank if after_row else groups[-1].rank > caption.rank
    ):
        groups = groups[:-1]
    return [*groups, caption]


def _close(groups: list[_Caption], label: str, x0: float) -> list[_Caption]:
    """ "Total current assets" closes "Current assets"; a row left of a caption is outside it."""
    lowered = label.lower()
    if lowered.startswith("total"):
        for k in range(len(groups) - 1, -1, -1):
            if groups[k].text.lower() in lowered:
                return groups[:k]
    return [g for g in groups if g.rank[1] <= x0 + 1]
