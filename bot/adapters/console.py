"""The terminal as a chat platform: `knowbot ask` and `knowbot chat` (rendering with rich)."""

from __future__ import annotations

import uuid
from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.text import Text

from bot.conversation.types import Answer, Confidence, ThreadRef, Turn
from knowledge.access import Reader

CONFIDENCE_STYLE = {Confidence.HIGH: "green", Confidence.MEDIUM: "yellow", Confidence.LOW: "red"}


def console_turn(
    text: str, *, thread: str, scopes: tuple[str, ...], asker: Reader | None = None
) -> Turn:
    """The operator's own question (everything indexed may answer it), or, with `asker`,
    the question as that person would ask it in a direct message. Each asker's threads are
    their own: a follow-up never builds on what another person was shown."""
    asker = asker or Reader.unrestricted()
    channel = "cli" if not asker.restricted else f"cli-as:{asker.label}"
    return Turn(
        thread=ThreadRef("console", "local", channel, thread),
        event_id=f"console-{uuid.uuid4()}",
        user_id="console" if not asker.restricted else asker.label,
        text=text,
        scopes=scopes,
        asker=asker,
        private=True,
    )


def answer_json(answer: Answer) -> dict[str, Any]:
    return {
        "question": answer.question,
        "rewritten_question": answer.rewritten_question,
        "expansions": [asdict(e) for e in answer.expansions],
        "intent": answer.intent.value,
        "bullets": [b.render() for b in answer.bullets],
        "sources": [
            {
                "number": s.number,
                "title": s.title,
                "location": s.location,
                "kind": s.kind,
                "chunk_id": s.chunk_id,
                "text": s.text,
                "url": s.url,
            }
            for s in answer.sources
        ],
        "confidence": answer.confidence.value,
        "scores": answer.scores.as_dict(),
        "failed_checks": answer.scores.failed(),
        "prompt": answer.prompt,
        "model": answer.model,
        "notice": answer.notice,
        "answer_id": answer.id,
        "timings_ms": answer.timings_ms,
        "verified": answer.verified.ref() if answer.verified else None,
    }


def print_answer(console: Console, answer: Answer) -> None:
    if answer.was_rewritten:
        console.print(Text(f"Searched for: {answer.rewritten_question}", style="dim"))
    for bullet in answer.bullets:
        console.print(Text(f"• {bullet.render()}"))
    if answer.notice:
        console.print(Text(answer.notice, style="italic"))
    for s in answer.sources:
        where = f" — {s.location}" if s.location else ""
        console.print(Text(f"  [{s.number}] {s.title}{where}", style="cyan"))
    style = CONFIDENCE_STYLE[answer.confidence]
    console.print(Text(f"Confidence: {answer.confidence.value} ({_checks(answer)})", style=style))


def _checks(answer: Answer) -> str:
    scores = answer.scores
    return f"{scores.total}/{scores.count} checks passed"
