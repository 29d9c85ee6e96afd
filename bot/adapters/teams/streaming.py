"""Teams' streaming activities (personal chats): an informative update, then updates that
each carry the whole text so far, then the final message, all tied by a `streaminfo`
entity. The first update's id is the stream's id; `streamSequence` counts the updates from
1 and is left off the final message (Teams' documented rules)."""

from __future__ import annotations

import copy
from typing import Any

from botbuilder.schema import Activity, ActivityTypes

from bot.adapters.teams.render import MessageEntity
from bot.conversation.drafting import Draft

INFORMATIVE_CHARS = 1000  # Teams' limit for an informative update


def informative_activity(text: str) -> Any:
    """The first update: the blue progress line ("Reading the sources…")."""
    return _update(text[:INFORMATIVE_CHARS], stream_type="informative", sequence=1)


def streaming_activity(text: str, *, stream_id: str, sequence: int) -> Any:
    return _update(text, stream_type="streaming", sequence=sequence, stream_id=stream_id)


def final_activity(reply: Any, *, stream_id: str) -> Any:
    """The finished message (`reply`, as it would be sent without streaming) closing the
    stream: citations, the AI label and the feedback buttons live only here."""
    final = copy.copy(reply)
    info = {"type": "streaminfo", "streamId": stream_id, "streamType": "final"}
    final.entities = [MessageEntity(info), *(reply.entities or [])]
    final.channel_data = {
        **(reply.channel_data or {}),
        "streamId": stream_id,
        "streamType": "final",
    }
    return final


def draft_markdown(draft: Draft) -> str:
    """A draft as the stream shows it: the bullets so far, the last one still growing."""
    lines = [f"- {b.render()}" for b in draft.settled]
    if draft.writing:
        lines.append(f"- {draft.writing}")
    return "\n".join(lines)


def _update(text: str, *, stream_type: str, sequence: int, stream_id: str | None = None) -> Any:
    info: dict[str, Any] = {"type": "streaminfo", "streamType": stream_type}
    data: dict[str, Any] = {"streamType": stream_type, "streamSequence": sequence}
    if stream_id:
        info["streamId"] = data["streamId"] = stream_id
    info["streamSequence"] = sequence
    return Activity(
        type=ActivityTypes.typing,
        text=text,
        text_format="markdown",
        entities=[MessageEntity(info)],
        channel_data=data,
    )
