"""What the pipeline needs from the outside world, as small interfaces with real and fake
implementations (stores on Postgres; knowledge from knowledge/)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from bot.conversation.types import Answer, HistoryTurn, ThreadRef, Turn
from knowledge.access import Reader
from knowledge.documents import GlossaryEntry, Triple
from knowledge.search.budget import Budget
from knowledge.search.retrieved import RetrievalResult


class Claims(Protocol):
    def claim(self, platform: str, event_id: str) -> bool: ...


class History(Protocol):
    def history(self, ref: ThreadRef, *, limit: int = 20) -> list[HistoryTurn]: ...


class AnswerSink(Protocol):
    def save_turn(self, turn: Turn, answer: Answer, *, retrieved: list[dict[str, Any]]) -> int: ...


class KnowledgePort(Protocol):
    def glossary(self, scopes: Sequence[str]) -> list[GlossaryEntry]: ...

    def entity_names(self, scopes: Sequence[str]) -> set[str]: ...

    def facts_about(
        self, entity_keys: Iterable[str], scopes: Sequence[str], *, hops: int = 1
    ) -> list[Triple]: ...

    def vocabulary(self, scopes: Sequence[str]) -> set[str]: ...

    def similarity(self, query: str, texts: Sequence[str]) -> list[float]: ...

    @property
    def embedding_model(self) -> str: ...

    def embeddings(self, texts: Sequence[str]) -> list[list[float]]: ...

    def retrieve(
        self, query: str, *, scopes: Sequence[str], budget: Budget, reader: Reader | None = None
    ) -> RetrievalResult: ...


class PromptChooser(Protocol):
    """Which version of a prompt serves this answer (issue: prompts compete on feedback)."""

    def choose(self, name: str, intent: str) -> str | None: ...
