"""A connector over documents held in memory, each with its own access list: an open staff
handbook and an executive pay page only the finance group may read."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from knowledge.access import EVERYONE
from knowledge.ingest.connectors.base import Changes, Fetched, Item, NotModified

HANDBOOK_ID = "https://intranet.example/handbook"
PAY_ID = "https://intranet.example/pay/executive"
HANDBOOK = """# Staff handbook

## Annual leave

Staff get 24 days of annual leave each year.

## Salary reviews

Salaries are reviewed every April by line managers.
"""
PAY = """# Executive pay

## Executive salary bands

The executive salary band tops out at 412,000 euros per year.
"""
SECRET = "412,000"  # what only readers of the pay page may see
FINANCE = ("group:finance-team-id",)
QUESTION = "What is the executive salary band?"


@dataclass
class Shelf:
    docs: dict[str, tuple[str, str, tuple[str, ...]]] = field(default_factory=dict)
    key: str = "memory:shelf"
    concurrency: int = 1
    fetched: list[str] = field(default_factory=list)

    def list_items(self) -> list[Item]:
        return [
            Item(doc_id, _version(text), doc_id, access, title, "text/markdown")
            for doc_id, (title, text, access) in self.docs.items()
        ]

    def changes(self, cursor: str | None) -> Changes | None:
        return None

    def fetch(self, item: Item, known: str | None) -> Fetched | NotModified:
        if known == item.version:
            return NotModified(known)
        self.fetched.append(item.id)
        title, text, _ = self.docs[item.id]
        return Fetched(text.encode(), "text/markdown", item.version, title)


def shelf(pay_access: tuple[str, ...] = FINANCE) -> Shelf:
    return Shelf(
        {
            HANDBOOK_ID: ("Staff handbook", HANDBOOK, (EVERYONE,)),
            PAY_ID: ("Executive pay", PAY, pay_access),
        }
    )


def _version(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]
