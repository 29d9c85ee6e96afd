"""Producing the bullets: the language model when one is configured, quoted passages when
not (or when it fails)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

import prompts
from bot.conversation.citations import is_not_found, parse_bullets
from bot.conversation.context import fence
from bot.conversation.extractive import extractive_answer
from bot.conversation.types import Bullet, Intent, Source
from knowledge.injection import without_instructions
from knowledge.llm import ChatModel, LLMError

log = logging.getLogger(__name__)

EXTRACTIVE = "extractive"
EXTRACTIVE_NOTICE = "Quoted passages from the sources (no language model is configured)."

PROMPT_FOR_INTENT = {
    Intent.YES_NO: "answer_yes_no",
    Intent.HOW_TO: "answer_how_to",
    Intent.RANK: "answer_data",
    Intent.TREND: "answer_data",
    Intent.COMPARE: "answer_data",
}


@dataclass(frozen=True)
class Generated:
    bullets: list[Bullet]
    prompt: str  # name@version
    model: str
    instructions: str  # what the not-copied check compares against
    notice: str = ""
    not_found: bool = False
    failed: bool = False  # the model failed and quoted passages stand in


def prompt_name(intent: Intent) -> str:
    return PROMPT_FOR_INTENT.get(intent, "answer")


def generate(
    *,
    question: str,
    intent: Intent,
    sources: Sequence[Source],
    model: ChatModel | None,
    version: str | None = None,
) -> Generated:
    prompt = prompts.load(prompt_name(intent), version)
    if model is None:
        return _extractive(question, sources, prompt.label, prompt.system, EXTRACTIVE_NOTICE)
    system, user = prompt.render(context=fence(sources), question=question)
    try:
        reply = model.complete(system, user)
    except LLMError as exc:
        log.warning("language model failed, answering with quoted passages: %s", exc)
        notice = f"The language model is unavailable ({exc}); these are quoted passages."
        return _extractive(question, sources, prompt.label, prompt.system, notice, failed=True)
    if is_not_found(reply) or reply.strip().upper().startswith("NOT_FOUND"):
        return Generated([], prompt.label, model.model_name, prompt.system, not_found=True)
    bullets = parse_bullets(reply, max_source=len(sources))
    if not bullets:
        notice = "The language model's reply could not be read; these are quoted passages."
        return _extractive(question, sources, prompt.label, prompt.system, notice, failed=True)
    return Generated(bullets, prompt.label, model.model_name, prompt.system)


def quotable(source: Source) -> Source:
    """What of a source may be quoted: no sentence that addresses an AI assistant (a
    planted "ignore previous instructions" must never be the answer), no heading line."""
    source = without_heading(source)
    return replace(source, text=without_instructions(source.text))


def without_heading(source: Source) -> Source:
    """Rulebook chunks open with their heading path; quoted bullets read better without it."""
    first, _, rest = source.text.partition("\n")
    is_heading = rest and len(first) < 200 and not first.rstrip().endswith((".", ":", ";"))
    if source.kind in ("rulebook", "table") and is_heading:
        return replace(source, text=rest.strip())
    return source


def _extractive(
    question: str,
    sources: Sequence[Source],
    label: str,
    instructions: str,
    notice: str,
    *,
    failed: bool = False,
) -> Generated:
    bullets = extractive_answer(question, [q for q in map(quotable, sources) if q.text])
    return Generated(
        bullets,
        label,
        EXTRACTIVE,
        instructions,
        notice=notice,
        not_found=not bullets,
        failed=failed,
    )
