"""A moment by which work must be done, on the monotonic clock.

One answer has one deadline: every model call made for it (condense, intent, answer, judge)
takes its timeout from what is left, so a slow or hanging model cannot hold a user past it."""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Deadline:
    at: float  # time.monotonic() value

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    def remaining(self) -> float:
        """Seconds left, never negative."""
        return max(0.0, self.at - time.monotonic())

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def earlier(self, seconds: float) -> Deadline:
        """This deadline minus `seconds` kept in reserve (for scoring, storing, posting)."""
        return Deadline(self.at - seconds)

    def share(self, fraction: float) -> Deadline:
        """A nearer deadline: `fraction` of the time left from now. A step with a fallback
        (intent, condensing) takes a share so the answer still has time after it."""
        return Deadline(time.monotonic() + self.remaining() * fraction)
