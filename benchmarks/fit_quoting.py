"""Fit a number of the quoted answer (how much meaning counts when it picks its passage, or
the word score below which nothing answers), on one half of the dev questions, and report
it on the other half (issue 19: learned, not hand-set).

Run by hand, from the project folder, on a data folder the ablation has filled with the
sets asked for (`python -m benchmarks.ablation --sets ... --ingest-filings` fills it):

    KNOWBOT_DATA_DIR=<folder> python -m benchmarks.fit_quoting [--eval ../shared/eval]
        [--sets policies,financebench,tatqa] [--number weight|floor] [--grid ...] [--write]

A quoted answer (no language model) weighs each passage by the question's words it holds,
then adds the embedding model's similarity to the question times a weight
(`extractive.SEMANTIC_WEIGHT`, `--number weight`); it declines when the best passage holds
less than a share of the question's word weight (`extractive.ANSWER_FLOOR`, `--number
floor`: the quoted "could not find" decision). For each value, every set's headline (the share of
questions whose answer cites a source holding the evidence, as `benchmarks.ablation
--answers` counts it; for the policy questions the documents cannot answer, the share
declined) is measured on the `fit` half (questions split by a hash of their text) and the
value with the best mean is chosen (ties: the one in use now, else the smaller); both halves
are printed, with the share of policy answers stating the expected facts. `--write` stores
the choice and the numbers behind it in `knowledge/search/fitted.json` (under
`quote_semantic_weight` or `quote_answer_floor`), beside what the other fitting scripts
stored there.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.ablation import (
    DEFAULT_EVAL,
    DOC_SETS,
    DevSet,
    Question,
    _load,
    cited,
    halves,
    score,
)
from bot.conversation import extractive
from bot.settings import Settings
from bot.wiring import open_services
from knowledge.search.fitted import store_fitted
from knowledge.search.stages import ALL_STAGES

# --number: (the attribute of extractive, the name it is stored under, the values tried)
NUMBERS = {
    "weight": ("SEMANTIC_WEIGHT", "quote_semantic_weight", "0,0.3,0.6,0.9,1.2"),
    "floor": ("ANSWER_FLOOR", "quote_answer_floor", "0.2,0.25,0.3,0.35,0.4"),
}


def unanswerable(folder: Path) -> DevSet:
    """The policy questions the documents cannot answer: a quoted answer gets them right
    by declining (it then cites nothing). Weighing meaning more may quote a passage close
    to such a question, so the fit counts them too."""
    out = []
    for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line) if line.strip() else None
        if case and case.get("unanswerable"):
            out.append(Question(case["question"], ("policies",), lambda cited: not cited))
    return DevSet("policies-unanswerable", out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--sets", default=",".join(DOC_SETS))
    parser.add_argument("--number", choices=sorted(NUMBERS), default="weight")
    parser.add_argument("--grid", "--weights", help="the values to try (comma-separated)")
    parser.add_argument("--write", action="store_true", help="store the choice")
    args = parser.parse_args()
    attribute, name, grid = NUMBERS[args.number]
    current = float(getattr(extractive, attribute))
    weights = [float(w) for w in (args.grid or grid).split(",")]
    results: dict[str, dict[str, dict[str, float]]] = {"fit": {}, "check": {}}
    stated: dict[str, dict[str, float]] = {"fit": {}, "check": {}}
    with open_services(Settings()) as services:
        names = [n.strip() for n in args.sets.split(",")]
        sets = [_load(services, args.eval, n, ingest=False) for n in names]
        if "policies" in names:
            sets.append(unanswerable(args.eval / "policies"))
        for weight in weights:
            setattr(extractive, attribute, weight)
            for dev in sets:
                for split, half in halves(dev).items():
                    got, _ = score(half, lambda q: cited(services, q, ALL_STAGES))
                    results[split].setdefault(str(weight), {})[dev.name] = got.headline()
                    if got.stated:
                        stated[split][f"{weight} {dev.name}"] = got.summary()["stated"]
            print(f"# {args.number} {weight}: {results['fit'][str(weight)]}", file=sys.stderr)
    means = {split: {w: _mean(v) for w, v in rows.items()} for split, rows in results.items()}
    # ties: the value in use, else the smaller
    best = max(means["fit"], key=lambda w: (means["fit"][w], float(w) == current, -float(w)))
    report = {
        "fitted_on": "fit half (questions by text hash) of " + args.sets,
        "headline": "share of questions whose quoted answer cites a source with the evidence",
        "fit_mean": means["fit"],
        "check_mean": means["check"],
        "per_set": results,
        "stated": stated,
    }
    print(json.dumps({name: float(best), f"{name}_fit": report}, indent=2))
    if args.write:
        store_fitted({name: float(best), f"{name}_fit": report})


def _mean(values: dict[str, float]) -> float:
    return round(sum(values.values()) / len(values), 4) if values else 0.0


if __name__ == "__main__":
    main()
