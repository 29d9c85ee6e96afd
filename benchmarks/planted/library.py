"""Per document, what faults draw on: its names (built once), the sentences of other
documents it does not contain, and how to invent a claim in its style."""

from __future__ import annotations

import random
import re
from functools import cache

from benchmarks.planted.cases import Case, Doc
from benchmarks.planted.claims import invented_figure, invented_rule, strangers
from benchmarks.planted.faults import Setting
from benchmarks.planted.prompt import Prompt
from benchmarks.planted.table_facts import tidy_header
from benchmarks.planted.terms import (
    SIBLINGS,
    Group,
    Inventory,
    policy_inventory,
    table_inventory,
)


class Library:
    def __init__(self, docs: dict[str, Doc]) -> None:
        self.docs = docs
        self.inventory = cache(self._inventory)
        self.strangers = cache(self._strangers)

    def setting(self, case: Case, prompt: Prompt) -> Setting:
        doc = self.docs[case.doc]
        inventory = self.inventory(case.doc)
        if case.source == "policy":
            inventory = inventory.plus(Group(_row_labels(prompt, case.doc), SIBLINGS))

            def invent(rng: random.Random) -> str | None:
                return invented_rule(inventory, rng)

        else:
            years = [h for h in map(tidy_header, doc.headers) if re.fullmatch(r"(?:19|20)\d\d", h)]

            def invent(rng: random.Random) -> str | None:
                return invented_figure(doc.labels, years, rng)

        return Setting(case, prompt, inventory, self.strangers(case.doc), invent)

    def _inventory(self, key: str) -> Inventory:
        doc = self.docs[key]
        return table_inventory(doc) if doc.labels or doc.headers else policy_inventory(doc)

    def _strangers(self, key: str) -> tuple[str, ...]:
        """True sentences of the other documents of the same kind, absent from this one."""
        doc = self.docs[key]
        kind = _kind(doc)
        others = "\n".join(d.text for k, d in self.docs.items() if k != key and _kind(d) == kind)
        return tuple(strangers(others, doc.text))


def _kind(doc: Doc) -> str:
    return "table" if doc.labels or doc.headers else "policy"


def _row_labels(prompt: Prompt, doc: str) -> tuple[str, ...]:
    """Row labels of the document's tables among the prompt's blocks ('Hypertension')."""
    labels: list[str] = []
    for block in prompt.blocks:
        if not block.header.startswith(doc):
            continue
        for line in block.text.splitlines():
            if line.startswith("columns:"):
                continue
            first = line.split(" | ")[0].strip() if " | " in line else ""
            if 1 <= len(first.split()) <= 6 and re.search(r"[A-Za-z]{3}", first):
                labels.append(first)
    return tuple(dict.fromkeys(labels))
