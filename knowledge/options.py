"""How the user asked a source to be ingested."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowledge.kinds import SourceKind


@dataclass(frozen=True)
class IngestOptions:
    kind: SourceKind = SourceKind.AUTO
    scope: str = "default"
    keys: tuple[str, ...] = ()
    time: str | None = None
    group: str | None = None
    metrics: tuple[str, ...] = ()
    name: str | None = None  # table name for rows (defaults to the file stem)

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "keys": list(self.keys),
            "time": self.time,
            "group": self.group,
            "metrics": list(self.metrics),
            "name": self.name,
        }
