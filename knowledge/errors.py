"""Errors a person reads when a knowledge source cannot be used."""

from __future__ import annotations


class SourceError(Exception):
    """A source (file, table, query) could not be read; the message says why and what to do."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason
