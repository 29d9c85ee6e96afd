"""An event id is claimed exactly once, however many deliveries race for it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from sqlalchemy.engine import Engine

from bot.store.events import EventClaims


def test_first_claim_wins_and_repeats_lose(engine: Engine) -> None:
    claims = EventClaims(engine)
    assert claims.claim("slack", "Ev1") is True
    assert claims.claim("slack", "Ev1") is False
    assert claims.claim("teams", "Ev1") is True  # another platform's id space


def test_concurrent_deliveries_are_claimed_once(engine: Engine) -> None:
    claims = EventClaims(engine)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: claims.claim("slack", "EvRace"), range(16)))
    assert results.count(True) == 1
