"""The Bot Framework connector client on the Teams adapter's own thread pool.

botbuilder's connector client is msrest over `requests`: every reply, typing indicator and
notice blocks a thread for the whole HTTP call. msrest runs it in asyncio's default pool
(CPU count + 4 threads), the pool every `asyncio.to_thread` shares, so a few replies to a
dead serviceUrl could stall unrelated questions. Here each connector client created for a
turn sends through `connector_pool` instead, with urllib3's hidden connect retries off
(`delivery.send` retries, and knows the deadline) and each call's timeout taken from
`call_timeout` when the sender set one."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Iterator
from concurrent.futures import Executor
from contextvars import ContextVar
from typing import Any

import requests
from botframework.connector.auth import ConnectorFactory
from msrest.exceptions import ClientRequestError
from msrest.universal_http import ClientRequest
from msrest.universal_http.async_requests import (
    AsyncRequestsClientResponse,
    AsyncRequestsHTTPSender,
)

CONNECT_TIMEOUT_S = 10.0  # msrest's default is 100 s
_call_timeout: ContextVar[float | None] = ContextVar("connector_call_timeout", default=None)


@contextlib.contextmanager
def call_timeout(seconds: float) -> Iterator[None]:
    """Connector calls made inside this block give up after `seconds`."""
    token = _call_timeout.set(seconds)
    try:
        yield
    finally:
        _call_timeout.reset(token)


class PooledSender(AsyncRequestsHTTPSender):  # type: ignore[misc]
    """msrest's `requests` driver, run on `executor` instead of asyncio's default pool."""

    def __init__(self, config: Any, executor: Executor) -> None:
        super().__init__(config)
        self._executor = executor

    async def send(  # type: ignore[override]
        self, request: ClientRequest, **kwargs: Any
    ) -> AsyncRequestsClientResponse:
        options: dict[str, Any] = self._configure_send(request, **kwargs)
        options["timeout"] = _call_timeout.get() or options.get("timeout") or CONNECT_TIMEOUT_S
        session = options.pop("session", self.session)
        call = functools.partial(session.request, request.method, request.url, **options)
        try:
            response = await asyncio.get_running_loop().run_in_executor(self._executor, call)
        except requests.RequestException as exc:
            raise ClientRequestError("Error occurred in request.", inner_exception=exc) from exc
        return AsyncRequestsClientResponse(request, response)


class PooledConnectorFactory(ConnectorFactory):  # type: ignore[misc]
    """Wraps botbuilder's factory: its clients send through PooledSender."""

    def __init__(self, inner: Any, executor: Executor) -> None:
        self._inner = inner
        self._executor = executor

    async def create(self, service_url: str, audience: str | None = None) -> Any:
        client = await self._inner.create(service_url, audience)
        config = client.config
        config.retry_policy.retries = 0
        config.connection.timeout = CONNECT_TIMEOUT_S
        config.pipeline._sender.driver = PooledSender(config, self._executor)
        return client
