"""A fake Bot Framework connector (the `serviceUrl` Teams puts in every activity) on
127.0.0.1: botbuilder's real ConnectorClient posts replies and typing indicators to it over
HTTP. It records what arrived and can be told to fail the next replies with an HTTP status."""

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

    @property
    def type(self) -> str:
        return str(self.activity.get("type"))

    @property
    def text(self) -> str:
        return str(self.activity.get("text") or "")


@dataclass
class FakeConnector:
    url: str = ""
    posted: list[Posted] = field(default_factory=list)  # every attempt, failed ones too
    delay_s: float = 0.0  # how long each message post takes to be accepted
    _failures: list[int] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: int = 0

    def fail_next_messages(self, *statuses: int) -> None:
        """The next message posts (not typing indicators) get these statuses, in order."""
        with self._lock:
            self._failures.extend(statuses)

    @property
    def messages(self) -> list[Posted]:
        """Messages that were accepted (what the user sees), in order."""
        return [p for p in list(self.posted) if p.type == "message" and p.status == 200]

    @property
    def typing(self) -> list[Posted]:
        return [p for p in list(self.posted) if p.type == "typing"]

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
        self.posted.append(
            Posted(
                conversation_id=request.match_info["conversation"],
                reply_to_id=request.match_info.get("reply_to"),
                activity=activity,
                status=status,
                id=new_id,
            )
        )
        if status != 200:
            error = {"error": {"code": "ServiceError", "message": f"scripted {status}"}}
            return web.json_response(error, status=status)
        return web.json_response({"id": new_id})


@contextmanager
def fake_connector() -> Iterator[FakeConnector]:
    fake = FakeConnector()
    app = web.Application()
    app.router.add_post("/v3/conversations/{conversation}/activities", fake._post)
    app.router.add_post("/v3/conversations/{conversation}/activities/{reply_to}", fake._post)
    with serve_app(app) as url:
        fake.url = f"{url}/"
        yield fake
