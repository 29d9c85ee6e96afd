"""Questions drawn from the rulebooks themselves, for a deployment nobody has asked anything
yet: a section's heading, phrased by its shape ("Reporting an accident" -> "What is the
process for reporting an accident?", "Annual leave" -> "What does the Staff Handbook say
about annual leave?"). Headings that frame a document rather than rule anything (contents,
cover, index, introduction ...), numbers without a title and contents pages are skipped."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import zip_longest

from bot.store.suggestions import SectionSeen
from knowledge.documents import PATH_SEPARATOR
from knowledge.reading.numbering import numberings

DEFAULT_DOCUMENT = "the policy"
MAX_TITLE_WORDS = 8
MAX_TITLE_CHARS = 70
MAX_DOCUMENT_WORDS = 5

# Headings that frame a document (or pad it) rather than say what it rules.
FRAMING = frozenset(
    {
        "about this document",
        "abbreviations",
        "acknowledgements",
        "acknowledgments",
        "amendments",
        "annex",
        "annexes",
        "appendices",
        "appendix",
        "back cover",
        "background",
        "blank page",
        "change history",
        "change log",
        "contact us",
        "contacts",
        "content",
        "contents",
        "copyright",
        "copyright notice",
        "cover",
        "cover page",
        "definitions",
        "disclaimer",
        "document control",
        "document history",
        "foreword",
        "front cover",
        "general",
        "glossary",
        "index",
        "interpretation",
        "introduction",
        "miscellaneous",
        "notes",
        "other",
        "overview",
        "preface",
        "purpose",
        "references",
        "revision history",
        "schedule",
        "schedules",
        "scope",
        "table of contents",
        "title page",
        "version history",
    }
)
_LABEL_ONLY = re.compile(  # "Section 4", "Appendix B", "3.1", "IV.", "(a)", "Page 7"
    r"^(?:(?i:appendix|annex|schedule|exhibit|attachment|part|section|chapter|article|clause"
    r"|page|p\.)\s*(?:\d[\w.\-]{0,5}|[IVXLC]{1,6}|[A-Z])|[\d.()\-]+|[IVXLC]{1,6}\.?|[A-Z]\."
    r"|\(?[a-z]\))$"
)
_LABEL_LEAD = re.compile(  # "Appendix A: " before the title
    r"^(?i:appendix|annex|schedule|exhibit|attachment)\s+(?:\d[\w.]{0,5}|[IVXLC]{1,6}|[A-Z])"
    r"\s*[-–—:.]?\s+"
)
_SUB_MARKER = re.compile(r"^\(?(?:[a-z]|[ivx]{1,4}|\d{1,3})\)\s+")
_LEADER = re.compile(r"(?:\.{3,}|…|\t)\s*\d{1,4}\s*$")  # "Claims ........ 12"
_CONTENTS_LINE = re.compile(r"(?:\.{3,}|…|\t)\s*\d{1,4}\s*$|\s\d{1,4}$")
_QUESTION_WORDS = frozenset(
    ("what", "how", "when", "where", "who", "why", "which", "can", "do", "does", "is", "are")
)
_DETERMINERS = ("a", "an", "the", "your", "my", "our", "their")
_PARTICLES = ("for", "to", "over", "up", "out", "off", "back")
_GERUND_FOLLOWERS = frozenset((*_DETERMINERS, *_PARTICLES))  # "Reporting an accident"


def section_questions(sections: Iterable[SectionSeen]) -> Iterator[str]:
    """A question for each section worth asking about, in the order given, one per title."""
    seen: set[str] = set()
    for section in sections:
        parts = [p for p in section.path.split(PATH_SEPARATOR) if p.strip()]
        if section.under_title:
            parts = parts[1:] if len(parts) > 1 else []
        if not parts or looks_like_contents(section.opening):
            continue
        title = heading_title(parts[-1])
        if title is None or title.lower() in seen:
            continue
        seen.add(title.lower())
        document = document_name(section.path.split(PATH_SEPARATOR)[0], section.under_title)
        yield phrase(title, document)


def first_section_questions(sections: Sequence[SectionSeen]) -> list[str]:
    """Each rulebook's first question, then each one's second ...: several rulebooks each
    get a say before one of them gets a second (a question two of them raise, once)."""
    by_source: dict[int, list[SectionSeen]] = {}
    for s in sections:
        by_source.setdefault(s.source_id, []).append(s)
    per_source = [list(section_questions(_without_cover(group))) for group in by_source.values()]
    rounds = zip_longest(*per_source)
    return list(dict.fromkeys(q for one_round in rounds for q in one_round if q is not None))


def _without_cover(sections: Sequence[SectionSeen]) -> Sequence[SectionSeen]:
    """A document's sections without its cover: an unheaded first section ("ACME LTD STAFF
    HANDBOOK") before sections that are numbered is the title page, not a topic."""
    if len(sections) < 2 or sections[0].under_title:
        return sections
    tops = [s.path.split(PATH_SEPARATOR)[0] for s in sections]
    numbered = sum(1 for top in tops[1:] if numberings(top))
    if not numberings(tops[0]) and numbered * 2 > len(tops) - 1:
        return sections[1:]
    return sections


def heading_title(label: str) -> str | None:
    """The heading without its number ("3.1 Room rent" -> "Room rent"); None when nothing
    worth asking about is left (a number alone, a framing heading, a sentence)."""
    label = " ".join(label.split())
    if _LABEL_ONLY.match(label):
        return None
    found = numberings(label)
    title = found[0].rest if found else label
    title = _SUB_MARKER.sub("", _LABEL_LEAD.sub("", title.strip()))
    title = title.strip().rstrip(":;,.-–— ").strip()
    letters = sum(c.isalpha() for c in title)
    if (
        letters < 3
        or title.endswith("…")
        or len(title) > MAX_TITLE_CHARS
        or len(title.split()) > MAX_TITLE_WORDS
        or _LEADER.search(title)
        or title.lower().strip("? ") in FRAMING
    ):
        return None
    return title


def document_name(first_heading: str, under_title: bool) -> str:
    """The document a section belongs to as a question names it: its title when every
    section sits under one ("the Staff Handbook"), else "the policy"."""
    if not under_title or numberings(first_heading):
        return DEFAULT_DOCUMENT
    return _the(" ".join(first_heading.split()).strip(" :.")) or DEFAULT_DOCUMENT


def document_question(file_name: str) -> str | None:
    """For a rulebook without headings: "staff-handbook.pdf" -> "What does the staff
    handbook cover?"."""
    stem = re.sub(r"[_\-]+", " ", file_name.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    name = _the(" ".join(stem.split()))
    return f"What does {name} cover?" if name else None


def _the(name: str) -> str | None:
    """A document's name as a sentence says it ("the Staff Handbook"); None when it does
    not read as one (too long, no letters, a framing heading)."""
    if (
        not name
        or len(name.split()) > MAX_DOCUMENT_WORDS
        or not any(c.isalpha() for c in name)
        or name.lower() in FRAMING
    ):
        return None
    name = _quiet(name)
    return name if name.lower().startswith(("the ", "our ", "your ")) else f"the {name}"


def phrase(title: str, document: str = DEFAULT_DOCUMENT) -> str:
    """A question by the heading's shape: a question stays one, "How to claim" asks how,
    an action ("Reporting an accident") asks for the process, a topic asks what the
    document says about it."""
    words = title.split()
    first = words[0].lower()
    if title.endswith("?"):
        return title[0].upper() + title[1:]
    if first == "how" and len(words) > 2 and words[1].lower() == "to":
        return f"How do I {_lower_start(' '.join(words[2:]))}?"
    if first in _QUESTION_WORDS and len(words) > 1:
        return f"{title[0].upper()}{title[1:]}?"
    topic = _lower_start(_quiet(title))
    if first.endswith("ing") and len(words) > 1 and words[1].lower() in _GERUND_FOLLOWERS:
        return f"What is the process for {topic}?"
    return f"What does {document} say about {topic}?"


def looks_like_contents(text: str) -> bool:
    """A contents page: most of its lines end in a page number after dot leaders or a
    gap ("Claims ........ 12")."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    listed = sum(1 for line in lines if _CONTENTS_LINE.search(line) and len(line) > 3)
    return listed >= 3 and listed * 2 >= len(lines)


def _quiet(text: str) -> str:
    """An all-capitals heading in ordinary case ("ROOM RENT" -> "room rent"); words with
    digits ("10-K") keep theirs."""
    if any(c.islower() for c in text):
        return text
    return " ".join(w if any(c.isdigit() for c in w) else w.lower() for w in text.split())


def _lower_start(text: str) -> str:
    """Lower the first word when it is an ordinary capitalised word ("Annual leave"), and
    every word of a title-cased heading ("Annual Leave Policy"); acronyms ("PED") and
    mixed-case names ("iPhone") stay as they are."""
    words = text.split()
    title_cased = len(words) > 1 and all(_capitalised(w) for w in words if len(w) > 3)
    return " ".join(
        w[0].lower() + w[1:] if _capitalised(w) and (i == 0 or title_cased) else w
        for i, w in enumerate(words)
    )


def _capitalised(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return len(letters) > 1 and letters[0].isupper() and all(c.islower() for c in letters[1:])
