"""Fit the verified-answer match rule (issue 21) on one half of a FAQ set's queries and report
it on the other half.

Run by hand, from the project folder, on a BEIR-layout FAQ folder whose corpus titles are
questions and texts their answers, and a file of questions none of them answers:

    python -m benchmarks.fit_verified ../shared/eval/covid_faq \
        --negatives /work/data/verified/negatives.txt [--write]

Every query and negative is embedded once with the configured model (KNOWBOT_EMBED_MODEL,
default the bundled all-MiniLM-L6-v2), as is each entry's question and answer. For every
rule of a grid (question weight, minimum score, minimum margin over the runner-up; see
bot.conversation.verified.MatchRule) the queries of the "fit" half (bot.verified.evaluation
.half) are counted served-right / served-wrong / served-none and the fit half of the
negatives served. Kept: the rule with the most served-right whose precision (right among
served) is at least --precision and whose negatives served are at most --negatives-share;
ties go to the higher precision, then the higher score. `--write` stores it in
bot/conversation/verified_fitted.json under the model's name, with its numbers on both halves.
The question weight stays below 1: the answer always has a vote.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from bot.backends import build_embedder
from bot.conversation.verified import FITTED, MatchRule
from bot.settings import Settings
from bot.verified.evaluation import FIT, HELD_OUT, Tally, half, read_negatives
from knowledge.evaluation import read_beir

WEIGHTS = [0.5, 0.6, 0.7, 0.8, 0.9]
SCORES = [round(0.50 + 0.01 * i, 2) for i in range(41)]  # 0.50 .. 0.90
MARGINS = [round(0.01 * i, 2) for i in range(13)]  # 0.00 .. 0.12

Matrix = NDArray[np.float64]


@dataclass(frozen=True)
class Top:
    """Per question, under one weight: the best entry, its score and the runner-up's."""

    best: NDArray[np.int64]
    score: Matrix
    second: Matrix


def top_two(questions: Matrix, answers: Matrix, asked: Matrix, weight: float) -> Top:
    blended = weight * (asked @ questions.T) + (1 - weight) * (asked @ answers.T)
    order = np.argsort(-blended, axis=1)
    rows = np.arange(len(asked))
    return Top(order[:, 0], blended[rows, order[:, 0]], blended[rows, order[:, 1]])


def tally(
    rule: MatchRule,
    queries: Top,
    right: list[set[int]],
    negatives: Top,
    mask: tuple[Matrix, Matrix],
) -> Tally:
    served = (queries.score >= rule.min_score) & (queries.score - queries.second >= rule.min_margin)
    out = Tally(queries=int(mask[0].sum()), negatives=int(mask[1].sum()))
    for i in np.flatnonzero(mask[0]):
        if not served[i]:
            out.served_none += 1
        elif int(queries.best[i]) in right[i]:
            out.served_right += 1
        else:
            out.served_wrong += 1
    neg = (negatives.score >= rule.min_score) & (
        negatives.score - negatives.second >= rule.min_margin
    )
    out.negatives_served = int((neg & mask[1].astype(bool)).sum())
    return out


def unit(vectors: list[list[float]]) -> Matrix:
    m = np.array(vectors, dtype=np.float64)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="BEIR FAQ folder (titles are questions)")
    parser.add_argument("--negatives", type=Path, required=True, help="one question a line")
    parser.add_argument("--precision", type=float, default=0.9, help="least right among served")
    parser.add_argument("--negatives-share", type=float, default=0.01, help="most negatives served")
    parser.add_argument("--write", action="store_true", help="store the fitted rule")
    args = parser.parse_args()
    data = read_beir(args.folder)
    ids = [d for d, (title, text) in data.corpus.items() if title.strip() and text.strip()]
    negatives = read_negatives(args.negatives)
    query_ids = list(data.queries)
    embedder = build_embedder(Settings())
    embed = embedder.embed_documents
    questions = unit(embed([data.corpus[d][0].strip() for d in ids]))
    answers = unit(embed([data.corpus[d][1].strip() for d in ids]))
    asked = unit(embed([data.queries[q] for q in query_ids]))
    strangers = unit(embed(negatives))
    position = {d: i for i, d in enumerate(ids)}
    right = [{position[d] for d in data.qrels[q] if d in position} for q in query_ids]
    masks = {
        name: (
            np.array([half(q) == name for q in query_ids]),
            np.array([half(n) == name for n in negatives]),
        )
        for name in (FIT, HELD_OUT)
    }
    best: tuple[tuple[int, float, float], MatchRule] | None = None
    for weight in WEIGHTS:
        tops = (
            top_two(questions, answers, asked, weight),
            top_two(questions, answers, strangers, weight),
        )
        for score in SCORES:
            for margin in MARGINS:
                rule = MatchRule(weight, score, margin)
                fit = tally(rule, tops[0], right, tops[1], masks[FIT]).as_json()
                ok = (fit["precision"] or 0) >= args.precision and (
                    fit["negatives_served_share"] or 0
                ) <= args.negatives_share
                key = (int(fit["served_right"] or 0), float(fit["precision"] or 0), score)
                if ok and (best is None or key > best[0]):
                    best = (key, rule)
    if best is None:
        raise SystemExit("No rule of the grid meets the targets on the fitting half.")
    rule = best[1]
    tops = (
        top_two(questions, answers, asked, rule.question_weight),
        top_two(questions, answers, strangers, rule.question_weight),
    )
    result = {
        "question_weight": rule.question_weight,
        "min_score": rule.min_score,
        "min_margin": rule.min_margin,
        **{
            name.replace("-", "_"): tally(rule, tops[0], right, tops[1], masks[name]).as_json()
            for name in (FIT, HELD_OUT)
        },
        "data": f"{args.folder.name} ({len(ids)} entries, {len(query_ids)} queries), "
        f"{len(negatives)} negatives from {args.negatives.name}",
        "targets": {"precision": args.precision, "negatives_served_share": args.negatives_share},
        "script": "benchmarks/fit_verified.py",
    }
    print(json.dumps(result, indent=2))
    if args.write:
        stored = json.loads(FITTED.read_text(encoding="utf-8")) if FITTED.is_file() else {}
        stored[embedder.model_name] = result
        FITTED.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
        print(f"written to {FITTED}")


if __name__ == "__main__":
    main()
