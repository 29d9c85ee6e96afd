"""An Answer as a Teams message: markdown text that reads well anywhere, plus Teams' own
citation entities, "AI generated" label and feedback buttons where the client supports them.

In Teams the `[n]` markers become citation pills with a hover card and a references list, so
the markdown sources list is left out there; any other channel (the Emulator, Web Chat) gets
the list in the text instead."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from botbuilder.schema import Activity, ActivityTypes, Attachment, Entity

from bot.adapters.teams.escalation_cards import answer_actions
from bot.conversation.types import Answer, Bullet, Confidence, Source

TEAMS_CHANNEL = "msteams"
CONFIDENCE_MARK = {Confidence.HIGH: "🟢", Confidence.MEDIUM: "🟡", Confidence.LOW: "🔴"}
# quoted passages, canned replies and a person's verified answer carry no AI label
NOT_GENERATED = ("extractive", "none", "verified")

# Teams' documented limits for a citation's appearance.
MAX_CITATIONS = 20
MAX_NAME = 80
MAX_ABSTRACT = 160
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n{2,}")

STILL_WORKING = "Still working on your question: the answer will follow here shortly."
ATTACHMENTS_ONLY = "I can only read typed questions, not attachments: please type your question."
FORGOTTEN = "Done: I have forgotten this thread. Your next question here starts fresh."
FAILED = "Sorry, something went wrong while answering. Please try again in a moment."


class MessageEntity(Entity):
    """An Entity that serialises its extra fields: botbuilder's base class drops them, and
    Teams reads citations and the AI label from exactly those fields."""

    _attribute_map = {  # noqa: RUF012  # msrest's class-level schema
        **Entity._attribute_map,
        "additional_properties": {"key": "", "type": "{object}"},
    }

    def __init__(self, fields: dict[str, Any]) -> None:
        super().__init__(type=fields["type"])
        self.additional_properties = {k: v for k, v in fields.items() if k != "type"}


def answer_activity(answer: Answer, *, channel_id: str | None, escalate: bool = False) -> Any:
    """`escalate`: the channel has experts, so an answer short of High offers them."""
    if not answer.question:  # the "please type a question" reply: nothing to cite or rate
        return notice_activity("\n".join(b.text for b in answer.bullets))
    in_teams = channel_id == TEAMS_CHANNEL and len(answer.sources) <= MAX_CITATIONS
    generated = answer.model not in NOT_GENERATED
    entity = _message_entity(answer, generated=generated, cite=in_teams)
    card = answer_actions(answer, escalate=escalate)
    return Activity(
        type=ActivityTypes.message,
        text=answer_markdown(answer, sources_list=not in_teams),
        text_format="markdown",
        entities=[MessageEntity(entity)] if entity else None,
        channel_data={"feedbackLoopEnabled": True},
        attachments=[Attachment(content_type=card["contentType"], content=card["content"])]
        if card
        else None,
    )


def notice_activity(text: str) -> Any:
    return Activity(type=ActivityTypes.message, text=text, text_format="plain")


def typing_activity() -> Any:
    return Activity(type=ActivityTypes.typing)


def answer_markdown(answer: Answer, *, sources_list: bool) -> str:
    blocks: list[str] = []
    if answer.was_rewritten:
        blocks.append(f"_Searched for: {answer.rewritten_question}_")
    blocks.append("\n".join(f"- {b.render()}" for b in answer.bullets))
    if answer.notice:
        blocks.append(f"_{answer.notice}_")
    if sources_list and answer.sources:
        lines = "\n".join(f"- [{s.number}] {_linked(s)}" for s in answer.sources)
        blocks.append(f"**Sources**\n{lines}")
    mark = CONFIDENCE_MARK[answer.confidence]
    blocks.append(
        f"{mark} Confidence: **{answer.confidence.value}** "
        f"({answer.scores.total}/{answer.scores.count} checks)"
    )
    return "\n\n".join(blocks)


def citation(source: Source, bullets: Sequence[Bullet]) -> dict[str, Any]:
    """A citation's hover card; with the source's link, its name opens the document."""
    appearance: dict[str, Any] = {
        "@type": "DigitalDocument",
        "name": _cut(_where(source), MAX_NAME),
        "abstract": _cut(excerpt(source, bullets), MAX_ABSTRACT),
    }
    if source.url:
        appearance["url"] = source.url
    return {"@type": "Claim", "position": source.number, "appearance": appearance}


def excerpt(source: Source, bullets: Sequence[Bullet]) -> str:
    """The source's sentence that best matches the bullets citing it: the hover card has
    room for 160 characters, and a chunk's first ones are often a heading."""
    sentences = [" ".join(s.split()) for s in _SENTENCE_END.split(source.text) if s.strip()]
    citing = {w for b in bullets if source.number in b.source_numbers for w in _words(b.text)}
    if not sentences:
        return ""
    return max(sentences, key=lambda s: len(citing & _words(s)) / (1 + len(_words(s)) ** 0.5))


def _message_entity(answer: Answer, *, generated: bool, cite: bool) -> dict[str, Any] | None:
    if not generated and not (cite and answer.sources):
        return None
    entity: dict[str, Any] = {
        "type": "https://schema.org/Message",
        "@type": "Message",
        "@context": "https://schema.org",
        "@id": "",
    }
    if generated:
        entity["additionalType"] = ["AIGeneratedContent"]
    if cite and answer.sources:
        entity["citation"] = [citation(s, answer.bullets) for s in answer.sources]
    return entity


def _linked(source: Source) -> str:
    where = _where(source)
    if not source.url:
        return where
    label = where.replace("[", "(").replace("]", ")")
    return f"[{label}]({source.url.replace(')', '%29')})"


def _where(source: Source) -> str:
    return f"{source.title} — {source.location}" if source.location else source.title


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
