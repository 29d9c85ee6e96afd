"""A fake of the Microsoft Graph calls answering makes about the asker, on 127.0.0.1: the
client-credentials token, `GET /users/{id or UPN}` and `GET /users/{id}/transitiveMemberOf`
(paged by `@odata.nextLink`, with a directory role among the groups, as Graph returns)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

TENANT = "contoso-tenant"
CLIENT_ID = "knowbot-app"
CLIENT_SECRET = "s3cret"
TOKEN = "graph-token-1"


@dataclass
class FakeUser:
    id: str
    mail: str
    groups: list[tuple[str, str]] = field(default_factory=list)  # (id, display name)


@dataclass
class FakeGraph:
    port: int = 0
    users: list[FakeUser] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    secret: str = CLIENT_SECRET

    @property
    def authority(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def graph_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1.0"

    def env(self) -> dict[str, str]:
        return {
            "MICROSOFT_GRAPH_TENANT_ID": TENANT,
            "MICROSOFT_GRAPH_CLIENT_ID": CLIENT_ID,
            "MICROSOFT_GRAPH_CLIENT_SECRET": CLIENT_SECRET,
            "KNOWBOT_GRAPH_URL": self.graph_url,
            "KNOWBOT_GRAPH_AUTHORITY": self.authority,
        }

    def user(self, key: str) -> FakeUser | None:
        key = key.lower()
        return next((u for u in self.users if key in (u.id.lower(), u.mail.lower())), None)

    def answer(self, method: str, path: str, body: str, auth: str) -> tuple[int, Any]:
        self.requests.append(f"{method} {path}")
        parts = urlsplit(path)
        if method == "POST" and parts.path == f"/{TENANT}/oauth2/v2.0/token":
            form = {k: v[0] for k, v in parse_qs(body).items()}
            if form.get("client_secret") != self.secret or form.get("client_id") != CLIENT_ID:
                return 401, {"error": "invalid_client", "error_description": "AADSTS7000215"}
            return 200, {"access_token": TOKEN, "expires_in": 3599, "token_type": "Bearer"}
        if auth != f"Bearer {TOKEN}":
            return 401, {"error": {"code": "InvalidAuthenticationToken"}}
        segments = [unquote(s) for s in parts.path.split("/") if s]
        if segments[:2] != ["v1.0", "users"] or len(segments) < 3:
            return 404, {"error": {"code": "Request_ResourceNotFound"}}
        user = self.user(segments[2])
        if user is None:
            return 404, {"error": {"code": "Request_ResourceNotFound"}}
        if len(segments) == 3:
            return 200, {"id": user.id, "mail": user.mail, "userPrincipalName": user.mail}
        if segments[3] == "transitiveMemberOf":
            return 200, self._groups_page(user, parse_qs(parts.query).get("page", ["1"])[0])
        return 404, {"error": {"code": "Request_ResourceNotFound"}}

    def _groups_page(self, user: FakeUser, page: str) -> dict[str, Any]:
        groups = [
            {"@odata.type": "#microsoft.graph.group", "id": gid, "displayName": name}
            for gid, name in user.groups
        ]
        role = {"@odata.type": "#microsoft.graph.directoryRole", "id": "role-1",
                "displayName": "Global Reader"}  # fmt: skip
        if page == "1":
            link = f"{self.graph_url}/users/{user.id}/transitiveMemberOf?page=2"
            return {"value": [*groups[:1], role], "@odata.nextLink": link}
        return {"value": groups[1:]}


@contextmanager
def fake_graph(*users: FakeUser) -> Iterator[FakeGraph]:
    fake = FakeGraph(users=list(users))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._reply("GET", "")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self._reply("POST", self.rfile.read(length).decode())

        def _reply(self, method: str, body: str) -> None:
            status, data = fake.answer(
                method, self.path, body, self.headers.get("Authorization", "")
            )
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
