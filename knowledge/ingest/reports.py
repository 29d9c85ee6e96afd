"""What an ingest run reports: each source's outcome and the run's summary."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

Progress = Callable[[str, int, int], None]  # (description, done, total)
# Told of every run's reports once it is written (e.g. to suspend verified answers that rely
# on a changed or removed source); it must not raise.
OnChange = Callable[[Sequence["SourceReport"]], None]


@dataclass
class SourceReport:
    uri: str
    kind: str
    status: str  # new | changed | unchanged | removed | failed
    chunks: int = 0
    added: int = 0
    removed: int = 0
    error: str = ""
    instruction_like: int = 0  # chunks that address an AI assistant (knowledge.ingest.injection)
    scope: str = ""
    source_id: int | None = None  # known for changed and removed sources


@dataclass
class IngestSummary:
    reports: list[SourceReport] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for r in self.reports if r.status == status)

    @property
    def failed(self) -> list[SourceReport]:
        return [r for r in self.reports if r.status == "failed"]

    @property
    def chunks(self) -> int:
        return sum(r.chunks for r in self.reports if r.status != "removed")

    @property
    def embedded(self) -> int:
        return sum(r.added for r in self.reports)
