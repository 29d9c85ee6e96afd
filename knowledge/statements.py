"""Financial statements by their names: which one a question asks about, and whether a
table is that statement.

A statement goes by several names ("cash flow statement", "Consolidated Statements of Cash
Flows"), and a measure read off one points to it as surely as its name ("has the quick ratio
improved?" is answered from the balance sheet). A filing prints the statement itself once,
directly under its financial statements; the same title inside a note ("Note 22 Deed of
Cross Guarantee > Consolidated Statements of Income") or for a part of the entity
("Statement of Income for Obligor Group") is a supplementary one.
"""

from __future__ import annotations

import re
from functools import lru_cache

PATH_SEPARATOR = " > "
SUPPLEMENTARY_SHARE = 1 / 3  # what a statement for a part, or inside a note, counts for

# A financial statement goes by several names; a question naming one ("... shown in the
# cash flow statement") is answered under a heading naming it another way ("Consolidated
# Statements of Cash Flows").
_STATEMENTS = {
    "balance": r"(?<!off[- ])balance sheets?"
    r"|statements? of (?:consolidated )?financial (?:position|condition)",
    "income": r"income statements?|statements? of (?:consolidated )?(?:operations|income|earnings)"
    r"|profit and loss|p&l",
    "comprehensive": r"statements? of (?:consolidated )?comprehensive (?:income|loss)",
    "cash": r"cash[- ]flows? statements?|statements? of (?:consolidated )?cash[- ]flows?",
    "equity": r"statements? of (?:changes in )?(?:stockholders|shareholders|owners)['’]? equity"
    r"|equity statements?",
}

# Measures read off one statement: a question about them points to it as surely as one
# naming it ("has the quick ratio improved?" is answered from the balance sheet).
_MEASURES = {
    "balance": r"quick ratio|current ratio|working capital|debt[- ]to[- ]equity"
    r"|total (?:current )?(?:assets|liabilities)|net (?:ppe|pp&e|property, plant)"
    r"|capital[- ]intensi\w+",
    "income": r"(?:gross|operating|net profit|net|ebitda) margins?|gross profit"
    r"|operating income|interest coverage|effective tax rate|capital[- ]intensi\w+",
    "cash": r"free cash ?flows?|capital expenditures?|capex|cash conversion"
    r"|capital[- ]intensi\w+|dividends paid|operating cash flows?",
}
_REVENUE = r"^(?:total )?(?:net )?(?:operating )?(?:revenues?|sales)\b"
_CAPEX = r"capital expenditures?|^(?:purchases?|acquisitions?|additions?) (?:of|to) property"
_CURRENT = (r"^total current assets", r"^total current liabilities")
# The statement lines a measure is computed from, as their labels read: an answer about
# the quick ratio shows cash, receivables and current liabilities, not any line that says
# "ratio". Capital intensity is read as total assets (and capital spending) over revenue.
_INPUTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        r"quick ratio|acid[- ]test",
        (r"^cash and (?:cash )?equivalents", r"receivables?", r"^total current liabilities"),
    ),
    (r"current ratio|working capital", _CURRENT),
    (r"gross (?:profit )?margins?", (r"^gross (?:profit|margin)", _REVENUE)),
    (r"operating (?:profit )?margins?", (r"^(?:total )?operating (?:income|profit)", _REVENUE)),
    (r"net (?:profit )?margins?", (r"^net (?:income|earnings)", _REVENUE)),
    (r"capital[- ]intensi\w+", (r"^total assets", _REVENUE, _CAPEX)),
    (
        r"free cash ?flows?|cash conversion",
        (r"^net cash (?:provided by|from) operating activities", _CAPEX),
    ),
    (r"capital expenditures?|capex", (_CAPEX,)),
    (r"debt[- ]to[- ]equity", (r"^(?:total )?long[- ]term debt", r"^total (?:\w+ )?equity")),
)
# Words one of each statement's names holds, for finding its tables by their headings.
_TITLE_WORDS = {
    "balance": ("balance sheet", "financial position", "financial condition"),
    "income": ("income", "operations", "earnings", "profit and loss"),
    "comprehensive": ("comprehensive",),
    "cash": ("cash flow",),
    "equity": ("equity",),
}
# The words each statement's other names add to a full-text search for it.
_STATEMENT_WORDS = {
    "balance": "balance sheets statement of financial position",
    "income": "income statement statements of operations",
    "comprehensive": "statements of comprehensive income",
    "cash": "statements of cash flows",
    "equity": "statements of shareholders equity",
}


def statement_words(text: str) -> str:
    """The other names of the financial statements `text` names, for full-text search: a
    question about the "statement of financial position" must also match "Balance Sheets"."""
    return " ".join(_STATEMENT_WORDS[k] for k in sorted(statements_asked(text)))


def title_words(asked: frozenset[str]) -> list[str]:
    """Words a heading of one of the `asked` statements holds (a coarse filter: check
    each heading found with `statement_weight`)."""
    return sorted({w for k in asked for w in _TITLE_WORDS[k]})


@lru_cache(maxsize=4096)
def measure_inputs(question: str) -> tuple[re.Pattern[str], ...]:
    """The labels of the statement lines the measures `question` asks about are
    computed from, one pattern per input."""
    found = [
        re.compile(label, re.IGNORECASE)
        for measure, labels in _INPUTS
        if re.search(measure, question, re.IGNORECASE)
        for label in labels
    ]
    return tuple({p.pattern: p for p in found}.values())


@lru_cache(maxsize=4096)
def statements_asked(question: str) -> frozenset[str]:
    """The statements a question names, or whose measures it asks about."""
    measured = (k for k, names in _MEASURES.items() if re.search(names, question, re.I))
    return statements_named(question) | frozenset(measured)


@lru_cache(maxsize=4096)
def statements_named(text: str) -> frozenset[str]:
    """The financial statements `text` names ("balance", "income", "comprehensive", "cash",
    "equity"): comprehensive income is a statement of its own."""
    return frozenset(k for k, names in _STATEMENTS.items() if re.search(names, text, re.I))


# A note or a heading that reports on a statement rather than being it: "Note 22 Deed of
# Cross Guarantee", "Supplemental Balance Sheet Information", "Analysis of the Condensed
# Consolidated Statements of Income", "Amounts recognized in the balance sheets".
_NOTE = re.compile(r"^(?:notes?\s+\d|notes to\b)", re.IGNORECASE)
_ABOUT = re.compile(r"\b(?:analysis|supplement\w*|information|amounts|recogni[sz]ed)\b", re.I)
# "Statement of Income for Obligor Group": a statement for a part of the reporting entity
# (the periods it covers, "for the years ended ...", are no part).
_FOR_PART = re.compile(
    r"\bfor\s+(?!the\s+(?:fiscal\s+)?(?:years?|periods?|quarters?|(?:three|six|nine|twelve)\b)"
    r"|(?:fiscal\s+)?(?:years?|periods?|quarters?)\b)",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def statement_weight(section: str, asked: frozenset[str]) -> float:
    """How surely the table under `section` is the statement asked about: 1 for the
    statement itself, a share for one for a part of the entity or inside a note (a
    guarantor's or the parent's own statement), 0 for any other table."""
    if not asked or not asked & statements_named(section):
        return 0.0
    *above, title = section.split(PATH_SEPARATOR)
    primary = (
        asked & statements_named(title)
        and not any(_NOTE.match(h.strip()) for h in above)
        and not _ABOUT.search(title)
        and not _FOR_PART.search(title)
    )
    return 1.0 if primary else SUPPLEMENTARY_SHARE
