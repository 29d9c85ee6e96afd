"""Fluent claims a document does not support: true sentences of another document (the other
policy, another company's report), or rules and figures invented in the document's style
from its own names."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from benchmarks.planted.prompt import tokens
from benchmarks.planted.terms import Inventory

_SENTENCE = re.compile(r"(?<=[a-z0-9)][.;])\s+(?=[A-Z])")
_NOISE = re.compile(r"\b(?:page|uin|irdai reg|www|http|cin|registered office|toll free)\b", re.I)
_TRAILER = re.compile(r"(?:\s+(?:\d+(?:\.\d+)*|[ivxIVX]+|[a-h])\.?)+$")  # page or clause numbers
_RULE = re.compile(r"\b(?:shall|will|must|is|are|was|were|may)\b")
SHINGLE = 4
FOREIGN_SHARE = 0.4  # a 'stranger' shares at most this share of 4-word runs with the document
TOPICAL = 15  # pick among the sentences closest to the question

_POLICY_TEMPLATES = (
    "Claims for {item} are admissible only after {months} months of continuous coverage, "
    "even when they arise from an accident",
    "A co-payment of {pct}% applies to every claim for {item} in the first two policy years",
    "Expenses for {item} are limited to {pct}% of the Sum Insured, subject to a maximum of "
    "Rs. {amount} per policy period",
    "The {party} must be informed at least {hours} hours before any planned admission for {item}",
    "Treatment of {item} is payable only in a network hospital; elsewhere {pct}% of the "
    "admissible claim is deducted",
    "Claims for {item} must be filed within {days} days of discharge, failing which they will "
    "not be admitted",
    "The {term} is reduced by {pct}% for every claim made during the policy period",
    "Pre-authorisation for {item} stays valid for {days} days from the date it is approved",
)
_REPORT_TEMPLATES = (
    "{Label} {moved} {pct}% year over year, mainly because of {direction} {other}",
    "Management expects {label} to {trend} further in {next_year}",
    "{Label} in {year} included a one-time charge of ${small} million related to restructuring",
    "The change in {label} was driven primarily by foreign currency movements",
    "{Label} is reported net of a ${small} million valuation allowance",
    "About {pct}% of {label} came from customers outside the United States in {year}",
    "{Label} was reduced by a ${small} million impairment recorded in the fourth quarter of {year}",
    "{Label} excludes ${small} million of items reclassified to discontinued operations",
)


def strangers(text: str, own: str) -> list[str]:
    """Rule-like sentences of `text` (another document) that `own` does not contain."""
    flat = " ".join(text.split())
    runs = _runs(own)
    out = []
    for sentence in _SENTENCE.split(flat):
        sentence = _TRAILER.sub("", sentence.strip())
        if not sentence.endswith(".") or not _clean(sentence):
            continue
        sentence = sentence.rstrip(".")
        mine = _runs(sentence)
        if mine and len(mine & runs) <= FOREIGN_SHARE * len(mine):
            out.append(sentence)
    return out


def _clean(sentence: str) -> bool:
    """A whole sentence that reads as a rule: no heading glued to its start, no list
    lead-in, no page furniture."""
    words = sentence.split()
    if not 12 <= len(words) <= 40 or _NOISE.search(sentence) or not _RULE.search(sentence):
        return False
    if re.search(r"[:–•]|\s-\s", sentence) or not re.match(r"[A-Z][a-z]", sentence):
        return False
    if all(w[:1].isupper() for w in words[:3]):  # 'Payment of Claim All claims ...'
        return False
    return sum(c.isalpha() for c in sentence) >= 0.7 * len(sentence)


def _runs(text: str) -> set[tuple[str, ...]]:
    words = tokens(text)
    return {tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


def topical(sentences: Sequence[str], question: str, rng: random.Random) -> str | None:
    """One of the sentences nearest the question in words (an extra claim on topic)."""
    asked = {w for w in tokens(question) if len(w) > 3}
    ranked = sorted(sentences, key=lambda s: -len(asked & set(tokens(s))))
    return rng.choice(ranked[:TOPICAL]) if ranked else None


def invented_rule(inventory: Inventory, rng: random.Random) -> str | None:
    """An insurance rule in the policy's words that the policy does not state."""
    items = [
        n
        for g in inventory.groups
        if g.kind == "list"
        for n in g.names
        if len(n.split()) <= 4 and n[:1].isupper()
    ]
    parties = [n for n in ("TPA", "Company", "Insurer") if n in inventory.names]
    if not items:
        return None
    template = rng.choice(_POLICY_TEMPLATES)
    return template.format(
        item=_lower(rng.choice(items)),
        party=rng.choice(parties or ["TPA"]),
        term=rng.choice(["Sum Insured", "Cumulative Bonus", "renewal discount"]),
        months=rng.choice([6, 12, 18, 30, 42]),
        pct=rng.choice([5, 10, 15, 20, 30]),
        amount=rng.choice(["10,000", "20,000", "25,000", "75,000", "1,00,000"]),
        hours=rng.choice([12, 36, 72, 96]),
        days=rng.choice([7, 10, 21, 45, 90]),
    )


def invented_figure(labels: Sequence[str], years: Sequence[str], rng: random.Random) -> str:
    """A reporting claim about the table's own rows that the report does not make."""
    named = [x for x in labels if len(x.split()) >= 2 and not re.search(r"%|percent", x, re.I)]
    label = rng.choice(named or ["revenue"])
    other = rng.choice([x for x in named if x != label] or ["operating costs"])
    year = rng.choice(list(years) or ["2019"])
    up = rng.random() < 0.5
    text = rng.choice(_REPORT_TEMPLATES).format(
        Label=label,
        label=_lower(label),
        other=_lower(other),
        moved="rose" if up else "fell",
        direction="higher" if up else "lower",
        trend="increase" if up else "decline",
        pct=rng.choice([3, 4, 6, 8, 12, 15, 18, 22]),
        small=rng.choice(["1.4", "2.7", "3.9", "5.2", "8.6", "12.5"]),
        year=year,
        next_year=str(int(year) + 1) if year.isdigit() else "the coming year",
    )
    return text[0].upper() + text[1:]


def _lower(name: str) -> str:
    """Lower-case a common name; keep acronyms and proper names ('AYUSH', 'North America')."""
    words = name.split()
    if any(w.isupper() and len(w) > 1 for w in words):
        return name
    if len(words) > 1 and all(w[:1].isupper() for w in words if len(w) > 3):
        return name
    return name[0].lower() + name[1:]
