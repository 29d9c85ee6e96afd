"""The lookup cache: no question waits for a reload once a value is known."""

from __future__ import annotations

import threading
import time

from knowledge.cache import TtlCache


def test_an_expired_value_is_served_while_it_reloads_in_the_background() -> None:
    cache = TtlCache(seconds=0.01)
    release = threading.Event()  # holds the reload until the questions have been asked
    loads: list[str] = []

    def slow_load() -> str:
        release.wait(5)
        loads.append("fresh")
        return "fresh"

    assert cache.get("vocabulary", lambda: "first") == "first"
    time.sleep(0.02)
    started = time.perf_counter()
    for _ in range(5):  # questions keep coming while the reload runs
        assert cache.get("vocabulary", slow_load) == "first"  # stale, at once
    assert time.perf_counter() - started < 1
    release.set()
    deadline = time.monotonic() + 5
    while not loads and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    assert loads == ["fresh"]  # one reload, not one per question


def test_a_failed_reload_keeps_the_old_value() -> None:
    cache = TtlCache(seconds=0.01)
    cache.get("glossary", lambda: ["PED"])
    time.sleep(0.02)

    def broken() -> list[str]:
        raise RuntimeError("database restarting")

    assert cache.get("glossary", broken) == ["PED"]
    time.sleep(0.05)
    assert cache.get("glossary", broken) == ["PED"]
