"""Model calls that share one deadline: retried with backoff while a retry can help and
time is left, each attempt's timeout cut to what remains.

The `openai` client's own retries are off (they cannot know the deadline); tenacity runs
them here instead. Once a call has failed for good, later calls through the same
BoundedChat fail at once with the same reason: a model that just timed out or answered 500
three times is not asked again for this answer, and its quoted fallback goes out sooner."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_any,
    wait_exponential,
)
from tenacity.stop import stop_base

from knowledge.models.deadline import Deadline
from knowledge.models.llm import ChatModel, LLMError, StreamingChatModel
from knowledge.models.reply_stream import TextSink

MIN_ATTEMPT_S = 0.25  # an attempt with less time than this cannot finish; do not start it


@dataclass
class _Outcome:
    failure: LLMError | None = None  # shared by a BoundedChat and its `until` children


class BoundedChat:
    """A ChatModel whose calls retry up to `retries` times and never run past `deadline`
    (None: no deadline, as at ingest time)."""

    def __init__(
        self,
        model: ChatModel,
        *,
        retries: int,
        deadline: Deadline | None = None,
        backoff_s: float = 0.5,
        _outcome: _Outcome | None = None,
    ) -> None:
        self.model_name = model.model_name
        self._model = model
        self._retries = max(0, retries)
        self._deadline = deadline
        self._backoff_s = backoff_s
        self._outcome = _outcome or _Outcome()

    def until(self, deadline: Deadline) -> BoundedChat:
        """The same model with a nearer deadline (a share of the time, for one step)."""
        return BoundedChat(
            self._model,
            retries=self._retries,
            deadline=deadline,
            backoff_s=self._backoff_s,
            _outcome=self._outcome,
        )

    @property
    def deadline(self) -> Deadline | None:
        return self._deadline

    def complete(
        self, system: str, user: str, *, max_tokens: int = 700, timeout_s: float | None = None
    ) -> str:
        return self._bounded(
            lambda timeout: self._model.complete(
                system, user, max_tokens=max_tokens, timeout_s=timeout
            ),
            timeout_s,
            may_retry=lambda: True,
        )

    def stream(
        self,
        system: str,
        user: str,
        *,
        on_text: TextSink,
        max_tokens: int = 700,
        timeout_s: float | None = None,
    ) -> str:
        """As `complete`, handing each piece to `on_text` as it arrives. A failure is retried
        only while nothing has been handed over: what the user has seen is not written
        twice. A model that cannot stream answers in one piece (`on_text` sees nothing)."""
        model = self._model
        if not isinstance(model, StreamingChatModel):
            return self.complete(system, user, max_tokens=max_tokens, timeout_s=timeout_s)
        shown: list[str] = []

        def forward(text: str) -> None:
            shown.append(text)
            on_text(text)

        return self._bounded(
            lambda timeout: model.stream(
                system, user, on_text=forward, max_tokens=max_tokens, timeout_s=timeout
            ),
            timeout_s,
            may_retry=lambda: not shown,
        )

    def _bounded(
        self,
        call: Callable[[float | None], str],
        timeout_s: float | None,
        *,
        may_retry: Callable[[], bool],
    ) -> str:
        if self._outcome.failure is not None:
            raise self._outcome.failure
        retrying = Retrying(
            stop=stop_any(stop_after_attempt(self._retries + 1), _OutOfTime(self._deadline)),
            wait=wait_exponential(multiplier=self._backoff_s, max=4.0),
            retry=retry_if_exception(
                lambda exc: isinstance(exc, LLMError) and exc.transient and may_retry()
            ),
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    return call(self._timeout(timeout_s))
        except LLMError as exc:
            self._outcome.failure = exc
            raise
        raise LLMError("the language model was not called")  # pragma: no cover - tenacity

    def _timeout(self, asked: float | None) -> float | None:
        if self._deadline is None:
            return asked
        left = self._deadline.remaining()
        if left < MIN_ATTEMPT_S:
            raise LLMError("the language model could not answer within the answer deadline")
        return left if asked is None else min(asked, left)


class _OutOfTime(stop_base):
    """Stop when the wait before the next attempt would leave it too little time."""

    def __init__(self, deadline: Deadline | None) -> None:
        self._deadline = deadline

    def __call__(self, retry_state: RetryCallState) -> bool:
        if self._deadline is None:
            return False
        wait = retry_state.upcoming_sleep or 0.0
        return self._deadline.remaining() - wait < MIN_ATTEMPT_S
