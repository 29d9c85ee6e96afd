"""A person's reader (identities, groups, everyone) from what their chat platform says about
them, with their groups from Microsoft Graph when it is configured, cached for a while:
groups change rarely, and a question should not wait on Graph every time.

When Graph cannot be asked (not configured, or failing) the person is known by the
identities their platform gave and belongs to no group: they see less, never more."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

from bot.people.graph import DirectoryError, GraphDirectory
from knowledge.access import Reader, normalised

log = logging.getLogger(__name__)

TTL_S = 900.0  # group changes reach answers within this long
FAILURE_TTL_S = 60.0  # after Graph failed, ask it again this soon


class Readers:
    def __init__(
        self,
        directory: GraphDirectory | None,
        *,
        ttl_s: float = TTL_S,
        failure_ttl_s: float = FAILURE_TTL_S,
    ) -> None:
        self._directory = directory
        self._ttl_s = ttl_s
        self._failure_ttl_s = failure_ttl_s
        self._cache: dict[tuple[str, ...], tuple[float, Reader]] = {}
        self._lock = threading.Lock()

    def reader_for(self, identities: Sequence[str]) -> Reader:
        """The reader of a person known by `identities` (the first is what Graph is asked
        about: an object id, or an e-mail address / user principal name)."""
        key = normalised(identities)
        if not key:
            return Reader.person(())
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(key)
            if cached and cached[0] > now:
                return cached[1]
        reader, ttl = self._resolve(key)
        with self._lock:
            self._cache[key] = (now + ttl, reader)
        return reader

    def close(self) -> None:
        if self._directory is not None:
            self._directory.close()

    def _resolve(self, identities: tuple[str, ...]) -> tuple[Reader, float]:
        if self._directory is None:
            return Reader.person(identities), self._ttl_s
        try:
            person = self._directory.person(identities[0])
        except DirectoryError as exc:
            log.warning("groups of %s unknown, answering without them: %s", identities[0], exc)
            return Reader.person(identities), self._failure_ttl_s
        if person is None:
            log.info("Microsoft Graph knows nobody as %s: no groups", identities[0])
            return Reader.person(identities), self._ttl_s
        return Reader.person((*identities, *person.identities), person.groups), self._ttl_s
