"""Markdown, HTML and plain-text rulebooks as paragraphs and tables.

Markdown and HTML say outright which lines are headings and which cells are table headers;
plain text does not, so its lines are grouped into paragraphs here and the numbered or
capitalised heading lines are left to the outline detection in `knowledge.reading.outline`.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from pathlib import Path

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from markdown_it import MarkdownIt
from markdown_it.token import Token

from knowledge.errors import SourceError
from knowledge.reading.blocks import Block, Para, table_blocks
from knowledge.reading.loaders.tables import RawTable

_BLOCK_TAGS = {"p", "pre", "blockquote", "dt", "dd", "caption", "figcaption", "address"}
_CONTAINER_TAGS = {
    "html", "body", "main", "article", "section", "div", "header", "footer", "aside", "nav",
    "form", "fieldset", "figure", "details", "summary", "center", "dl", "ul", "ol", "li",
}  # fmt: skip
_DROPPED_TAGS = ["script", "style", "noscript", "template", "head", "svg"]
_HEADING_TAG = re.compile(r"^h([1-6])$")
_LIST_MARKER = re.compile(
    r"^(\(?\d{1,3}[.)]|\d{1,3}(\.\d{1,3})+\.?|\(?[a-zA-Z][.)]|\(?[ivxlcIVXLC]{1,6}[.)]|[-•*–])\s"
)
_NUMBERED = re.compile(r"^(\d{1,3}(\.\d{1,3})*\.?|[IVXL]{1,6}\.|[A-Z]\.)\s+\S")
_UNDERLINE = re.compile(r"^(=+|-+)$")
_ATX = re.compile(r"^(#{1,6})\s+(.*?)\s*#*$")


def read_markdown(path: Path) -> list[Block]:
    """Blocks of a Markdown file: # headings, paragraphs, list items, pipe tables."""
    parser = MarkdownIt("commonmark").enable("table")
    return list(_markdown_blocks(parser.parse(_read_text(path))))


def read_html(path: Path) -> list[Block]:
    """Blocks of an HTML page: h1–h6 headings, paragraphs, list items, tables."""
    soup = BeautifulSoup(_read_text(path), "html.parser")
    for tag in soup(_DROPPED_TAGS):
        tag.decompose()
    for br in soup("br"):
        br.replace_with("\n")
    for tag in soup([*_BLOCK_TAGS, *_CONTAINER_TAGS, "tr", "td", "th", "h1", "h2", "h3", "h4"]):
        tag.insert_after("\n")  # so get_text() separates blocks but not inline <b> or <a>
    return list(_html_blocks(soup.body or soup))


def read_text(path: Path) -> list[Block]:
    """Blocks of a plain-text file: paragraphs split at blank lines, list items and headings."""
    return list(_text_blocks(_read_text(path).splitlines()))


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16")
    if b"\x00" in data[:4096]:
        raise SourceError(
            str(path),
            "this is not a text file (it contains binary data); export the document as "
            "UTF-8 text, Markdown or HTML and ingest that",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")  # older Windows exports


# --- Markdown ----------------------------------------------------------------------------------


def _markdown_blocks(tokens: list[Token]) -> Iterator[Block]:
    lists: list[str] = []  # open lists: "" for bullets, the number delimiter for ordered
    prefix = ""
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open":
            yield Para(_inline_text(tokens[i + 1]), level=int(token.tag[1]))
            i += 2
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            lists.append(token.markup if token.type == "ordered_list_open" else "")
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif token.type == "list_item_open":
            prefix = f"{token.info}{lists[-1]} " if lists and lists[-1] else "- "
        elif token.type == "paragraph_open":
            yield _markdown_paragraph(tokens[i + 1], prefix, in_list=bool(lists))
            prefix = ""
            i += 2
        elif token.type in ("fence", "code_block") and token.content.strip():
            yield Para(token.content.strip(), can_head=False)
        elif token.type == "html_block":
            text = BeautifulSoup(token.content, "html.parser").get_text(" ", strip=True)
            if text:
                yield Para(text, can_head=False)
        elif token.type == "table_open":
            end = next(j for j in range(i, len(tokens)) if tokens[j].type == "table_close")
            yield from table_blocks(_markdown_table(tokens[i:end]))
            i = end
        i += 1


def _markdown_paragraph(inline: Token, prefix: str, *, in_list: bool) -> Para:
    children = inline.children or []
    bold = (
        bool(children)
        and children[0].type == "strong_open"
        and children[-1].type == ("strong_close")
    )
    return Para(prefix + _inline_text(inline), bold=bold and not in_list, can_head=not in_list)


def _inline_text(inline: Token) -> str:
    if not inline.children:
        return " ".join(inline.content.split())
    parts = []
    for child in inline.children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return " ".join("".join(parts).split())


def _markdown_table(tokens: list[Token]) -> RawTable:
    rows: list[list[str | None]] = []
    header_rows = 0
    in_head = False
    for i, token in enumerate(tokens):
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            rows.append([])
            header_rows += in_head
        elif token.type in ("th_open", "td_open"):
            rows[-1].append(_inline_text(tokens[i + 1]))
    if header_rows and not any(c.strip() for row in rows[:header_rows] for c in row if c):
        # Markdown must have a header row; an empty one names nothing, so the column
        # names, if any, are in the first rows of the body ("Year Ended May 31," / "2019")
        return RawTable(rows[header_rows:])
    return RawTable(rows, header_rows=header_rows)


# --- HTML --------------------------------------------------------------------------------------


def _html_blocks(node: Tag) -> Iterator[Block]:
    inline: list[str] = []  # loose text and inline tags between block elements
    for child in node.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            inline.append(str(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name.lower()
        is_block = name in _BLOCK_TAGS or name in _CONTAINER_TAGS or name == "table"
        if not (is_block or _HEADING_TAG.match(name)):
            inline.append(child.get_text())
            continue
        yield from _loose_text(inline)
        inline = []
        yield from _html_block(child, name)
    yield from _loose_text(inline)


def _html_block(tag: Tag, name: str) -> Iterator[Block]:
    text = " ".join(tag.get_text().split())
    if match := _HEADING_TAG.match(name):
        if text:
            yield Para(text, level=int(match.group(1)))
    elif name == "table":
        yield from table_blocks(_html_table(tag))
    elif name == "li":
        nested = [c for c in tag.find_all(["ul", "ol", "table"], recursive=False)]
        own = "".join(
            c.get_text() if isinstance(c, Tag) else str(c)
            for c in tag.children
            if all(c is not n for n in nested) and not isinstance(c, Comment)
        )
        if own.strip():
            yield Para(f"- {' '.join(own.split())}", can_head=False)
        for sub in nested:
            yield from _html_block(sub, sub.name.lower())
    elif name in _CONTAINER_TAGS:
        yield from _html_blocks(tag)
    elif text:
        yield Para(text, bold=_html_bold(tag))


def _loose_text(parts: list[str]) -> Iterator[Para]:
    text = " ".join(" ".join(parts).split())
    if text:
        yield Para(text)


def _html_bold(tag: Tag) -> bool:
    strong = tag.find(["strong", "b"])
    return strong is not None and strong.get_text(strip=True) == tag.get_text(strip=True)


def _html_table(table: Tag) -> RawTable:
    rows: list[list[str | None]] = []
    header_rows = 0
    carried: dict[int, int] = {}  # column -> rows still covered by a rowspan from above
    for tr in table.find_all("tr"):
        if tr.find_parent("table") is not table:
            continue  # a row of a nested table
        cells = tr.find_all(["td", "th"], recursive=False)
        row = _html_row(cells, carried)
        if len(rows) == header_rows and cells and _is_header_row(tr, cells):
            header_rows += 1
        rows.append(row)
    return RawTable(rows, header_rows=header_rows or None)


def _html_row(cells: list[Tag], carried: dict[int, int]) -> list[str | None]:
    row: list[str | None] = []
    for cell in cells:
        _fill_carried(row, carried)
        span = _int_attr(cell, "colspan")
        down = _int_attr(cell, "rowspan")
        row.extend([cell.get_text().strip(), *[None] * (span - 1)])
        for col in range(len(row) - span, len(row)):
            if down > 1:
                carried[col] = down - 1
    _fill_carried(row, carried)
    return row


def _fill_carried(row: list[str | None], carried: dict[int, int]) -> None:
    while carried.get(len(row), 0) > 0:
        carried[len(row)] -= 1
        row.append(None)


def _int_attr(cell: Tag, name: str) -> int:
    value = cell.get(name)
    try:
        return max(1, int(str(value))) if value is not None else 1
    except ValueError:
        return 1


def _is_header_row(tr: Tag, cells: list[Tag]) -> bool:
    in_head = tr.find_parent("thead") is not None
    return in_head or all(cell.name == "th" for cell in cells)


# --- Plain text --------------------------------------------------------------------------------


def _text_blocks(lines: list[str]) -> Iterator[Block]:
    """Paragraphs at blank lines; list items and short heading lines stand on their own."""
    width = max((len(line.rstrip()) for line in lines), default=0)
    para: list[str] = []
    indented = False
    for i, raw in enumerate(lines):
        line = raw.strip()
        following = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if _UNDERLINE.match(line):
            continue  # consumed with the line it underlines
        if not line:
            yield from _flush(para, indented)
            para = []
            continue
        heading = _text_heading(line, following)
        if heading is not None:
            yield from _flush(para, indented)
            para = []
            yield heading
            continue
        starts = _LIST_MARKER.match(line) or _stands_alone(line, width)
        if para and (starts or _stands_alone(para[-1], width)):
            yield from _flush(para, indented)
            para = []
        if not para:
            indented = raw[:1].isspace()
        para.append(line)
    yield from _flush(para, indented)


def _text_heading(line: str, following: str) -> Para | None:
    if (match := _UNDERLINE.match(following)) and len(following) >= 3:
        return Para(line, level=1 if match.group(0)[0] == "=" else 2)
    if match := _ATX.match(line):
        return Para(match.group(2), level=len(match.group(1)))
    return None


def _stands_alone(line: str, width: int) -> bool:
    """A short numbered or capitalised line is a heading: what follows is a new paragraph."""
    short = len(line) <= max(40, 0.6 * width) and not line.endswith((".", ",", ";"))
    letters = [c for c in line if c.isalpha()]
    caps = bool(letters) and sum(c.isupper() for c in letters) >= 0.85 * len(letters)
    return short and (bool(_NUMBERED.match(line)) or caps)


def _flush(lines: list[str], indented: bool) -> Iterator[Para]:
    if lines:
        yield Para(" ".join(lines), indented=indented)
