"""Verified answers: a person's answer to a question, served in place of the bot's own when a
new question means the same (issue 21).

A match needs two votes: the new question must be close to the verified question, and the
verified *answer* must be close to the new question as well, blended into one score; and
the best match must stand clear of the next one, because FAQ entries overlap ("What is a
coronavirus?" and "What is a novel coronavirus?") and a near-tie is better answered by the
normal pipeline than by a coin toss. The rule's numbers are fitted per embedding model
(benchmarks/fit_verified.py -> verified_fitted.json): a model with no fitted rule serves no
verified answer, so a model change never compares similarities on another model's scale.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from knowledge.access import Reader

log = logging.getLogger(__name__)

FITTED = Path(__file__).with_name("verified_fitted.json")
CANDIDATES = 5  # the best few by blended score: the runner-up is what the margin needs
STATUSES = ("active", "suspended", "retired")

Embed = Callable[[Sequence[str]], list[list[float]]]


@dataclass(frozen=True)
class VerifiedSource:
    """Something a verified answer relies on; any of the fields may be empty."""

    title: str = ""
    url: str = ""
    chunk_id: str = ""
    source_id: int | None = None
    uri: str = ""  # the knowledge source's uri (file path or URL), as ingest stored it
    location: str = ""

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in ("", None)}

    @classmethod
    def from_json(cls, value: Any) -> VerifiedSource:
        """A source as an import line or the table holds it: an object with the fields
        above, or a plain string (a link, or a title)."""
        if isinstance(value, str):
            link = value.startswith(("http://", "https://"))
            return cls(title=value, url=value if link else "")
        if not isinstance(value, dict):
            raise ValueError(f"a source is an object or a string, not {value!r}")
        text = {
            k: str(value[k])
            for k in ("title", "url", "chunk_id", "uri", "location")
            if value.get(k) not in ("", None)
        }
        source_id = value.get("source_id")
        return cls(**text, source_id=int(source_id) if source_id not in ("", None) else None)


@dataclass(frozen=True)
class VerifiedAnswer:
    id: int
    scope: str
    question: str
    answer: str
    author: str
    verified_at: datetime
    sources: tuple[VerifiedSource, ...] = ()
    status: str = "active"
    status_reason: str = ""
    origin_escalation_id: int | None = None
    author_id: str = ""  # the author's chat id ("U0123ABCD", "teams:<id>"); "" for imports

    def ref(self) -> dict[str, Any]:
        """What `knowbot ask --json` and the stored answer record say was served."""
        return {
            "id": self.id,
            "question": self.question,
            "author": self.author,
            "verified_at": self.verified_at.isoformat(),
            "scope": self.scope,
        }


@dataclass(frozen=True)
class Candidate:
    answer: VerifiedAnswer
    question_similarity: float
    answer_similarity: float


@dataclass(frozen=True)
class MatchRule:
    """score = question_weight * sim(new, verified question)
             + (1 - question_weight) * sim(new, verified answer);
    served when the best score reaches min_score and beats the runner-up by min_margin."""

    question_weight: float
    min_score: float
    min_margin: float

    def score(self, question_similarity: float, answer_similarity: float) -> float:
        w = self.question_weight
        return w * question_similarity + (1 - w) * answer_similarity


class VerifiedCandidates(Protocol):
    """The store, as matching needs it: active answers of these scopes, under this model."""

    def any_active(self, *, scopes: Sequence[str], model: str) -> bool: ...

    def candidates(
        self,
        vector: Sequence[float],
        *,
        scopes: Sequence[str],
        model: str,
        question_weight: float,
        limit: int,
    ) -> list[Candidate]: ...


class SourceAccess(Protocol):
    """Who may read the indexed sources a verified answer relies on (knowledge.service)."""

    def may_read(
        self,
        reader: Reader,
        *,
        source_ids: Sequence[int] = (),
        chunk_ids: Sequence[str] = (),
        uris: Sequence[str] = (),
        urls: Sequence[str] = (),
    ) -> bool: ...


def readable(answer: VerifiedAnswer, reader: Reader, access: SourceAccess) -> bool:
    """Whether `reader` may read every source `answer` relies on: an answer drawn from a
    document the asker may not open is not theirs to see."""
    if not reader.restricted or not answer.sources:
        return True
    sources = answer.sources
    return access.may_read(
        reader,
        source_ids=[s.source_id for s in sources if s.source_id is not None],
        chunk_ids=[s.chunk_id for s in sources if s.chunk_id],
        uris=[s.uri for s in sources if s.uri],
        urls=[s.url for s in sources if s.url],
    )


def choose(candidates: Sequence[Candidate], rule: MatchRule) -> Candidate | None:
    """The candidate to serve, or None: the best by score when it is high enough and clear
    of the runner-up (candidates need not be sorted)."""
    ranked = sorted(
        candidates,
        key=lambda c: rule.score(c.question_similarity, c.answer_similarity),
        reverse=True,
    )
    if not ranked:
        return None
    best = rule.score(ranked[0].question_similarity, ranked[0].answer_similarity)
    second = (
        rule.score(ranked[1].question_similarity, ranked[1].answer_similarity)
        if len(ranked) > 1
        else 0.0
    )
    if best < rule.min_score or best - second < rule.min_margin:
        return None
    return ranked[0]


class VerifiedMatcher:
    """Given a (rewritten) question and the scopes its channel may see, the verified answer
    to serve, or None. Only active answers of those scopes, embedded by `model`, whose
    sources the reader may read (`access` tells), compete."""

    def __init__(
        self,
        store: VerifiedCandidates,
        *,
        embed: Embed,
        model: str,
        rule: MatchRule | None,
        access: SourceAccess | None = None,
    ) -> None:
        self._store = store
        self._embed = embed
        self._model = model
        self._rule = rule
        self._access = access

    def match(
        self, question: str, scopes: Sequence[str], reader: Reader | None = None
    ) -> VerifiedAnswer | None:
        """`reader`: whom the answer is for (None: no restriction)."""
        if self._rule is None or not question.strip() or not scopes:
            return None
        if not self._store.any_active(scopes=scopes, model=self._model):
            return None  # most channels: no embedding spent on the question
        vector = self._embed([question])[0]
        found = self._store.candidates(
            vector,
            scopes=scopes,
            model=self._model,
            question_weight=self._rule.question_weight,
            limit=CANDIDATES,
        )
        if reader is not None and reader.restricted:
            if self._access is None:  # nothing can tell what its sources are open to
                found = [c for c in found if not c.answer.sources]
            else:
                found = [c for c in found if readable(c.answer, reader, self._access)]
        chosen = choose(found, self._rule)
        return chosen.answer if chosen else None


def fitted_rule(model: str, *, min_score: float | None = None) -> MatchRule | None:
    """The rule fitted for `model`, or None when none was (no verified answer is served then).
    `min_score` (KNOWBOT_VERIFIED_MIN_SCORE) overrides the fitted score; with no fitted rule
    it gives one that weighs question and answer alike and needs no margin (for a model
    nobody fitted, and for tests)."""
    stored = _fitted().get(model)
    if stored is None:
        if min_score is None:
            log.info("no verified-answer rule fitted for %s: none will be served", model)
            return None
        return MatchRule(question_weight=0.5, min_score=min_score, min_margin=0.0)
    rule = MatchRule(
        question_weight=float(stored["question_weight"]),
        min_score=float(stored["min_score"]),
        min_margin=float(stored["min_margin"]),
    )
    if min_score is None:
        return rule
    return MatchRule(rule.question_weight, min_score, rule.min_margin)


@cache
def _fitted() -> dict[str, dict[str, Any]]:
    if not FITTED.is_file():
        return {}
    data: dict[str, dict[str, Any]] = json.loads(FITTED.read_text(encoding="utf-8"))
    return data
