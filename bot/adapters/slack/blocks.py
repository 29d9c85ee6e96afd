"""An Answer as a Slack message: Block Kit for the eye, plain text for notifications and
screen readers, always inside Slack's limits (a message over them is refused outright)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.models.blocks import (
    ContextActionsBlock,
    FeedbackButtonObject,
    FeedbackButtonsElement,
)

from bot.adapters.slack.config import (
    BAD,
    ESCALATE_ACTION,
    FEEDBACK_ACTION,
    GOOD,
    NOT_VERIFIED_ACTION,
    REASONS,
)
from bot.conversation.types import Answer, Bullet, Confidence, Source

# Slack's published limits, with room to spare where Slack counts differently than Python.
MAX_BLOCKS = 50
SECTION_CHARS = 3000
CONTEXT_ELEMENTS = 10
CONTEXT_CHARS = 2000
BODY_CHARS = 11000  # Slack rejects messages whose blocks carry much more text than this
FALLBACK_CHARS = 3000  # notifications show far less; this keeps the request small

SHORTENED = "_(Shortened to fit in one Slack message.)_"
REASON_QUESTION = "Thanks for the feedback. What was wrong with this answer?"

Block = dict[str, Any]


@dataclass(frozen=True)
class SlackMessage:
    text: str  # the fallback: notifications, screen readers, clients without blocks
    blocks: list[Block] = field(default_factory=list)

    def as_kwargs(self) -> dict[str, Any]:
        return {"text": self.text, "blocks": self.blocks} if self.blocks else {"text": self.text}


def escape(text: str) -> str:
    """Knowledge text must not ping `<!channel>` or turn into links: Slack's three escapes."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def answer_message(answer: Answer, *, rate_hint: str = "", escalate: bool = False) -> SlackMessage:
    """`escalate`: the channel has experts, so an answer short of High offers them."""
    head = [searched_block(answer)] if answer.was_rewritten else []
    tail = tail_blocks(answer, rate_hint=rate_hint, escalate=escalate)
    room = MAX_BLOCKS - len(head) - len(tail) - 1  # one left for the "shortened" note
    body, shortened = bullet_sections(answer.bullets, max_sections=room)
    if shortened:
        body.append(context([SHORTENED]))
    return SlackMessage(text=fallback_text(answer), blocks=[*head, *body, *tail])


def tail_blocks(
    answer: Answer, *, rate_hint: str, searched: bool = False, escalate: bool = False
) -> list[Block]:
    """What follows the bullets: the notice, the sources, the confidence, the feedback
    buttons (where the answer can be rated) and the escalation buttons. `searched`: the
    "Searched for" line too (a streamed answer's bullets are already out, so it goes
    below them)."""
    tail = [searched_block(answer)] if searched and answer.was_rewritten else []
    if answer.notice:
        tail.append(context([f"_{escape(clip(answer.notice, 500))}_"]))
    if answer.sources:
        tail.append(context(source_lines(answer.sources)))
    footer = f"Confidence: *{answer.confidence.value}*"
    tail.append(context([f"{footer} · {rate_hint}" if rate_hint else footer]))
    if answer.question:  # not on "please type a question"
        tail.append(feedback_block())
        tail += answer_buttons(answer, escalate=escalate)
    return tail


def answer_buttons(answer: Answer, *, escalate: bool) -> list[Block]:
    """ "Not what I asked" on a verified answer; "Ask an expert" on any other answer short
    of High (could-not-find included) where the channel escalates."""
    if answer.verified is not None:
        chosen = button("Not what I asked", NOT_VERIFIED_ACTION, str(answer.id))
    elif escalate and answer.confidence != Confidence.HIGH:
        chosen = button("Ask an expert", ESCALATE_ACTION, str(answer.id))
    else:
        return []
    return [{"type": "actions", "block_id": "knowbot_answer_actions", "elements": [chosen]}]


def button(
    label: str, action: str, value: str, *, primary: bool = False, danger: bool = False
) -> Block:
    block: Block = {
        "type": "button",
        "action_id": action,
        "text": {"type": "plain_text", "text": label},
        "value": value,
    }
    if primary:
        block["style"] = "primary"
    elif danger:
        block["style"] = "danger"
    return block


def searched_block(answer: Answer) -> Block:
    searched = clip(" ".join(answer.rewritten_question.split()), 300)
    return context([f"_Searched for: {escape(searched)}_"])


def feedback_block() -> Block:
    """Slack's own thumbs on an answer (a `context_actions` block); a click arrives as a
    block action with `action_id` FEEDBACK_ACTION and the button's value."""
    buttons = FeedbackButtonsElement(
        action_id=FEEDBACK_ACTION,
        positive_button=FeedbackButtonObject(
            text="Good answer", value=GOOD, accessibility_label="Rate this answer as good"
        ),
        negative_button=FeedbackButtonObject(
            text="Bad answer", value=BAD, accessibility_label="Rate this answer as bad"
        ),
    )
    block: Block = ContextActionsBlock(elements=[buttons]).to_dict()
    return block


def markdown_bullets(bullets: Sequence[Bullet]) -> str:
    """Bullets as a streamed message shows them (markdown, one list item each); the text
    of each is exactly the stored bullet's, with its [n] markers."""
    return "".join(f"- {escape(b.render())}\n" for b in bullets)


def bullet_sections(bullets: Sequence[Bullet], *, max_sections: int) -> tuple[list[Block], bool]:
    """Bullets packed into as few sections as fit; True when some had to be left out."""
    texts: list[str] = []
    used = 0
    for n, bullet in enumerate(bullets):
        line = clip(f"• {escape(bullet.render())}", SECTION_CHARS)
        fits_last = texts and len(texts[-1]) + 1 + len(line) <= SECTION_CHARS
        if used + len(line) > BODY_CHARS or (not fits_last and len(texts) == max_sections):
            return [section(t) for t in texts], n < len(bullets)
        if fits_last:
            texts[-1] += "\n" + line
        else:
            texts.append(line)
        used += len(line) + 1
    return [section(t) for t in texts], False


def source_lines(sources: Sequence[Source]) -> list[str]:
    """One context element per source; past Slack's ten elements the rest share the last."""
    lines = [source_line(s) for s in sources]
    if len(lines) > CONTEXT_ELEMENTS:
        lines = [*lines[: CONTEXT_ELEMENTS - 1], "\n".join(lines[CONTEXT_ELEMENTS - 1 :])]
    return [clip(line, CONTEXT_CHARS) for line in lines]


def source_line(source: Source) -> str:
    """`[n] title — location`; a link to the document's place when the source has one."""
    where = f" — {escape(clip(source.location, 150))}" if source.location else ""
    label = f"{escape(clip(source.title, 150))}{where}"
    if source.url:
        label = f"<{escape(source.url)}|{label}>"
    return f"*[{source.number}]* {label}"


def fallback_text(answer: Answer) -> str:
    lines = [f"• {b.render()}" for b in answer.bullets]
    lines += [f"[{s.number}] {s.title}" for s in answer.sources]
    return escape(clip("\n".join(lines) or answer.notice or "(no answer)", FALLBACK_CHARS))


def section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def context(texts: Iterable[str]) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": t} for t in texts]}


def reason_message(answer_id: int) -> SlackMessage:
    """The private question after a thumbs-down; each button carries the answer it is about."""
    buttons = [
        {
            "type": "button",
            "action_id": f"knowbot_reason_{key}",
            "text": {"type": "plain_text", "text": label},
            "value": f"{answer_id}:{key}",
        }
        for key, label in REASONS
    ]
    return SlackMessage(
        text=REASON_QUESTION,
        blocks=[
            section(REASON_QUESTION),
            {"type": "actions", "block_id": "knowbot_reason", "elements": buttons},
        ],
    )
