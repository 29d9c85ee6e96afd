"""Per-step wall-clock timings, recorded with every answer."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class StepTimer:
    def __init__(self) -> None:
        self.steps: dict[str, float] = {}
        self._started = time.perf_counter()

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, (time.perf_counter() - started) * 1000)

    def add(self, name: str, ms: float) -> None:
        self.steps[name] = round(self.steps.get(name, 0.0) + ms, 2)

    def finish(self) -> dict[str, float]:
        self.steps["total"] = round((time.perf_counter() - self._started) * 1000, 2)
        return dict(self.steps)
