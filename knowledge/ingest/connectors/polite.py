"""HTTP for connectors: one client, a cap on requests in flight, and retries of 429 and
503 after the server's Retry-After (plus jitter), within a bound. Anything else the
server answers is returned as it is: what it means depends on the caller."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx
from tenacity import RetryCallState, Retrying, retry_if_result, stop_after_attempt

RETRIED = frozenset({429, 503})
USER_AGENT = "knowbot/0.1 (+knowledge sync; respects robots.txt)"


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4  # the first try and three retries
    max_wait: float = 30.0  # seconds; a longer Retry-After is cut to this
    default_wait: float = 1.0  # when the server names no time
    jitter: float = 0.5  # up to this many seconds added, so clients do not retry in step


def retry_after(response: httpx.Response, policy: RetryPolicy) -> float:
    """Seconds the server asked us to wait (delta-seconds or an HTTP date), bounded."""
    raw = response.headers.get("retry-after", "").strip()
    wait = policy.default_wait
    if raw.isdigit():
        wait = float(raw)
    elif raw:
        try:
            wait = (parsedate_to_datetime(raw) - datetime.now(UTC)).total_seconds()
        except (TypeError, ValueError):
            wait = policy.default_wait
    return min(max(wait, 0.0), policy.max_wait)


class PoliteClient:
    """At most `concurrency` requests at once, each retried on 429/503 as the server asks."""

    def __init__(
        self,
        *,
        concurrency: int = 4,
        timeout: float = 30.0,
        policy: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        retry_when: Callable[[httpx.Response], bool] | None = None,
    ) -> None:
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self._policy = policy or RetryPolicy()
        self._retry_when = retry_when or (lambda r: r.status_code in RETRIED)
        self._client = httpx.Client(
            timeout=timeout,
            follow_redirects=True,
            headers={"User-Agent": USER_AGENT},
            transport=transport,
        )

    def get(self, url: str, headers: dict[str, str] | None = None) -> httpx.Response:
        """The final response (after retries); raises httpx.HTTPError when unreachable."""
        return self._retried("GET", url, headers or {}, None)

    def post(
        self, url: str, data: dict[str, str], headers: dict[str, str] | None = None
    ) -> httpx.Response:
        """A form POST (a token request), retried like a GET."""
        return self._retried("POST", url, headers or {}, data)

    def _retried(
        self, method: str, url: str, headers: dict[str, str], data: dict[str, str] | None
    ) -> httpx.Response:
        policy = self._policy

        def wait(state: RetryCallState) -> float:
            outcome = state.outcome
            response = outcome.result() if outcome and not outcome.failed else None
            base = retry_after(response, policy) if response is not None else policy.default_wait
            return base + random.uniform(0, policy.jitter)

        retrying = Retrying(
            stop=stop_after_attempt(policy.attempts),
            wait=wait,
            retry=retry_if_result(self._retry_when),
            retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
            sleep=time.sleep,
        )
        response: httpx.Response = retrying(self._once, method, url, headers, data)
        return response

    def _once(
        self, method: str, url: str, headers: dict[str, str], data: dict[str, str] | None
    ) -> httpx.Response:
        with self._slots:
            return self._client.request(method, url, headers=headers, data=data)

    def close(self) -> None:
        self._client.close()
