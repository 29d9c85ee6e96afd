"""Names a document uses that can stand in for each other: items of one of its lists
(diseases, documents, exclusions), its capitalised defined terms grouped by head word,
its parties, a table's row labels and column headers. An entity swap replaces one with
another of the same group, so the swapped answer still reads as the document's own."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from benchmarks.planted.cases import Doc
from benchmarks.planted.table_facts import tidy_header

_ITEM = re.compile(r"^\s*(?:\d{1,2}|[ivx]{1,4}|[a-h])[.)]\s+([A-Z][^\n]{2,70})$", re.MULTILINE)
_TITLE = re.compile(r"\b[A-Z][a-z]+(?:[- ](?:of |and )?[A-Z][a-z]+){1,3}\b")
_OPENERS = frozenset((
    "The", "In", "If", "Any", "This", "Such", "Page", "For", "All", "Where", "When", "Under",
    "No", "On", "At", "As", "An", "To", "Of", "Or", "And", "Each", "Our", "We", "Its", "It",
    "These", "Those", "There", "Total", "Net",
))  # fmt: skip
_DANGLING = frozenset(("for", "of", "and", "or", "to", "with", "the", "a", "an", "in", "on", "by"))
# Names of one kind: swapping within a group keeps the sentence plausible. ("Insurer" is
# the Company under another name, so it is no swap for it.)
LEXICON = (
    ("Company", "TPA"),
    ("Insured Person", "Policyholder", "Proposer", "Nominee"),
    ("Hospital", "Network Provider", "Day Care Centre"),
    ("Cumulative Bonus", "No Claim Discount"),
    ("AYUSH Treatment", "Day Care Treatment", "Domiciliary Hospitalisation", "Modern Treatment"),
    ("Maternity", "Cataract", "Organ Donor", "Ambulance", "Health Check-up"),
    ("Room Rent", "Intensive Care Unit"),
    ("Pre-hospitalisation", "Post-hospitalisation"),
    ("revenue", "net income", "operating income", "gross profit", "gross margin", "net loss"),
    ("operating expenses", "cost of revenues", "cost of sales", "interest expense"),
    ("cash flow", "free cash flow", "operating cash flow"),
    ("goodwill", "intangible assets", "deferred revenue", "inventories", "receivables"),
    ("depreciation", "amortization"),
    ("research and development", "sales and marketing", "general and administrative"),
)
SIBLINGS = 3  # a table row label is swapped for one at most this many rows away


@dataclass(frozen=True)
class Group:
    names: tuple[str, ...]
    reach: int = 0  # 0: any member; else only members this close in order
    kind: str = ""  # "list" for the items of one of the document's lists


@dataclass(frozen=True)
class Inventory:
    groups: tuple[Group, ...]

    def alternatives(self, name: str) -> list[str]:
        key = name.lower()
        out: list[str] = []
        for group in self.groups:
            lowered = [g.lower() for g in group.names]
            if key not in lowered:
                continue
            at = lowered.index(key)
            for i, other in enumerate(group.names):
                near = not group.reach or abs(i - at) <= group.reach
                if i != at and near and other not in out:
                    out.append(other)
        return [o for o in out if key not in o.lower() and o.lower() not in key]

    @property
    def names(self) -> list[str]:
        seen = {n for g in self.groups for n in g.names}
        return sorted(seen, key=len, reverse=True)

    def plus(self, group: Group) -> Inventory:
        return Inventory((*self.groups, group)) if len(group.names) > 1 else self


def policy_inventory(doc: Doc) -> Inventory:
    groups = [Group(g, kind="list") for g in _list_groups(doc.text)]
    groups += [Group(g) for g in _title_groups(doc.text)]
    return Inventory((*groups, *_lexicon(doc.text)))


def table_inventory(doc: Doc) -> Inventory:
    headers = list(dict.fromkeys(h for h in map(tidy_header, doc.headers) if h))
    years = tuple(h for h in headers if re.fullmatch(r"(?:19|20)\d\d", h))
    others = tuple(h for h in headers if h not in years)
    groups = [Group(doc.labels, SIBLINGS), Group(years), Group(others)]
    return Inventory((*(g for g in groups if len(g.names) > 1), *_lexicon(doc.text)))


def _lexicon(text: str) -> list[Group]:
    out = []
    for kind in LEXICON:
        present = tuple(n for n in kind if re.search(rf"\b{re.escape(n)}\b", text, re.I))
        if len(present) > 1:
            out.append(Group(present))
    return out


def _list_groups(text: str) -> list[tuple[str, ...]]:
    """Runs of short numbered items close together in the text: one list each."""
    text = re.sub(r"[ \t]+(?=\d{1,2}\.\s+[A-Z])", "\n", text)
    groups: list[list[str]] = []
    last_line = -10
    for m in _ITEM.finditer(text):
        raw = m.group(1).strip()
        item = re.split(r"\s*[(;,]|\s{2,}", raw)[0].strip(" .:")
        if raw.endswith(":") or item.isupper() or re.search(r"\d", item):
            continue
        if item.split()[-1].lower() in _DANGLING or item.lower().startswith("list of"):
            continue
        if not 1 <= len(item.split()) <= 5:
            continue
        line = text.count("\n", 0, m.start())
        if line - last_line > 3 or not groups:
            groups.append([])
        groups[-1].append(item)
        last_line = line
    return [tuple(dict.fromkeys(g)) for g in groups if len(set(g)) >= 3]


def _title_groups(text: str) -> list[tuple[str, ...]]:
    """Defined terms ('Grace Period', 'Policy Period') grouped by their head word."""
    counts = Counter(t for t in _TITLE.findall(text) if t.split()[0] not in _OPENERS)
    frequent = [t for t, n in counts.items() if n >= 2 and len(t) <= 40]
    by_head: dict[str, list[str]] = {}
    for term in frequent:
        by_head.setdefault(term.split()[-1].lower(), []).append(term)
    return [tuple(g) for g in by_head.values() if len(g) >= 2]
