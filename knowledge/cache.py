"""A small time-to-live cache for lookups every question repeats (glossary, entity names,
the knowledge's vocabulary).

An expired entry is served once more while a background thread reloads it: the words of
a large knowledge base take Postgres a second or more to count, and no question should
wait for that because a minute went by.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


class TtlCache:
    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._items: dict[Hashable, tuple[float, Any]] = {}
        self._refreshing: set[Hashable] = set()
        self._lock = threading.Lock()

    def get(self, key: Hashable, load: Callable[[], T]) -> T:
        now = time.monotonic()
        with self._lock:
            hit = self._items.get(key)
            stale = hit is not None and now - hit[0] >= self._seconds
            refresh = stale and key not in self._refreshing
            if refresh:
                self._refreshing.add(key)
        if hit is not None:
            if refresh:
                threading.Thread(target=self._reload, args=(key, load), daemon=True).start()
            value: T = hit[1]
            return value
        fresh = load()
        with self._lock:
            self._items[key] = (time.monotonic(), fresh)
        return fresh

    def _reload(self, key: Hashable, load: Callable[[], Any]) -> None:
        try:
            fresh = load()
        except Exception as exc:  # the stale value keeps serving; the next expiry retries
            log.warning("refreshing %r failed: %s", key, exc)
            fresh = None
        with self._lock:
            self._refreshing.discard(key)
            if fresh is not None:
                self._items[key] = (time.monotonic(), fresh)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
