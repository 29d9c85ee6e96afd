"""The bandit's choices under synthetic ratings (no database: the evidence is scripted)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bot.feedback.bandit import Bandit, BanditConfig
from bot.store.arms import Tallies, Tally

INTENT = "lookup"


def bandit(
    tallies: Tallies,
    *,
    exploration: float = 0.2,
    seed: int = 0,
    arms: tuple[str, ...] = ("v1", "v2"),
) -> Bandit:
    return Bandit(
        arms=lambda name: list(arms),
        tallies=lambda name: dict(tallies),
        config=BanditConfig(exploration=exploration, refresh_s=0),
        rng=random.Random(seed),
    )


def simulate(true_rates: dict[str, float], rounds: int, seed: int) -> list[str]:
    """Every answer is rated once, positive with its version's true probability."""
    tallies: Tallies = {}
    chooser = bandit(tallies, seed=seed, arms=tuple(true_rates))
    people = random.Random(1000 + seed)
    served = []
    for _ in range(rounds):
        arm = chooser.choose("answer", INTENT)
        assert arm is not None
        old = tallies.get((INTENT, arm), Tally())
        liked = people.random() < true_rates[arm]
        tallies[(INTENT, arm)] = Tally(old.up + liked, old.down + (not liked))
        served.append(arm)
    return served


@pytest.mark.parametrize(
    ("rates", "better"),
    [({"v1": 0.45, "v2": 0.75}, "v2"), ({"v1": 0.75, "v2": 0.45}, "v1")],
    ids=["newcomer-better", "incumbent-better"],
)
def test_the_better_version_wins_most_traffic_within_a_few_hundred_ratings(
    rates: dict[str, float], better: str
) -> None:
    late_shares = []
    for seed in range(10):  # ten independent deployments
        served = simulate(rates, rounds=300, seed=seed)
        assert Counter(served)[better] >= 200, Counter(served)
        late_shares.append(Counter(served[-100:])[better])
    assert min(late_shares) >= 70  # every deployment has moved most traffic over
    assert sum(late_shares) / len(late_shares) >= 90, late_shares


def test_before_anyone_rates_the_incumbent_serves_every_answer() -> None:
    chooser = bandit({}, exploration=1.0)
    assert {chooser.choose("answer", INTENT) for _ in range(500)} == {"v1"}


def test_a_clearly_worse_version_stops_being_served() -> None:
    clear = {(INTENT, "v1"): Tally(30, 70), (INTENT, "v2"): Tally(70, 30)}
    chooser = bandit(clear, exploration=1.0)  # every answer an exploration draw
    assert {chooser.choose("answer", INTENT) for _ in range(2000)} == {"v2"}
    assert [(s.arm, s.retired, s.leader) for s in chooser.standings("answer", INTENT)] == [
        ("v1", True, False),
        ("v2", False, True),
    ]
    # too little evidence to call it: the weaker version is still explored now and then
    early = {(INTENT, "v1"): Tally(3, 5), (INTENT, "v2"): Tally(5, 3)}
    chooser = bandit(early, exploration=1.0)
    assert "v1" in {chooser.choose("answer", INTENT) for _ in range(500)}


def test_exploration_is_bounded_and_can_be_switched_off() -> None:
    close = {(INTENT, "v1"): Tally(12, 8), (INTENT, "v2"): Tally(10, 10)}  # v1 leads, barely
    bounded = bandit(close, exploration=0.1)
    explored = Counter(bounded.choose("answer", INTENT) for _ in range(4000))
    assert 300 <= explored["v2"] <= 460  # the 10% exploration share (give or take chance)
    off = bandit(close, exploration=0)
    assert {off.choose("answer", INTENT) for _ in range(2000)} == {"v1"}
    flipped = {(INTENT, "v1"): Tally(10, 10), (INTENT, "v2"): Tally(12, 8)}
    off = bandit(flipped, exploration=0)
    assert {off.choose("answer", INTENT) for _ in range(100)} == {"v2"}  # still follows ratings


def test_each_intent_learns_on_its_own() -> None:
    lookup_prefers_v2 = {(INTENT, "v1"): Tally(2, 20), (INTENT, "v2"): Tally(20, 2)}
    chooser = bandit(lookup_prefers_v2, exploration=0)
    assert chooser.choose("answer", INTENT) == "v2"
    assert chooser.choose("answer", "why") == "v1"  # nobody rated "why" answers yet


def test_unreadable_ratings_fall_back_to_the_incumbent() -> None:
    def broken(name: str) -> Tallies:
        raise ConnectionError("database is down")

    chooser = Bandit(arms=lambda name: ["v1", "v2"], tallies=broken)
    assert chooser.choose("answer", INTENT) == "v1"


def test_ratings_are_re_read_after_the_refresh_interval() -> None:
    tallies: Tallies = {}
    now = [0.0]
    chooser = Bandit(
        arms=lambda name: ["v1", "v2"],
        tallies=lambda name: dict(tallies),
        config=BanditConfig(exploration=0, refresh_s=30),
        clock=lambda: now[0],
    )
    assert chooser.choose("answer", INTENT) == "v1"
    tallies[(INTENT, "v1")] = Tally(0, 5)
    now[0] = 10.0
    assert chooser.choose("answer", INTENT) == "v1"  # still the cached evidence
    now[0] = 31.0
    assert chooser.choose("answer", INTENT) == "v2"
