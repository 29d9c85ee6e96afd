"""A small time-to-live cache for lookups every question repeats (glossary, entity names)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")


class TtlCache:
    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._items: dict[Hashable, tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, load: Callable[[], T]) -> T:
        now = time.monotonic()
        with self._lock:
            hit = self._items.get(key)
        if hit is not None and now - hit[0] < self._seconds:
            value: T = hit[1]
            return value
        fresh = load()
        with self._lock:
            self._items[key] = (now, fresh)
        return fresh

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
