"""Tiny local stand-ins for the two places a digest goes: Slack's Web API
(chat.postMessage) and a Bot Framework connector (POST .../activities). The real clients
call them over HTTP; they record what arrived."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.openai_server import serve_app


@dataclass
class Recorded:
    url: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    fail_with: int | None = None


@contextmanager
def fake_slack() -> Iterator[Recorded]:
    seen = Recorded()

    async def post_message(request: web.Request) -> web.Response:
        body = (
            await request.json()
            if request.content_type == "application/json"
            else dict(await request.post())
        )
        seen.calls.append({"auth": request.headers.get("Authorization"), **body})
        if seen.fail_with:
            return web.json_response({"ok": False, "error": "channel_not_found"})
        return web.json_response({"ok": True, "channel": body.get("channel"), "ts": "1.000001"})

    app = web.Application()
    app.router.add_post("/api/chat.postMessage", post_message)
    with serve_app(app) as url:
        seen.url = f"{url}/api/"
        yield seen


@contextmanager
def fake_connector() -> Iterator[Recorded]:
    seen = Recorded()

    async def activities(request: web.Request) -> web.Response:
        seen.calls.append(
            {
                "path": request.raw_path,
                "conversation": request.match_info["conversation"],
                "auth": request.headers.get("Authorization"),
                "body": await request.json(),
            }
        )
        if seen.fail_with:
            return web.json_response(
                {"error": {"code": "BotNotInConversationRoster"}}, status=seen.fail_with
            )
        return web.json_response({"id": f"activity-{len(seen.calls)}"})

    app = web.Application()
    app.router.add_post("/v3/conversations/{conversation}/activities", activities)
    with serve_app(app) as url:
        seen.url = url
        yield seen
