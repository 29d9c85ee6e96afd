"""The Teams adapter's own threads, sized for answers in flight as Slack's adapter is.

Answers (the pipeline), database calls and connector calls (see connector.py) all block a
thread. In asyncio's default pool (CPU count + 4 threads, shared with every
`asyncio.to_thread`) twelve replies retried against a dead serviceUrl kept a cheap request
waiting ten seconds. Here answers and database work have one pool and connector calls
another, so neither can starve the other."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

ANSWER_THREADS = 32  # as Slack's adapter: answers in progress at once; the rest queue
CONNECTOR_THREADS = 32  # replies, notices and typing indicators being sent at once


class Workers:
    def __init__(
        self, *, answer_threads: int = ANSWER_THREADS, connector_threads: int = CONNECTOR_THREADS
    ) -> None:
        self.answers = ThreadPoolExecutor(answer_threads, thread_name_prefix="teams-answer")
        self.connector = ThreadPoolExecutor(connector_threads, thread_name_prefix="teams-send")

    async def run(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Run blocking work (the pipeline, a store call) on the answers pool."""
        call = functools.partial(fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self.answers, call)

    def shutdown(self) -> None:
        self.answers.shutdown(wait=False, cancel_futures=True)
        self.connector.shutdown(wait=False, cancel_futures=True)
