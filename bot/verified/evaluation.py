"""Measuring verified-answer matching on a FAQ set in BEIR layout whose corpus titles are
questions and texts their answers: every entry becomes a verified answer in a throwaway
scope, every query is matched as the pipeline matches a rewritten question, and a list of
questions none of them answers measures how often a stranger gets a verified answer.

Queries are split in two halves by a hash of their id (`half`): benchmarks/fit_verified.py
fits the rule on the "fit" half; the "held-out" half is where it is reported.
"""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.conversation.verified import Embed, MatchRule, VerifiedMatcher
from bot.errors import KnowbotError
from bot.store.verified import VerifiedStore
from bot.verified.entries import Entry
from bot.verified.importing import import_entries
from knowledge.evaluation import BeirSet, read_beir

FIT, HELD_OUT = "fit", "held-out"
EVAL_AUTHOR = "knowbot eval"


def half(query_id: str) -> str:
    """Which half a query (or negative question) belongs to: fixed, by a hash of its id."""
    return FIT if zlib.crc32(query_id.encode()) % 2 == 0 else HELD_OUT


@dataclass
class Tally:
    queries: int = 0
    served_right: int = 0
    served_wrong: int = 0
    served_none: int = 0
    negatives: int = 0
    negatives_served: int = 0

    def as_json(self) -> dict[str, float | int | None]:
        served = self.served_right + self.served_wrong
        return {
            "queries": self.queries,
            "served_right": self.served_right,
            "served_wrong": self.served_wrong,
            "served_none": self.served_none,
            "precision": round(self.served_right / served, 4) if served else None,
            "served_right_share": _share(self.served_right, self.queries),
            "served_wrong_share": _share(self.served_wrong, self.queries),
            "negatives": self.negatives,
            "negatives_served": self.negatives_served,
            "negatives_served_share": _share(self.negatives_served, self.negatives),
        }


@dataclass
class VerifiedReport:
    folder: str
    entries: int
    rule: MatchRule
    model: str
    halves: dict[str, Tally] = field(default_factory=lambda: {FIT: Tally(), HELD_OUT: Tally()})

    def total(self) -> Tally:
        out = Tally()
        for t in self.halves.values():
            for name in out.__dataclass_fields__:
                setattr(out, name, getattr(out, name) + getattr(t, name))
        return out

    def as_json(self) -> dict[str, object]:
        return {
            "folder": self.folder,
            "entries": self.entries,
            "model": self.model,
            "rule": self.rule.__dict__,
            "all": self.total().as_json(),
            **{name: t.as_json() for name, t in self.halves.items()},
        }


def faq_entries(data: BeirSet, scope: str) -> tuple[list[Entry], list[str]]:
    """Each corpus entry as a verified answer (its id kept as its source), in corpus order."""
    entries, ids = [], []
    for n, (doc_id, (title, text)) in enumerate(data.corpus.items(), start=1):
        if title.strip() and text.strip():
            entries.append(Entry(n, title.strip(), text.strip(), EVAL_AUTHOR, scope, ()))
            ids.append(doc_id)
    if not entries:
        raise KnowbotError(
            "No corpus entry has both a title (the question) and a text (its answer): "
            "`knowbot eval verified` needs a FAQ set such as covid_faq."
        )
    return entries, ids


def read_negatives(path: Path) -> list[str]:
    if not path.is_file():
        raise KnowbotError(f"--negatives {path} is not a file: give one question a line.")
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def evaluate_verified(
    folder: Path,
    store: VerifiedStore,
    *,
    embed: Embed,
    model: str,
    rule: MatchRule,
    negatives: Sequence[str] = (),
) -> VerifiedReport:
    """Import the FAQ into a throwaway scope, match every query and negative, remove it."""
    data = read_beir(folder)
    scope = f"eval-verified-{uuid.uuid4().hex[:10]}"
    entries, doc_ids = faq_entries(data, scope)
    report = VerifiedReport(str(folder), len(entries), rule, model)
    try:
        ids = import_entries(store, entries, embed=embed, model=model)
        corpus_of = dict(zip(ids, doc_ids, strict=True))
        matcher = VerifiedMatcher(store, embed=embed, model=model, rule=rule)
        for query_id, text in data.queries.items():
            tally = report.halves[half(query_id)]
            tally.queries += 1
            found = matcher.match(text, [scope])
            if found is None:
                tally.served_none += 1
            elif corpus_of[found.id] in data.qrels[query_id]:
                tally.served_right += 1
            else:
                tally.served_wrong += 1
        for question in negatives:
            tally = report.halves[half(question)]
            tally.negatives += 1
            tally.negatives_served += matcher.match(question, [scope]) is not None
    finally:
        store.delete_scope(scope)
    return report


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
