"""Errors a person reads when a knowledge source cannot be used."""

from __future__ import annotations


class KnowledgeError(Exception):
    """Base for knowledge errors a person reads as one line."""


class IndexModelMismatch(KnowledgeError):
    """The index was built with another embedding model; vectors must never mix."""


class SourceError(KnowledgeError):
    """A source (file, table, query) could not be read; the message says why and what to do."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason
