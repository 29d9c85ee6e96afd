"""The one place knowbot talks to a chat model: any OpenAI-compatible endpoint via the
`openai` client (timeouts and retries with backoff are the client's), or an in-tree fake."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import prompts


class LLMError(Exception):
    """The model could not be used: unreachable, timed out, rate limited or malformed reply."""


class ChatModel(Protocol):
    model_name: str

    def complete(self, system: str, user: str, *, max_tokens: int = 700) -> str: ...


@dataclass(frozen=True)
class OpenAIEndpoint:
    """Where an OpenAI-compatible API lives; local servers often need no key."""

    api_key: str | None
    base_url: str | None
    timeout_s: float = 30.0
    max_retries: int = 2

    def client(self) -> Any:
        from openai import OpenAI

        return OpenAI(
            api_key=self.api_key or "not-needed",
            base_url=self.base_url,
            timeout=self.timeout_s,
            max_retries=self.max_retries,
        )


class OpenAIChat:
    def __init__(self, model_name: str, endpoint: OpenAIEndpoint) -> None:
        self.model_name = model_name
        self._client = endpoint.client()

    def complete(self, system: str, user: str, *, max_tokens: int = 700) -> str:
        import openai

        try:
            response = self._client.chat.completions.create(
                model=self.model_name,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                temperature=0,
                max_tokens=max_tokens,
            )
        except openai.APITimeoutError as exc:
            raise LLMError("the language model timed out") from exc
        except openai.RateLimitError as exc:
            raise LLMError("the language model is rate limited") from exc
        except openai.APIConnectionError as exc:
            raise LLMError("the language model is unreachable") from exc
        except openai.APIStatusError as exc:
            raise LLMError(f"the language model answered HTTP {exc.status_code}") from exc
        except openai.OpenAIError as exc:
            raise LLMError(f"the language model failed ({type(exc).__name__})") from exc
        choices = getattr(response, "choices", None) or []
        content = choices[0].message.content if choices else None
        if not isinstance(content, str) or not content.strip():
            raise LLMError("the language model returned an empty or malformed reply")
        return content


class FakeChat:
    """Scripted replies for tests: a function of (system, user) -> reply."""

    def __init__(self, reply: Callable[[str, str], str], model_name: str = "fake-llm") -> None:
        self.model_name = model_name
        self._reply = reply
        self.calls: list[tuple[str, str]] = []

    def complete(self, system: str, user: str, *, max_tokens: int = 700) -> str:
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
