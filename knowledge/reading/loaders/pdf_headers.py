"""Column headers over figure columns: which header words name which column.

Header lines of a statement stack ("December 31," over "2018"), span ("Years Ended" over
three years) or sit beside a label-column stub ("At December 31,   2022   2021"). Each
column's header is the phrases standing over it, top to bottom; parenthesised scale notes
("(Dollars in millions)") go to the table's caption instead.
"""

from __future__ import annotations

import re
from itertools import pairwise

from knowledge.reading.loaders.pdf_figures import Column
from knowledge.reading.loaders.pdf_lines import Line, Word

_PERIOD = re.compile(
    r"(?i)^(?!\().*\b(?:year|years|quarter|months?|weeks?|ended|ending|as of|at|fiscal|period)\b"
)
_PHRASE_GAP = 1.0  # times the font size between two header phrases on one line
_COVER = 0.25  # share of a column's width a header phrase must cover to name it
_MAX_NOTE = 100  # characters of a scale note: "(In millions, except per share data)"


def read_headers(
    lines: list[Line], columns: list[Column], boundary: float
) -> tuple[list[str], str]:
    """Column headers (one per figure column, after an empty one for the labels) and the
    scale note ("(Dollars in millions)") from the header lines above a table."""
    parts: list[list[str]] = [[] for _ in columns]
    stubs: list[str] = []
    notes: list[str] = []
    for line in lines:
        if is_note(line.text):
            notes.append(line.text)
            continue
        note, words = leading_note(line)
        if note:
            notes.append(_text(note))
        stub = " ".join(w.text for w in words if w.x1 <= boundary)
        if stub:
            stubs.append(stub)
        phrases = split_phrases([w for w in words if w.x0 >= boundary], line.size)
        for phrase in [p for p in phrases if len(p) > 1 and is_note(_text(p))]:
            notes.append(_text(phrase))  # "(In millions)" over the figures; not "(Loss)"
            phrases.remove(phrase)
        for j, phrase in _assign(phrases, columns):
            parts[j].append(_text(phrase))
    prefix = ""
    if len(stubs) == 1 and _PERIOD.search(stubs[0]) and lines[-1].text.startswith(stubs[0]):
        prefix = stubs[0]  # "At December 31," before "2022  2021": part of every header
    else:
        notes = [" ".join(stubs), *notes] if stubs else notes  # the label column's header
    if not any(parts):
        return [], " ".join(notes)
    header = [" ".join(filter(None, [prefix, *p])) for p in parts]
    return ["", *header], " ".join(notes)


def is_note(text: str) -> bool:
    """One parenthesised remark from end to end: "(In millions, except per share data)", but
    not "($ million) EBITDA EBIT Income cents)(1)", a note followed by headers."""
    if not (text.startswith("(") and len(text) <= _MAX_NOTE):
        return False
    depth = 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return i == len(text) - 1
    return False


def leading_note(line: Line) -> tuple[list[Word], list[Word]]:
    """A scale note the line opens with, set apart from the headers after it ("(Millions,
    except per share amounts)   2022   2021"), and the words after it; none, and all the
    line's words, when it does not open with one."""
    words = line.words
    for end in range(len(words) - 1):
        if words[end].text.endswith(")"):
            if words[end + 1].x0 - words[end].x1 > 2 * line.size and is_note(
                _text(words[: end + 1])
            ):
                return words[: end + 1], words[end + 1 :]
            break
    return [], words


def split_phrases(words: list[Word], size: float) -> list[list[Word]]:
    phrases: list[list[Word]] = []
    for word in words:
        if phrases and word.x0 - phrases[-1][-1].x1 <= _PHRASE_GAP * size:
            phrases[-1].append(word)
        else:
            phrases.append([word])
    return phrases


def _text(phrase: list[Word]) -> str:
    return " ".join(w.text for w in phrase)


def _assign(phrases: list[list[Word]], columns: list[Column]) -> list[tuple[int, list[Word]]]:
    """Which columns each header phrase stands over.

    A phrase names the columns it covers ("Three months ended" over two of four), or the
    nearest one; a lone phrase set between the first and last columns ("Years Ended",
    "May 31,") spans them all.
    """
    if len(phrases) == 1 and len(columns) > 1:
        centre = (phrases[0][0].x0 + phrases[0][-1].x1) / 2
        if columns[0].x1 < centre < columns[-1].x0:
            return [(j, phrases[0]) for j in range(len(columns))]
    pitch = column_pitch(columns)
    out: list[tuple[int, list[Word]]] = []
    for phrase in phrases:
        covered = [
            j for j, c in enumerate(columns) if _overlap(c, phrase) >= _COVER * (c.x1 - c.x0)
        ]
        if not covered:
            nearest = min(range(len(columns)), key=lambda j: _gap(columns[j], phrase))
            covered = [nearest] if _gap(columns[nearest], phrase) <= 0.5 * pitch else []
        out.extend((j, phrase) for j in covered)
    return sorted(out, key=lambda x: x[0])


def _overlap(column: Column, phrase: list[Word]) -> float:
    return min(column.x1, phrase[-1].x1) - max(column.x0, phrase[0].x0)


def _gap(column: Column, phrase: list[Word]) -> float:
    return max(0.0, phrase[0].x0 - column.x1, column.x0 - phrase[-1].x1)


def column_pitch(columns: list[Column]) -> float:
    if len(columns) < 2:
        return 80.0
    return min(b.centre - a.centre for a, b in pairwise(columns))
