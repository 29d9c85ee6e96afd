"""Lines of figures: a label, a clear gap, then numbers right-aligned in columns.

Financial statements are set as text (sometimes with each row shaded as its own band), not
as ruled tables, so pdfplumber's table finder sees nothing, or one "table" per row. What
marks them is the shape of their lines, which this module reads: where the label ends,
which tokens are figures ("$ 2,853", "(16,135)", "—", "12.5 %"), where their columns are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from statistics import median

from knowledge.reading.loaders.pdf_lines import Line, Word

_NUMBER = re.compile(r"^\(?[-–—+]?[$€£]?\(?\d[\d,]*(?:\.\d+)?\)?%?\)?\*?$")
_DASH = re.compile(r"^\(?[-–—]{1,2}\)?%?$")
# A cell that holds no figure on purpose: "#" or "*" (a footnote: "# Denotes a variance of
# 100 percent or more"), "n/m" or "NM" (not meaningful), "n/a".
_PLACEHOLDER = re.compile(r"^(?:#|\*{1,2}|n/?m|nmf?|n/a)%?$", re.IGNORECASE)
_CURRENCY = frozenset({"$", "€", "£", "US$", "C$"})
_PERCENT = frozenset({"%", "pts", "bps"})
_YEAR = re.compile(r"^(?:19|20)\d\d\*?$")
_LABEL_GAP = 2.0  # times the font size between a label and its first figure


@dataclass(frozen=True)
class Figures:
    """A line read as a table row: its label words and its figures, left to right."""

    line: Line
    label: list[Word]
    values: list[Word]  # "$" merged into the figure after it (the box too), "%" into the one before

    @property
    def label_text(self) -> str:
        return " ".join(w.text for w in self.label)

    @property
    def years_only(self) -> bool:
        """ "2018 2017 2016": a header line of periods, not a row of figures."""
        return all(_YEAR.match(w.text) for w in self.values)


def read_figures(line: Line) -> Figures | None:
    """The line as label + figures, or None when it does not end in figures set apart."""
    words = _unglue(line.words)
    start = len(words)
    while start > 0 and _is_value_token(words[start - 1].text):
        start -= 1
    while 0 < start < len(words) and words[start].x0 - words[start - 1].x1 < _LABEL_GAP * line.size:
        start += 1  # "... of $95 and $103   5,020": figures begin after the gap
    if start == 0 and len(words) > 2 and _YEAR.match(words[0].text):
        start = 1  # "2019   $ 18   $ 283": a row of a table of years
    values = _merge_signs(words[start:])
    if not values or not any(_NUMBER.match(w.text) or _DASH.match(w.text) for w in values):
        return None
    return Figures(line, words[:start], values)


def _unglue(words: list[Word]) -> list[Word]:
    """ "22.4%$ 1,672": a figure and the next one's currency sign printed without a space."""
    out: list[Word] = []
    for word in words:
        if len(word.text) > 1 and word.text[-1] in "$€£" and _NUMBER.match(word.text[:-1]):
            cut = word.x1 - (word.x1 - word.x0) / len(word.text)
            out += [
                Word(word.text[:-1], word.x0, cut, word.bold),
                Word(word.text[-1], cut, word.x1, word.bold),
            ]
        else:
            out.append(word)
    return out


def page_numbers(values: list[str]) -> bool:
    """Whether a column of figures counts pages ("4, 10, 12, 12, 13 ..."): a table of
    contents, whose lines name sections and where they start, not a table of facts."""
    numbers = [int(v) for v in values if v.isdigit() and len(v) <= 3]
    if len(values) < 3 or len(numbers) != len(values) or numbers != sorted(numbers):
        return False
    return len(set(numbers)) >= 0.5 * len(numbers) and numbers[-1] - numbers[0] >= 3


def _is_value_token(text: str) -> bool:
    return bool(
        _NUMBER.match(text)
        or _DASH.match(text)
        or _PLACEHOLDER.match(text)
        or text in _CURRENCY
        or text in _PERCENT
    )


def _merge_signs(words: list[Word]) -> list[Word]:
    """ "$ 2,853" is one figure (its box starts at the "$"); "12.5 %" is "12.5%"."""
    out: list[Word] = []
    pending: Word | None = None
    for word in words:
        if word.text in _CURRENCY:
            pending = word
            continue
        if word.text in _PERCENT and out:
            last = out[-1]
            out[-1] = Word(last.text + word.text, last.x0, word.x1, last.bold)
            continue
        x0 = pending.x0 if pending is not None else word.x0
        out.append(Word(word.text, x0, word.x1, word.bold))
        pending = None
    return out


@dataclass(frozen=True)
class Column:
    x0: float
    x1: float

    @property
    def centre(self) -> float:
        return (self.x0 + self.x1) / 2


def find_columns(rows: list[Figures]) -> list[Column]:
    """Figure columns from right edges that line up (figures are right-aligned)."""
    edges = sorted(
        (_digits_end(w), w.x0, w.x1) for row in rows for w in row.values if _has_digit(w.text)
    )
    if not edges:
        return []
    size = median(row.line.size for row in rows)
    groups: list[list[tuple[float, float, float]]] = [[edges[0]]]
    for edge in edges[1:]:
        if edge[0] - groups[-1][-1][0] <= 0.6 * size:
            groups[-1].append(edge)
        else:
            groups.append([edge])
    needed = max(2, len(rows) // 5) if len(rows) >= 4 else 1
    kept = [g for g in groups if len(g) >= needed] or [max(groups, key=len)]
    columns = [Column(min(e[1] for e in g), max(e[2] for e in g)) for g in kept]
    return _merge_overlapping(columns)


def _digits_end(word: Word) -> float:
    """Where the figure's last digit ends: "12.5%" and "(1,234)" line up on their digits."""
    text = word.text
    tail = len(text) - len(text.rstrip("%)*"))
    return word.x1 - (word.x1 - word.x0) * tail / max(1, len(text))


def _merge_overlapping(columns: list[Column]) -> list[Column]:
    out: list[Column] = []
    for column in columns:
        if out and column.x0 < out[-1].x1 - 0.5 * min(
            out[-1].x1 - out[-1].x0, column.x1 - column.x0
        ):
            out[-1] = Column(min(out[-1].x0, column.x0), max(out[-1].x1, column.x1))
        else:
            out.append(column)
    return out


def place(values: list[Word], columns: list[Column]) -> list[str]:
    """Each figure in the column it sits under; columns with no figure stay empty."""
    cells = [""] * len(columns)
    for word in values:
        j = _nearest(word, columns)
        cells[j] = f"{cells[j]} {word.text}".strip()
    return cells


def _nearest(word: Word, columns: list[Column]) -> int:
    centre = (word.x0 + word.x1) / 2
    inside = [j for j, c in enumerate(columns) if c.x0 - 1 <= centre <= c.x1 + 1]
    if inside:
        return inside[0]
    return min(range(len(columns)), key=lambda j: abs(columns[j].x1 - word.x1))


def _has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)
