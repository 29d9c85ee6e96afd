"""Verified answers expire when the knowledge under them changes: a re-ingest that changes or
removes a source suspends every active verified answer relying on it (by source id or uri).
A suspended answer is not served until someone restores it; its author and the source's
owners are asked to confirm it in the experts channel (Services._sources_changed files the
request, bot.verified.escalation; the chat side posts it)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.store.verified import VerifiedStore
from knowledge.ingest.reports import SourceReport

log = logging.getLogger(__name__)

EXPIRING = {"changed": "changed", "removed": "was removed"}


def suspend_changed(store: VerifiedStore, reports: Sequence[SourceReport]) -> list[int]:
    """Suspend the verified answers relying on a changed or removed source; their ids."""
    suspended: list[int] = []
    for report in reports:
        if report.status not in EXPIRING:
            continue
        ids = store.suspend_relying_on(
            source_ids=[report.source_id] if report.source_id is not None else [],
            uris=[report.uri],
            reason=f"its source {report.uri} {EXPIRING[report.status]} at re-ingest",
        )
        if ids:
            log.warning(
                "suspended verified answer(s) %s: their source %s %s",
                ", ".join(map(str, ids)),
                report.uri,
                EXPIRING[report.status],
            )
        suspended += ids
    return suspended
