"""Fit how close in meaning to its question a quoted answer must be to be High, on one half
of the dev questions, and report it on the other half (issue 19: learned, not hand-set).

Run by hand, from the project folder, on a data folder the ablation has filled with the
sets asked for (`python -m benchmarks.ablation --sets ... --ingest-filings` fills it):

    KNOWBOT_DATA_DIR=<folder> python -m benchmarks.fit_quoted [--eval ../shared/eval]
        [--sets policies,financebench,tatqa] [--write]

A quoted answer (no language model) is made of passages picked for the words they share
with the question. Each dev question is answered that way with the closeness rule off;
for every answer rated High, the script notes whether a source it cites holds the
evidence (as `benchmarks.ablation --answers` counts it) and the embedding model's highest
similarity between the question (as searched) and one of its lines, measured as the
pipeline measures it. A threshold demotes to Medium the
High answers below it. For each threshold of the grid, each set's share of right
decisions among its High answers (right answers kept High, wrong ones demoted) is
measured on the `fit` half (questions split by a hash of their text); the threshold with
the best mean over the sets is chosen (ties: the lower one, demoting least), and both
halves are printed. `--write` stores the choice and the numbers behind it under
"quoted" in bot/conversation/checks/support_fitted.json, beside the support threshold.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.ablation import DEFAULT_EVAL, DOC_SETS, _kept, _load, answered
from bot.conversation.checks.meaning import FITTED
from bot.conversation.declining import closeness
from bot.conversation.search_text import search_text
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.search.stages import ALL_STAGES

GRID: list[float | None] = [None, *(round(0.30 + 0.025 * i, 3) for i in range(13))]


@dataclass(frozen=True)
class High:
    """One answer rated High with the rule off."""

    set: str
    fit: bool  # in the fitting half
    right: bool  # a source it cites holds the evidence
    closeness: float  # the question's highest similarity to one of its lines


def collect(services: Services, folder: Path, sets: Sequence[str]) -> list[High]:
    services.pipeline.config = replace(services.pipeline.config, quoted_closeness=False)
    out = []
    for name in sets:
        dev = _load(services, folder, name, ingest=False)
        for question in dev.questions:
            answer, chunks = answered(services, question, ALL_STAGES)
            if answer is None or answer.confidence.value != "High":
                continue
            searched = search_text(answer.rewritten_question)  # as the pipeline measures it
            near = closeness(answer.bullets, partial(services.knowledge.similarity, searched))
            out.append(High(name, _kept(question.text, "fit"), question.found(chunks), near))
        print(f"# {name}: {len(dev.questions)} questions answered", file=sys.stderr, flush=True)
    return out


def per_set(answers: Sequence[High], threshold: float | None) -> dict[str, dict[str, Any]]:
    """Per set: High answers kept and how many of them are right, right and wrong ones
    demoted, and the share of right decisions."""
    out = {}
    for name in dict.fromkeys(a.set for a in answers):
        own = [a for a in answers if a.set == name]
        kept = [a for a in own if threshold is None or a.closeness >= threshold]
        demoted = [a for a in own if a not in kept]
        right = sum(a.right for a in kept) + sum(not a.right for a in demoted)
        out[name] = {
            "high": len(kept),
            "high_right": sum(a.right for a in kept),
            "demoted_wrong": sum(not a.right for a in demoted),
            "demoted_right": sum(a.right for a in demoted),
            "right_decisions": round(right / len(own), 4),
        }
    return out


def mean_right(answers: Sequence[High], threshold: float | None) -> float:
    shares = [s["right_decisions"] for s in per_set(answers, threshold).values()]
    return round(sum(shares) / len(shares), 4) if shares else 0.0


def fit(answers: Sequence[High]) -> dict[str, Any]:
    fitting = [a for a in answers if a.fit]
    check = [a for a in answers if not a.fit]
    means = {str(t): mean_right(fitting, t) for t in GRID}
    best = max(means.values())
    chosen = next(t for t in GRID if means[str(t)] == best)  # ties: the lowest
    return {
        "min_closeness": chosen,
        "fit_mean": means,
        "check_mean": {str(t): mean_right(check, t) for t in GRID},
        "fit": per_set(fitting, chosen),
        "check": per_set(check, chosen),
        "check_without": per_set(check, None),
        "fitted_on": "fit half (questions by text hash) of "
        + ",".join(dict.fromkeys(a.set for a in answers)),
        "script": "benchmarks/fit_quoted.py",
    }


def store(model: str, result: dict[str, Any]) -> None:
    stored = json.loads(FITTED.read_text(encoding="utf-8")) if FITTED.is_file() else {}
    stored.setdefault(model, {})["quoted"] = result
    FITTED.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--sets", default=",".join(DOC_SETS))
    parser.add_argument("--write", action="store_true", help="store the fitted threshold")
    args = parser.parse_args()
    if not args.eval.is_dir():
        sys.exit(f"{args.eval} is missing: the fit measures on ../shared/eval's dev sets")
    with open_services(Settings()) as services:
        answers = collect(services, args.eval, [s.strip() for s in args.sets.split(",")])
        model = services.knowledge.embedding_model
    result = fit(answers)
    print(json.dumps(result, indent=2))
    if args.write:
        store(model, result)
        print(f"written to {FITTED} under {model}")


if __name__ == "__main__":
    main()
