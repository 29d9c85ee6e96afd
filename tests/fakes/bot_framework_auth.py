"""The Bot Framework's token side on 127.0.0.1: an OpenID metadata document and the signing
keys it points to, plus a way to mint the JWTs Teams would send. botbuilder fetches the keys
over real HTTP and checks real RS256 signatures."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import jwt
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.fakes.openai_server import serve_app

ISSUER = "https://api.botframework.com"
KEY_ID = "fake-signing-key"


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass
class FakeBotFrameworkAuth:
    key: rsa.RSAPrivateKey
    metadata_url: str = ""

    def token(
        self,
        *,
        audience: str,
        service_url: str,
        key: rsa.RSAPrivateKey | None = None,
        expires_in: int = 600,
        issuer: str = ISSUER,
    ) -> str:
        now = int(time.time())
        claims = {
            "iss": issuer,
            "aud": audience,
            "serviceurl": service_url,
            "nbf": now - 10,
            "iat": now - 10,
            "exp": now + expires_in,
        }
        signing_key = key or self.key
        return jwt.encode(claims, signing_key, algorithm="RS256", headers={"kid": KEY_ID})

    def _jwks(self) -> dict[str, Any]:
        public = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**public, "kid": KEY_ID, "use": "sig", "endorsements": ["msteams"]}]}


@contextmanager
def fake_bot_framework_auth() -> Iterator[FakeBotFrameworkAuth]:
    fake = FakeBotFrameworkAuth(key=new_key())
    app = web.Application()
    base: dict[str, str] = {}

    async def metadata(_: web.Request) -> web.Response:
        return web.json_response({"issuer": ISSUER, "jwks_uri": f"{base['url']}/keys"})

    async def keys(_: web.Request) -> web.Response:
        return web.json_response(fake._jwks())

    app.router.add_get("/.well-known/openid-configuration", metadata)
    app.router.add_get("/keys", keys)
    with serve_app(app) as url:
        base["url"] = url
        fake.metadata_url = f"{url}/.well-known/openid-configuration"
        yield fake
