"""The answer while the model writes it: its bullets as the final answer will show them.

A chat adapter streams drafts to the user. A draft is read from the model's text so far
with the same parser as the finished reply, so a bullet shown while streaming is the
bullet the stored answer holds: `settled` bullets can no longer change (the model has
started the next one), `writing` is the bullet still growing. Nothing settles before the
model's list begins: until then a paragraph may yet turn into list items. Settled bullets
only ever grow; should the finished reply read differently after all (a failed model, a
"not found"), the adapter replaces what it showed with the stored answer.

Drafts are produced on the pipeline's thread, one per piece of text; the sink must be
quick and must not block (adapters hand them to their event loop)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.conversation.citations import parse_bullets
from bot.conversation.types import Bullet

log = logging.getLogger(__name__)

_LIST_LINE = re.compile(r"^\s*(?:[-*•▪◦‣–]|\d{1,2}[.)])\s+\S", re.MULTILINE)


@dataclass(frozen=True)
class Draft:
    settled: tuple[Bullet, ...] = ()
    writing: str = ""  # the bullet being written, rendered as far as it goes

    @property
    def started(self) -> bool:
        return bool(self.settled or self.writing)


DraftSink = Callable[[Draft], None]


class Drafter:
    """Model text in (piece by piece), drafts out to `sink`. Announces an empty draft when
    built: the answer is about to be written (the event is claimed, the sources found)."""

    def __init__(self, sink: DraftSink, *, max_source: int) -> None:
        self._sink: DraftSink | None = sink
        self._max_source = max_source
        self._text = ""
        self._last = Draft()
        self._send(self._last)

    def __call__(self, piece: str) -> None:
        self._text += piece
        draft = self._draft()
        if draft != self._last:
            self._last = draft
            self._send(draft)

    def _draft(self) -> Draft:
        if not _LIST_LINE.search(self._text):
            return Draft()
        bullets = parse_bullets(self._text, max_source=self._max_source)
        if not bullets:
            return replace(self._last, writing="")
        settled, before = tuple(bullets[:-1]), self._last.settled
        if settled[: len(before)] != before:  # e.g. a line that turns out to be a heading:
            settled = before  # what was shown stays shown; the finished answer decides
        return Draft(settled, bullets[-1].render())

    def _send(self, draft: Draft) -> None:
        """A failing sink must not fail the answer: it is dropped, the answer goes on."""
        if self._sink is None:
            return
        try:
            self._sink(draft)
        except Exception:
            log.exception("the draft sink failed; the answer is finished without streaming")
            self._sink = None
