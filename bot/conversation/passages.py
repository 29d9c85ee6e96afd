"""A source cut into the passages a quoted answer can use, each with what it belongs to.

A list item ("ii. Assisted reproduction ... such as IVF") or a table row ("Rs. 5 Lacs and
Above | Limit (Rs.) per day | Actuals") means little alone: it belongs to a clause ("7.14
Sterility and Infertility", "Charges for accommodation in ICU ... upto the limits
below:"). Chunks keep that structure — a heading path on their first line, one paragraph
or list item per line, table context lines — so each passage here carries its context,
both for ranking and for the bullet a user reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from bot.conversation.text import content_words, readable, sentences
from bot.conversation.types import Source

PATH_SEPARATOR = " > "
MAX_CONTEXT_CHARS = 140
_MARKER = re.compile(
    r"^\s*(?:\(?(?:[ivxlc]{1,5}|[a-z]|\d{1,3})[.)]|\d{1,3}(?:\.\d{1,3})+\.?|[-•▪●◦*‣])\s+",
    re.IGNORECASE,
)
_TITLE_NUMBER = re.compile(
    r"^(?:(?:table|part|section|chapter|article|annexure|schedule|note|item)\s+)?"
    r"(?:(?:[A-Z]|[IVXL]{1,6}|\d{1,3}(?:\.\d{1,3})*)[.)]|\d{1,3}(?:\.\d{1,3})*)\s+(?=\w)",
    re.IGNORECASE,
)
_TABLE_SUFFIX = re.compile(r"\s+—\s+table\s+\d+$")


@dataclass(frozen=True)
class Passage:
    source: Source
    rank: int  # the source's place in retrieval order, 0 = best
    text: str  # quoted as is
    context: str  # the clause, lead-in or table it belongs to ("" if it says it itself)
    kind: str  # "sentence" | "item" | "list" | "lead" | "row" | "record"
    position: int  # order inside the source
    label: str = ""  # a table row's label (its first cell)
    path: str = ""  # the whole heading path of the clause, "A > B > C"

    @property
    def path_stems(self) -> frozenset[str]:
        return frozenset(content_words(self.path))

    @property
    def stems(self) -> frozenset[str]:
        return frozenset(content_words(self.text))

    @property
    def context_stems(self) -> frozenset[str]:
        return frozenset(content_words(self.context)) - self.stems

    def shown(self) -> str:
        """The bullet: the passage, led by its context when it would not stand alone."""
        if not self.context or self.kind in ("sentence", "list", "lead", "record"):
            return self.text
        lead = self.context if self.context.endswith(":") else f"{self.context}:"
        return f"{lead} {self.text}"


@dataclass(frozen=True)
class _Head:
    title: str  # the clause's own heading, numbering removed
    parent: str  # the heading above it
    path: str = ""  # all of it


def passages(source: Source, rank: int) -> list[Passage]:
    """Every passage of `source` in reading order."""
    if source.kind not in ("rulebook", "table"):
        text = readable(source.text)
        return [Passage(source, rank, text, "", "record", 0)] if text.strip() else []
    head, body = _split_head(source.text)
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    if source.kind == "table":
        found = _table_passages(source, rank, head, lines)
    else:
        found = _prose_passages(source, rank, head, lines)
    return [replace(p, path=f"{head.path} {p.path}".strip()) for p in found]


def _split_head(text: str) -> tuple[_Head, str]:
    first, _, rest = text.partition("\n")
    if not rest and PATH_SEPARATOR not in first:
        return _Head("", ""), text
    if len(first) >= 200 or first.rstrip().endswith((".", ":", ";")):
        return _Head("", ""), text
    path = _TABLE_SUFFIX.sub("", first.strip()).split(PATH_SEPARATOR)
    title = clean_title(path[-1])
    parent = clean_title(path[-2]) if len(path) > 1 else ""
    return _Head(title, parent, PATH_SEPARATOR.join(path)), rest


def clean_title(heading: str) -> str:
    """A heading as a reader says it: no clause number, no shouting, no ellipsis."""
    text = " ".join(heading.split()).rstrip("…").strip()
    text = _TITLE_NUMBER.sub("", text, count=1)
    letters = [c for c in text if c.isalpha()]
    if letters and sum(c.isupper() for c in letters) > 0.8 * len(letters) and len(letters) > 4:
        text = text[:1] + text[1:].lower()
    return text.strip(" :-–—")


def _table_passages(source: Source, rank: int, head: _Head, lines: list[str]) -> list[Passage]:
    intro: list[str] = []  # the lines over the rows: lead-in, captions or a group label
    columns = ""
    out: list[Passage] = []
    row_last = False
    for line in lines:
        if line.startswith("columns:") or "; columns:" in line:
            columns = line  # shown with no row, but says what the table measures
            continue
        # a numbered list set as a table ("Sl | Item") has rows with one cell: "17. Glucometer"
        listed = bool(columns) and _MARKER.match(line) is not None
        if " | " not in line and not listed:
            intro = [line] if row_last else [*intro, line]
            row_last = False
            continue
        row_last = True
        group = columns.rpartition("; columns:")[0] if listed else ""  # "" with no group
        context = _table_context(head.title, [*intro, group] if group else intro)
        label = line.split(" | ", 1)[0]
        out.append(Passage(source, rank, line, context, "row", len(out), label, columns))
    return out


def _table_context(title: str, intro: list[str]) -> str:
    """What the rows below `intro` are: the sentence leading into them, or the clause's
    title, then the captions that date or scale them ("December 31", "(in thousands)"), as
    much as fits with the line nearest the rows."""
    parts = intro if any(x.endswith(":") for x in intro) else [title, *intro]
    kept: list[str] = []
    for part in reversed([x.rstrip(" ,;") for x in parts if x.strip()]):
        if kept and len(part) + sum(len(x) + 1 for x in kept) > MAX_CONTEXT_CHARS:
            break
        kept.insert(0, part)
    return _short(" ".join(kept))


def _prose_passages(source: Source, rank: int, head: _Head, lines: list[str]) -> list[Passage]:
    out: list[Passage] = []
    run = _ListRun()
    for line in lines:
        marker = _MARKER.match(line)
        if not marker:
            run.close(out, source, rank, head)
            said, lead = _split_lead(line)
            run = _ListRun(lead=lead or line)
            for sentence in said:
                out.append(Passage(source, rank, sentence, head.title, "sentence", len(out)))
            if lead:
                out.append(Passage(source, rank, lead, head.title, "lead", len(out)))
            continue
        item = line[marker.end() :].strip()
        style = _style(marker.group(0))
        if run.lead_style and style == run.lead_style:  # a sibling of the lead: run over
            run.close(out, source, rank, head)
            run = _ListRun()
        context = run.context_for(style, head, item)
        said, lead = _split_lead(item)
        for piece in said if lead else _pieces(item):
            out.append(Passage(source, rank, piece, context, "item", len(out)))
        if lead:
            out.append(Passage(source, rank, lead, context, "lead", len(out)))
            run.close(out, source, rank, head)
            run = _ListRun(lead=lead, lead_style=style)
            continue
        run.add(item, style)
    run.close(out, source, rank, head)
    return out


def _split_lead(text: str) -> tuple[list[str], str]:
    """A paragraph's sentences, and its last one apart when it leads into a list
    ("... provided that:"): a lead-in is quoted with what it leads into."""
    found = sentences(text)
    if not found or not found[-1].endswith(":"):
        return found, ""
    lead = found.pop()
    if len(lead) < 40 and found:  # "This includes:" says nothing without what precedes it
        lead = f"{found.pop()} {lead}"
    return found, lead


@dataclass
class _ListRun:
    """Items following a lead-in ("... the following documents:"), possibly nested."""

    lead: str = ""
    lead_style: str = ""  # the marker style of a lead that is itself an item
    items: list[str] = field(default_factory=list)
    last_style: str = ""
    group: str = ""  # an outer item heading inner ones ("ii. 36 Months waiting period")
    group_style: str = ""

    def context_for(self, style: str, head: _Head, item: str) -> str:
        if style == self.group_style:
            self.group = ""
        nested = self.last_style and style != self.last_style and self.items
        if nested and _is_label(self.items[-1]):
            self.group, self.group_style = self.items[-1], self.last_style
        if self.group:
            return _joined(head.title, self.group)
        if self.lead:
            return _lead_context(self.lead, head)
        return _item_context(head, item)

    def add(self, item: str, style: str) -> None:
        self.items.append(item)
        self.last_style = style

    def close(self, out: list[Passage], source: Source, rank: int, head: _Head) -> None:
        if self.lead and len(self.items) >= 2:
            lead = self.lead if self.lead.endswith((":", ".", ";")) else f"{self.lead}:"
            whole = f"{lead} {'; '.join(self.items)}"
            out.append(Passage(source, rank, whole, head.title, "list", len(out)))


def _lead_context(lead: str, head: _Head) -> str:
    """A long lead-in would bury the item after it: the clause title stands in."""
    return lead if len(lead) <= MAX_CONTEXT_CHARS or not head.title else head.title


def _style(marker: str) -> str:
    core = marker.strip().strip("()").rstrip(".)")
    if core.isdigit() or re.fullmatch(r"\d+(?:\.\d+)+\.?", core):
        return "arabic"
    if re.fullmatch(r"[ivxlc]+", core):
        return "roman"
    if re.fullmatch(r"[IVXLC]+", core):
        return "ROMAN"
    if core.isalpha():
        return "letter" if core.islower() else "LETTER"
    return "bullet"


def _is_label(item: str) -> bool:
    """A short item without a full stop can head a sub-list ("36 Months waiting period")."""
    return len(item) <= 80 and not item.rstrip().endswith((".", ";", ","))


def _joined(title: str, group: str) -> str:
    return f"{title} — {group}" if title else group


def _item_context(head: _Head, item: str) -> str:
    """What an item without a lead-in belongs to: its clause, or — when the clause's
    heading is the item itself ("24 Dental treatment ...") — the heading above."""
    if head.title and _starts_alike(item, head.title):
        return head.parent
    return head.title


def _starts_alike(item: str, title: str) -> bool:
    a = item.lower().split()[:4]
    b = title.lower().split()[:4]
    return bool(a) and a == b[: len(a)]


def _pieces(item: str) -> list[str]:
    """An item quoted whole, or sentence by sentence when it is a paragraph."""
    found = sentences(item)
    return [item] if len(item) <= 400 or len(found) <= 1 else found


def _short(text: str) -> str:
    if len(text) <= MAX_CONTEXT_CHARS:
        return text
    cut = text[:MAX_CONTEXT_CHARS].rsplit(" ", 1)[0]
    return cut.rstrip(",;") + " …"
