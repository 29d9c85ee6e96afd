"""Reading a streamed model reply (server-sent events) within a hard time limit.

The HTTP client's timeout bounds each read, not the whole reply: a model that sends its
first words and then stalls, or drips a word a second, would hold the answer past its
deadline. The events are therefore read on a helper thread and handed over through a
queue; the caller waits on the queue only as long as the limit allows, then gives up and
answers without the model. An abandoned reader stops at its next event, or when the
client's own read timeout (never longer than the limit) ends the stalled read."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

TextSink = Callable[[str], None]  # receives each new piece of the reply, in order


class StreamFailed(Exception):
    """Why a stream ended badly: `cause` is what the client raised, or None for time out."""

    def __init__(self, cause: Exception | None) -> None:
        super().__init__(str(cause) if cause else "timed out")
        self.cause = cause


@dataclass(frozen=True)
class Piece:
    text: str = ""
    refusal: str = ""


def read_pieces(
    events: Iterable[Any], pieces: Callable[[Any], Piece], *, seconds: float
) -> Iterator[Piece]:
    """The pieces of `events` as they arrive; StreamFailed when the client fails or the
    whole stream takes longer than `seconds`."""
    handoff: queue.Queue[tuple[str, Any]] = queue.Queue()
    abandoned = threading.Event()
    thread = threading.Thread(
        target=_pump, args=(events, handoff, abandoned), name="llm-stream", daemon=True
    )
    thread.start()
    until = time.monotonic() + seconds
    try:
        while True:
            try:
                kind, item = handoff.get(timeout=max(0.0, until - time.monotonic()))
            except queue.Empty:
                raise StreamFailed(None) from None
            if kind == "end":
                return
            if kind == "error":
                raise StreamFailed(item)
            yield pieces(item)
    finally:
        abandoned.set()


def _pump(
    events: Iterable[Any], handoff: queue.Queue[tuple[str, Any]], stop: threading.Event
) -> None:
    try:
        for event in events:
            if stop.is_set():
                close = getattr(events, "close", None)
                if callable(close):
                    close()  # on this thread: the connection is not shared
                return
            handoff.put(("event", event))
        handoff.put(("end", None))
    except Exception as exc:
        handoff.put(("error", exc))
