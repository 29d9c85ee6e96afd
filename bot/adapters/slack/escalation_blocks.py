"""Escalation messages in Slack: the experts' message (a question, or a verified answer to
confirm), the buttons on answers ("Ask an expert", "Not what I asked"), and the notes to
askers. Owners arrive as mentions already resolved (see SlackEscalating)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.adapters.slack.blocks import (
    Block,
    SlackMessage,
    button,
    clip,
    context,
    escape,
    section,
    source_lines,
)
from bot.adapters.slack.config import (
    ANSWER_ACTION,
    ANSWER_FORM,
    CONFIRM_ACTION,
    REASONS,
    RETIRE_ACTION,
)
from bot.conversation.types import Source
from bot.conversation.verified import VerifiedAnswer, VerifiedSource
from bot.verified.escalation import View

EDIT_PREFIX = "edit:"

UNREACHABLE = (
    "I could not reach the experts: I am not a member of their channel. Ask an admin to "
    "invite me there (/invite @knowbot)."
)
ASKED = "I have asked the experts in <#{channel}>; their answer will come to this thread."
REASON_LABELS = dict(REASONS)


def experts_message(view: View, *, mentions: Sequence[str]) -> SlackMessage:
    if view.escalation.kind == "confirm":
        return _confirm_message(view, mentions=mentions)
    return _question_message(view, mentions=mentions)


def _question_message(view: View, *, mentions: Sequence[str]) -> SlackMessage:
    e = view.escalation
    people = "1 person" if view.count == 1 else f"{view.count} people"
    what = "A verified answer was rated down" if e.verified_id else "A question for the experts"
    blocks: list[Block] = [
        section(f":raising_hand: *{what}* (asked by {people})"),
        section(f"*Question:* {escape(clip(e.question, 1500))}"),
    ]
    if e.answer_text:
        blocks.append(section(f"*Answer given:*\n{escape(clip(e.answer_text, 2500))}"))
    if e.sources:
        blocks.append(context(source_lines(_numbered(e.sources))))
    asked = [_asker_line(t.asker.user_id, t.thread.channel if t.thread else "", t.asker.rating,
                         t.asker.reason) for t in view.askers[:8]]  # fmt: skip
    if len(view.askers) > 8:
        asked.append(f"…and {len(view.askers) - 8} more")
    if asked:
        blocks.append(context(["\n".join(asked)]))
    blocks.append(section(_owners_line(mentions)))
    if view.answered is not None:
        blocks.append(section(_answered_line(view.answered)))
        blocks.append(
            _actions([button("Retire", RETIRE_ACTION, str(view.answered.id), danger=True)])
        )
    else:
        blocks.append(_actions([button("Answer", ANSWER_ACTION, str(e.id), primary=True)]))
        blocks.append(
            context(
                [
                    "*How to answer:* reply in this thread (or press Answer). The first "
                    f"reply becomes the verified answer for scope `{escape(e.scope)}`, served "
                    "to everyone who asks this, and each asker is told. Later, reply "
                    f"`{EDIT_PREFIX} new text` to change it."
                ]
            )
        )
    text = f"Question for the experts ({people}): {clip(e.question, 300)}"
    return SlackMessage(text=escape(text), blocks=blocks)


def _confirm_message(view: View, *, mentions: Sequence[str]) -> SlackMessage:
    e, verified = view.escalation, view.verified
    blocks: list[Block] = [
        section(
            f":warning: *A verified answer needs confirming:* {escape(clip(e.answer_text, 500))}"
        ),
        section(f"*Question:* {escape(clip(e.question, 1500))}"),
    ]
    if verified is not None:
        blocks.append(section(f"*Verified answer:*\n{escape(clip(verified.answer, 2500))}"))
        when = f"{verified.verified_at:%Y-%m-%d}"
        by = f"Verified by {escape(verified.author)} on {when} · now *{verified.status}*"
        blocks.append(context([by]))
    if e.sources:
        blocks.append(context(source_lines(_numbered(e.sources))))
    blocks.append(section(_owners_line(mentions)))
    if e.status in ("pending", "posting", "open") and e.verified_id is not None:
        value = str(e.verified_id)
        blocks.append(
            _actions(
                [
                    button("Confirm", CONFIRM_ACTION, value, primary=True),
                    button("Retire", RETIRE_ACTION, value, danger=True),
                ]
            )
        )
        blocks.append(
            context([f"Or reply `{EDIT_PREFIX} new text` in this thread to change the answer."])
        )
    text = f"A verified answer needs confirming: {clip(e.question, 300)}"
    return SlackMessage(text=escape(text), blocks=blocks)


def answer_form(escalation_id: str) -> Block:
    """The modal the Answer button opens; `private_metadata` carries the escalation."""
    return {
        "type": "modal",
        "callback_id": ANSWER_FORM,
        "private_metadata": escalation_id,
        "title": {"type": "plain_text", "text": "Answer the question"},
        "submit": {"type": "plain_text", "text": "Save answer"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            {
                "type": "input",
                "block_id": "answer",
                "label": {"type": "plain_text", "text": "The answer, as askers should read it"},
                "element": {"type": "plain_text_input", "action_id": "text", "multiline": True},
            }
        ],
    }


def settled_message(verified: VerifiedAnswer, *, what: str, by: str) -> SlackMessage:
    """The note in an escalation's thread when an answer is confirmed, edited or retired."""
    text = f"Verified answer {verified.id} {what} by {by}."
    return SlackMessage(text=escape(text))


def answered_note(verified: VerifiedAnswer) -> SlackMessage:
    """In the escalation's thread: what the reply became, with a Retire button."""
    text = (
        f"Saved as verified answer {verified.id} (scope {verified.scope}): served from now "
        f"on to questions that mean the same. Reply `{EDIT_PREFIX} new text` to change it."
    )
    return SlackMessage(
        text=escape(text),
        blocks=[
            section(escape(text)),
            _actions([button("Retire", RETIRE_ACTION, str(verified.id), danger=True)]),
        ],
    )


def told_message(verified: VerifiedAnswer) -> SlackMessage:
    """To an asker, in their own thread."""
    head = f"{escape(verified.author)} answered: {escape(clip(verified.answer, 2500))}"
    sources = source_lines(_numbered(verified.sources)) if verified.sources else []
    blocks = [section(head)]
    if sources:
        blocks.append(context(sources))
    return SlackMessage(text=head, blocks=blocks)


def _owners_line(mentions: Sequence[str]) -> str:
    if not mentions:
        return "*Owners:* none named for these sources (add `owners` in knowbot-sources.toml)."
    return f"*Owners:* {' '.join(mentions)}"


def _answered_line(verified: VerifiedAnswer) -> str:
    return (
        f":white_check_mark: *Answered by {escape(verified.author)}* on "
        f"{verified.verified_at:%Y-%m-%d}: verified answer {verified.id} "
        f"({verified.status})."
    )


def _asker_line(user: str, channel: str, rating: int | None, reason: str) -> str:
    where = f" in <#{channel}>" if channel and not channel.startswith("D") else ""
    how = "asked for an expert"
    if rating is not None and rating < 0:
        how = "rated the answer down"
        if reason:
            how += f" ({REASON_LABELS.get(reason, reason)})"
    return f"<@{user}>{where}: {how}"


def _numbered(sources: Sequence[VerifiedSource]) -> list[Source]:
    return [
        Source(
            number=n,
            chunk_id=s.chunk_id,
            kind="verified",
            title=s.title or s.uri or s.url or f"source {n}",
            location=s.location,
            text="",
            url=s.url,
        )
        for n, s in enumerate(sources, start=1)
    ]


def _actions(elements: list[Block]) -> Block:
    return {"type": "actions", "elements": elements}
