"""Prompts that compete on ratings: a Thompson-sampling bandit per (choice, intent).

For each answer the pipeline asks which version of a prompt to use (and how to render graph
facts); the arms are the live versions, the evidence the ratings each has earned for that
intent. The design keeps four promises:

- A version leads on evidence, not on hope. The leader is the arm whose posterior mean,
  less `caution` standard deviations, is highest: an untried version does not take over
  from one that has earned a record, but a few good ratings are enough for it to.
- Bounded exploration. The leader serves all but an `exploration` share of answers; that
  share goes to a challenger picked by Thompson sampling (a draw from each challenger's
  Beta posterior, the highest wins). So exploring never takes more than that share, a
  challenger that was unlucky early keeps being tried until the evidence settles it, and 0
  switches exploring off (the leader, still chosen by the ratings, serves every answer).
- No experiment without evidence. Until anyone has rated an answer for this intent, the
  incumbent (the first live arm) serves: nobody would learn from the variance.
- A version with clearly worse ratings stops being served. Once it and the best-rated arm
  each have `min_ratings` ratings and its posterior mean is `retire_z` standard errors
  below that arm's, it is dropped from both exploring and leading.

Failing to read the evidence never stops an answer: the incumbent serves and it is logged.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.store.arms import Tallies, Tally

log = logging.getLogger(__name__)

FACTS = "facts"  # the choice name under which graph-fact rendering competes

ArmSource = Callable[[str], list[str]]  # choice name -> live arms, incumbent first
TallySource = Callable[[str], Tallies]  # choice name -> ratings per (intent, arm)


@dataclass(frozen=True)
class BanditConfig:
    exploration: float = 0.2
    caution: float = 1.5  # standard deviations off the mean when ranking for the lead
    min_ratings: int = 20
    retire_z: float = 2.58  # about 99% one-sided
    refresh_s: float = 30.0  # how long read tallies are reused


@dataclass(frozen=True)
class Standing:
    """How one arm stands for one intent: what the report and tests look at."""

    arm: str
    tally: Tally
    mean: float
    retired: bool
    leader: bool


class Bandit:
    """A PromptChooser: `choose(name, intent)` returns the arm to use, or None when `name`
    has no live arms (the caller's default then applies)."""

    def __init__(
        self,
        *,
        arms: ArmSource,
        tallies: TallySource,
        config: BanditConfig | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._arms = arms
        self._tallies = tallies
        self._config = config or BanditConfig()
        self._rng = rng or random.Random()
        self._clock = clock
        self._cache: dict[str, tuple[float, Tallies]] = {}
        self._lock = threading.Lock()

    def choose(self, name: str, intent: str) -> str | None:
        live = self._arms(name)
        if len(live) <= 1:
            return live[0] if live else None
        try:
            tallies = self._read(name)
        except Exception:
            log.warning("cannot read ratings for %s; serving %s", name, live[0], exc_info=True)
            return live[0]
        with self._lock:
            return pick(live, _for_intent(tallies, intent, live), self._config, self._rng)

    def standings(self, name: str, intent: str) -> list[Standing]:
        live = self._arms(name)
        stats = _for_intent(self._read(name), intent, live)
        serving = [a for a in live if a not in retired(live, stats, self._config)]
        top = leader(serving, stats, self._config.caution)
        return [
            Standing(a, stats[a], posterior_mean(stats[a]), a not in serving, a == top)
            for a in live
        ]

    def _read(self, name: str) -> Tallies:
        now = self._clock()
        cached = self._cache.get(name)
        if cached is not None and now - cached[0] < self._config.refresh_s:
            return cached[1]
        tallies = self._tallies(name)
        self._cache[name] = (now, tallies)
        return tallies


def pick(
    arms: Sequence[str], stats: dict[str, Tally], config: BanditConfig, rng: random.Random
) -> str:
    if not any(t.n for t in stats.values()):
        return arms[0]
    out = retired(arms, stats, config)
    serving = [a for a in arms if a not in out]
    top = leader(serving, stats, config.caution)
    challengers = [a for a in serving if a != top]
    if challengers and config.exploration > 0 and rng.random() < config.exploration:
        draws = {a: rng.betavariate(1 + stats[a].up, 1 + stats[a].down) for a in challengers}
        return max(challengers, key=lambda a: draws[a])
    return top


def leader(arms: Sequence[str], stats: dict[str, Tally], caution: float = 0.0) -> str:
    """Best posterior mean less `caution` standard deviations; ties go to the earlier arm
    (the incumbent)."""

    def rank(a: str) -> tuple[float, int]:
        t = stats[a]
        return (posterior_mean(t) - caution * math.sqrt(_variance(t)), -arms.index(a))

    return max(arms, key=rank)


def retired(arms: Sequence[str], stats: dict[str, Tally], config: BanditConfig) -> set[str]:
    """Arms whose ratings are clearly worse than the best well-rated arm's."""
    rated = [a for a in arms if stats[a].n >= config.min_ratings]
    if len(rated) < 2:
        return set()
    best = leader(rated, stats)
    return {a for a in rated if a != best and _z(stats[best], stats[a]) >= config.retire_z}


def posterior_mean(t: Tally) -> float:
    return (1 + t.up) / (2 + t.n)


def _variance(t: Tally) -> float:
    a, b = 1 + t.up, 1 + t.down
    return a * b / ((a + b) ** 2 * (a + b + 1))


def _z(better: Tally, worse: Tally) -> float:
    spread = math.sqrt(_variance(better) + _variance(worse))
    return (posterior_mean(better) - posterior_mean(worse)) / spread


def _for_intent(tallies: Tallies, intent: str, arms: Sequence[str]) -> dict[str, Tally]:
    return {a: tallies.get((intent, a), Tally()) for a in arms}


class FixedChoice:
    """The chooser when learning is switched off: the incumbent, always."""

    def __init__(self, arms: ArmSource) -> None:
        self._arms = arms

    def choose(self, name: str, intent: str) -> str | None:
        live = self._arms(name)
        return live[0] if live else None
