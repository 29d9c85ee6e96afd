"""The one place knowbot talks to a chat model: any OpenAI-compatible endpoint via the
`openai` client, or an in-tree fake. One call here is one attempt: retries, and the deadline
they must respect, belong to `knowledge.models.bounded_chat.BoundedChat`."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import prompts
from knowledge.models.reply_stream import Piece, StreamFailed, TextSink, read_pieces


class LLMError(Exception):
    """The model could not be used: unreachable, timed out, rate limited, refused, or replied
    with something unreadable. `transient` when asking again later may help."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class ChatModel(Protocol):
    model_name: str

    def complete(
        self, system: str, user: str, *, max_tokens: int = 700, timeout_s: float | None = None
    ) -> str: ...


@runtime_checkable
class StreamingChatModel(ChatModel, Protocol):
    """A model that can hand over its reply piece by piece while writing it."""

    def stream(
        self,
        system: str,
        user: str,
        *,
        on_text: TextSink,
        max_tokens: int = 700,
        timeout_s: float | None = None,
    ) -> str:
        """The whole reply, as `complete` would return it; `on_text` has seen every piece of
        it, in order, by the time this returns. `timeout_s` bounds the whole reply."""
        ...


@dataclass(frozen=True)
class OpenAIEndpoint:
    """Where an OpenAI-compatible API lives; local servers often need no key."""

    api_key: str | None
    base_url: str | None
    timeout_s: float = 30.0
    max_retries: int = 2

    def client(self, *, max_retries: int | None = None) -> Any:
        from openai import OpenAI

        return OpenAI(
            api_key=self.api_key or "not-needed",
            base_url=self.base_url,
            timeout=self.timeout_s,
            max_retries=self.max_retries if max_retries is None else max_retries,
        )


class OpenAIChat:
    """One request per call: the client's own retries are off (they would not know how much
    of the answer's time is left)."""

    def __init__(self, model_name: str, endpoint: OpenAIEndpoint) -> None:
        self.model_name = model_name
        self._timeout_s = endpoint.timeout_s
        self._client = endpoint.client(max_retries=0)

    def complete(
        self, system: str, user: str, *, max_tokens: int = 700, timeout_s: float | None = None
    ) -> str:
        timeout = self._timeout(timeout_s)
        return _content(self._create(system, user, max_tokens=max_tokens, timeout=timeout))

    def stream(
        self,
        system: str,
        user: str,
        *,
        on_text: TextSink,
        max_tokens: int = 700,
        timeout_s: float | None = None,
    ) -> str:
        timeout = self._timeout(timeout_s)
        started = time.monotonic()
        events = self._create(system, user, max_tokens=max_tokens, timeout=timeout, stream=True)
        left = max(0.0, timeout - (time.monotonic() - started))
        return _streamed(read_pieces(events, _piece, seconds=left), on_text)

    def _timeout(self, asked: float | None) -> float:
        return self._timeout_s if asked is None else min(self._timeout_s, asked)

    def _create(
        self, system: str, user: str, *, max_tokens: int, timeout: float, **extra: Any
    ) -> Any:
        try:
            return self._client.chat.completions.create(
                model=self.model_name,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                temperature=0,
                max_tokens=max_tokens,
                timeout=timeout,
                **extra,
            )
        except Exception as exc:
            raise _as_llm_error(exc) from exc


def _as_llm_error(exc: Exception) -> LLMError:
    import httpx
    import openai

    # httpx's own errors reach here from a stream that breaks after it began
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return LLMError("the language model timed out", transient=True)
    if isinstance(exc, httpx.TransportError):
        return LLMError("the language model's connection broke off", transient=True)
    if isinstance(exc, openai.RateLimitError):
        return LLMError("the language model is rate limited", transient=True)
    if isinstance(exc, openai.APIConnectionError):
        return LLMError("the language model is unreachable", transient=True)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        retry_may_help = status >= 500 or status == 408
        return LLMError(f"the language model answered HTTP {status}", transient=retry_may_help)
    # malformed JSON, a body of the wrong shape, or anything else the client trips on
    return LLMError(f"the language model's reply could not be read ({type(exc).__name__})")


def _piece(event: Any) -> Piece:
    """One server-sent event's new text (a usage-only event carries none)."""
    choices = getattr(event, "choices", None) or []
    delta = getattr(choices[0], "delta", None) if choices else None
    if delta is None:
        return Piece()
    text, refusal = getattr(delta, "content", None), getattr(delta, "refusal", None)
    return Piece(text if isinstance(text, str) else "", refusal if isinstance(refusal, str) else "")


def _streamed(pieces: Any, on_text: TextSink) -> str:
    """Forward each piece and return the whole; the same LLMErrors as a plain reply."""
    parts: list[str] = []
    try:
        for piece in pieces:
            if piece.refusal:
                raise LLMError("the language model refused to answer")
            if piece.text:
                parts.append(piece.text)
                on_text(piece.text)
    except StreamFailed as failed:
        if failed.cause is None:
            raise LLMError("the language model timed out", transient=True) from None
        raise _as_llm_error(failed.cause) from failed.cause
    reply = "".join(parts)
    if not reply.strip():
        raise LLMError("the language model returned an empty reply")
    return reply


def _content(response: Any) -> str:
    """The reply's text; an LLMError for no choices, a refusal, or an empty reply."""
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError, TypeError) as exc:
        raise LLMError("the language model returned no choices") from exc
    if getattr(message, "refusal", None):
        raise LLMError("the language model refused to answer")
    content = getattr(message, "content", None)
    if not isinstance(content, str) or not content.strip():
        raise LLMError("the language model returned an empty reply")
    return content


class FakeChat:
    """Scripted replies for tests: a function of (system, user) -> reply."""

    def __init__(self, reply: Callable[[str, str], str], model_name: str = "fake-llm") -> None:
        self.model_name = model_name
        self._reply = reply
        self.calls: list[tuple[str, str]] = []

    def complete(
        self, system: str, user: str, *, max_tokens: int = 700, timeout_s: float | None = None
    ) -> str:
        self.calls.append((system, user))
        return self._reply(system, user)

    def stream(
        self,
        system: str,
        user: str,
        *,
        on_text: TextSink,
        max_tokens: int = 700,
        timeout_s: float | None = None,
    ) -> str:
        """The scripted reply, handed over a word at a time."""
        reply = self.complete(system, user, max_tokens=max_tokens, timeout_s=timeout_s)
        for word in re.findall(r"\s*\S+|\s+", reply):
            on_text(word)
        return reply


class LLMParaphraser:
    """FAQ paraphrases at ingest time, so users' wording finds the FAQ."""

    def __init__(self, model: ChatModel, version: str | None = None) -> None:
        self._model = model
        self._prompt = prompts.load("paraphrase", version)

    def paraphrase(self, question: str, n: int) -> list[str]:
        system, user = self._prompt.render(question=question, n=str(n))
        try:
            reply = self._model.complete(system, user, max_tokens=300)
        except LLMError:
            return []  # paraphrases are a bonus; the FAQ itself is still indexed
        lines = [line.strip().lstrip("-*•0123456789.) ").strip() for line in reply.splitlines()]
        return [line for line in lines if line][:n]
