"""Microsoft Graph, as far as answering needs it: a person's identities (object id, mail,
user principal name) and the groups they belong to, directly or through other groups
(`GET /users/{id}/transitiveMemberOf`), with an app-only token (client credentials)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

TOKEN_MARGIN_S = 60  # a token this close to expiring is renewed first
MAX_PAGES = 50  # of transitiveMemberOf (100 groups a page by default)
GROUP_TYPE = "#microsoft.graph.group"


class DirectoryError(Exception):
    """Graph could not say who someone is (a bad secret, a refusal, an outage)."""


@dataclass(frozen=True)
class GraphCredentials:
    tenant_id: str
    client_id: str
    client_secret: str
    graph_url: str = "https://graph.microsoft.com/v1.0"
    authority: str = "https://login.microsoftonline.com"


@dataclass(frozen=True)
class Person:
    identities: tuple[str, ...]  # object id, mail, user principal name
    groups: tuple[str, ...]  # "group:<id>" and "group:<display name>"


class GraphDirectory:
    def __init__(self, credentials: GraphCredentials, *, timeout_s: float = 10.0) -> None:
        self._credentials = credentials
        self._http = httpx.Client(timeout=timeout_s)
        self._token: tuple[str, float] | None = None  # (token, expires at, monotonic)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._http.close()

    def person(self, key: str) -> Person | None:
        """The person Graph knows by `key` (an object id, a user principal name or an
        e-mail address that is one), or None when it knows nobody by it."""
        base = f"/users/{quote(key, safe='@')}"
        user = self._get(f"{base}?$select=id,mail,userPrincipalName")
        if user is None:
            return None
        names = (user.get("id"), user.get("mail"), user.get("userPrincipalName"))
        groups: list[str] = []
        url: str | None = f"{base}/transitiveMemberOf?$select=id,displayName"
        for _ in range(MAX_PAGES):
            if url is None:
                break
            page = self._get(url) or {}
            for entry in page.get("value") or []:
                if entry.get("@odata.type", GROUP_TYPE) != GROUP_TYPE:
                    continue  # directory roles and administrative units are not groups
                groups += [f"group:{entry[k]}" for k in ("id", "displayName") if entry.get(k)]
            url = page.get("@odata.nextLink")
        return Person(tuple(n for n in names if n), tuple(groups))

    def _get(self, path_or_url: str) -> dict[str, Any] | None:
        """The JSON of a GET (a path under the Graph URL, or a next link); None on 404."""
        url = path_or_url
        if not url.startswith(("http://", "https://")):
            url = self._credentials.graph_url.rstrip("/") + path_or_url
        headers = {"Authorization": f"Bearer {self._access_token()}"}
        try:
            response = self._http.get(url, headers=headers)
        except httpx.HTTPError as exc:
            raise DirectoryError(f"Microsoft Graph is not reachable ({url}): {exc}") from exc
        if response.status_code == 404:
            return None
        if response.status_code in (401, 403):
            raise DirectoryError(
                f"Microsoft Graph refused {url} ({response.status_code}): grant the app the "
                "User.Read.All and GroupMember.Read.All application permissions"
            )
        if response.status_code >= 400:
            raise DirectoryError(f"Microsoft Graph answered {response.status_code} to {url}")
        data: dict[str, Any] = response.json()
        return data

    def _access_token(self) -> str:
        with self._lock:
            if self._token and self._token[1] > time.monotonic():
                return self._token[0]
            token, lifetime = self._new_token()
            self._token = (token, time.monotonic() + max(0.0, lifetime - TOKEN_MARGIN_S))
            return token

    def _new_token(self) -> tuple[str, float]:
        c = self._credentials
        url = f"{c.authority.rstrip('/')}/{c.tenant_id}/oauth2/v2.0/token"
        form = {
            "grant_type": "client_credentials",
            "client_id": c.client_id,
            "client_secret": c.client_secret,
            "scope": _scope(c.graph_url),
        }
        try:
            response = self._http.post(url, data=form)
        except httpx.HTTPError as exc:
            raise DirectoryError(f"the token endpoint is not reachable ({url}): {exc}") from exc
        body = _json(response)
        if response.status_code != 200 or "access_token" not in body:
            reason = body.get("error_description") or body.get("error") or response.status_code
            raise DirectoryError(
                f"no Microsoft Graph token for tenant {c.tenant_id}: {reason} — check "
                "MICROSOFT_GRAPH_CLIENT_ID and MICROSOFT_GRAPH_CLIENT_SECRET (an expired "
                "secret needs a new one)"
            )
        return str(body["access_token"]), float(body.get("expires_in") or 3600)


def _scope(graph_url: str) -> str:
    """`https://graph.microsoft.com/v1.0` -> `https://graph.microsoft.com/.default`."""
    parts = httpx.URL(graph_url)
    return f"{parts.scheme}://{parts.netloc.decode()}/.default"


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
