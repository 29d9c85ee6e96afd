"""Fit the meaning floor behind "I could not find this": how similar (by the embedding
model) an answer must be to the question to count as speaking to it when the question's
words are not in the answer or its sources (issue 19, item 5).

Run by hand, from the project folder, on the answers benchmarks.declines wrote:

    python -m benchmarks.declines --keep DIR --cases cases.jsonl
    python -m benchmarks.declines_fit cases.jsonl [--json]

Examples are the scripted model's answers (the model path): positives are supported
answers to answerable questions (the evidence reached the context, the reply cites it,
and contextual_continuity and numbers passed); negatives are the helpful answers to
questions nothing answers (the policy questions marked unanswerable and the off-scope
questions), written from the nearest passage. The feature is the best similarity of a
bullet to the question, as the pipeline computes it (bot.conversation.declining). The floor
is chosen on the cases of split "fit" (a stable hash of the case id, see
benchmarks.declines.split_of) to minimise false declines plus false keeps (each as a
share of its class), and reported on split "report". The chosen value is written into
bot/conversation/declining.py by hand (MEANING_FLOOR), with this run's output in
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from benchmarks.declines import Asked, print_table, read_rows, split_of, tally
from bot.backends import build_embedder
from bot.conversation.citations import parse_bullets
from bot.conversation.declining import Likeness, closeness, declined
from bot.conversation.search_text import search_text
from bot.conversation.types import CheckScores
from bot.settings import Settings
from knowledge.models.embeddings import Embedder

SUPPORT = ("contextual_continuity", "numbers")


@dataclass(frozen=True)
class Example:
    case: str
    answerable: bool
    similarity: float
    worded: bool  # the answerability check by words passed (the floor does not decide)

    @property
    def split(self) -> str:
        return split_of(self.case)


def examples(path: Path) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    out = []
    for r in rows:
        if r["path"] != "model" or not r["reply"] or r["reply"].startswith("NOT_FOUND"):
            continue
        if r["answerable"] and not r["retrieved"]:
            continue
        if r["answerable"] and any(c in r["failed"] for c in SUPPORT):
            continue  # an answer the checks do not support may be declined
        out.append(r)
    return out


def measured(rows: list[dict[str, object]]) -> list[Example]:
    embedder = build_embedder(Settings(_env_file=None))  # type: ignore[call-arg]
    out = []
    for r in rows:
        bullets = parse_bullets(str(r["reply"]), max_source=99)
        likeness = likeness_for(embedder, search_text(str(r["question"])))
        close = closeness(bullets, likeness)
        worded = "answerability" not in list(r["failed"])  # type: ignore[call-overload]
        out.append(Example(str(r["case"]), bool(r["answerable"]), close, worded))
    return out


def likeness_for(embedder: Embedder, question: str) -> Likeness:
    """Texts' cosine similarity to the question, as Knowledge.similarity computes it."""
    wanted = embedder.embed_query(question)

    def likeness(texts: Sequence[str]) -> list[float]:
        return [_cosine(wanted, v) for v in embedder.embed_documents(list(texts))]

    return likeness


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def errors(examples: list[Example], floor: float) -> tuple[float, float]:
    """Share of positives declined and share of negatives kept, at `floor`."""
    pos = [e for e in examples if e.answerable]
    neg = [e for e in examples if not e.answerable]
    declined = sum(e.similarity < floor for e in pos) / max(1, len(pos))
    kept = sum(e.similarity >= floor for e in neg) / max(1, len(neg))
    return declined, kept


def fit(examples: list[Example]) -> float:
    """The floor minimising the two error shares' sum; ties go to the lower floor (fewer
    false declines)."""
    candidates = sorted({round(e.similarity, 3) for e in examples})
    return min(candidates, key=lambda f: (sum(errors(examples, f)), f))


def replayed(path: Path) -> list[Asked]:
    """The model path of a --cases file as the pipeline now decides it: each answer's
    recorded checks and the fitted floor (bot.conversation.declining.declined); what the
    model wrote and the checks' verdicts do not depend on the decision."""
    embedder = build_embedder(Settings(_env_file=None))  # type: ignore[call-arg]
    out = []
    for r in read_rows(path):
        if r.path != "model":
            continue
        if not r.reply or r.reply.startswith("NOT_FOUND"):
            out.append(r)  # the model declined (retrieval missed): nothing to decide
            continue
        bullets = parse_bullets(r.reply, max_source=99)
        passed = {k: int(k not in r.failed) for k in CheckScores.none().as_dict()}
        likeness = likeness_for(embedder, search_text(r.question))
        out.append(replace(r, declined=declined(bullets, CheckScores(**passed), likeness)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", type=Path, help="the --cases file of benchmarks.declines")
    parser.add_argument("--json", action="store_true", help="print one summary line only")
    parser.add_argument(
        "--replay", action="store_true", help="print the model path's declines under the floor"
    )
    args = parser.parse_args()
    if args.replay:
        print_table(tally(replayed(args.cases)))
        return
    found = measured(examples(args.cases))
    train = [e for e in found if e.split == "fit"]
    held = [e for e in found if e.split == "report"]
    floor = fit(train)
    result: dict[str, Any] = {"floor": floor}
    parts = {
        "fit": train,
        "report": held,
        "report_words_failed": [e for e in held if not e.worded],
        "all_words_failed": [e for e in found if not e.worded],
    }
    for name, part in parts.items():
        declined, kept = errors(part, floor)
        result[name] = {
            "positives": sum(e.answerable for e in part),
            "negatives": sum(not e.answerable for e in part),
            "positives_declined": round(declined, 4),
            "negatives_kept": round(kept, 4),
        }
    if args.json:
        print(json.dumps(result))
        return
    print(f"meaning floor fitted on split 'fit': {floor:.3f}")
    for name in parts:
        x = result[name]
        print(
            f"  {name:19s}: {x['positives']} supported answers, "
            f"{100 * x['positives_declined']:.1f}% below the floor; {x['negatives']} answers "
            f"to unanswerable questions, {100 * x['negatives_kept']:.1f}% at or above it"
        )


if __name__ == "__main__":
    main()
