"""The connectors' HTTP client: a cap on requests in flight, and 429/503 retried after the
server's Retry-After, a bounded number of times."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from knowledge.ingest.connectors.polite import PoliteClient, RetryPolicy

FAST = RetryPolicy(attempts=3, max_wait=0.2, default_wait=0.05, jitter=0.01)


def test_no_more_requests_in_flight_than_the_cap() -> None:
    lock, in_flight, peak = threading.Lock(), [0], [0]

    def handler(request: httpx.Request) -> httpx.Response:
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return httpx.Response(200, text="ok")

    client = PoliteClient(concurrency=2, transport=httpx.MockTransport(handler))
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda n: client.get(f"http://site/{n}").status_code, range(8)))
    assert statuses == [200] * 8 and peak[0] == 2


@pytest.mark.parametrize("status", [429, 503])
def test_throttling_is_retried_after_the_time_the_server_names(status: int) -> None:
    answers = [httpx.Response(status, headers={"Retry-After": "0"}), httpx.Response(200)]
    client = PoliteClient(policy=FAST, transport=httpx.MockTransport(lambda r: answers.pop(0)))
    assert client.get("http://site/page").status_code == 200 and answers == []


def test_a_server_that_keeps_throttling_is_given_up_on_within_the_bound() -> None:
    calls: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(time.perf_counter())
        return httpx.Response(429, headers={"Retry-After": "3600"})

    client = PoliteClient(policy=FAST, transport=httpx.MockTransport(handler))
    started = time.perf_counter()
    assert client.get("http://site/page").status_code == 429
    assert len(calls) == 3 and time.perf_counter() - started < 1.0  # waits capped at 0.2 s


def test_other_errors_are_not_retried() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(500)

    client = PoliteClient(policy=FAST, transport=httpx.MockTransport(handler))
    assert client.get("http://site/page").status_code == 500 and len(calls) == 1
