"""A fake Bot Framework connector (the `serviceUrl` Teams puts in every activity) on
127.0.0.1: botbuilder's real ConnectorClient posts replies and typing indicators to it over
HTTP. It records what arrived and can be told to fail the next replies with an HTTP status.

Streaming activities (a `streaminfo` entity) follow Teams' documented rules: the first
update carries text and `streamSequence` 1 and no `streamId`, and is answered 201 with the
stream's id; later updates name that id with a rising sequence (202); the final message
(`streamType` final, no sequence) closes the stream, and nothing more may follow it. Teams
allows streaming only in personal chats; `refuse_streaming()` makes every streaming
activity a 403 ContentStreamNotAllowed, as for a tenant without it (`after=n`: once n were
accepted, as for a stream past Teams' time limit)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.openai_server import serve_app


@dataclass(frozen=True)
class Posted:
    conversation_id: str
    reply_to_id: str | None
    activity: dict[str, Any]
    status: int
    id: str  # the message id the connector gave it (what reactions later refer to)
    at: float = field(default_factory=time.monotonic)  # when it arrived

    @property
    def type(self) -> str:
        return str(self.activity.get("type"))

    @property
    def stream(self) -> dict[str, Any] | None:
        """The activity's `streaminfo` entity, if it is part of a stream."""
        return next(
            (e for e in self.activity.get("entities") or [] if e.get("type") == "streaminfo"),
            None,
        )

    @property
    def text(self) -> str:
        return str(self.activity.get("text") or "")


@dataclass
class FakeConnector:
    url: str = ""
    posted: list[Posted] = field(default_factory=list)  # every attempt, failed ones too
    delay_s: float = 0.0  # how long each message post takes to be accepted
    streams: dict[str, list[Posted]] = field(default_factory=dict)  # accepted, by stream id
    members: dict[str, dict[str, Any]] = field(default_factory=dict)  # the roster, by user id
    updates: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> latest update
    _refuse_after: int | None = None
    _closed_streams: set[str] = field(default_factory=set)
    _failures: list[int] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: int = 0

    def fail_next_messages(self, *statuses: int) -> None:
        """The next message posts (not typing indicators) get these statuses, in order."""
        with self._lock:
            self._failures.extend(statuses)

    def refuse_streaming(self, *, after: int = 0) -> None:
        """Refuse streaming activities once `after` of them have been accepted."""
        self._refuse_after = after

    @property
    def messages(self) -> list[Posted]:
        """Messages that were accepted (what the user sees), in order."""
        return [p for p in list(self.posted) if p.type == "message" and 200 <= p.status < 300]

    @property
    def typing(self) -> list[Posted]:
        """Typing indicators (not streaming updates, which are typing activities too)."""
        return [p for p in list(self.posted) if p.type == "typing" and p.stream is None]

    def attempts(self) -> list[Posted]:
        return [p for p in list(self.posted) if p.type == "message"]

    def wait_for(self, condition: Callable[[], bool], timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; the connector saw {self.posted}")
            time.sleep(0.02)

    def wait_for_messages(self, count: int, timeout: float = 10.0) -> list[Posted]:
        self.wait_for(lambda: len(self.messages) >= count, timeout)
        return self.messages

    async def _member(self, request: web.Request) -> web.Response:
        """`GET /v3/conversations/{id}/members/{user}`: one person of the roster."""
        member = self.members.get(request.match_info["member"])
        if member is None:
            body = {"error": {"code": "MemberNotFoundInConversation"}}
            return web.json_response(body, status=404)
        return web.json_response(member)

    def current(self, activity_id: str) -> dict[str, Any]:
        """A message as it shows now: as posted, or as last updated."""
        found = self.updates.get(activity_id)
        if found is not None:
            return found
        return next(p.activity for p in self.posted if p.id == activity_id)

    async def _put(self, request: web.Request) -> web.Response:
        """UpdateActivity: the bot replaces one of its messages."""
        activity_id = request.match_info["activity"]
        if not any(p.id == activity_id for p in self.posted):
            error = {"error": {"code": "NotFound", "message": "no such activity"}}
            return web.json_response(error, status=404)
        self.updates[activity_id] = await request.json()
        return web.json_response({"id": activity_id})

    async def _post(self, request: web.Request) -> web.Response:
        activity = await request.json()
        if activity.get("type") == "message" and self.delay_s:
            await asyncio.sleep(self.delay_s)
        with self._lock:
            status = 200
            if activity.get("type") == "message" and self._failures:
                status = self._failures.pop(0)
            self._ids += 1
            new_id = f"bot-message-{self._ids}"
            refusal = self._stream_refusal(activity) if status == 200 else None
            info = _stream_info(activity)
            if refusal is not None:
                status = refusal[0]
            elif info is not None:
                status = 201 if "streamId" not in info else 202
                new_id = info.get("streamId", new_id)
        posted = Posted(
            conversation_id=request.match_info["conversation"],
            reply_to_id=request.match_info.get("reply_to"),
            activity=activity,
            status=status,
            id=new_id,
        )
        self.posted.append(posted)
        if refusal is not None:
            error = {"error": {"code": refusal[1], "message": refusal[2]}}
            return web.json_response(error, status=status)
        if status >= 300:
            error = {"error": {"code": "ServiceError", "message": f"scripted {status}"}}
            return web.json_response(error, status=status)
        if info is not None:
            self.streams.setdefault(new_id, []).append(posted)
            return web.json_response({"id": new_id} if status == 201 else {}, status=status)
        return web.json_response({"id": new_id})

    def _stream_refusal(self, activity: dict[str, Any]) -> tuple[int, str, str] | None:
        """Why Teams would refuse this streaming activity, or None (not one, or fine)."""
        info = _stream_info(activity)
        if info is None:
            return None
        accepted = sum(len(parts) for parts in self.streams.values())
        if self._refuse_after is not None and accepted >= self._refuse_after:
            return 403, "ContentStreamNotAllowed", "Content stream is not allowed"
        stream_id, final = info.get("streamId"), info.get("streamType") == "final"
        if not activity.get("text"):
            return 400, "BadRequest", "Start streaming activities should include text"
        if stream_id is None:
            if final or activity.get("type") != "typing" or info.get("streamSequence") != 1:
                return 400, "BadRequest", "a stream starts with a typing activity, sequence 1"
            return None
        if stream_id not in self.streams:
            return 400, "BadRequest", "unknown streamId"
        if stream_id in self._closed_streams:
            return (
                403,
                "ContentStreamNotAllowed",
                "Content stream is not allowed on an already completed streamed message",
            )
        if final:
            if activity.get("type") != "message" or "streamSequence" in info:
                return 400, "BadRequest", "the final message is a message without streamSequence"
            self._closed_streams.add(stream_id)
            return None
        last = max(_sequence(p.activity) for p in self.streams[stream_id])
        if _sequence(activity) <= last:  # Teams drops it, saying so with a 202
            return 202, "ContentStreamSequenceOrderPreConditionFailed", "out of sequence"
        return None


def _sequence(activity: dict[str, Any]) -> int:
    return int((_stream_info(activity) or {}).get("streamSequence") or 0)


def _stream_info(activity: dict[str, Any]) -> dict[str, Any] | None:
    entities = activity.get("entities") or []
    return next((e for e in entities if e.get("type") == "streaminfo"), None)


@contextmanager
def fake_connector() -> Iterator[FakeConnector]:
    fake = FakeConnector()
    app = web.Application()
    app.router.add_post("/v3/conversations/{conversation}/activities", fake._post)
    app.router.add_post("/v3/conversations/{conversation}/activities/{reply_to}", fake._post)
    app.router.add_get("/v3/conversations/{conversation}/members/{member}", fake._member)
    app.router.add_put("/v3/conversations/{conversation}/activities/{activity}", fake._put)
    with serve_app(app) as url:
        fake.url = f"{url}/"
        yield fake
