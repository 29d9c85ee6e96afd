"""Structure-aware splitting of rulebook text into chunks that stand alone when retrieved.

A rulebook answer is cited by its clause, so chunks follow the document's own outline
(articles, numbered sections, headings) and only fall back to paragraphs and then sentences
when a section is longer than the embedding model reads (all-MiniLM-L6-v2 stops at 256 word
pieces, roughly 1000 characters). Every chunk starts with its heading path, so a retrieved
chunk still says which clause it comes from.

Loaders turn their format into `Para` and `TableBlock` blocks (`knowledge.reading.blocks`); the
outline (`knowledge.reading.outline`) says which are headings; this module does the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from knowledge.documents import PATH_SEPARATOR, ChunkDraft, ChunkKind
from knowledge.reading.blocks import Block, PageMarks, Para, TableBlock
from knowledge.reading.heading_chain import choose_numbered_headings
from knowledge.reading.loaders.tables import Grid, RenderedRow, render
from knowledge.reading.numbering import clip
from knowledge.reading.outline import Heading, Outline
from knowledge.reading.sentences import sentence_spans

TARGET_CHARS = 1000
MAX_OVERLAP_CHARS = 300
MAX_INTRO_CHARS = 200
MAX_CAPTION_CHARS = 60  # "December 31,", "(in millions)": a line over a table, not a sentence
MAX_CAPTIONS = 2


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
        for at, block in enumerate(section.blocks):
            if isinstance(block, TableBlock):
                table_count += 1
                intro = _intro(section.blocks[:at])
                for chunk in _table_chunks(block.grid, section, table_count, intro, file_name):
                    drafts.append(_unique(chunk, keys))
    return drafts


def _intro(before: list[Block]) -> str:
    """The lines leading into a table: the sentence that introduces it ("... upto the
    limits provided below:") and the captions between that and the table ("December 31,",
    "(in millions)").

    Two tables under one heading often share their column headers; the lead-in is what
    tells "room rent limits" from "ICU limits" once a chunk is retrieved on its own, and a
    caption is what dates or scales the figures.
    """
    lines: list[str] = []
    for block in reversed(before):
        text = " ".join(block.text.split()) if isinstance(block, Para) else ""
        if text.endswith(":"):
            return "\n".join([_lead_in(text), *lines])
        if not text or len(text) > MAX_CAPTION_CHARS or text[-1] in ".!?;":
            break
        if len(lines) == MAX_CAPTIONS:
            break
        lines.insert(0, text)
    return "\n".join(lines)


def _lead_in(text: str) -> str:
    if len(text) > MAX_INTRO_CHARS:
        spans = sentence_spans(text)
        text = text[spans[-1][0] :] if spans else text
    return clip(text, MAX_INTRO_CHARS)


def split_sections(blocks: Iterable[Block]) -> list[Section]:
    """Group blocks under the heading they belong to.

    Which numbered paragraphs are headings is chosen over the whole document first, so a
    numbered list cannot take over the outline. A numbered heading with no text of its own
    is kept when no subsection follows it: a clause like "7.18. Expenses on domiciliary
    hospitalisation" is all in its heading line.
    """
    blocks = list(blocks)
    numbered = choose_numbered_headings(blocks)
    outline = Outline()
    sections = [Section(())]
    for i, block in enumerate(blocks):
        if isinstance(block, Para):
            heading = outline.offer(block, numbered=i in numbered, origin=i)
            if heading is not None:
                sections.append(Section(tuple(outline.path), pages=block.pages))
                if heading.whole:
                    continue
        else:
            outline.body()
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
    if grid.caption and all(row.group != grid.caption for row in grid.rows):
        head += f"\n{grid.caption}"  # a scale note ("(Dollars in millions)"), not a group
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
