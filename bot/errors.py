"""Errors a person reads: each says what was wrong, with what input, and what to do."""

from __future__ import annotations


class KnowbotError(Exception):
    """Base for errors shown to the user as one readable line (no traceback unless --debug)."""


class DatabaseUnavailable(KnowbotError):
    """The configured PostgreSQL server cannot be reached or used."""


class EmbeddedServerError(KnowbotError):
    """The embedded PostgreSQL server could not be started or attached to."""
