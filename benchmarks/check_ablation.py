"""Which confidence rules earn their place: each rule switched off in turn, on recorded
answers (issue 19).

The retrieval ablation (benchmarks/ablation.py) switches ranking and quoting stages; this
does the same for the rules that decide whether an answer is High. It reads what
`benchmarks.confidence --record` and `benchmarks.written_answers --record` kept (every
answer with what the pipeline scored it with), so nothing is searched again:

    python -m benchmarks.check_ablation RUN.pkl [RUN.pkl ...] [--rules NAME,...]
    python -m benchmarks.check_ablation RUN.pkl [RUN.pkl ...] --sweep NEW_RUN=2,3,4,5,6

`--sweep` scores the records again at each value of one of the support check's constants
(fit it on some records, report it on others: benchmarks/README.md says which).

Printed per rule and per record: faithful answers High, and planted or wrong answers below
High, with the rule switched off ("passes" for a check, "never" for a rescue). A rule that
catches nothing and costs faithful answers does not pay; one that changes nothing on any
record is a candidate for deletion.
"""

from __future__ import annotations

import argparse
import contextlib
import pickle
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks.fit_support import CachedEmbed
from bot.conversation import scoring
from bot.conversation.checks import coverage, support
from bot.conversation.checks.meaning import fitted_meaning
from bot.conversation.scoring import confidence_for, score_answer
from bot.conversation.text import clear_caches
from knowledge.models.embeddings import LocalEmbedder


def _passes(*_: Any, **__: Any) -> bool:
    return True


def _never(*_: Any, **__: Any) -> bool:
    return False


def _nothing(*_: Any, **__: Any) -> set[str]:
    return set()


# rule -> where it lives and what it returns when switched off
RULES: dict[str, tuple[ModuleType, str, Callable[..., Any]]] = {
    "support: says it (words or meaning)": (support, "_says_it", _passes),
    "support: numbers cited": (support, "_numbers_cited", _passes),
    "support: cells": (support, "cells_hold", _passes),
    "support: sibling ids": (support, "conflicts", _never),
    "support: names": (support, "entities", lambda *_, **__: []),
    "support: sibling names": (support, "_sibling_in_place", _never),
    "support: swapped words": (support, "_swapped", _nothing),
    "support: dated as written": (support, "dated_as_written", _passes),
    "support: paired as written": (support, "paired_as_written", _passes),
    "support: dated here": (support, "_dated_here", _passes),
    "support: adds a claim": (support, "_adds_a_claim", _never),
    "coverage: sibling ids": (coverage, "conflicts", _never),
    "coverage: other period": (coverage, "other_period", _never),
    "coverage: words unspoken": (coverage, "_unspoken", _nothing),
    "coverage: rescued by meaning": (coverage, "_rescued", _never),
    "coverage: kind of quantity": (coverage, "_states", _passes),
    "coverage: a level, not a change": (coverage, "_states_level", _passes),
    "coverage: a figure for 'represent'": (coverage, "figure_row", _never),
    "coverage: names spoken": (coverage, "_names_spoken", _passes),
    "qa_continuity": (scoring, "speaks_to_question", _passes),
    "qa_continuity: answers elsewhere": (scoring, "answers_elsewhere", _never),
    "qa_continuity: said elsewhere": (scoring, "said_elsewhere", _never),
    "numbers": (scoring, "numbers_grounded", _passes),
    "not_copied": (scoring, "not_copied", _passes),
    "numeric_sense: directions": (scoring, "directions_agree", _passes),
    "numeric_sense: levels": (scoring, "levels_agree", _passes),
    "polarity": (scoring, "same_polarity", _passes),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path, nargs="+", help="--record outputs")
    parser.add_argument("--rules", default="", help="comma-separated rule names (default all)")
    parser.add_argument("--sweep", default="", help="NAME=v1,v2,...: a support constant")
    args = parser.parse_args()
    if args.sweep:
        _sweep(args.sweep, args.records)
        return
    wanted = [r.strip() for r in args.rules.split(",") if r.strip()] or list(RULES)
    unknown = [r for r in wanted if r not in RULES]
    if unknown:
        parser.error(f"unknown rules {unknown}; choose from: {', '.join(RULES)}")
    records = {path.name: _answers(path) for path in args.records}
    embedder = LocalEmbedder()
    embed = CachedEmbed(embedder.embed_documents)
    for name in ["all rules", *wanted]:
        with _switched_off(name):
            cells = [_tally(items, embed, embedder.model_name) for items in records.values()]
        shown = (f"{record}: {cell}" for record, cell in zip(records, cells, strict=True))
        print(f"{name:38s} | " + " | ".join(shown))


def _sweep(spec: str, paths: Sequence[Path]) -> None:
    """Tally every record at each value of the support constant `spec` names."""
    name, _, values = spec.partition("=")
    if not hasattr(support, name) or not values:
        raise SystemExit(f"--sweep wants NAME=v1,v2,... with NAME a constant of {support.__name__}")
    records = {path.name: _answers(path) for path in paths}
    embedder = LocalEmbedder()
    embed = CachedEmbed(embedder.embed_documents)
    kept = getattr(support, name)
    try:
        for value in values.split(","):
            setattr(support, name, type(kept)(value))
            clear_caches()
            cells = [_tally(items, embed, embedder.model_name) for items in records.values()]
            shown = (f"{record}: {cell}" for record, cell in zip(records, cells, strict=True))
            print(f"{name}={value:8s} | " + " | ".join(shown))
    finally:
        setattr(support, name, kept)


def _answers(path: Path) -> list[tuple[bool, dict[str, Any]]]:
    """(faithful?, score_answer's arguments) for each recorded answer that was scored."""
    out = []
    for item in pickle.loads(path.read_bytes()):
        variant = item["variant"] if isinstance(item, dict) else item.outcome.variant
        inputs = item["inputs"] if isinstance(item, dict) else item.inputs
        if inputs is not None:
            out.append((variant in ("faithful", "answer"), inputs))
    return out


@contextlib.contextmanager
def _switched_off(name: str) -> Iterator[None]:
    if name not in RULES:
        yield
        return
    module, attribute, off = RULES[name]
    kept = getattr(module, attribute)
    setattr(module, attribute, off)
    clear_caches()
    try:
        yield
    finally:
        setattr(module, attribute, kept)
        clear_caches()


def _tally(items: Sequence[tuple[bool, dict[str, Any]]], embed: CachedEmbed, model: str) -> str:
    right: Counter[bool] = Counter()
    total: Counter[bool] = Counter()
    for faithful, inputs in items:
        scores = score_answer(**inputs, meaning=fitted_meaning(embed, model))
        high = confidence_for(scores, has_context=bool(inputs["sources"])).value == "High"
        right[faithful] += high == faithful
        total[faithful] += 1
    kept, caught = f"{right[True]}/{total[True]}", f"{right[False]}/{total[False]}"
    return f"faithful High {kept}, faults below High {caught}"


if __name__ == "__main__":
    main()
