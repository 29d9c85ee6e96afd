"""Structure-aware splitting of rulebook text into chunks that stand alone when retrieved.

A rulebook answer is cited by its clause, so chunks follow the document's own outline
(articles, numbered sections, headings) and only fall back to paragraphs and then sentences
when a section is longer than the embedding model reads (all-MiniLM-L6-v2 stops at 256 word
pieces, roughly 1000 characters). Every chunk starts with its heading path, so a retrieved
chunk still says which clause it comes from.

Loaders turn their format into `Para` and `TableBlock` blocks; this module does the rest.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.loaders.tables import (
    Grid,
    RawTable,
    RenderedRow,
    is_text_grid,
    normalize,
    render,
    text_of_grid,
)

TARGET_CHARS = 1000
MAX_OVERLAP_CHARS = 300
MAX_INTRO_CHARS = 200
PATH_SEPARATOR = " > "

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


@dataclass
class Section:
    path: tuple[Heading, ...]
    blocks: list[Block] = field(default_factory=list)
    pages: PageMarks = ()  # where the heading itself stands


@dataclass(frozen=True)
class Piece:
    """A paragraph or sentence waiting to be packed into a chunk."""

    text: str
    first_page: int | None
    last_page: int | None
    joiner: str  # "\n" before a new paragraph, " " before the next sentence of one


def chunk_document(blocks: Iterable[Block], *, file_name: str) -> list[ChunkDraft]:
    """Split a document's blocks into rulebook and table chunks, in reading order."""
    drafts: list[ChunkDraft] = []
    keys: set[str] = set()
    table_count = 0
    for section in split_sections(blocks):
        for chunk in _prose_chunks(section, file_name):
            drafts.append(_unique(chunk, keys))
        before: Block | None = None
        for block in section.blocks:
            if isinstance(block, TableBlock):
                table_count += 1
                intro = _intro(before)
                for chunk in _table_chunks(block.grid, section, table_count, intro, file_name):
                    drafts.append(_unique(chunk, keys))
            before = block
    return drafts


def _intro(block: Block | None) -> str:
    """The sentence leading into a table ("... upto the limits provided below:").

    Two tables under one heading often share their column headers; the lead-in is what
    tells "room rent limits" from "ICU limits" once a chunk is retrieved on its own.
    """
    if not isinstance(block, Para) or not block.text.rstrip().endswith(":"):
        return ""
    text = " ".join(block.text.split())
    if len(text) > MAX_INTRO_CHARS:
        spans = sentence_spans(text)
        text = text[spans[-1][0] :] if spans else text
    return _clip(text, MAX_INTRO_CHARS)


def split_sections(blocks: Iterable[Block]) -> list[Section]:
    """Group blocks under the heading they belong to.

    A numbered heading with no text of its own is kept when no subsection follows it: a
    clause like "7.18. Expenses on domiciliary hospitalisation" is all in its heading line.
    """
    outline = Outline()
    sections = [Section(())]
    for block in blocks:
        if isinstance(block, Para):
            heading = outline.offer(block)
            if heading is not None:
                sections.append(Section(tuple(outline.path), pages=block.pages))
                if heading.whole:
                    continue
        sections[-1].blocks.append(block)
    return [
        section
        for section, nxt in zip(sections, [*sections[1:], None], strict=True)
        if section.blocks or (section.path and section.path[-1].number and not _opens(section, nxt))
    ]


def _opens(section: Section, nxt: Section | None) -> bool:
    """Whether `nxt` is a subsection of `section`."""
    depth = len(section.path)
    return nxt is not None and len(nxt.path) > depth and nxt.path[:depth] == section.path


def _prose_chunks(section: Section, file_name: str) -> Iterator[ChunkDraft]:
    head = _head(section.path, file_name)
    budget = max(200, TARGET_CHARS - len(head) - 1)
    paras = [b for b in section.blocks if isinstance(b, Para) and b.text.strip()]
    if not section.blocks:
        paras = [Para("", section.pages)]  # a heading that is the whole clause
    pieces = [piece for para in paras for piece in _pieces(para, budget)]
    for n, group in enumerate(_pack(pieces, budget), start=1):
        body = "".join((p.joiner if i else "") + p.text for i, p in enumerate(group))
        first = next((p.first_page for p in group if p.first_page is not None), None)
        last = max((p.last_page for p in group if p.last_page is not None), default=None)
        yield _draft(
            key=f"{_page_key(first)}s{_section_key(section.path)}-c{n}",
            kind=ChunkKind.RULEBOOK,
            text=f"{head}\n{body}".strip(),
            file_name=file_name,
            pages=(first, last),
            section=section.path,
            extra={},
        )


def _table_chunks(
    grid: Grid, section: Section, number: int, intro: str, file_name: str
) -> Iterator[ChunkDraft]:
    head = f"{_head(section.path, file_name)} — table {number}"
    if intro:
        head += f"\n{intro}"
    budget = max(200, TARGET_CHARS - len(head) - 1)
    for n, rows in enumerate(_row_groups(render(grid), budget), start=1):
        pages = [r.page for r in rows if r.page is not None]
        first, last = (min(pages), max(pages)) if pages else (None, None)
        yield _draft(
            key=f"{_page_key(first)}t{number}-r{n}",
            kind=ChunkKind.TABLE,
            text="\n".join([head, *_table_lines(rows)]),
            file_name=file_name,
            pages=(first, last),
            section=section.path,
            extra={"table": number},
        )


def _table_lines(rows: list[RenderedRow]) -> Iterator[str]:
    """Row lines, each run preceded by its context (caption, group, column headers)."""
    context = ""
    for row in rows:
        if row.context and row.context != context:
            yield row.context
        context = row.context
        yield from row.lines


def _row_groups(rows: list[RenderedRow], budget: int) -> Iterator[list[RenderedRow]]:
    """Whole rows per chunk; a row longer than the budget is split between its cells."""
    group: list[RenderedRow] = []
    for row in rows:
        for part in _row_parts(row, budget):
            if group and sum(map(len, _table_lines([*group, part]))) + len(group) > budget:
                yield group
                group = []
            group.append(part)
    if group:
        yield group


def _row_parts(row: RenderedRow, budget: int) -> Iterator[RenderedRow]:
    lines: list[str] = []
    room = budget - len(row.context) - 1
    for line in row.lines:
        if lines and sum(len(x) + 1 for x in lines) + len(line) > room:
            yield RenderedRow(lines, row.page, row.context)
            lines = []
        lines.append(line)
    if lines:
        yield RenderedRow(lines, row.page, row.context)


def _pieces(para: Para, budget: int) -> list[Piece]:
    """The paragraph whole if it fits, else its sentences (and words, for run-on sentences)."""
    text = para.text.strip()
    offset = para.text.find(text)
    if len(text) <= budget:
        return [_piece(para, offset, offset + len(text), "\n")]
    pieces = []
    for i, (start, end) in enumerate(_bounded_spans(text, budget)):
        pieces.append(_piece(para, offset + start, offset + end, " " if i else "\n"))
    return pieces


def _bounded_spans(text: str, budget: int) -> Iterator[tuple[int, int]]:
    for start, end in sentence_spans(text):
        while end - start > budget:
            cut = text.rfind(" ", start, start + budget)
            cut = cut if cut > start else start + budget
            yield start, cut
            start = cut + 1
        yield start, end


def _piece(para: Para, start: int, end: int, joiner: str) -> Piece:
    return Piece(
        para.text[start:end].strip(),
        _page_at(para.pages, start),
        _page_at(para.pages, max(start, end - 1)),
        joiner,
    )


def _page_at(marks: PageMarks, offset: int) -> int | None:
    page = None
    for start, number in marks:
        if start > offset:
            break
        page = number
    return page


def _pack(pieces: list[Piece], budget: int) -> Iterator[list[Piece]]:
    """Greedy packing; a chunk after a split repeats the previous chunk's last sentence."""
    group: list[Piece] = []
    for piece in pieces:
        if group and _size(group) + len(piece.text) + 1 > budget:
            yield group
            overlap = _overlap(group[-1])
            group = [overlap] if overlap and _size([overlap, piece]) <= budget else []
        group.append(piece)
    if group:
        yield group


def _overlap(piece: Piece) -> Piece | None:
    """The chunk's last short paragraph or sentence, repeated at the start of the next one."""
    if len(piece.text) <= MAX_OVERLAP_CHARS:
        return Piece(piece.text, piece.first_page, piece.last_page, "\n")
    spans = sentence_spans(piece.text)
    if not spans:
        return None
    start, end = spans[-1]
    sentence = piece.text[start:end].strip()
    if not sentence or len(sentence) > MAX_OVERLAP_CHARS:
        return None
    return Piece(sentence, piece.last_page, piece.last_page, "\n")


def _size(group: list[Piece]) -> int:
    return sum(len(p.text) + 1 for p in group)


def _head(path: tuple[Heading, ...], file_name: str) -> str:
    if path:
        return PATH_SEPARATOR.join(h.label for h in path)
    return re.sub(r"[_-]+", " ", file_name.rsplit(".", 1)[0]).strip()


def _section_key(path: tuple[Heading, ...]) -> str:
    """The section's place as its numbering shows it: "3.1", "IV.A.1", "V.base-covers"."""
    numbers = [h.number.split()[-1].rstrip(".") for h in path if h.number]  # "Section 4" -> 4
    following = [*numbers[1:], ""] if numbers else []
    parts = [n for n, nxt in zip(numbers, following, strict=True) if not nxt.startswith(f"{n}.")]
    if path and not path[-1].number:
        parts.append(re.sub(r"[^a-z0-9]+", "-", path[-1].title.lower()).strip("-")[:24] or "x")
    return ".".join(parts) or "0"


def _page_key(page: int | None) -> str:
    return f"p{page}-" if page is not None else ""


def _draft(
    *,
    key: str,
    kind: ChunkKind,
    text: str,
    file_name: str,
    pages: tuple[int | None, int | None],
    section: tuple[Heading, ...],
    extra: dict[str, object],
) -> ChunkDraft:
    first, last = pages
    metadata: dict[str, object] = {"file": file_name}
    if first is not None:
        metadata["page"] = first
        if last is not None and last != first:
            metadata["page_end"] = last
    metadata["section"] = PATH_SEPARATOR.join(h.label for h in section)
    metadata.update(extra)
    return ChunkDraft(
        key=key,
        kind=kind,
        text=text,
        title=file_name,
        location=_location(pages, section, extra.get("table")),
        metadata=metadata,
    )


def _location(
    pages: tuple[int | None, int | None], section: tuple[Heading, ...], table: object
) -> str:
    first, last = pages
    parts = []
    if first is not None:
        parts.append(f"pp. {first}–{last}" if last and last != first else f"p. {first}")
    if section:
        parts.append(section[-1].short_label)
    if table is not None:
        parts.append(f"table {table}")
    return ", ".join(parts)


def _unique(draft: ChunkDraft, keys: set[str]) -> ChunkDraft:
    """Keys identify a place; two places that print alike get a counter, in reading order."""
    key, n = draft.key, 1
    while key in keys:
        n += 1
        key = f"{draft.key}-{n}"
    keys.add(key)
    if key == draft.key:
        return draft
    return ChunkDraft(key, draft.kind, draft.text, draft.title, draft.location, draft.metadata)


# --- Outline: which paragraphs are headings, and how they nest --------------------------------

_ROOT_WORDS = re.compile(r"(?i)^(annex(?:ure)?|appendix|schedule|exhibit)\b")
_KEYWORD = re.compile(
    r"(?i)^(section|article|chapter|part|clause|rule)\s+"
    r"(\d{1,3}(?:\.\d{1,3})*|[ivxlc]{1,6}|[a-z])\b\.?\s*[-–—:.]?\s*(.*)$",
    re.S,
)
_DOTTED = re.compile(r"^(\d{1,3}(?:\.\d{1,3})+)\.?\s+(\S.*)$", re.S)
_SINGLE = re.compile(r"^(\d{1,3})[.)]\s+(\S.*)$", re.S)
_BARE = re.compile(r"^(\d{1,3})\s+([A-Z].{0,58})$")
_ROMAN = re.compile(r"^([IVXL]{1,6})[.)]\s+(\S.*)$", re.S)
_UPPER = re.compile(r"^([A-Z])[.)]\s+(\S.*)$", re.S)
_CAPS_LEAD = re.compile(r"^((?:[A-Z][A-Z0-9/&()'’,.-]*\s+)*[A-Z][A-Z0-9/&()'’,.-]+)(?=\s+\S*[a-z])")
_TITLE_END = re.compile(r"\s*(?::|\s[-–—]\s|—|\smeans\b|\sshall mean\b)")
_SUB_MARKER = re.compile(r"^\(?(?:[a-z]|[ivx]{1,4}|\d{1,2})\)\s+|^\((?:[a-z]|[ivx]{1,4})\)\s*")
_DEFINES = re.compile(r"\s(?:means|shall mean)\b")
_MAX_TITLE = 80
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}

Style = tuple[str, int]  # numbering family and depth: ("num", 2) for "3.1"
_PLAIN: Style = ("plain", 0)
_ROOT: Style = ("root", 0)


@dataclass(frozen=True)
class Heading:
    """One level of a section path, e.g. number "3.1" and title "Room rent"."""

    number: str
    title: str
    style: Style = _PLAIN
    value: tuple[int, ...] = ()
    whole: bool = True  # the paragraph is only the heading, so it is not repeated as body
    level: int | None = None  # heading level given by markup

    @property
    def label(self) -> str:
        return f"{self.number} {self.title}".strip()

    @property
    def short_label(self) -> str:
        return _clip(self.label, 60)


@dataclass(frozen=True)
class _Numbering:
    number: str  # as printed, without a trailing dot for arabic numbers: "3.1", "IV.", "A."
    style: Style
    value: tuple[int, ...]
    rest: str  # the text after the number


class Outline:
    """Tracks the current heading path while paragraphs stream past.

    A numbered heading must continue the numbering it belongs to (3.2 after 3.1, 4 after 3),
    which keeps numbered list items and cross-references from becoming sections.
    """

    def __init__(self) -> None:
        self.path: list[Heading] = []
        self._numbered_seen = False
        self._last: dict[Style, tuple[int, ...]] = {}  # numbering can run on across subsections

    def offer(self, para: Para) -> Heading | None:
        """The heading this paragraph opens (and the path updated to it), or None."""
        text = " ".join(para.text.split())
        if not text:
            return None
        if para.level is not None:
            return self._explicit(text, para.level)
        if not para.can_head:
            return None
        return self._numbered(text, para) or self._plain(text, para)

    def _explicit(self, text: str, level: int) -> Heading:
        found = next(iter(_numberings(text)), None)
        if found is None:
            heading = Heading("", _clip(text), ("h", level), (), True, level)
        else:  # its numbering goes on in headings that are only bold or numbered text
            heading = Heading(
                found.number, _clip(found.rest), found.style, found.value, True, level
            )
            self._numbered_seen = True
            self._last[found.style] = found.value
        while self.path and (self.path[-1].level is None or self.path[-1].level >= level):
            self.path.pop()
        self.path.append(heading)
        return heading

    def _numbered(self, text: str, para: Para) -> Heading | None:
        if para.indented and not (para.bold or para.lead):
            return None
        jump = 5 if para.bold or para.lead else 2
        candidates = sorted(_numberings(text), key=lambda n: self._find(n.style) is None)
        for found in candidates:
            if not _capitalised(found):
                continue
            title, whole = _title(found, para)
            where = self._fit(found, jump, whole)
            if where is None:
                continue
            if not self._numbered_seen:
                self._numbered_seen = True
                if found.style[1] == 1:  # titles above "1." or "I." do not own the document;
                    # above "3.1" an unnumbered heading stands in for the missing "3."
                    self.path = [h for h in self.path if h.level is not None]
                    where = len(self.path)
            level = self.path[where].level if where < len(self.path) else None
            del self.path[where:]
            heading = Heading(found.number, title, found.style, found.value, whole, level)
            self.path.append(heading)
            self._last[found.style] = found.value
            return self.path[-1]
        return None

    def _fit(self, found: _Numbering, jump: int, whole: bool = False) -> int | None:
        """Where in the path the heading goes, or None if it breaks the numbering.

        "4.1" right after "3.7" means the "4." heading was missed (often it is only bold
        text): an untitled "4" is put in its place so 4.2, 5 and 5.1 still fit. A line that
        is only a title may also skip a little ("3.2" after "2.2" in an excerpt of a
        rulebook), which a numbered list item carrying text would not.
        """
        family, depth = found.style
        *prefix, last = found.value
        opens = last == 1 or (whole and last <= jump)
        same = self._find(found.style)
        parent = self._find((family, depth - 1)) if depth > 1 else None
        if same is not None:
            *old_prefix, old_last = self.path[same].value
            if old_prefix == prefix:
                return same if 0 < last - old_last <= jump else None
            if parent is None and opens and _next_prefix(old_prefix, prefix, jump):
                return same  # numbered only at this depth: 1.1, 1.2, 2.1
        if parent is not None:
            parent_value = list(self.path[parent].value)
            if parent_value == prefix:
                return parent + 1 if same is None and last <= 2 else None
            if opens and _next_prefix(parent_value, prefix, jump):  # its heading was missed
                self.path[parent] = Heading(
                    ".".join(map(str, prefix)), "", (family, depth - 1), tuple(prefix)
                )
                return parent + 1
            return None
        earlier = self._last.get(found.style)
        runs_on = earlier is not None and _follows(list(earlier), found.value, jump)
        if same is None and (last == 1 or runs_on or not self._numbered_seen):
            return len(self.path)
        return None

    def _find(self, style: Style) -> int | None:
        for i in range(len(self.path) - 1, -1, -1):
            if self.path[i].style == style:
                return i
        return None

    def _plain(self, text: str, para: Para) -> Heading | None:
        if not _looks_like_plain_heading(text, para):
            return None
        root = para.large or bool(_ROOT_WORDS.match(text))
        heading = Heading("", _clip(text.rstrip(":")), _ROOT if root else _PLAIN)
        if root:
            self.path = [h for h in self.path if h.level is not None]
        elif (where := self._find(_PLAIN)) is not None:
            del self.path[where:]
        self.path.append(heading)
        return heading


def _follows(old: list[int], new: tuple[int, ...], jump: int) -> bool:
    return old[:-1] == list(new[:-1]) and 0 < new[-1] - old[-1] <= jump


def _next_prefix(old: list[int], new: list[int], jump: int) -> bool:
    return bool(old) and old[:-1] == new[:-1] and 0 < new[-1] - old[-1] <= jump


def _numberings(text: str) -> list[_Numbering]:
    """Every reading of the text's leading number ("I." may be roman one or the letter I)."""
    if m := _KEYWORD.match(text):
        word, raw = m.group(1).capitalize(), m.group(2)
        value = _keyword_value(raw)
        return [_Numbering(f"{word} {raw}", (word.lower(), len(value)), value, m.group(3))]
    if m := _DOTTED.match(text):
        value = tuple(int(x) for x in m.group(1).split("."))
        return [_Numbering(m.group(1), ("num", len(value)), value, m.group(2))]
    if m := _SINGLE.match(text) or _BARE.match(text):
        return [_Numbering(m.group(1), ("num", 1), (int(m.group(1)),), m.group(2))]
    found = []
    if (m := _ROMAN.match(text)) and (roman := _roman(m.group(1))):
        found.append(_Numbering(m.group(1) + ".", ("roman", 1), (roman,), m.group(2)))
    if m := _UPPER.match(text):
        found.append(
            _Numbering(m.group(1) + ".", ("upper", 1), (ord(m.group(1)) - 64,), m.group(2))
        )
    return found


def _keyword_value(raw: str) -> tuple[int, ...]:
    if raw[0].isdigit():
        return tuple(int(x) for x in raw.split("."))
    if len(raw) > 1 or raw.upper() in "IVX":
        return (_roman(raw) or 1,)
    return (ord(raw.upper()) - 64,)


def _roman(text: str) -> int:
    values = [_ROMAN_VALUES.get(c, 0) for c in text.lower()]
    if not values or 0 in values:
        return 0
    pairs = zip(values, [*values[1:], 0], strict=True)
    return max(0, sum(-v if v < nxt else v for v, nxt in pairs))


def _capitalised(found: _Numbering) -> bool:
    """Headings start with a capital; "1. the receipt of premium" is a list item."""
    rest = _SUB_MARKER.sub("", found.rest.strip(), count=1)  # "17. a) Stem cell ..."
    if not rest:
        return found.style[0] not in ("num", "roman", "upper")
    first = next((c for c in rest if c.isalpha()), "")
    return first.isupper() and not rest[0].isdigit()


def _title(found: _Numbering, para: Para) -> tuple[str, bool]:
    """The title to show, and whether the paragraph is nothing but the heading."""
    rest = _SUB_MARKER.sub("", found.rest.strip(), count=1)
    if len(rest) <= _MAX_TITLE and not _is_sentence(rest):
        if defined := _DEFINES.search(rest):  # "8. DAY CARE TREATMENT means ... which is:"
            return _tidy(rest[: defined.start()]), False
        return _tidy(rest), True
    lead = _strip_number(" ".join(para.lead.split()), found.number)
    if 2 <= len(lead) <= _MAX_TITLE and len(lead) < len(rest):
        return _tidy(lead), False
    if (caps := _CAPS_LEAD.match(rest)) and sum(c.isalpha() for c in caps.group(1)) >= 3:
        return _tidy(caps.group(1)), False
    end = _TITLE_END.search(rest, 0, _MAX_TITLE + 1)
    if end and end.start() >= 3:
        return _tidy(rest[: end.start()]), False
    return _clip(rest, 60), False


def _tidy(title: str) -> str:
    return title.strip().rstrip(":;,.-–— ").strip() or title.strip()


def _is_sentence(text: str) -> bool:
    return text.endswith((".", ";", ",")) and len(text.split()) > 6


def _strip_number(lead: str, number: str) -> str:
    core = number.rstrip(".")
    return lead[len(core) :].lstrip(".) ").strip() if lead.startswith(core) else lead


def _looks_like_plain_heading(text: str, para: Para) -> bool:
    """Short lines set apart by size, weight or capitals (PDFs and text files have no markup)."""
    if len(text) > (120 if para.large else _MAX_TITLE) or text[-1] in ",;":
        return False
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 3 or not (text[0].isalnum() or text[0] in "\"'“("):
        return False
    if para.large or para.bold:
        return not text[0].islower()
    upper = sum(1 for c in letters if c.isupper())
    return not para.indented and upper >= 0.85 * len(letters) and len(text.split()) <= 12


def _clip(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


# --- Sentences ---------------------------------------------------------------------------------

_ABBREVIATIONS = {
    "rs", "no", "nos", "sr", "sl", "viz", "etc", "i.e", "e.g", "cl", "art", "sec", "para",
    "approx", "max", "min", "inc", "ltd", "co", "dr", "mr", "mrs", "ms", "st", "vs", "fig",
    "p", "pp", "vol", "govt", "dept", "u.s", "u.k", "s.i", "a.m", "p.m", "incl", "excl", "ref",
}  # fmt: skip


@lru_cache(maxsize=1)
def _punkt() -> Callable[[str], Iterable[tuple[int, int]]] | None:
    """NLTK's Punkt model from the copy that ships inside llama-index-core; never downloads."""
    import nltk
    from nltk.tokenize.punkt import PunktTokenizer

    spec = find_spec("llama_index.core")
    for location in spec.submodule_search_locations or [] if spec else []:
        cache = str(Path(location) / "_static" / "nltk_cache")
        if cache not in nltk.data.path:
            nltk.data.path.append(cache)
    try:
        tokenizer = PunktTokenizer("english")
    except LookupError:
        return None
    tokenizer._params.abbrev_types.update(_ABBREVIATIONS)
    return tokenizer.span_tokenize


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence boundaries as (start, end) offsets; a regex split if Punkt is unavailable."""
    punkt = _punkt()
    if punkt is not None:
        return list(punkt(text))
    spans, start = [], 0
    for m in re.finditer(r"(?<=[.!?])\s+(?=[A-Z(\"'])", text):
        spans.append((start, m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans
