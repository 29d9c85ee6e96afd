"""The one place knowbot talks to a chat model: any OpenAI-compatible endpoint via the
`openai` client, or an in-tree fake. One call here is one attempt: retries, and the deadline
they must respect, belong to `knowledge.bounded_chat.BoundedChat`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import prompts


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
        timeout = self._timeout_s if timeout_s is None else min(self._timeout_s, timeout_s)
        try:
            response = self._client.chat.completions.create(
                model=self.model_name,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                temperature=0,
                max_tokens=max_tokens,
                timeout=timeout,
            )
        except Exception as exc:
            raise _as_llm_error(exc) from exc
        return _content(response)


def _as_llm_error(exc: Exception) -> LLMError:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return LLMError("the language model timed out", transient=True)
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
