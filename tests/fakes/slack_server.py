"""A small fake of Slack on 127.0.0.1: the Web API methods knowbot calls, response_url
webhooks, and a Socket Mode websocket. The real slack_sdk clients talk to it over HTTP; it
records every call so tests assert what a user would have seen in Slack."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.fakes.openai_server import free_port

TEAM = "T0KNOWBOT"
BOT_USER = "U0BOT"
BOT_ID = "B0BOT"


@dataclass(frozen=True)
class Call:
    method: str
    args: dict[str, Any]
    token: str
    at: float
    reply: dict[str, Any] = field(default_factory=dict)

    @property
    def ts(self) -> str:
        """The ts of the message a chat.postMessage call created."""
        return str(self.reply["ts"])

    @property
    def ok(self) -> bool:
        return bool(self.reply.get("ok"))

    @property
    def blocks(self) -> list[dict[str, Any]]:
        raw = self.args.get("blocks") or []
        return json.loads(raw) if isinstance(raw, str) else list(raw)

    @property
    def shown(self) -> str:
        """What a person sees of a posted message: its blocks' text, else the text."""
        parts: list[str] = []
        for block in self.blocks:
            if block["type"] == "section":
                parts.append(block["text"]["text"])
            elif block["type"] == "context":
                parts.extend(e["text"] for e in block["elements"])
        return "\n".join(parts) or str(self.args.get("text", ""))


@dataclass
class Failure:
    status: int
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass
class FakeSlack:
    port: int = field(default_factory=free_port)
    calls: list[Call] = field(default_factory=list)
    webhooks: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    socket_acks: list[dict[str, Any]] = field(default_factory=list)
    auth_error: str | None = None
    reactions: set[tuple[str, str, str]] = field(default_factory=set)  # (channel, ts, name)
    _failures: dict[str, list[Failure]] = field(default_factory=dict)
    _ts: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _sockets: list[web.WebSocketResponse] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/"

    def response_url(self, name: str) -> str:
        return f"{self.url}/response/{name}"

    # ---- scripting and reading

    def fail(
        self,
        method: str,
        *,
        status: int = 200,
        error: str = "internal_error",
        headers: dict[str, str] | None = None,
        times: int = 1,
    ) -> None:
        """The next `times` calls of `method` fail like Slack would."""
        failure = Failure(status, {"ok": False, "error": error}, headers or {})
        self._failures.setdefault(method, []).extend([failure] * times)

    def of(self, method: str, **match: Any) -> list[Call]:
        return [
            c
            for c in self.calls
            if c.method == method and all(c.args.get(k) == v for k, v in match.items())
        ]

    def posts(self, **match: Any) -> list[Call]:
        return self.of("chat.postMessage", **match)

    async def wait_for(self, check: Callable[[], object], *, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                methods = [(c.method, c.args.get("channel")) for c in self.calls]
                raise AssertionError(f"timed out waiting; Slack saw {methods}")
            await asyncio.sleep(0.02)

    async def push(self, envelope: dict[str, Any]) -> None:
        """Send a Socket Mode envelope to every connected client."""
        for ws in list(self._sockets):
            await ws.send_str(json.dumps(envelope))

    # ---- the server

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/api/{method}", self._api)
        app.router.add_post("/response/{name}", self._webhook)
        app.router.add_get("/socket", self._socket)
        return app

    @asynccontextmanager
    async def running(self) -> AsyncIterator[FakeSlack]:
        """Serve in the current event loop."""
        runner = web.AppRunner(self.app())
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", self.port).start()
        try:
            yield self
        finally:
            for ws in list(self._sockets):
                await ws.close()
            await runner.cleanup()

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            args.update(await request.json())
        else:
            args.update(await request.post())
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        failures = self._failures.get(method)
        if failures:
            failure = failures.pop(0)
            self.calls.append(Call(method, args, token, time.monotonic(), failure.body))
            return web.json_response(failure.body, status=failure.status, headers=failure.headers)
        reply = self._reply(method, args)
        self.calls.append(Call(method, args, token, time.monotonic(), reply))
        return web.json_response(reply)

    def _reply(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            if self.auth_error:
                return {"ok": False, "error": self.auth_error}
            return {
                "ok": True,
                "url": "https://knowbot-test.slack.com/",
                "team": "Knowbot Test",
                "user": "knowbot",
                "team_id": TEAM,
                "user_id": BOT_USER,
                "bot_id": BOT_ID,
                "is_enterprise_install": False,
            }
        if method == "apps.connections.open":
            return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/socket"}
        if method in ("chat.postMessage", "chat.update"):
            ts = f"{1_700_100_000 + next(self._ts)}.000100"
            return {"ok": True, "channel": args.get("channel"), "ts": ts, "message": {"ts": ts}}
        if method in ("reactions.add", "reactions.remove"):
            key = (str(args.get("channel")), str(args.get("timestamp")), str(args.get("name")))
            if method == "reactions.add" and key in self.reactions:
                return {"ok": False, "error": "already_reacted"}
            if method == "reactions.remove" and key not in self.reactions:
                return {"ok": False, "error": "no_reaction"}
            (self.reactions.add if method == "reactions.add" else self.reactions.discard)(key)
            return {"ok": True}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"{1_700_200_000 + next(self._ts)}.000200"}
        return {"ok": True}

    async def _webhook(self, request: web.Request) -> web.Response:
        self.webhooks.append((request.match_info["name"], await request.json()))
        return web.Response(text="ok")

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._sockets.append(ws)
        await ws.send_str(
            json.dumps({"type": "hello", "num_connections": 1, "debug_info": {"host": "fake"}})
        )
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                self.socket_acks.append(json.loads(message.data))
        self._sockets.remove(ws)
        return ws
