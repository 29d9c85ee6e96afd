"""A small fake of Slack on 127.0.0.1: the Web API methods knowbot calls, response_url
webhooks, and a Socket Mode websocket. The real slack_sdk clients talk to it over HTTP; it
records every call so tests assert what a user would have seen in Slack.

It keeps the messages the bot posted, as Slack shows them after every post, edit and
stream call (`message(...)`, `shown(...)`). Streams behave as Slack documents them:
chat.startStream needs a thread and, outside direct messages, the recipient's team and
user; appending to or stopping a stream that is not streaming any more (stopped, or
expired: `expire_streams()`) is `message_not_in_streaming_state`; a message still
streaming cannot be edited with chat.update."""

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
class Message:
    """A message as Slack shows it."""

    channel: str
    ts: str
    thread_ts: str | None
    text: str = ""
    blocks: list[dict[str, Any]] = field(default_factory=list)
    markdown: str = ""  # streamed text, shown above the blocks
    streaming: bool = False
    edits: int = 0

    @property
    def shown(self) -> str:
        """What a person reads: streamed text, then the blocks' text (else the text)."""
        parts = [self.markdown] if self.markdown else []
        for block in self.blocks:
            if block["type"] == "section":
                parts.append(block["text"]["text"])
            elif block["type"] == "context":
                parts.extend(e["text"] for e in block["elements"])
            elif block["type"] == "markdown":
                parts.append(block["text"])
        return "\n".join(parts) or (self.text if not self.markdown else "")

    def has_feedback_buttons(self) -> bool:
        return any(
            b["type"] == "context_actions"
            and any(e.get("type") == "feedback_buttons" for e in b["elements"])
            for b in self.blocks
        )


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
    messages: dict[tuple[str, str], Message] = field(default_factory=dict)  # by (channel, ts)
    streams_expire: bool = False  # a stream times out as soon as it has started
    delays: dict[str, float] = field(default_factory=dict)  # method -> seconds before replying
    users: dict[str, str] = field(default_factory=dict)  # user id -> real name (users.info)
    emails: dict[str, str] = field(
        default_factory=dict
    )  # user id -> e-mail (users.info, lookupByEmail)
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

    def message(self, channel: str, ts: str) -> Message:
        return self.messages[(channel, ts)]

    def thread_messages(self, channel: str, thread_ts: str) -> list[Message]:
        """The bot's messages in a thread, oldest first."""
        return [
            m for m in self.messages.values() if (m.channel, m.thread_ts) == (channel, thread_ts)
        ]

    def expire_streams(self) -> None:
        """Every stream in progress times out, as Slack's do when left too long."""
        for message in self.messages.values():
            message.streaming = False

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
        app.router.add_get("/api/{method}", self._api)  # users.info, users.lookupByEmail
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
        if self.delays.get(method):
            await asyncio.sleep(self.delays[method])
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
        if method == "chat.postMessage":
            ts = self._new_message(args, streaming=False)
            message = self.messages[(str(args.get("channel")), ts)]
            message.text, message.blocks = str(args.get("text") or ""), _blocks(args)
            return {"ok": True, "channel": args.get("channel"), "ts": ts, "message": {"ts": ts}}
        if method == "chat.update":
            return self._update(args)
        if method.startswith("chat.") and method.endswith("Stream"):
            return self._stream(method, args)
        if method == "assistant.threads.setSuggestedPrompts":
            prompts = args.get("prompts")
            if not isinstance(prompts, list) or not 0 < len(prompts) <= 4:
                return {"ok": False, "error": "invalid_arguments"}
            if not all(
                isinstance(p, dict) and p.get("title") and p.get("message") for p in prompts
            ):
                return {"ok": False, "error": "invalid_arguments"}
            return {"ok": True}
        if method == "assistant.threads.setTitle" and not args.get("title"):
            return {"ok": False, "error": "invalid_arguments"}
        if method in ("reactions.add", "reactions.remove"):
            key = (str(args.get("channel")), str(args.get("timestamp")), str(args.get("name")))
            if method == "reactions.add" and key in self.reactions:
                return {"ok": False, "error": "already_reacted"}
            if method == "reactions.remove" and key not in self.reactions:
                return {"ok": False, "error": "no_reaction"}
            (self.reactions.add if method == "reactions.add" else self.reactions.discard)(key)
            return {"ok": True}
        if method == "users.info":
            user = str(args.get("user"))
            if user not in self.users and user not in self.emails:
                return {"ok": False, "error": "user_not_found"}
            name = self.users.get(user, "")
            profile = {"real_name": name, "display_name": name}
            if user in self.emails:
                profile["email"] = self.emails[user]
            found = {"id": user, "name": name.lower(), "real_name": name, "profile": profile}
            return {"ok": True, "user": found}
        if method == "users.lookupByEmail":
            wanted = str(args.get("email")).lower()
            known = next((u for u, e in self.emails.items() if e.lower() == wanted), None)
            if known is None:
                return {"ok": False, "error": "users_not_found"}
            return {"ok": True, "user": {"id": known, "name": known.lower()}}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"{1_700_200_000 + next(self._ts)}.000200"}
        return {"ok": True}

    def _new_message(self, args: dict[str, Any], *, streaming: bool) -> str:
        ts = f"{1_700_100_000 + next(self._ts)}.000100"
        channel, thread = str(args.get("channel")), args.get("thread_ts")
        self.messages[(channel, ts)] = Message(
            channel, ts, str(thread) if thread else None, streaming=streaming
        )
        return ts

    def _update(self, args: dict[str, Any]) -> dict[str, Any]:
        message = self.messages.get((str(args.get("channel")), str(args.get("ts"))))
        if message is None:
            return {"ok": False, "error": "message_not_found"}
        if message.streaming:
            return {"ok": False, "error": "cant_update_message"}
        message.text, message.blocks = str(args.get("text") or ""), _blocks(args)
        message.markdown, message.edits = "", message.edits + 1
        return {"ok": True, "channel": message.channel, "ts": message.ts}

    def _stream(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        text = str(args.get("markdown_text") or "")
        for chunk in args.get("chunks") or []:
            if isinstance(chunk, dict) and chunk.get("type") == "markdown_text":
                text += str(chunk.get("text") or "")
        if len(text) > 12_000:
            return {"ok": False, "error": "msg_too_long"}
        channel = str(args.get("channel"))
        if method == "chat.startStream":
            if not args.get("thread_ts"):
                return {"ok": False, "error": "invalid_arguments"}
            if not channel.startswith("D"):
                for needed in ("recipient_team_id", "recipient_user_id"):
                    if not args.get(needed):
                        return {"ok": False, "error": f"missing_{needed}"}
            ts = self._new_message(args, streaming=not self.streams_expire)
            self.messages[(channel, ts)].markdown = text
            return {"ok": True, "channel": channel, "ts": ts}
        message = self.messages.get((channel, str(args.get("ts"))))
        if message is None or not message.streaming:
            return {"ok": False, "error": "message_not_in_streaming_state"}
        message.markdown += text
        if method == "chat.stopStream":
            message.streaming = False
            message.blocks = _blocks(args)
            return {"ok": True, "channel": channel, "ts": message.ts, "message": {"ts": message.ts}}
        return {"ok": True, "channel": channel, "ts": message.ts}

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


def _blocks(args: dict[str, Any]) -> list[dict[str, Any]]:
    raw = args.get("blocks") or []
    return json.loads(raw) if isinstance(raw, str) else list(raw)
