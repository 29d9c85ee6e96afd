"""Escalation in Teams as adaptive cards: the experts' card (with an answer form, or Confirm
/ Retire for a verified answer to confirm), the buttons under answers, the notes to askers.
Buttons are Action.Submit: Teams sends the click back as a message activity whose `value`
is the button's data ({"knowbot": <action>, ...})."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot.conversation.types import Answer, Confidence
from bot.conversation.verified import VerifiedAnswer, VerifiedSource
from bot.verified.escalation import View

CARD = "application/vnd.microsoft.card.adaptive"
ESCALATE, NOT_VERIFIED, ANSWER, CONFIRM, RETIRE = (
    "escalate",
    "not_verified",
    "answer",
    "confirm",
    "retire",
)
ACTIONS = (ESCALATE, NOT_VERIFIED, ANSWER, CONFIRM, RETIRE)
EDIT_PREFIX = "edit:"
UNREACHABLE = "I could not reach the experts: the bot is not installed in their channel."
ASKED = "I have asked the experts; their answer will come to this conversation."
_AAD = re.compile(r"^teams:(.+)$")

Json = dict[str, Any]


def answer_actions(answer: Answer, *, escalate: bool) -> Json | None:
    """The card under an answer: "Not what I asked" on a verified one, "Ask an expert" on
    any other short of High where the channel escalates; None for neither."""
    if answer.verified is not None:
        title, data = "Not what I asked", {"knowbot": NOT_VERIFIED, "answer": answer.id}
    elif escalate and answer.confidence != Confidence.HIGH:
        title, data = "Ask an expert", {"knowbot": ESCALATE, "answer": answer.id}
    else:
        return None
    return _card([], [{"type": "Action.Submit", "title": title, "data": data}])


def experts_activity(view: View, *, owner_names: dict[str, str] | None = None) -> Json:
    e = view.escalation
    body: list[Json] = []
    if e.kind == "confirm":
        body.append(_text(f"⚠️ A verified answer needs confirming: {e.answer_text}", bold=True))
        body.append(_text(f"Question: {e.question}"))
        if view.verified is not None:
            v = view.verified
            body.append(_text(f"Verified answer: {v.answer}"))
            when = f"{v.verified_at:%Y-%m-%d}"
            body.append(_text(f"Verified by {v.author} on {when} · now {v.status}", subtle=True))
    else:
        people = "1 person" if view.count == 1 else f"{view.count} people"
        what = "A verified answer was rated down" if e.verified_id else "A question for the experts"
        body.append(_text(f"🙋 {what} (asked by {people})", bold=True))
        body.append(_text(f"Question: {e.question}"))
        if e.answer_text:
            body.append(_text(f"Answer given: {e.answer_text}"))
    if e.sources:
        body.append(_text(_sources(e.sources), subtle=True))
    mentions, line = _owners(e.owners, owner_names or {})
    body.append(_text(line))
    actions: list[Json] = []
    settled = e.status not in ("pending", "posting", "open")
    if view.answered is not None:
        body.append(_text(_answered(view.answered), bold=True))
        actions.append(_submit("Retire", {"knowbot": RETIRE, "verified": view.answered.id}))
    elif e.kind == "question" and not settled:
        body.append(
            _text(
                "How to answer: reply in this thread mentioning the bot, or write the answer "
                "below. The first answer becomes the verified answer for scope "
                f"'{e.scope}', and everyone who asked is told. Later, reply "
                f"'{EDIT_PREFIX} new text' to change it.",
                subtle=True,
            )
        )
        body.append({"type": "Input.Text", "id": "text", "isMultiline": True,
                     "placeholder": "The answer, as askers should read it"})  # fmt: skip
        actions.append(_submit("Answer", {"knowbot": ANSWER, "escalation": e.id}))
    elif e.kind == "confirm" and not settled and e.verified_id is not None:
        actions.append(_submit("Confirm", {"knowbot": CONFIRM, "verified": e.verified_id}))
        actions.append(_submit("Retire", {"knowbot": RETIRE, "verified": e.verified_id}))
    elif e.kind == "confirm":
        body.append(_text(f"✅ Settled ({e.status}).", bold=True))
    card = _card(body, actions)
    if mentions:
        card["content"]["msteams"] = {"entities": mentions}
    return {"type": "message", "attachments": [card], "summary": f"Experts: {e.question[:100]}"}


def told_activity(verified: VerifiedAnswer) -> Json:
    text = f"{verified.author} answered: {verified.answer}"
    if verified.sources:
        text += "\n\n" + _sources(verified.sources)
    return {"type": "message", "textFormat": "markdown", "text": text}


def note_activity(text: str) -> Json:
    return {"type": "message", "textFormat": "plain", "text": text}


def _answered(verified: VerifiedAnswer) -> str:
    return (
        f"✅ Answered by {verified.author} on {verified.verified_at:%Y-%m-%d}: "
        f"verified answer {verified.id} ({verified.status})."
    )


def _owners(owners: Sequence[str], names: dict[str, str]) -> tuple[list[Json], str]:
    """Teams owners (`teams:<AAD object id>`) as mentions; e-mail owners as text; Slack
    user ids are not Teams users and are left out."""
    mentions: list[Json] = []
    shown: list[str] = []
    for owner in owners:
        aad = _AAD.match(owner)
        if aad:
            name = names.get(owner) or f"owner {len(mentions) + 1}"
            mentions.append({"type": "mention", "text": f"<at>{name}</at>",
                             "mentioned": {"id": aad.group(1), "name": name}})  # fmt: skip
            shown.append(f"<at>{name}</at>")
        elif "@" in owner:
            shown.append(owner)
    if not shown:
        return [], "Owners: none named for these sources (owners in knowbot-sources.toml)."
    return mentions, "Owners: " + ", ".join(shown)


def _sources(sources: Sequence[VerifiedSource]) -> str:
    return "Sources: " + "; ".join(
        f"[{n}] {s.title or s.uri or s.url}" + (f" — {s.location}" if s.location else "")
        for n, s in enumerate(sources, start=1)
    )


def _card(body: list[Json], actions: list[Json]) -> Json:
    content: Json = {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": "1.4",
        "body": body,
    }
    if actions:
        content["actions"] = actions
    return {"contentType": CARD, "content": content}


def _text(text: str, *, bold: bool = False, subtle: bool = False) -> Json:
    block: Json = {"type": "TextBlock", "text": text, "wrap": True}
    if bold:
        block["weight"] = "Bolder"
    if subtle:
        block["isSubtle"] = True
    return block


def _submit(title: str, data: Json) -> Json:
    return {"type": "Action.Submit", "title": title, "data": data}
