"""A streamed model reply, read by the real `openai` client from a local server that sends
server-sent events: every piece reaches the sink in order, a stalled stream ends when the
time is up, and failures are the same LLMErrors a plain reply gives."""

from __future__ import annotations

import time

import pytest

from knowledge.models.bounded_chat import BoundedChat
from knowledge.models.deadline import Deadline
from knowledge.models.llm import FakeChat, LLMError, OpenAIChat, OpenAIEndpoint
from tests.fakes.openai_server import Misbehave, Stall, fake_openai

REPLY = "- Claims are settled within 30 days [1]\n- Submit the form within 30 days [1]\n"


def chat(base_url: str, *, timeout_s: float = 10.0) -> OpenAIChat:
    return OpenAIChat(
        "fake-llm", OpenAIEndpoint(api_key=None, base_url=base_url, timeout_s=timeout_s)
    )


def test_the_reply_arrives_in_pieces_and_whole() -> None:
    pieces: list[tuple[float, str]] = []
    with fake_openai(lambda m: REPLY, delay_s=0.3, piece_interval_s=0.02) as llm:
        started = time.monotonic()
        reply = chat(llm.base_url).stream(
            "s", "u", on_text=lambda t: pieces.append((time.monotonic() - started, t))
        )

    assert reply == REPLY
    assert "".join(t for _, t in pieces) == REPLY
    assert len(pieces) > 10  # a word at a time, not the whole at the end
    assert pieces[0][0] >= 0.3  # the first word came when the model sent it ...
    assert pieces[-1][0] - pieces[0][0] > 0.1  # ... and the rest followed, not all at once
    assert llm.requests[0]["stream"] is True


def test_a_stream_that_stalls_ends_when_its_time_is_up() -> None:
    pieces: list[str] = []
    with fake_openai(lambda m: Stall("- Claims are settled")) as llm:
        started = time.monotonic()
        with pytest.raises(LLMError, match="timed out") as failed:
            chat(llm.base_url, timeout_s=30).stream("s", "u", on_text=pieces.append, timeout_s=1.0)
        took = time.monotonic() - started

    assert "".join(pieces) == "- Claims are settled"
    assert failed.value.transient
    assert took < 2.0


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        (500, "HTTP 500"),
        (Misbehave.REFUSAL, "refused"),
        (Misbehave.NO_CHOICES, "empty reply"),
        (Misbehave.MALFORMED, "could not be read"),
        ("   ", "empty reply"),
    ],
)
def test_a_failing_stream_is_an_llm_error_saying_why(outcome: object, reason: str) -> None:
    with fake_openai(lambda m: outcome) as llm, pytest.raises(LLMError, match=reason):  # type: ignore[arg-type,return-value]
        chat(llm.base_url).stream("s", "u", on_text=lambda t: None)


def test_a_failure_before_the_first_word_is_retried_but_not_after_it() -> None:
    outcomes: list[object] = [503, REPLY]
    with fake_openai(lambda m: outcomes.pop(0)) as llm:  # type: ignore[arg-type,return-value]
        shown: list[str] = []
        bounded = BoundedChat(
            chat(llm.base_url), retries=2, deadline=Deadline.after(10), backoff_s=0.01
        )
        assert bounded.stream("s", "u", on_text=shown.append) == REPLY
        assert "".join(shown) == REPLY and len(llm.requests) == 2

    with fake_openai(lambda m: Stall("- Claims are")) as llm:
        shown = []
        bounded = BoundedChat(
            chat(llm.base_url), retries=3, deadline=Deadline.after(1.5), backoff_s=0.01
        )
        with pytest.raises(LLMError, match="timed out"):
            bounded.stream("s", "u", on_text=shown.append)
        assert "".join(shown) == "- Claims are"  # shown once, not again by a retry
        assert len(llm.requests) == 1


def test_a_model_that_cannot_stream_answers_in_one_piece() -> None:
    class Plain:
        model_name = "plain"

        def complete(
            self, system: str, user: str, *, max_tokens: int = 700, timeout_s: float | None = None
        ) -> str:
            return REPLY

    shown: list[str] = []
    assert BoundedChat(Plain(), retries=0).stream("s", "u", on_text=shown.append) == REPLY
    assert shown == []
    fake = FakeChat(lambda s, u: REPLY)
    assert BoundedChat(fake, retries=0).stream("s", "u", on_text=shown.append) == REPLY
    assert "".join(shown) == REPLY
