"""Understanding the question: expand acronyms, fix misspellings, make follow-ups standalone,
classify the intent. With a language model, condensing and intent use prompts; without one
(or when it fails) the rule-based versions answer."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import prompts
from bot.conversation.follow_ups import condense_rule_based, is_follow_up
from bot.conversation.intent import INTENT_DESCRIPTIONS, classify_intent, parse_intent_label
from bot.conversation.rewrite import correct_spelling, expand_acronyms
from bot.conversation.types import Expansion, HistoryTurn, Intent
from knowledge.documents import GlossaryEntry
from knowledge.models.llm import ChatModel, LLMError

log = logging.getLogger(__name__)


def rewrite(
    question: str,
    history: Sequence[HistoryTurn],
    glossary: Sequence[GlossaryEntry],
    vocabulary: set[str],
    model: ChatModel | None,
) -> tuple[str, tuple[Expansion, ...]]:
    expanded, expansions = expand_acronyms(question, glossary)
    corrected, fixes = correct_spelling(expanded, vocabulary, [g.term for g in glossary])
    standalone = corrected
    if history and is_follow_up(corrected, history):
        standalone = _condense(corrected, history, model)
        # a condensed question may carry acronyms from earlier turns
        standalone, more = expand_acronyms(standalone, glossary)
        expansions = [*expansions, *(e for e in more if e not in expansions)]
    return standalone, (*expansions, *fixes)


def _condense(question: str, history: Sequence[HistoryTurn], model: ChatModel | None) -> str:
    if model is None:
        return condense_rule_based(question, history)
    prompt = prompts.load("condense")
    transcript = "\n".join(f"{t.role}: {t.text}" for t in history[-6:])
    system, user = prompt.render(history=transcript, question=question)
    try:
        reply = model.complete(system, user, max_tokens=120).strip().splitlines()[0].strip()
    except (LLMError, IndexError):
        log.warning("condensing with the language model failed; using the rule-based rewrite")
        return condense_rule_based(question, history)
    return reply or condense_rule_based(question, history)


def intent_of(question: str, model: ChatModel | None) -> Intent:
    if model is None:
        return classify_intent(question)
    prompt = prompts.load("intent")
    listing = "\n".join(f"- {i.value}: {d}" for i, d in INTENT_DESCRIPTIONS.items())
    system, user = prompt.render(intents=listing, question=question)
    try:
        label = parse_intent_label(model.complete(system, user, max_tokens=10))
    except LLMError:
        label = None
    return label or classify_intent(question)
