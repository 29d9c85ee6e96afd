"""Fit the numbers that decide what a quoted answer uses, on one half of the dev questions,
and report them on the other (issue 19: learned, not hand-set).

`relevant` (bot.conversation.context): a retrieved chunk reaches the answer when it is
close enough in meaning (its dense similarity at least a floor), shares enough of the
question's words (a share), is among the best full-text matches (a rank), names every
topic word, or is a table of the statement asked about. Too strict, and a passage that
answers in other words than the question's ("depression" asked, "mental illness" written)
is dropped although plain dense search ranked it near the top; too loose, and a question
nothing answers gets an answer from whatever came closest instead of "I could not find
this".

Quoting (bot.conversation.extractive): each passage is weighed by the question's words it
and its clause hold (the clause's at `quote_context_weight`), plus the embedding model's
similarity to the question times a weight (`quote_semantic_weight`), plus its source's
search rank (`quote_rank_weight`), less its place in its clause (`quote_position_weight`);
nothing is quoted when the best passage holds less than a share of the question's word
weight (`quote_answer_floor`). Weigh meaning too little and a passage that answers in
other words loses to one that repeats the question's; too much, and a question nothing
answers is answered from the closest passage.

Run by hand, from the project folder, once per data folder the ablation has filled
(FinanceBench's filings usually sit in a folder of their own), then fit on the files:

    KNOWBOT_DATA_DIR=<folder> python -m benchmarks.fit_answers collect --out a.jsonl
        [--sets policies,tatqa,written] [--questions FILE...] [--eval ../shared/eval]
        [--numbers NAME,...]
    KNOWBOT_DATA_DIR=<filings> python -m benchmarks.fit_answers collect --out b.jsonl
        --sets financebench
    python -m benchmarks.fit_answers fit a.jsonl b.jsonl [--write]

`collect` answers every question of the sets through the pipeline (quoted answers: no
language model) at each value of each number's grid, the others as in use, and notes
whether the answer cites the evidence (as `benchmarks.ablation --answers` counts it).
With both `policies` and `tatqa` it also asks questions nothing answers and notes whether
the answer says it could not find one: questions of knowledge that never speaks of them
(each policy question in the TAT-QA notes' scope, every 8th TAT-QA question in the
policies' scope) and the policy questions the policies themselves cannot answer. `fit`
chooses, per threshold, the value with the best sum of the mean share of evidence cited
over the answerable sets and the share of off-scope questions declined, on the `fit` half
(questions split by a hash of their text); ties go to the value nearest the one in use.
The choice replaces the value in use only if it does at least as well on the `check` half
too (a value that wins on one half and loses on the other is fitted to noise), and if over
all questions it costs no set more than `NOISE` questions (a stage that costs any set more
than noise is deleted; a number is held to the same rule). Both halves are printed;
`--write` stores the values kept and the numbers behind them in
knowledge/search/fitted.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
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
from benchmarks.declines import unanswerable_cases
from bot.conversation import context, extractive
from bot.conversation.replies import NOT_FOUND
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.search.fitted import store_fitted
from knowledge.search.retrieved import Retrieved
from knowledge.search.stages import ALL_STAGES

# each number's name in fitted.json, the module and constant that hold it, and its grid
THRESHOLDS: dict[str, tuple[ModuleType, str, tuple[float, ...]]] = {
    "relevant_min_similarity": (context, "MIN_DENSE_SIMILARITY", (0.25, 0.3, 0.35, 0.4, 0.45)),
    "relevant_shared_words": (context, "MIN_SHARED_WORDS", (0.34, 0.5, 0.67)),
    "relevant_text_rank": (context, "TOP_TEXT_RANK", (1, 2, 3)),
    "quote_semantic_weight": (extractive, "SEMANTIC_WEIGHT", (0.0, 0.3, 0.6, 0.9, 1.2)),
    "quote_answer_floor": (extractive, "ANSWER_FLOOR", (0.2, 0.25, 0.3, 0.35, 0.4)),
    "quote_rank_weight": (extractive, "RANK_WEIGHT", (0.0, 0.1, 0.2, 0.4)),
    "quote_position_weight": (extractive, "POSITION_WEIGHT", (0.0, 0.015, 0.03, 0.05)),
    "quote_context_weight": (extractive, "CONTEXT_WEIGHT", (0.3, 0.6, 0.9)),
}
OFF_SCOPE = "offscope"
NOISE = 1  # a value may cost a set this many questions (net) and still be taken
_OFF_SCOPE_EVERY = 8


def off_scope(sets: dict[str, DevSet], folder: Path) -> list[Question]:
    """Questions nothing answers: asked of the other dev knowledge, which never speaks of
    their subject, and the policy questions the policies cannot answer."""
    policies = sets["policies"].questions
    notes = sets["tatqa"].questions[::_OFF_SCOPE_EVERY]
    return (
        [Question(q.text, (TATQA_SCOPE,), q.found) for q in policies]
        + [Question(q.text, ("policies",), q.found) for q in notes]
        + [Question(c.question, ("policies",), _nothing_cited) for c in unanswerable_cases(folder)]
    )


def _nothing_cited(cited: list[Retrieved]) -> bool:
    """An unanswerable question is answered right by citing nothing."""
    return not cited


def cached_retrieval(services: Services) -> None:
    """Retrieve each question once: the thresholds act on what retrieval returned."""
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
    services: Services, name: str, questions: Sequence[Question], numbers: Sequence[str]
) -> Iterator[dict[str, Any]]:
    """Each question answered at each value of each number, the others as in use (the
    values all in use are asked once)."""
    known: dict[tuple[str, tuple[float, ...]], bool] = {}
    for threshold in numbers:
        module, constant, grid = THRESHOLDS[threshold]
        in_use = getattr(module, constant)
        for value in grid:
            setattr(module, constant, value)
            values = tuple(getattr(m, c) for m, c, _ in THRESHOLDS.values())
            for question in questions:
                key = (question.text, values)
                if key not in known:
                    known[key] = _good(services, name, question)
                yield {"set": name, "question": question.text, "threshold": threshold,
                       "value": value, "good": known[key]}  # fmt: skip
        setattr(module, constant, in_use)


def _good(services: Services, name: str, question: Question) -> bool:
    """The evidence cited, or for an off-scope question, "could not find"."""
    answer, chunks = answered(services, question, ALL_STAGES)
    declined = answer is None or answer.bullets[0].text == NOT_FOUND
    return declined if name == OFF_SCOPE else not declined and question.found(chunks)


def collect(
    services: Services,
    folder: Path,
    names: Sequence[str],
    files: Sequence[Path],
    numbers: Sequence[str],
) -> list[dict[str, Any]]:
    cached_retrieval(services)
    sets = {n: _load(services, folder, n, ingest=False, files=files) for n in names}
    asked = {n: dev.questions for n, dev in sets.items()}
    if "policies" in sets and "tatqa" in sets:
        asked[OFF_SCOPE] = off_scope(sets, folder)
    rows: list[dict[str, Any]] = []
    for name, questions in asked.items():
        rows += outcomes(services, name, questions, numbers)
        print(f"# {name}: {len(questions)} questions", file=sys.stderr, flush=True)
    return rows


def per_set(rows: Sequence[dict[str, Any]], value: float) -> dict[str, float]:
    """Per set, the share of good outcomes at this value: evidence cited, or declined."""
    out = {}
    for name in dict.fromkeys(r["set"] for r in rows):
        own = [r["good"] for r in rows if r["set"] == name and r["value"] == value]
        out[name] = round(sum(own) / len(own), 4)
    return out


def objective(shares: dict[str, float]) -> float:
    answerable = [v for k, v in shares.items() if k != OFF_SCOPE]
    mean = sum(answerable) / len(answerable) if answerable else 0.0
    return round(mean + shares.get(OFF_SCOPE, 0.0), 4)


def fit(rows: Sequence[dict[str, Any]], threshold: str, current: float) -> dict[str, Any]:
    """The value of `threshold` kept, and the numbers behind it, from its rows."""
    own = [r for r in rows if r["threshold"] == threshold]
    grid = sorted({r["value"] for r in own})
    halves = {h: [r for r in own if _kept(r["question"], h)] for h in ("fit", "check")}
    table = {h: {str(v): per_set(part, v) for v in grid} for h, part in halves.items()}
    scores = {v: objective(table["fit"][str(v)]) for v in grid}
    checked = {v: objective(table["check"][str(v)]) for v in grid}
    best = max(scores.values())
    chosen = min((v for v in grid if scores[v] == best), key=lambda v: abs(v - current))
    why = _refused(own, chosen, current, checked)
    return {
        threshold: current if why else chosen,
        f"{threshold}_fit": {
            "best_on_fit_half": chosen,
            "kept": f"the value in use: the best on the fit half {why}"
            if why
            else "the best on the fit half",
            "objective_fit": {str(v): scores[v] for v in grid},
            "objective_check": {str(v): checked[v] for v in grid},
            "per_set": table,
            "lost_per_set": _losses(own, chosen, current),
            "fitted_on": "fit half (questions by text hash); reported on the check half",
            "script": "benchmarks/fit_answers.py",
        },
    }


def _refused(
    rows: Sequence[dict[str, Any]], chosen: float, current: float, checked: dict[float, float]
) -> str:
    """Why the fit half's best does not replace the value in use ("" when it does): it
    does worse on the check half, or over all questions it costs some set more than
    noise (more than NOISE questions, as a stage that costs any set more than noise is
    deleted)."""
    if current in checked and checked[chosen] < checked[current]:
        return "does worse on the check half"
    lost = {k: n for k, n in _losses(rows, chosen, current).items() if n > NOISE}
    return f"loses more than {NOISE} question of {', '.join(sorted(lost))}" if lost else ""


def _losses(rows: Sequence[dict[str, Any]], value: float, current: float) -> dict[str, int]:
    """Per set, how many more questions go wrong at `value` than at `current`, over all."""
    good = {(r["set"], r["question"], r["value"]): r["good"] for r in rows}
    out: dict[str, int] = {}
    for name, question, _ in {k for k in good if k[2] == current}:
        now = good.get((name, question, value), good[(name, question, current)])
        then = good[(name, question, current)]
        out[name] = out.get(name, 0) + int(then) - int(now)
    return {k: max(n, 0) for k, n in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("collect", "fit"))
    parser.add_argument("files", nargs="*", type=Path, help="fit: the files collect wrote")
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--sets", default="policies,tatqa")
    parser.add_argument("--questions", nargs="+", type=Path, default=[])
    parser.add_argument("--out", type=Path, help="collect: one JSON line per answer")
    parser.add_argument("--numbers", default=",".join(THRESHOLDS), help="collect: which")
    parser.add_argument("--write", action="store_true", help="fit: store the values kept")
    args = parser.parse_args()
    if args.step == "fit":
        rows = [json.loads(x) for f in args.files for x in f.read_text().splitlines() if x]
        result: dict[str, Any] = {}
        for threshold in dict.fromkeys(r["threshold"] for r in rows):
            module, constant, _ = THRESHOLDS[threshold]
            result |= fit(rows, threshold, getattr(module, constant))
        print(json.dumps(result, indent=2))
        if args.write:
            store_fitted(result)
        return
    if not args.eval.is_dir() or args.out is None:
        sys.exit("collect needs --out FILE and ../shared/eval's dev sets (--eval)")
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    with open_services(Settings()) as services:
        numbers = [n.strip() for n in args.numbers.split(",") if n.strip()]
        rows = collect(services, args.eval, names, args.questions, numbers)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


if __name__ == "__main__":
    main()
