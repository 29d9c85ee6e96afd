"""The composition root: builds every service from one Settings object."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from bot.db import migrate
from bot.db.engine import Database, open_database
from bot.settings import Settings
from bot.store.events import EventClaims
from bot.store.threads import ThreadStore

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    db: Database
    threads: ThreadStore
    events: EventClaims


@contextmanager
def open_services(settings: Settings, *, apply_migrations: bool = True) -> Iterator[Services]:
    """Open the database (embedded or configured), apply pending migrations, wire services."""
    db = open_database(settings)
    try:
        if apply_migrations:
            applied = migrate.upgrade(db.engine)
            if applied:
                log.info("applied migrations %s", ", ".join(applied))
        yield Services(
            settings=settings,
            db=db,
            threads=ThreadStore(db.engine),
            events=EventClaims(db.engine),
        )
    finally:
        db.close()
