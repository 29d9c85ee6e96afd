"""How the user asked a source to be ingested."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowledge.ingest.kinds import SourceKind
from knowledge.ingest.source_links import UrlTemplate


@dataclass(frozen=True)
class IngestOptions:
    kind: SourceKind = SourceKind.AUTO
    scope: str = "default"
    keys: tuple[str, ...] = ()
    time: str | None = None
    group: str | None = None
    metrics: tuple[str, ...] = ()
    name: str | None = None  # table name for rows (defaults to the file stem)
    url: str | None = None  # link template (ingest.source_links): ".../{path}#page={page}"
    # Who owns the source (ingest.owners). Not part of as_json: a change of owners is no
    # change of content, so it never makes a source read (or its verified answers expire).
    owners: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.url is not None:
            UrlTemplate.parse(self.url)  # BadTemplate (a ValueError) says what to change

    def as_json(self) -> dict[str, Any]:
        options: dict[str, Any] = {
            "kind": self.kind.value,
            "keys": list(self.keys),
            "time": self.time,
            "group": self.group,
            "metrics": list(self.metrics),
            "name": self.name,
        }
        if self.url is not None:  # absent otherwise: sources ingested before links stay unchanged
            options["url"] = self.url
        return options
