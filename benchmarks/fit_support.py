"""Fit the similarity a claim needs to its cited passage to count as supported by meaning
(issue 19), on one split of the confidence benchmark's answers, and report it on the other.

Run by hand, from the project folder, on what `benchmarks.confidence --record` kept (every
faithful and planted answer with the arguments the pipeline scored it with, the retrieved
context among them):

    KNOWBOT_DATA_DIR=/work/data/conf python -m benchmarks.confidence --record RUN.pkl
    KNOWBOT_DATA_DIR=/work/data/conf python -m benchmarks.fit_support RUN.pkl [--write]
        [--words-only] [--as-recorded]

The answers are drafted again on the recorded contexts with the current faithful.py,
rewording.py and faults.py (benchmarks/planted/redraft.py: retrieval does not depend on
the answer), unless `--as-recorded` scores the recorded answers themselves.

Split: the policy cases and the TAT-QA cases whose id hashes even are fitted on; the other
TAT-QA cases are held out. Each answer is scored again with the bundled embedding model at
every threshold of a grid; the threshold kept is the one with the most faithful answers
High plus planted answers below High on the fitting split (ties: the middle one).
`--write` stores it in bot/conversation/checks/support_fitted.json with the numbers it
was chosen on.
`--words-only` scores the answers without meaning (shared words alone).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.confidence import DEFAULT_EVAL, check_eval, load
from benchmarks.planted.faults import FAULTS
from benchmarks.planted.redraft import redrafted
from benchmarks.planted.report import FAITHFUL, Scored
from bot.conversation.scoring import confidence_for, score_answer
from bot.settings import Settings

GRID = [round(0.30 + 0.02 * i, 2) for i in range(31)]  # 0.30 .. 0.90
CLOSENESS_GRID: list[float | None] = [None, *(round(0.40 + 0.025 * i, 3) for i in range(17))]
NEVER = 2.0  # a threshold no similarity reaches: meaning never rescues a claim
FITTED = Path(__file__).resolve().parents[1] / "bot/conversation/checks/support_fitted.json"


@dataclass(frozen=True)
class Row:
    """One answer: its split, variant, and the level at each threshold of the grid."""

    fit: bool
    variant: str
    levels: tuple[str, ...]  # per GRID entry


def split_of(outcome: Any) -> bool:
    """True for the fitting split."""
    if outcome.source == "policy":
        return True
    return zlib.crc32(outcome.case.encode()) % 2 == 0


class CachedEmbed:
    """The embedding model, each text embedded once across all the thresholds tried."""

    def __init__(self, embed: Callable[[Sequence[str]], list[list[float]]]) -> None:
        self._embed = embed
        self._seen: dict[str, list[float]] = {}

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        new = [t for t in dict.fromkeys(texts) if t not in self._seen]
        if new:
            self._seen.update(zip(new, self._embed(new), strict=True))
        return [self._seen[t] for t in texts]


def level_at(
    item: Scored,
    threshold: float | None,
    embed: CachedEmbed | None,
    closeness: float | None = None,
    elsewhere: Any = None,
) -> str:
    if item.inputs is None:
        return item.outcome.level  # nothing was scored (no answer): the level stands
    kwargs = dict(item.inputs)
    if threshold is not None and embed is not None:
        from bot.conversation.checks.meaning import Meaning

        kwargs["meaning"] = Meaning(
            embed, threshold=threshold, closeness=closeness, elsewhere=elsewhere
        )
    scores = score_answer(**kwargs)
    return str(confidence_for(scores, has_context=bool(kwargs["sources"])).value)


def levels(item: Scored, embed: CachedEmbed) -> tuple[str, ...]:
    """The level at each grid threshold. Only support depends on the threshold, and it
    only grows as the threshold falls: scored with meaning rescuing every claim and with
    it rescuing none; where the two differ, the answer is supported down to the lowest
    similarity among the claims that meaning had to rescue."""
    low, high = level_at(item, GRID[0] - 1.0, embed), level_at(item, NEVER, embed)
    if low == high or item.inputs is None:
        return tuple(low for _ in GRID)
    from bot.conversation.checks.meaning import Meaning
    from bot.conversation.checks.support import MIN_OVERLAP, MIN_WORDS, citations_hold
    from bot.conversation.text import content_words

    inputs = item.inputs
    support = citations_hold(
        inputs["question"],
        inputs["bullets"],
        inputs["sources"],
        terms=tuple(inputs.get("known_terms") or ()),
        meaning=Meaning(embed, threshold=NEVER),
    )
    rescued = [
        m.similarity or 0.0
        for m in support.matches
        if m.passage
        and m.overlap < MIN_OVERLAP
        and len(set(content_words(m.claim.text))) >= MIN_WORDS
    ]
    lowest = min(rescued, default=NEVER)
    return tuple(low if t <= lowest else high for t in GRID)


def fit_closeness(items: Sequence[Scored], embed: CachedEmbed, threshold: float) -> dict[str, Any]:
    """With support's threshold fixed, the closeness (question to answer, by meaning) at
    which an answer that misses the question's words still speaks to it: fitted on the
    fitting split, reported on the held-out one. `None` (never) is the first candidate,
    so the fit keeps the words-only rule unless meaning pays."""
    rows = [
        Row(
            split_of(it.outcome),
            it.outcome.variant,
            tuple(level_at(it, threshold, embed, c) for c in CLOSENESS_GRID),
        )
        for it in items
    ]
    fit = [r for r in rows if r.fit]
    held = [r for r in rows if not r.fit]
    i = best_threshold(fit)
    return {
        "min_closeness": CLOSENESS_GRID[i],
        "fitted_on": {"answers": len(fit), **shares(fit, i)},
        "held_out": {"answers": len(held), **shares(held, i)},
        "all": {"answers": len(rows), **shares(rows, i)},
        "words_only": {"answers": len(rows), **shares(rows, 0)},
    }


FAR_GRID: list[float | None] = [None, *(round(0.35 + 0.025 * i, 3) for i in range(11))]
GAP_GRID = [0.15, 0.1, 0.075, 0.05, 0.025, 0.0]  # the boldest last
ELSEWHERE_GRID = [
    (far, gap) for far in FAR_GRID for gap in GAP_GRID if far is not None or gap == GAP_GRID[0]
]


def fit_elsewhere(items: Sequence[Scored], embed: CachedEmbed, model: str) -> dict[str, Any]:
    """With the stored support threshold and closeness, when a model's
    answer answers something else (coverage.answers_elsewhere): no bullet within `far` of
    the question and an uncited block closer to it than the cited ones by more than `gap`.
    Candidates run from never (the first) to the boldest; fitted on the fitting split,
    reported on the held-out one; among ties the first, so the rule is kept only when it
    pays."""
    from bot.conversation.checks.meaning import Elsewhere, fitted_closeness
    from bot.conversation.checks.meaning import fitted as fitted_threshold

    threshold, closeness = fitted_threshold(model) or NEVER, fitted_closeness(model)
    always = Elsewhere(far=NEVER, gap=-NEVER)  # judged whenever there is something to compare
    rows = []
    for it in items:
        base = level_at(it, threshold, embed, closeness)
        judged = level_at(it, threshold, embed, closeness, always)
        rows.append(
            Row(
                split_of(it.outcome),
                it.outcome.variant,
                tuple(
                    judged if far is not None and _elsewhere(it, embed, far, gap) else base
                    for far, gap in ELSEWHERE_GRID
                ),
            )
        )
    fit = [r for r in rows if r.fit]
    held = [r for r in rows if not r.fit]
    gains = [_gain(fit, i) for i in range(len(ELSEWHERE_GRID))]
    i = gains.index(max(gains))
    for j, (far, gap) in enumerate(ELSEWHERE_GRID):  # the grid, for the record
        f, h = shares(fit, j), shares(held, j)
        print(
            f"far {far} gap {gap}: fit faithful High {f['faithful_high']} neighbour "
            f"{f['neighbour']} | held out {h['faithful_high']} {h['neighbour']}",
            file=sys.stderr,
        )
    far, gap = ELSEWHERE_GRID[i]
    return {
        "far": far,
        "gap": gap,
        "fitted_on": {"answers": len(fit), **shares(fit, i)},
        "held_out": {"answers": len(held), **shares(held, i)},
        "held_out_without": {"answers": len(held), **shares(held, 0)},
        "all": {"answers": len(rows), **shares(rows, i)},
        "all_without": {"answers": len(rows), **shares(rows, 0)},
    }


SAID_GRID: list[float | None] = [None, *(round(0.3 - 0.025 * i, 3) for i in range(9))]


def fit_said_elsewhere(items: Sequence[Scored], embed: CachedEmbed, model: str) -> dict[str, Any]:
    """With every other stored number, when a model's answer is said more nearly by a
    block it leaves uncited (coverage.said_elsewhere): some uncited passage closer to the
    question than every bullet and cited passage by more than `said_gap`. Candidates run
    from never (the first) to the boldest; fitted on the fitting split, reported on the
    held-out one; among ties the first, so the rule is kept only when it pays."""
    from dataclasses import replace

    from bot.conversation.checks.coverage import said_margin
    from bot.conversation.checks.meaning import Meaning, fitted_closeness, fitted_elsewhere
    from bot.conversation.checks.meaning import fitted as fitted_threshold

    threshold, closeness = fitted_threshold(model) or NEVER, fitted_closeness(model)
    stored = fitted_elsewhere(model)
    never = replace(stored, said_gap=None) if stored else None
    always = replace(stored, said_gap=-NEVER) if stored else None
    rows = []
    for it in items:
        inputs = it.inputs or {}
        margin = None
        if inputs.get("quoted") is None and inputs.get("bullets"):
            meaning = Meaning(embed, threshold=NEVER)
            margin = said_margin(inputs["question"], inputs["bullets"], inputs["sources"], meaning)
        base = level_at(it, threshold, embed, closeness, never)
        judged = base if margin is None else level_at(it, threshold, embed, closeness, always)
        levels = tuple(
            judged if gap is not None and margin is not None and margin > gap else base
            for gap in SAID_GRID
        )
        rows.append(Row(split_of(it.outcome), it.outcome.variant, levels))
    fit = [r for r in rows if r.fit]
    held = [r for r in rows if not r.fit]
    gains = [_gain(fit, i) for i in range(len(SAID_GRID))]
    i = gains.index(max(gains))
    for j, gap in enumerate(SAID_GRID):  # the grid, for the record
        f, h = shares(fit, j), shares(held, j)
        print(
            f"said_gap {gap}: fit faithful High {f['faithful_high']} planted "
            f"{f['planted_below_high']} | held out {h['faithful_high']} {h['planted_below_high']}",
            file=sys.stderr,
        )
    return {
        "said_gap": SAID_GRID[i],
        "said_fitted_on": {"answers": len(fit), **shares(fit, i)},
        "said_held_out": {"answers": len(held), **shares(held, i)},
        "said_held_out_without": {"answers": len(held), **shares(held, 0)},
    }


def _gain(rows: Sequence[Row], i: int) -> float:
    s = shares(rows, i)
    return round((s["faithful_high"] or 0.0) + (s["planted_below_high"] or 0.0), 6)


def _elsewhere(item: Scored, embed: CachedEmbed, far: float, gap: float) -> bool:
    """answers_elsewhere's decision at (`far`, `gap`), from the recorded inputs."""
    from bot.conversation.checks.coverage import answers_elsewhere
    from bot.conversation.checks.meaning import Elsewhere, Meaning

    inputs = item.inputs or {}
    if inputs.get("quoted") is not None or not inputs.get("bullets"):
        return False
    meaning = Meaning(embed, threshold=NEVER, elsewhere=Elsewhere(far, gap))
    return answers_elsewhere(inputs["question"], inputs["bullets"], inputs["sources"], meaning)


def shares(rows: Sequence[Row], i: int) -> dict[str, float | None]:
    faithful = [r for r in rows if r.variant == FAITHFUL]
    planted = [r for r in rows if r.variant != FAITHFUL]
    out: dict[str, float | None] = {
        "faithful_high": _share([r.levels[i] == "High" for r in faithful]),
        "planted_below_high": _share([r.levels[i] != "High" for r in planted]),
    }
    for fault in FAULTS:
        out[fault] = _share([r.levels[i] != "High" for r in planted if r.variant == fault])
    worst = [v for k, v in out.items() if k in FAULTS and v is not None]
    out["worst_type"] = min(worst) if worst else None
    return out


def _share(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None


def best_threshold(rows: Sequence[Row], keep: int | None = None) -> int:
    """The threshold with the most faithful answers High plus planted answers below High;
    where several tie, `keep` (the stored one) when it is among them, else the middle one
    (neither trusting meaning most nor least): a refit moves a threshold only when the
    record says so."""

    gains = [_gain(rows, i) for i in range(len(rows[0].levels))] if rows else [0.0]
    best = [i for i, g in enumerate(gains) if g == max(gains)]
    return keep if keep in best else best[len(best) // 2]


def _stored_index(model_name: str) -> int | None:
    stored = json.loads(FITTED.read_text(encoding="utf-8")) if FITTED.is_file() else {}
    value = (stored.get(model_name) or {}).get("min_similarity")
    return GRID.index(value) if value in GRID else None


def words_only(items: Sequence[Scored]) -> None:
    """The levels with shared words alone (no meaning), per split."""
    rows = [
        Row(split_of(it.outcome), it.outcome.variant, (level_at(it, None, None),)) for it in items
    ]
    for name, part in (
        ("fit", [r for r in rows if r.fit]),
        ("held out", [r for r in rows if not r.fit]),
    ):
        print(name, len(part), json.dumps(shares(part, 0)))
    print("all", len(rows), json.dumps(shares(rows, 0)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "records",
        type=Path,
        nargs="+",
        help="what benchmarks.confidence --record wrote (several: each as recorded, pooled)",
    )
    parser.add_argument("--write", action="store_true", help="store the fitted threshold")
    parser.add_argument("--words-only", action="store_true", help="score without meaning")
    parser.add_argument("--as-recorded", action="store_true", help="do not draft again")
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL, help="the dev data folder")
    parser.add_argument("--limit", type=int, default=200, help="as the recorded run had it")
    parser.add_argument(
        "--seed", type=int, nargs="+", default=[12], help="as the recorded runs had it, in order"
    )
    parser.add_argument(
        "--elsewhere",
        action="store_true",
        help="fit only when a model's answer answers something else (far, gap); with --write "
        "store only that",
    )
    parser.add_argument(
        "--said-elsewhere",
        action="store_true",
        help="fit only when another block says it more nearly (said_gap); with --write store "
        "only that",
    )
    args = parser.parse_args()
    items: list[Scored] = [i for path in args.records for i in pickle.loads(path.read_bytes())]
    if len(args.records) > 1 and not args.as_recorded:
        parser.error("several records are pooled as recorded: add --as-recorded")
    if len(args.seed) != len(args.records):
        parser.error("give one --seed per record, in the same order")
    if not args.as_recorded:
        check_eval(args.eval)
        seed = args.seed[0]
        items = redrafted(items, load(args.eval, args.limit, seed), seed)
    if args.words_only:
        words_only(items)
        return
    from bot.backends import build_embedder

    embedder = build_embedder(Settings())
    embed = CachedEmbed(embedder.embed_documents)
    if args.said_elsewhere:
        said = fit_said_elsewhere(items, embed, embedder.model_name)
        print(json.dumps(said, indent=2))
        if args.write:
            elsewhere = json.loads(FITTED.read_text(encoding="utf-8"))[embedder.model_name]
            made = _made(args.seed, args.limit)
            how = {"said_script": "benchmarks/fit_support.py --said-elsewhere", "said_record": made}
            _store(embedder.model_name, {"elsewhere": elsewhere["elsewhere"] | said | how})
        return
    if args.elsewhere:
        fitted_one = fit_elsewhere(items, embed, embedder.model_name)
        print(json.dumps({"elsewhere": fitted_one}, indent=2))
        if args.write:
            made = _made(args.seed, args.limit)
            how = {"script": "benchmarks/fit_support.py --elsewhere", "record": made}
            _store(embedder.model_name, {"elsewhere": fitted_one | how})
        return
    rows = []
    for n, it in enumerate(items, start=1):
        rows.append(Row(split_of(it.outcome), it.outcome.variant, levels(it, embed)))
        if n % 100 == 0:
            print(f"{n}/{len(items)} answers scored", file=sys.stderr, flush=True)
    fit = [r for r in rows if r.fit]
    held = [r for r in rows if not r.fit]
    i = best_threshold(fit, keep=_stored_index(embedder.model_name))
    result = {
        "min_similarity": GRID[i],
        "model": embedder.model_name,
        "fitted_on": {"answers": len(fit), **shares(fit, i)},
        "held_out": {"answers": len(held), **shares(held, i)},
        "all": {"answers": len(rows), **shares(rows, i)},
    }
    print(json.dumps(result, indent=2))
    for j in range(0, len(GRID), 5):
        s = shares(fit, j)
        print(f"  {GRID[j]:.2f}  fit faithful High {s['faithful_high']}  planted <High "
              f"{s['planted_below_high']}  worst {s['worst_type']}")  # fmt: skip
    closeness = fit_closeness(items, embed, GRID[i])
    print(json.dumps({"closeness": closeness}, indent=2))
    if args.write:
        entry = {k: v for k, v in result.items() if k != "model"} | {"closeness": closeness}
        _store(embedder.model_name, entry | {"script": "benchmarks/fit_support.py"})


def _made(seeds: Sequence[int], limit: int) -> str:
    """What made the records fitted on, as stored beside the fitted numbers."""
    if len(seeds) == 1:
        return f"benchmarks.confidence --record (seed {seeds[0]}, limit {limit})"
    return f"benchmarks.confidence --record (seeds {', '.join(map(str, seeds))}, limit {limit})"


def _store(model_name: str, entry: dict[str, Any]) -> None:
    """Merge `entry` into the model's fitted numbers (the others, such as fit_quoted.py's,
    stay)."""
    stored = json.loads(FITTED.read_text(encoding="utf-8")) if FITTED.is_file() else {}
    stored[model_name] = stored.get(model_name, {}) | entry
    FITTED.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
    print(f"written to {FITTED}")


if __name__ == "__main__":
    main()
