"""Producing the bullets: the language model when one is configured, quoted passages when
not (or when it fails)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

import prompts
from bot.conversation.citations import is_not_found, parse_bullets
from bot.conversation.context import fence
from bot.conversation.declining import Likeness
from bot.conversation.extractive import quote
from bot.conversation.focus import Focus, focus_of
from bot.conversation.types import Bullet, Intent, Source
from knowledge.ingest.injection import without_instructions
from knowledge.models.llm import ChatModel, LLMError, StreamingChatModel
from knowledge.models.reply_stream import TextSink
from knowledge.search.stages import ALL_STAGES, Stage

log = logging.getLogger(__name__)

EXTRACTIVE = "extractive"
EXTRACTIVE_NOTICE = "Quoted passages from the sources (no language model is configured)."
INPUTS_NOTICE = "No source states this figure; these are the figures it is worked out from."

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
    related: tuple[Source, ...] = ()  # closest sources, shown as related reading if not found
    reason: str = ""  # why nothing was found


def prompt_name(intent: Intent) -> str:
    return PROMPT_FOR_INTENT.get(intent, "answer")


def generate(
    *,
    question: str,
    intent: Intent,
    sources: Sequence[Source],
    model: ChatModel | None,
    version: str | None = None,
    focus: Focus | None = None,
    on_text: TextSink | None = None,
    likeness: Likeness | None = None,
    closeness: float | None = None,
    stages: frozenset[Stage] = ALL_STAGES,
) -> Generated:
    """`on_text`: where the model's reply goes piece by piece while it is written (for
    streaming it to the user); the reply is read as a whole here, as without it.
    `likeness`: passages' similarity to the question, for choosing what to quote, and
    `closeness` the similarity at which a passage answers it in other words (see
    extractive.quote); `stages`: the rules that choose it (see knowledge.search.stages)."""
    prompt = prompts.load(prompt_name(intent), version)
    asked = focus or focus_of(question)
    quoted = partial(
        _extractive,
        asked,
        sources,
        prompt.label,
        prompt.system,
        likeness=likeness,
        closeness=closeness,
        stages=stages,
    )
    if model is None:
        return quoted(EXTRACTIVE_NOTICE)
    system, user = prompt.render(context=fence(sources), question=question)
    try:
        if on_text is not None and isinstance(model, StreamingChatModel):
            reply = model.stream(system, user, on_text=on_text)
        else:
            reply = model.complete(system, user)
    except LLMError as exc:
        log.warning("language model failed, answering with quoted passages: %s", exc)
        notice = f"The language model is unavailable ({exc}); these are quoted passages."
        return quoted(notice, failed=True)
    if is_not_found(reply) or reply.strip().upper().startswith("NOT_FOUND"):
        return Generated([], prompt.label, model.model_name, prompt.system, not_found=True)
    bullets = parse_bullets(reply, max_source=len(sources))
    if not bullets:
        notice = "The language model's reply could not be read; these are quoted passages."
        return quoted(notice, failed=True)
    return Generated(bullets, prompt.label, model.model_name, prompt.system)


def quotable(source: Source) -> Source:
    """What of a source may be quoted: no sentence that addresses an AI assistant (a
    planted "ignore previous instructions" must never be the answer)."""
    return replace(source, text=without_instructions(source.text))


def _extractive(
    focus: Focus,
    sources: Sequence[Source],
    label: str,
    instructions: str,
    notice: str,
    *,
    failed: bool = False,
    likeness: Likeness | None = None,
    closeness: float | None = None,
    stages: frozenset[Stage] = ALL_STAGES,
) -> Generated:
    quotable_sources = [q for q in map(quotable, sources) if q.text]
    quoted = quote(focus, quotable_sources, likeness=likeness, closeness=closeness, stages=stages)
    if quoted.inputs_only:
        notice = f"{INPUTS_NOTICE} {notice}"
    return Generated(
        quoted.bullets if quoted.answered else [],
        label,
        EXTRACTIVE,
        instructions,
        notice=notice,
        not_found=not quoted.answered,
        failed=failed,
        related=tuple(quoted.related),
        reason=quoted.reason,
    )
