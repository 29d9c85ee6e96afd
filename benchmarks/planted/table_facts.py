"""Faithful statements for TAT-QA answers: a table cell with its row label and column
header (sometimes beside the same row's figure for another period), the sentence holding a
text span, or a change between two periods that states its operands."""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass
from typing import Any

from benchmarks.planted.cases import Fact, Piece
from benchmarks.planted.numbers import write_like

_VALUE = re.compile(r"^[\s$€£¥]*\(?[\s$€£¥]*-?\d[\d,]*(?:\.\d+)?\)?\s*%?$")
_YEAR = re.compile(r"^\s*(?:19|20)\d\d(?:\s*\(\d\))?\s*$")
_EMPTY = {"", "-", "—", "–", "n/a", "N/A", "nm", "NM"}
_SENTENCE_END = re.compile(
    r"(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bInc\.)(?<!\bNo\.)(?<!\bU\.S\.)(?<=[.;])\s+(?=[A-Z(])"
)
_PLAIN_OPENERS = frozenset((
    "the", "this", "these", "that", "there", "we", "our", "it", "its", "in", "on", "during",
    "for", "as", "at", "such", "cash", "total", "net",
))  # fmt: skip
_SIMPLE_PERIOD = re.compile(r"(?:fiscal |FY ?)?(?:19|20)\d\d|FY ?\d\d|Q[1-4] (?:19|20)\d\d")
_YEAR_IN = re.compile(r"\b(?:19|20)\d\d\b")
MAX_SENTENCE_WORDS = 60


@dataclass(frozen=True)
class Table:
    rows: list[list[str]]
    header_rows: int
    headers: list[str]  # one merged header per column
    caption: str = ""  # header cells spanning several columns ("Year Ended December 31,")

    def label(self, row: int) -> str:
        return _tidy_label(self.rows[row][0])


def read_table(raw: list[list[str]]) -> Table:
    rows = [[" ".join(str(c).split()) for c in r] for r in raw]
    count = 0
    for row in rows[:4]:
        rest = [c for c in row[1:] if c]
        if not rest or any(_VALUE.match(c) and not _YEAR.match(c) for c in rest):
            break
        count += 1
    width = max(len(r) for r in rows)
    header, spanning = _header_rows(rows[:count])
    headers = [" ".join(r[c] for r in header if c < len(r) and r[c]).strip() for c in range(width)]
    caption = " ".join(c for r in spanning for c in r if c)
    return Table(rows, count, headers, caption)


def _header_rows(rows: list[list[str]]) -> tuple[list[list[str]], list[list[str]]]:
    """Header rows that name columns, and sparser ones above them whose cells span several
    columns (the last header row names more columns than they do): those become a caption."""
    if len(rows) < 2:
        return rows, []
    named = sum(1 for c in rows[-1][1:] if c)
    spanning = [r for r in rows[:-1] if sum(1 for c in r[1:] if c) < named]
    return [r for r in rows if r not in spanning], spanning


def _tidy_label(text: str) -> str:
    return re.sub(r"[\s.:]+$", "", re.sub(r"\s*\(\d\)$|(?<=[a-z])\d$", "", text)).strip()


def tidy_header(text: str) -> str:
    """'Years ended December 31, 2019 (in thousands)' and '2019 £m' read as '2019'."""
    text = re.sub(r"\s*\([^)]*\)|[\s,:]+$", "", text).strip()
    years = re.findall(r"\b(?:19|20)\d\d\b", text)
    rest = re.sub(
        r"\b(?:19|20)\d\d\b|years?|ended|fiscal|as of|at|[A-Z][a-z]+ \d{1,2},?",
        "",
        text,
        flags=re.IGNORECASE,
    )
    if len(years) == 1 and not re.search(r"[A-Za-z]{3,}", rest.replace("million", "")):
        return years[0]
    return text


def figure(text: str) -> float | None:
    """The number a cell shows: '$(1,234.5)' is -1234.5; None for text."""
    core = text.replace("$", "").replace("€", "").replace("£", "").replace(" ", "")
    m = re.fullmatch(r"(\()?(-)?(\d[\d,]*(?:\.\d+)?)\)?%?", core)
    if not m:
        return None
    value = float(m.group(3).replace(",", ""))
    return -value if m.group(1) or m.group(2) else value


def cell_fact(
    table: Table, row: int, col: int, answers: list[str], rng: random.Random
) -> Fact | None:
    """A cell that holds one of the answers, in a row whose label is unique in the table."""
    if row < table.header_rows or col == 0 or row >= len(table.rows):
        return None
    cells = table.rows[row]
    label, value = table.label(row), cells[col] if col < len(cells) else ""
    header = tidy_header(table.headers[col]) if col < len(table.headers) else ""
    labels = [table.label(r) for r in range(table.header_rows, len(table.rows))]
    if not label or value in _EMPTY or not header or len(label.split()) > 12:
        return None
    if labels.count(label) > 1 or _squash(value) not in {_squash(a) for a in answers}:
        return None
    timed = bool(_SIMPLE_PERIOD.fullmatch(header))
    text = rng.choice(
        [f"{label} was {value} in {header}", f"In {header}, {label} was {value}"]
        if timed
        else [f"{label} ({header}): {value}", f"For {label}, {header} was {value}"]
    )
    pieces = [Piece((label, value), same_line=True)]
    other = _other_period(table, row, col, rng) if timed else None
    if other is not None and rng.random() < 0.5:
        there = tidy_header(table.headers[other])
        text += _comparison(value, table.rows[row][other], there, _earlier(there, header), rng)
        pieces.append(Piece((label, table.rows[row][other]), same_line=True))
    return Fact(text, tuple(pieces))


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _earlier(there: str, here: str) -> bool:
    a, b = _YEAR_IN.findall(there), _YEAR_IN.findall(here)
    return bool(a and b) and a[-1] < b[-1]


def _other_period(table: Table, row: int, col: int, rng: random.Random) -> int | None:
    """Another period's figure in the row, to compare with (not for negative figures:
    whether a loss in brackets 'rose' is a matter of wording)."""
    cells = table.rows[row]
    here = figure(cells[col])
    if here is None or here < 0:
        return None
    options = [
        c
        for c in range(1, min(len(cells), len(table.headers)))
        if c != col
        and _SIMPLE_PERIOD.fullmatch(tidy_header(table.headers[c]))
        and ("%" in cells[c]) == ("%" in cells[col])
        and (there := figure(cells[c])) is not None
        and there != here
        and there >= 0
    ]
    return rng.choice(options) if options else None


def _comparison(value: str, other: str, header: str, earlier: bool, rng: random.Random) -> str:
    """', up from 1,200 in 2018' when the other figure is earlier; else 'higher than'."""
    up = (figure(value) or 0) > (figure(other) or 0)
    words = ["higher than"] if up else ["lower than"]
    if earlier:
        words += ["up from", "an increase from"] if up else ["down from", "a decrease from"]
    return f", {rng.choice(words)} {other} in {header}"


def sentence_fact(paragraph: str, start: int, end: int, rng: random.Random) -> Fact | None:
    """The sentence(s) of `paragraph` holding characters start..end, quoted."""
    bounds = [0, *(m.end() for m in _SENTENCE_END.finditer(paragraph)), len(paragraph)]
    spans = [(a, b) for a, b in itertools.pairwise(bounds) if a < end and b > start]
    if not spans:
        return None
    text = paragraph[spans[0][0] : spans[-1][1]].strip()
    said = re.sub(r"^(?:(?:\(\d\)|\d\)|note:)\s*)+", "", text, flags=re.IGNORECASE).rstrip(" .;")
    words = said.split()
    capitals = sum(ch.isupper() for ch in said) / max(1, sum(ch.isalpha() for ch in said))
    if not 5 <= len(words) <= MAX_SENTENCE_WORDS or capitals > 0.5:
        return None
    lead = rng.choice(["", "", "", "The report notes that ", "According to the notes, "])
    if lead and words[0].lower() in _PLAIN_OPENERS:
        said = said[0].lower() + said[1:]
    elif lead and not words[0][:1].isupper():
        lead = ""
    return Fact(lead + said, (Piece((said,)),))


def change_fact(q: dict[str, Any], table: Table, spots: list[list[int]]) -> Fact | None:
    """'a - b' between two periods of one row: 'X rose from b in P1 to a in P2, an
    increase of d' (the answer states the operands it computed from)."""
    tree = q.get("tree_derivation") or []
    (r1, c1), (r2, c2) = spots
    if len(tree) != 3 or tree[0] != "-" or r1 != r2 or c1 == c2 or r1 < table.header_rows:
        return None
    cells, label = table.rows[r1], table.label(r1)
    by_value = {figure(cells[c]): c for c in (c1, c2) if c < len(cells)}
    later, earlier = by_value.get(_num(tree[1])), by_value.get(_num(tree[2]))
    if later is None or earlier is None or not label or later == earlier:
        return None
    h_late, h_early = tidy_header(table.headers[later]), tidy_header(table.headers[earlier])
    if not (_SIMPLE_PERIOD.fullmatch(h_late) and _SIMPLE_PERIOD.fullmatch(h_early)):
        return None
    if _earlier(h_late, h_early):
        return None
    a, b = figure(cells[later]) or 0.0, figure(cells[earlier]) or 0.0
    rose = a > b
    like = max((cells[later], cells[earlier]), key=lambda s: ("," in s, len(s.split(".")[-1])))
    digits = re.sub(r"[^\d,.]", "", like)
    diff = ("$" if "$" in like else "") + write_like(abs(a - b), digits)
    if "%" in like:
        diff += " percentage points"
    text = (
        f"{label} {'rose' if rose else 'fell'} from {cells[earlier]} in {h_early} to "
        f"{cells[later]} in {h_late}, {'an increase' if rose else 'a decrease'} of {diff}"
    )
    pieces = (
        Piece((label, cells[earlier]), same_line=True),
        Piece((label, cells[later]), same_line=True),
    )
    return Fact(text, pieces)


def _num(text: str) -> float | None:
    return figure(str(text))
