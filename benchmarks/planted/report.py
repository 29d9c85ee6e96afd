"""What the confidence benchmark prints: per fault type (and for the faithful answers) how
many answers were High / Medium / Low and which checks failed, the overall shares the
issue's targets are stated in, and examples a reader can judge the faults' realism by."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.planted.faults import FAULTS

FAITHFUL = "faithful"
LEVELS = ("High", "Medium", "Low")


@dataclass(frozen=True)
class Outcome:
    case: str
    source: str  # policy | tatqa
    kind: str
    variant: str  # "faithful" or a fault name
    question: str
    level: str
    failed: tuple[str, ...]
    bullet: str = ""  # the planted bullet as served
    note: str = ""  # what was changed


@dataclass(frozen=True)
class Scored:
    """An outcome and what the pipeline scored for it (score_answer's arguments, less
    the similarity function): enough to score it again with other checks or thresholds
    (benchmarks/fit_support.py) without running the pipeline."""

    outcome: Outcome
    inputs: dict[str, Any] | None  # None when the pipeline scored nothing (no answer)


@dataclass
class Tally:
    """Cases and why some produced no outcome."""

    cases: Counter[str] = field(default_factory=Counter)  # by source/kind
    not_retrieved: Counter[str] = field(default_factory=Counter)  # by source
    not_applicable: Counter[str] = field(default_factory=Counter)  # by fault
    skipped: Counter[str] = field(default_factory=Counter)  # model failed, context changed
    reparsed: int = 0  # answers whose bullets the pipeline read differently from the reply


def summary(outcomes: Sequence[Outcome], tally: Tally) -> dict[str, Any]:
    planted = [o for o in outcomes if o.variant != FAITHFUL]
    faithful = [o for o in outcomes if o.variant == FAITHFUL]
    return {
        "cases": dict(sorted(tally.cases.items())),
        "answered": len(faithful),
        "not_retrieved": dict(tally.not_retrieved),
        "not_applicable": dict(tally.not_applicable),
        "skipped": dict(tally.skipped),
        "reparsed": tally.reparsed,
        "faithful_high": _share(faithful, lambda o: o.level == "High"),
        "planted_below_high": _share(planted, lambda o: o.level != "High"),
        "variants": {v: _variant(outcomes, v) for v in (FAITHFUL, *FAULTS)},
        "by_kind": {
            kind: {
                "faithful": len([o for o in faithful if _kind(o) == kind]),
                "faithful_high": _share(
                    [o for o in faithful if _kind(o) == kind], lambda o: o.level == "High"
                ),
                "planted": len([o for o in planted if _kind(o) == kind]),
                "planted_below_high": _share(
                    [o for o in planted if _kind(o) == kind], lambda o: o.level != "High"
                ),
            }
            for kind in sorted({_kind(o) for o in outcomes})
        },
    }


def _kind(outcome: Outcome) -> str:
    return f"{outcome.source}/{outcome.kind}"


def _variant(outcomes: Sequence[Outcome], variant: str) -> dict[str, Any]:
    mine = [o for o in outcomes if o.variant == variant]
    levels = Counter(o.level for o in mine)
    failed = Counter(name for o in mine for name in o.failed)
    return {
        "n": len(mine),
        **{level: levels[level] for level in LEVELS},
        "below_high": _share(mine, lambda o: o.level != "High"),
        "failed": dict(failed.most_common()),
    }


def _share(items: Sequence[Outcome], test: Any) -> float | None:
    return round(sum(1 for o in items if test(o)) / len(items), 3) if items else None


def print_table(result: dict[str, Any]) -> None:
    print()
    print(f"cases: {_counts(result['cases'])}; answered {result['answered']}")
    print(f"not retrieved (no block held the evidence): {_counts(result['not_retrieved'])}")
    print(f"fault not applicable to the answer: {_counts(result['not_applicable'])}")
    if result["skipped"]:
        print(f"skipped: {_counts(result['skipped'])}")
    if result["reparsed"]:
        print(f"answers whose bullets the pipeline parsed differently: {result['reparsed']}")
    print()
    head = f"{'variant':13s} {'n':>4s} {'High':>5s} {'Med':>5s} {'Low':>5s}  {'<High':>6s}"
    print(f"{head}  checks failed")
    for variant, row in result["variants"].items():
        below = "—" if row["below_high"] is None else f"{row['below_high']:.0%}"
        print(
            f"{variant:13s} {row['n']:4d} {row['High']:5d} {row['Medium']:5d} {row['Low']:5d}"
            f"  {below:>6s}  {_counts(row['failed'])}"
        )
    print()
    _print_share("planted faults below High", result["planted_below_high"], "≥ 95%")
    _print_share("faithful answers High", result["faithful_high"], "≥ 85%")
    per_type = [r["below_high"] for v, r in result["variants"].items() if v != FAITHFUL]
    worst = min((x for x in per_type if x is not None), default=None)
    _print_share("worst fault type below High", worst, "≥ 90%")
    print(f"\n{'by case kind':20s} {'faithful':>8s} {'High':>6s}  {'planted':>7s} {'<High':>6s}")
    for kind, row in result["by_kind"].items():
        print(
            f"{kind:20s} {row['faithful']:8d} {_pct(row['faithful_high']):>6s}"
            f"  {row['planted']:7d} {_pct(row['planted_below_high']):>6s}"
        )


def _print_share(label: str, value: float | None, target: str) -> None:
    print(f"{label:30s} {_pct(value):>6s}   (target {target})")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _counts(counter: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counter.items()) or "none"


def print_examples(outcomes: Sequence[Outcome], per_type: int, seed: int) -> None:
    """A few planted answers per fault type, drawn at random (seeded), for reading."""
    rng = random.Random(seed)
    for variant in FAULTS:
        mine = [o for o in outcomes if o.variant == variant]
        if not mine:
            continue
        print(f"\n== {variant} ==")
        for o in rng.sample(mine, min(per_type, len(mine))):
            print(f"  Q: {o.question}")
            print(f"  planted: {o.bullet}")
            print(f"  change: {o.note}")
            print(f"  level: {o.level}; failed: {', '.join(o.failed) or 'none'}  [{o.case}]")
            print()
