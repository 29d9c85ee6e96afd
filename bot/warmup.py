"""Warming the bot before it reports ready: the first answer after a start used to wait for
the embedding model to load (27 s on a loaded machine) while /healthz already said ok."""

from __future__ import annotations

import logging
import threading
import time

from bot.conversation import lexicon
from bot.wiring import Services

log = logging.getLogger(__name__)

REHEARSALS = ("What is the waiting period?", "How do I submit a claim?")


class Readiness:
    """Whether the bot can answer at full speed yet (`/readyz`)."""

    def __init__(self, *, ready: bool = False) -> None:
        self._ready = threading.Event()
        if ready:
            self._ready.set()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def mark_ready(self) -> None:
        self._ready.set()


def warm_up(services: Services, *, scopes: tuple[str, ...] = ("default",)) -> float:
    """Build the pipeline, load the embedding model, open database connections and run
    whole answers short of the model and the database writes; return the seconds taken."""
    started = time.perf_counter()
    lexicon.load()  # the English word list the spelling check reads (about a second)
    pipeline = services.pipeline
    for question in REHEARSALS:
        pipeline.rehearse(question, scopes=scopes)
    seconds = time.perf_counter() - started
    log.info("warm in %.1f s", seconds)
    return seconds
