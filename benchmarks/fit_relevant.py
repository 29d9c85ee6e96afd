"""Fit the similarity floor of `relevant` (bot.conversation.context) on one half of the dev
questions and report it on the other (issue 19: learned, not hand-set).

A retrieved chunk reaches the answer when it shares enough of the question's words, is a
top full-text match, names every topic word, or is close enough in meaning: its dense
similarity at least the floor fitted here. Too high a floor drops a passage that answers in
other words than the question's ("depression" asked, "mental illness" written), although
plain dense search ranked it near the top; too low a floor hands the answer whatever came
closest when nothing answers, instead of "I could not find this".

Run by hand, from the project folder, once per data folder the ablation has filled
(FinanceBench's filings usually sit in a folder of their own), then fit on the files:

    KNOWBOT_DATA_DIR=<folder> python -m benchmarks.fit_relevant collect --out a.jsonl
        [--sets policies,tatqa,written] [--questions FILE...] [--eval ../shared/eval]
    KNOWBOT_DATA_DIR=<filings> python -m benchmarks.fit_relevant collect --out b.jsonl
        --sets financebench
    python -m benchmarks.fit_relevant fit a.jsonl b.jsonl [--write]

`collect` answers every question of the sets through the pipeline (quoted answers: no
language model) once per floor of the grid, and notes whether the answer cites the
evidence (as `benchmarks.ablation --answers` counts it). With both `policies` and `tatqa`
it also asks questions of knowledge that never speaks of them (each policy question in
the TAT-QA notes' scope, every 8th TAT-QA question in the policies' scope) and notes
whether the answer says it could not find one. `fit` chooses the floor with the best sum
of the mean share of evidence cited over the answerable sets and the share of off-scope
questions declined, on the `fit` half (questions split by a hash of their text); ties go
to the floor nearest the one in use. The choice replaces the floor in use only if it does
at least as well on the `check` half too: a floor that wins on one half and loses on the
other is fitted to noise. Both halves are printed; `--write` stores the floor kept and the
numbers behind it in knowledge/search/fitted.json as `relevant_min_similarity`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from benchmarks.ablation import (
    DEFAULT_EVAL,
    TATQA_SCOPE,
    DevSet,
    Question,
    _kept,
    _load,
    answered,
)
from bot.conversation import context
from bot.conversation.replies import NOT_FOUND
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.search.fitted import store_fitted
from knowledge.search.stages import ALL_STAGES

GRID = (0.25, 0.3, 0.35, 0.4, 0.45)
OFF_SCOPE = "offscope"
_OFF_SCOPE_EVERY = 8


def off_scope(sets: dict[str, DevSet]) -> list[Question]:
    """Questions asked of the other dev knowledge, which never speaks of their subject."""
    policies = sets["policies"].questions
    notes = sets["tatqa"].questions[::_OFF_SCOPE_EVERY]
    return [Question(q.text, (TATQA_SCOPE,), q.found) for q in policies] + [
        Question(q.text, ("policies",), q.found) for q in notes
    ]


def cached_retrieval(services: Services) -> None:
    """Retrieve each question once: the floor acts on what retrieval returned."""
    retriever = services.knowledge.retriever
    original = retriever.retrieve
    seen: dict[str, Any] = {}

    def retrieve(*args: Any, **kwargs: Any) -> Any:
        key = repr((args, sorted(kwargs.items()), sorted(retriever.stages)))
        if key not in seen:
            seen[key] = original(*args, **kwargs)
        return seen[key]

    retriever.retrieve = retrieve  # type: ignore[method-assign]


def outcomes(
    services: Services, name: str, questions: Sequence[Question]
) -> Iterator[dict[str, Any]]:
    for question in questions:
        for floor in GRID:
            context.MIN_DENSE_SIMILARITY = floor
            answer, chunks = answered(services, question, ALL_STAGES)
            declined = answer is None or answer.bullets[0].text == NOT_FOUND
            good = declined if name == OFF_SCOPE else not declined and question.found(chunks)
            yield {"set": name, "question": question.text, "floor": floor, "good": good}


def collect(
    services: Services, folder: Path, names: Sequence[str], files: Sequence[Path]
) -> list[dict[str, Any]]:
    cached_retrieval(services)
    sets = {n: _load(services, folder, n, ingest=False, files=files) for n in names}
    asked = {n: dev.questions for n, dev in sets.items()}
    if "policies" in sets and "tatqa" in sets:
        asked[OFF_SCOPE] = off_scope(sets)
    rows: list[dict[str, Any]] = []
    for name, questions in asked.items():
        rows += outcomes(services, name, questions)
        print(f"# {name}: {len(questions)} questions", file=sys.stderr, flush=True)
    return rows


def per_set(rows: Sequence[dict[str, Any]], floor: float) -> dict[str, float]:
    """Per set, the share of good outcomes at this floor: evidence cited, or declined."""
    out = {}
    for name in dict.fromkeys(r["set"] for r in rows):
        own = [r["good"] for r in rows if r["set"] == name and r["floor"] == floor]
        out[name] = round(sum(own) / len(own), 4)
    return out


def objective(shares: dict[str, float]) -> float:
    answerable = [v for k, v in shares.items() if k != OFF_SCOPE]
    mean = sum(answerable) / len(answerable) if answerable else 0.0
    return round(mean + shares.get(OFF_SCOPE, 0.0), 4)


def fit(rows: Sequence[dict[str, Any]], current: float) -> dict[str, Any]:
    halves = {h: [r for r in rows if _kept(r["question"], h)] for h in ("fit", "check")}
    table = {h: {str(f): per_set(part, f) for f in GRID} for h, part in halves.items()}
    scores = {f: objective(table["fit"][str(f)]) for f in GRID}
    checked = {f: objective(table["check"][str(f)]) for f in GRID}
    best = max(scores.values())
    chosen = min((f for f in GRID if scores[f] == best), key=lambda f: abs(f - current))
    holds = current not in checked or checked[chosen] >= checked[current]
    return {
        "relevant_min_similarity": chosen if holds else current,
        "relevant_min_similarity_fit": {
            "best_on_fit_half": chosen,
            "kept": "the best on the fit half"
            if holds
            else "the floor in use: the best on the fit half does worse on the check half",
            "objective_fit": {str(f): scores[f] for f in GRID},
            "objective_check": {str(f): checked[f] for f in GRID},
            "per_set": table,
            "fitted_on": "fit half (questions by text hash); reported on the check half",
            "script": "benchmarks/fit_relevant.py",
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("collect", "fit"))
    parser.add_argument("files", nargs="*", type=Path, help="fit: the files collect wrote")
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--sets", default="policies,tatqa")
    parser.add_argument("--questions", nargs="+", type=Path, default=[])
    parser.add_argument("--out", type=Path, help="collect: one JSON line per answer")
    parser.add_argument("--write", action="store_true", help="fit: store the chosen floor")
    args = parser.parse_args()
    if args.step == "fit":
        rows = [json.loads(x) for f in args.files for x in f.read_text().splitlines() if x]
        result = fit(rows, context.MIN_DENSE_SIMILARITY)
        print(json.dumps(result, indent=2))
        if args.write:
            store_fitted(result)
        return
    if not args.eval.is_dir() or args.out is None:
        sys.exit("collect needs --out FILE and ../shared/eval's dev sets (--eval)")
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    with open_services(Settings()) as services:
        rows = collect(services, args.eval, names, args.questions)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


if __name__ == "__main__":
    main()
