"""The neutral types adapters and the pipeline exchange."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from knowledge.access import Reader

if TYPE_CHECKING:
    from bot.conversation.verified import VerifiedAnswer


class Confidence(StrEnum):
    HIGH = "High"
    MEDIUM = "Medium"
    LOW = "Low"


class Intent(StrEnum):
    LOOKUP = "lookup"  # what is X / define X
    YES_NO = "yes_no"  # is X covered / am I eligible
    HOW_TO = "how_to"  # how do I / procedure
    COMPARE = "compare"  # X vs Y
    RANK = "rank"  # highest / lowest / top
    TREND = "trend"  # increasing / decreasing / over time
    WHY = "why"  # why / diagnose
    SUMMARISE = "summarise"  # summarise / overview


@dataclass(frozen=True)
class ThreadRef:
    """Where a conversation lives; two different refs never share history."""

    platform: str  # "slack" | "teams" | "console"
    workspace: str  # Slack team id / Teams tenant id / "local"
    channel: str  # channel or conversation id
    thread: str  # thread ts / reply-chain id / console session id


@dataclass(frozen=True)
class Turn:
    """One user message the bot should answer."""

    thread: ThreadRef
    event_id: str  # platform event id, claimed once
    user_id: str
    text: str
    message_id: str | None = None  # platform id of the user's message
    scopes: tuple[str, ...] = ("default",)
    received_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    # "Not what I asked" under a verified answer: the bot's own answer, no verified one
    skip_verified: bool = False
    asker: Reader | None = None  # who asked, as access lists name people (None: unknown)
    private: bool = False  # a direct message or personal chat: only the asker reads the reply

    @property
    def reader(self) -> Reader:
        """Whom the answer may show: in a private conversation the asker, who sees what
        they may read; in a channel or group chat (or for an asker not known), everyone
        reads the answer, so only what is open to everyone."""
        if self.private and self.asker is not None:
            return self.asker
        return Reader.public()


@dataclass(frozen=True)
class HistoryTurn:
    role: str  # "user" | "assistant"
    text: str


@dataclass(frozen=True)
class Expansion:
    """A change the rewrite made: an acronym expanded or a misspelling corrected."""

    original: str
    replacement: str
    kind: str = "acronym"  # "acronym" | "spelling"


@dataclass(frozen=True)
class Source:
    """A numbered context block as shown to the model and cited to the user."""

    number: int
    chunk_id: str
    kind: str  # ChunkKind value, or "definition" for preamble entries
    title: str
    location: str
    text: str
    score: float = 0.0
    url: str = ""  # where the document can be opened at this place ("" when unknown)
    similarity: float | None = None  # to the question searched, by the index's embeddings


@dataclass(frozen=True)
class Bullet:
    text: str  # without the trailing [n] markers
    source_numbers: tuple[int, ...] = ()

    def render(self) -> str:
        marks = "".join(f"[{n}]" for n in self.source_numbers)
        return f"{self.text} {marks}".rstrip()


@dataclass(frozen=True)
class CheckScores:
    """The checks behind the confidence level: 1 passed, 0 failed (see
    bot.conversation.scoring for which of them gate the level)."""

    qa_continuity: int
    numbers: int
    not_copied: int
    numeric_sense: int
    context_focus: int
    contextual_continuity: int
    polarity: int = 1
    answerability: int = 1

    @classmethod
    def none(cls) -> CheckScores:
        """No answer to check: every check failed."""
        return cls(0, 0, 0, 0, 0, 0, 0, 0)

    @property
    def total(self) -> int:
        """How many checks passed."""
        return sum(self.as_dict().values())

    @property
    def count(self) -> int:
        """How many checks there are."""
        return len(self.as_dict())

    def as_dict(self) -> dict[str, int]:
        return {
            "qa_continuity": self.qa_continuity,
            "numbers": self.numbers,
            "not_copied": self.not_copied,
            "numeric_sense": self.numeric_sense,
            "context_focus": self.context_focus,
            "contextual_continuity": self.contextual_continuity,
            "polarity": self.polarity,
            "answerability": self.answerability,
        }

    def failed(self) -> list[str]:
        """The names of the checks that failed, in the order they are shown."""
        return [name for name, value in self.as_dict().items() if not value]


@dataclass(frozen=True)
class Answer:
    """What the pipeline returns; adapters render it."""

    id: int
    thread: ThreadRef
    question: str
    rewritten_question: str
    expansions: tuple[Expansion, ...]
    intent: Intent
    bullets: tuple[Bullet, ...]
    sources: tuple[Source, ...]
    confidence: Confidence
    scores: CheckScores
    prompt: str  # "answer@v1"
    model: str  # "gpt-4o-mini" or "extractive"
    timings_ms: dict[str, float]
    notice: str = ""  # e.g. "Quoted passages (no language model configured)."
    choices: dict[str, str] = field(default_factory=dict)  # e.g. which prompt version served
    verified: VerifiedAnswer | None = None  # the verified answer served, if one was

    @property
    def was_rewritten(self) -> bool:
        return self.rewritten_question.strip() != self.question.strip()
