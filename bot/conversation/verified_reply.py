"""A verified answer as the reply: the person's words, marked as theirs, with the sources
they rely on, at High (a person vouched for it; the checks that grade the bot's own
answers are not run on it)."""

from __future__ import annotations

import re

from bot.conversation.types import (
    Answer,
    Bullet,
    CheckScores,
    Confidence,
    Expansion,
    Intent,
    Source,
    Turn,
)
from bot.conversation.verified import VerifiedAnswer, VerifiedSource

VERIFIED = "verified"  # the prompt and model names a served verified answer is stored with
_VOUCHED = CheckScores(1, 1, 1, 1, 1, 1, 1, 1)


def verified_reply(
    turn: Turn,
    *,
    question: str,
    rewritten: str,
    expansions: tuple[Expansion, ...],
    verified: VerifiedAnswer,
    timings_ms: dict[str, float],
) -> Answer:
    sources = tuple(_source(verified, n, s) for n, s in enumerate(verified.sources, start=1))
    numbers = tuple(s.number for s in sources)
    return Answer(
        id=0,
        thread=turn.thread,
        question=question,
        rewritten_question=rewritten,
        expansions=expansions,
        intent=Intent.LOOKUP,
        bullets=tuple(Bullet(p, numbers) for p in paragraphs(verified.answer)),
        sources=sources,
        confidence=Confidence.HIGH,
        scores=_VOUCHED,
        prompt=VERIFIED,
        model=VERIFIED,
        timings_ms=timings_ms,
        notice=verified_mark(verified),
        choices={VERIFIED: str(verified.id)},
        verified=verified,
    )


def verified_mark(verified: VerifiedAnswer) -> str:
    return f"Verified by {verified.author} on {verified.verified_at:%Y-%m-%d}."


def paragraphs(text: str) -> list[str]:
    """The answer's paragraphs (bullets), or the whole text when it has one."""
    parts = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    return [p for p in parts if p] or [text.strip()]


def _source(verified: VerifiedAnswer, number: int, source: VerifiedSource) -> Source:
    return Source(
        number=number,
        chunk_id=source.chunk_id or f"verified:{verified.id}:{number}",
        kind=VERIFIED,
        title=source.title or source.uri or source.url or f"source {number}",
        location=source.location,
        text=source.title or source.uri or source.url,  # what a citation's hover card shows
        url=source.url,
    )
