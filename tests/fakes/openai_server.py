"""A small OpenAI-compatible server on 127.0.0.1 for tests: the real `openai` client talks
to it over HTTP. Replies are scripted by a function of the request's messages: a text, an
HTTP status to fail with, one of the misbehaviours in `Misbehave`, or a `Stall`.

A request with `"stream": true` gets server-sent events as OpenAI sends them: the headers at
once, the first piece after `delay_s` (the model's time to first token), then a piece
(a word with its leading space) every `piece_interval_s`, then `data: [DONE]`."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from aiohttp import web


class Misbehave(Enum):
    HANG = "hang"  # never answers (until the server stops)
    MALFORMED = "malformed"  # HTTP 200 with a body that is not JSON
    NO_CHOICES = "no choices"  # a completion with an empty `choices` list
    REFUSAL = "refusal"  # the model refuses (content null, `refusal` set)


@dataclass(frozen=True)
class Stall:
    """Send `text` (streamed: as pieces; else nothing) and then nothing more, ever."""

    text: str


Reply = Callable[[list[dict[str, str]]], "str | int | Misbehave | Stall"]


@dataclass
class FakeOpenAI:
    reply: Reply
    delay_s: float = 0.0
    piece_interval_s: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""
    stopping: bool = False  # set when the server stops: hanging requests end

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        outcome = self.reply(body["messages"])
        if body.get("stream") and not isinstance(outcome, int):
            return await self._stream(request, body, outcome)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if isinstance(outcome, Stall):
            outcome = Misbehave.HANG
        if isinstance(outcome, int):
            return web.json_response({"error": {"message": "scripted failure"}}, status=outcome)
        if isinstance(outcome, Misbehave):
            return await self._misbehave(outcome, body)
        return web.json_response(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": outcome},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    async def _stream(
        self, request: web.Request, body: dict[str, Any], outcome: str | Misbehave | Stall
    ) -> web.StreamResponse:
        if outcome is Misbehave.HANG:
            outcome = Stall("")
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await asyncio.sleep(self.delay_s)
        if isinstance(outcome, Misbehave):
            await response.write(_STREAMED_MISBEHAVIOUR[outcome](body))
        else:
            text = outcome.text if isinstance(outcome, Stall) else outcome
            for n, piece in enumerate(re.findall(r"\s*\S+|\s+", text)):
                if n and self.piece_interval_s:
                    await asyncio.sleep(self.piece_interval_s)
                await response.write(_event(body, {"role": "assistant", "content": piece}))
        if isinstance(outcome, Stall):
            while not self.stopping:
                await asyncio.sleep(0.05)
            return response
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    async def _misbehave(self, how: Misbehave, body: dict[str, Any]) -> web.Response:
        if how is Misbehave.HANG:
            while not self.stopping:
                await asyncio.sleep(0.05)
            return web.Response(status=503)
        if how is Misbehave.MALFORMED:
            return web.Response(text='{"choices": [{"message": ', content_type="application/json")
        message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": "I can't."}
        choices = [] if how is Misbehave.NO_CHOICES else [{"index": 0, "message": message}]
        return web.json_response(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake"),
                "choices": choices,
            }
        )

    def system_prompts(self) -> list[str]:
        return [m["content"] for r in self.requests for m in r["messages"] if m["role"] == "system"]


def _event(body: dict[str, Any], delta: dict[str, Any] | None) -> bytes:
    """One chunk as OpenAI streams it; `delta` None: a chunk without choices."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": None}]
    chunk = {
        "id": "chatcmpl-stream",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": choices,
    }
    return f"data: {json.dumps(chunk)}\n\n".encode()


_STREAMED_MISBEHAVIOUR: dict[Misbehave, Callable[[dict[str, Any]], bytes]] = {
    Misbehave.MALFORMED: lambda body: b'data: {"choices": [{"delta": \n\n',
    Misbehave.NO_CHOICES: lambda body: _event(body, None),
    Misbehave.REFUSAL: lambda body: _event(body, {"role": "assistant", "refusal": "I can't."}),
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_app(app: web.Application, *, port: int | None = None) -> Iterator[str]:
    """Run an aiohttp app on 127.0.0.1 in a background thread; yield its base URL."""
    port = port or free_port()
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", port).start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


@contextmanager
def fake_openai(
    reply: Reply, *, delay_s: float = 0.0, piece_interval_s: float = 0.0
) -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI(reply=reply, delay_s=delay_s, piece_interval_s=piece_interval_s)
    app = web.Application()
    app.router.add_post("/v1/chat/completions", fake._chat)
    with serve_app(app) as url:
        fake.base_url = f"{url}/v1"
        try:
            yield fake
        finally:
            fake.stopping = True
