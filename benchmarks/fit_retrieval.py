"""Fit a number of the retrieval on one half of the dev questions and report it on the other
half (issue 19: learned, not hand-set): the fusion weight, the dense floor's size, or the
weight of a table under the financial statement a question names.

Run by hand, from the project folder, on a data folder the ablation has filled:

    KNOWBOT_DATA_DIR=<folder> python -m benchmarks.fit_retrieval [--eval ../shared/eval]
        [--number weight|floor|statement] [--sets ...] [--grid 0,0.1,0.2,0.3,0.45,0.6]
        [--json] [--write]
    python -m benchmarks.fit_retrieval --number floor --merge RUN.json ... [--write]

For each value on the grid, every set's headline (evidence in the listed sources, or MRR@10)
is measured on the `fit` half (questions split by a hash of their text) and on the `check`
half. The value with the best mean on the fit half is chosen (on a tie, the first on the
grid); both halves are printed. The dev sets may sit in different data folders: `--json`
prints one run's measurements, and `--merge` chooses from several such runs together.
`--write` stores the choice and the numbers behind it in `knowledge/search/fitted.json`,
which the retriever reads.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

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
from knowledge.search import ranking
from knowledge.search.fitted import FITTED_FILE, store_fitted
from knowledge.search.fusion import FusionWeights
from knowledge.search.retrieved import Retrieved
from knowledge.search.retriever import Retriever

GRIDS = {
    "weight": "0,0.1,0.2,0.3,0.45,0.6",
    "floor": "0,1,2,3,4",
    "statement": "0,0.05,0.1,0.15,0.2,0.3",
}
STORED = {"floor": "dense_floor", "statement": "statement_weight"}
Results = dict[str, dict[str, dict[str, float]]]  # split -> value -> set -> headline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--number", choices=sorted(GRIDS), default="weight")
    parser.add_argument("--sets", default=",".join(DOC_SETS + BEIR_SETS))
    parser.add_argument("--grid", "--weights", help="the values to try (comma-separated)")
    parser.add_argument("--json", action="store_true", help="print this run's measurements")
    parser.add_argument("--merge", nargs="+", type=Path, help="choose from saved --json runs")
    parser.add_argument("--write", action="store_true", help=f"store the choice in {FITTED_FILE}")
    args = parser.parse_args()
    if args.merge:
        results = _merged(args.merge)
    else:
        grid = [float(v) for v in (args.grid or GRIDS[args.number]).split(",")]
        results = measure(args.eval, args.sets.split(","), args.number, grid)
        if args.json:
            print(json.dumps(results))
            return
    report = choose(args.number, results)
    print(json.dumps(report, indent=2))
    if args.write:
        store_fitted(report)


def measure(folder: Path, names: list[str], number: str, grid: list[float]) -> Results:
    results: Results = {"fit": {}, "check": {}}
    with open_services(Settings()) as services:
        retriever = services.knowledge.retriever
        stages = retriever.stages
        sets = [_load(services, folder, n.strip(), ingest=False) for n in names]
        for value in grid:
            _set(retriever, number, value)
            for dev in sets:
                for split, half in halves(dev).items():

                    def run(question: Question, beir: bool = half.beir) -> list[Retrieved]:
                        return listed(services, question, stages, beir)

                    got, _ = score(half, run)
                    results[split].setdefault(str(value), {})[dev.name] = got.headline()
            print(f"# {number} {value}: {results['fit'][str(value)]}", file=sys.stderr)
    return results


def _set(retriever: Retriever, number: str, value: float) -> None:
    if number == "weight":
        retriever.weights = FusionWeights(sparse=value)
    elif number == "floor":
        retriever.floor = int(value)
    else:
        ranking.STATEMENT_WEIGHT = value


def choose(number: str, results: Results) -> dict[str, Any]:
    """The value with the best mean on the fit half, with the numbers behind the choice."""
    means = {split: {v: _mean(rows) for v, rows in by.items()} for split, by in results.items()}
    best = max(means["fit"], key=lambda v: means["fit"][v])  # the first on a tie
    sets = sorted({name for rows in results["fit"].values() for name in rows})
    report = {
        "fitted_on": "fit half (questions by text hash) of " + ",".join(sets),
        "fit_mean": means["fit"],
        "check_mean": means["check"],
        "per_set": results,
    }
    if number == "weight":
        return {"fusion_sparse_weight": float(best), **report}
    chosen = int(float(best)) if number == "floor" else float(best)
    return {STORED[number]: chosen, f"{STORED[number]}_fit": report}


def _merged(files: list[Path]) -> Results:
    results: Results = {"fit": {}, "check": {}}
    for path in files:
        for split, by_value in json.loads(path.read_text(encoding="utf-8")).items():
            for value, rows in by_value.items():
                results[split].setdefault(value, {}).update(rows)
    return results


def _mean(values: dict[str, float]) -> float:
    return round(sum(values.values()) / len(values), 4) if values else 0.0


if __name__ == "__main__":
    main()
