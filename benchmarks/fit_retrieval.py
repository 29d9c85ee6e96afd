"""Fit the retrieval core's fusion weight on one half of the dev questions and report it on
the other half (issue 19: learned, not hand-set).

Run by hand, from the project folder, on a data folder the ablation has filled:

    KNOWBOT_DATA_DIR=<folder> python -m benchmarks.fit_retrieval [--eval ../shared/eval]
        [--sets ...] [--weights 0,0.1,0.2,0.3,0.45,0.6] [--write]

For each weight of the full-text score next to cosine similarity, every set's headline
(evidence in the listed sources, or MRR@10) is measured on the `fit` half (questions split
by a hash of their text) and the weight with the best mean is chosen; both halves are
printed. `--write` stores the choice and the numbers behind it in `knowledge/search/fitted.json`,
which the retriever reads.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.ablation import (
    BEIR_SETS,
    DEFAULT_EVAL,
    DOC_SETS,
    Question,
    _load,
    halves,
    listed,
    score,
)
from bot.settings import Settings
from bot.wiring import open_services
from knowledge.search.fitted import FITTED_FILE, store_fitted
from knowledge.search.fusion import FusionWeights
from knowledge.search.retrieved import Retrieved

GRID = "0,0.1,0.2,0.3,0.45,0.6"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--sets", default=",".join(DOC_SETS + BEIR_SETS))
    parser.add_argument("--weights", default=GRID)
    parser.add_argument("--write", action="store_true", help=f"store the choice in {FITTED_FILE}")
    args = parser.parse_args()
    weights = [float(w) for w in args.weights.split(",")]
    results: dict[str, dict[str, dict[str, float]]] = {"fit": {}, "check": {}}
    with open_services(Settings()) as services:
        retriever = services.knowledge.retriever
        stages = retriever.stages
        sets = [_load(services, args.eval, n.strip(), ingest=False) for n in args.sets.split(",")]
        for weight in weights:
            retriever.weights = FusionWeights(sparse=weight)
            for dev in sets:
                for split, half in halves(dev).items():

                    def run(question: Question, beir: bool = half.beir) -> list[Retrieved]:
                        return listed(services, question, stages, beir)

                    got, _ = score(half, run)
                    results[split].setdefault(str(weight), {})[dev.name] = got.headline()
            print(f"# weight {weight}: {results['fit'][str(weight)]}", file=sys.stderr)
    means = {split: {w: _mean(v) for w, v in rows.items()} for split, rows in results.items()}
    best = max(means["fit"], key=lambda w: means["fit"][w])
    report = {
        "fusion_sparse_weight": float(best),
        "fitted_on": "fit half (questions by text hash) of " + args.sets,
        "fit_mean": means["fit"],
        "check_mean": means["check"],
        "per_set": results,
    }
    print(json.dumps(report, indent=2))
    if args.write:
        store_fitted(report)


def _mean(values: dict[str, float]) -> float:
    return round(sum(values.values()) / len(values), 4) if values else 0.0


if __name__ == "__main__":
    main()
