"""App credentials for Microsoft Graph: a client-credentials token from
`{authority}/{tenant}/oauth2/v2.0/token`, kept until shortly before it expires and
renewed once when Graph refuses it. A plain form POST, not msal: msal refuses the
plain-http authorities of national-cloud proxies and of local test servers.

Refused credentials are the commonest way such a sync breaks (a client secret lives at
most two years), so the error says which secret, why, and where to make a new one.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from knowledge.errors import SourceError
from knowledge.ingest.connectors.polite import PoliteClient

DEFAULT_GRAPH_URL = "https://graph.microsoft.com/v1.0"
DEFAULT_AUTHORITY = "https://login.microsoftonline.com"
EARLY = 120.0  # seconds before expiry a token is renewed, so none expires mid-request

# Entra ID error codes (AADSTS...) a person can act on.
_REASONS = {
    7000222: "the client secret has expired",
    7000215: "the client secret is wrong",
    700016: "the application (client id) is not registered in this tenant",
    90002: "the tenant was not found",
    900023: "the tenant id is not valid",
    7000218: "no client secret was sent",
}


@dataclass(frozen=True)
class GraphAccess:
    """An app registration allowed to read SharePoint and OneDrive, and where Graph is."""

    tenant_id: str
    client_id: str
    client_secret: str = field(repr=False)
    graph_url: str = DEFAULT_GRAPH_URL
    authority: str = DEFAULT_AUTHORITY

    @property
    def token_url(self) -> str:
        return f"{self.authority.rstrip('/')}/{self.tenant_id}/oauth2/v2.0/token"

    @property
    def scope(self) -> str:
        """Graph's `.default` scope: every application permission granted to the app."""
        parts = urlsplit(self.graph_url)
        return f"{parts.scheme}://{parts.netloc}/.default"


class GraphAuthFailed(SourceError):
    """The token endpoint refused the app's credentials."""


class TokenSource:
    """One cached app token, shared by the threads that fetch."""

    def __init__(self, access: GraphAccess, client: PoliteClient) -> None:
        self._access = access
        self._client = client
        self._lock = threading.Lock()
        self._token = ""
        self._expires = 0.0

    def token(self) -> str:
        with self._lock:
            if not self._token or time.monotonic() >= self._expires:
                self._token, self._expires = self._request()
            return self._token

    def renew(self, refused: str) -> str:
        """A fresh token after Graph refused `refused` (unless another thread renewed it)."""
        with self._lock:
            if self._token == refused:
                self._token, self._expires = self._request()
            return self._token

    def _request(self) -> tuple[str, float]:
        access = self._access
        form = {
            "grant_type": "client_credentials",
            "client_id": access.client_id,
            "client_secret": access.client_secret,
            "scope": access.scope,
        }
        try:
            response = self._client.post(access.token_url, data=form)
        except httpx.HTTPError as exc:
            raise GraphAuthFailed(
                access.token_url, f"cannot reach the token endpoint ({exc}); check the network"
            ) from exc
        if response.status_code != 200:
            raise GraphAuthFailed(access.token_url, refused(access, response))
        body = response.json()
        lifetime = float(body.get("expires_in", 3600))
        return str(body["access_token"]), time.monotonic() + max(lifetime - EARLY, 0.0)


def refused(access: GraphAccess, response: httpx.Response) -> str:
    """Why the token endpoint said no, and what to do about it."""
    try:
        body = response.json()
    except ValueError:
        body = {}
    codes = body.get("error_codes") or []
    code = int(codes[0]) if codes else 0
    described = str(body.get("error_description", "")).split("\r\n")[0].split("\n")[0]
    reason = _REASONS.get(code) or described or f"HTTP {response.status_code}"
    label = f" (AADSTS{code})" if code else ""
    return (
        f"Microsoft Graph refused the app's credentials: {reason}{label}. Create a new client "
        f"secret for app {access.client_id} (Entra ID > App registrations > Certificates & "
        "secrets), set MICROSOFT_GRAPH_CLIENT_SECRET (and check MICROSOFT_GRAPH_TENANT_ID and "
        "MICROSOFT_GRAPH_CLIENT_ID), then sync again; nothing was pruned"
    )
