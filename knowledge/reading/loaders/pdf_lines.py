"""Text lines of a PDF page with their words, positions and fonts.

Everything downstream reads geometry: paragraphs break on gaps and short lines, statements
are found from figures lined up under period headers, columns from a gutter no word
crosses. pdfplumber gives lines and their characters; this keeps what those readers need.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

BOLD_FONT = re.compile(r"(?i)bold|black|heavy|semibold|demi")
_CID = re.compile(r"\(cid:\d+\)")
_LIGATURES = str.maketrans({"ﬁ": "fi", "ﬂ": "fl", "ﬀ": "ff", "ﬃ": "ffi", "ﬄ": "ffl", "\xa0": " "})
_WORD = re.compile(r"[A-Za-z]+")
_ROMAN = re.compile(r"^[IVX]{1,3}$")


@dataclass(frozen=True)
class Word:
    text: str
    x0: float
    x1: float
    bold: bool


@dataclass
class Line:
    text: str
    page: int
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool
    lead: str  # leading bold run when the rest of the line is not bold
    words: list[Word] = field(default_factory=list)
    right: float | None = None  # right edge of the column the line is set in, when in one
    contents: bool = False  # on a table-of-contents page: names headings, is not one
    rank: tuple[float, int] = (0.0, 0)  # reading order on its page: (block top, column)

    def __post_init__(self) -> None:
        if self.rank == (0.0, 0):
            self.rank = (self.top, 0)


def line_from(raw: dict[str, Any], page: int) -> Line | None:
    """A Line from one of pdfplumber's `extract_text_lines(return_chars=True)` entries."""
    chars = [c for c in raw["chars"] if c["text"].strip()]
    words = _words(raw["text"], chars)
    text = " ".join(w.text for w in words)
    if not text:
        return None
    bold = [bool(BOLD_FONT.search(c.get("fontname", ""))) for c in chars]
    lead = ""
    if bold[0] and not all(bold):
        lead = _prefix_with(text, sum(len(clean(c["text"])) for c in chars[: bold.index(False)]))
    sizes = sorted(c["size"] for c in chars)
    return Line(
        text=text,
        page=page,
        x0=float(raw["x0"]),
        x1=float(raw["x1"]),
        top=float(raw["top"]),
        bottom=float(raw["bottom"]),
        size=round(float(sizes[len(sizes) // 2]), 1),
        bold=sum(bold) >= 0.8 * len(bold),
        lead=lead,
        words=words,
    )


def sub_line(line: Line, words: list[Word]) -> Line:
    """The part of a line made of some of its words (one column's share of it)."""
    text = " ".join(w.text for w in words)
    lead = line.lead if words and words[0] == line.words[0] else ""
    return Line(
        text, line.page, words[0].x0, words[-1].x1, line.top, line.bottom, line.size,
        all(w.bold for w in words), lead, words,
    )  # fmt: skip


def _words(text: str, chars: list[dict[str, Any]]) -> list[Word]:
    """Split the line's text at its spaces and give every word the box of its characters."""
    words: list[Word] = []
    at = 0
    for piece in text.split():
        used: list[dict[str, Any]] = []
        taken = 0
        while at < len(chars) and taken < len(piece):
            taken += len(chars[at]["text"])
            used.append(chars[at])
            at += 1
        word = clean(piece)
        if word and used:
            bold = sum(1 for c in used if BOLD_FONT.search(c.get("fontname", "")))
            words.append(
                Word(word, float(used[0]["x0"]), float(used[-1]["x1"]), bold * 2 > len(used))
            )
    return words


def _prefix_with(text: str, visible: int) -> str:
    """The start of `text` holding `visible` non-space characters."""
    seen = 0
    for i, ch in enumerate(text):
        if seen == visible:
            return text[:i].strip()
        seen += not ch.isspace()
    return text


def clean(text: str) -> str:
    text = _CID.sub("", text.translate(_LIGATURES)).replace("\xad", "")
    return " ".join(text.split())


def rejoin_split_words(lines: list[Line]) -> None:
    """Undo spaces some PDF producers put inside words ("Balance Shee t", "LIQUIDI TY").

    Two neighbouring pieces are one word when the document spells them together elsewhere
    and at least one piece is not a word the document uses on its own.
    """
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update(w.lower() for w in _WORD.findall(line.text))
    for line in lines:
        merged = _rejoin(line.words, counts)
        if len(merged) != len(line.words):
            line.words = merged
            line.text = " ".join(w.text for w in merged)


def _rejoin(words: list[Word], counts: Counter[str]) -> list[Word]:
    out: list[Word] = []
    for word in words:
        if out and _split_pair(out[-1].text, word.text, counts):
            last = out[-1]
            out[-1] = Word(last.text + word.text, last.x0, word.x1, last.bold and word.bold)
        else:
            out.append(word)
    return out


def _split_pair(left: str, right: str, counts: Counter[str]) -> bool:
    if left.endswith(("’", "'")) and right in ("s", "s.", "s,"):
        return True  # "Registrant’ s"
    if _ROMAN.match(left) and _ROMAN.match(right) and len(left + right) > 2:
        return True  # "PART II I"
    a = re.search(r"[A-Za-z]+$", left)
    b = re.match(r"[A-Za-z]+[.,:;)]?$", right)
    if not a or not b:
        return False
    first, second = a.group().lower(), b.group().rstrip(".,:;)").lower()
    whole = counts.get(first + second, 0)
    alone = min(_alone(first, counts), _alone(second, counts))
    return whole >= 2 and alone * 4 < whole


def _alone(piece: str, counts: Counter[str]) -> int:
    """How often a piece stands as a word of its own ("s" of "3M’s" does not count)."""
    return counts[piece] if len(piece) > 1 or piece in ("a", "i") else 0
