"""Model calls sharing one deadline: retries while they can help and time is left."""

from __future__ import annotations

import time

import pytest

from knowledge.models.bounded_chat import BoundedChat
from knowledge.models.deadline import Deadline
from knowledge.models.llm import LLMError


class Flaky:
    """Fails with the scripted errors in turn, then answers; records each attempt's timeout."""

    model_name = "flaky"

    def __init__(self, *errors: LLMError, pause_s: float = 0.0) -> None:
        self._errors = list(errors)
        self._pause_s = pause_s
        self.timeouts: list[float | None] = []

    def complete(
        self, system: str, user: str, *, max_tokens: int = 700, timeout_s: float | None = None
    ) -> str:
        self.timeouts.append(timeout_s)
        time.sleep(self._pause_s)
        if self._errors:
            raise self._errors.pop(0)
        return "- fine [1]"


def busy() -> LLMError:
    return LLMError("the language model answered HTTP 503", transient=True)


def test_a_transient_failure_is_retried_and_each_attempt_gets_only_the_time_left() -> None:
    model = Flaky(busy(), busy())
    chat = BoundedChat(model, retries=2, deadline=Deadline.after(5.0), backoff_s=0.05)

    assert chat.complete("s", "u", timeout_s=30.0) == "- fine [1]"
    assert len(model.timeouts) == 3
    assert all(t is not None and t <= 5.0 for t in model.timeouts)


def test_a_lasting_failure_is_not_retried_and_later_calls_fail_at_once() -> None:
    model = Flaky(LLMError("the language model answered HTTP 400"))
    chat = BoundedChat(model, retries=3, deadline=Deadline.after(5.0))

    with pytest.raises(LLMError, match="HTTP 400"):
        chat.complete("s", "u")
    with pytest.raises(LLMError, match="HTTP 400"):
        chat.until(Deadline.after(5.0)).complete("s", "u")  # the same answer's next step
    assert len(model.timeouts) == 1


def test_retries_stop_when_the_deadline_is_spent() -> None:
    model = Flaky(*[busy() for _ in range(10)], pause_s=0.2)
    chat = BoundedChat(model, retries=10, deadline=Deadline.after(0.9), backoff_s=0.1)

    started = time.monotonic()
    with pytest.raises(LLMError):
        chat.complete("s", "u")
    assert time.monotonic() - started < 1.2
    assert len(model.timeouts) < 10


def test_without_a_deadline_the_configured_timeout_stands() -> None:
    model = Flaky(busy())
    chat = BoundedChat(model, retries=1, backoff_s=0.01)

    chat.complete("s", "u")
    assert model.timeouts == [None, None]
