"""Which knowledge scopes a channel or conversation may see, and whether it needs mentions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Engine

from bot.db.tables import channel_settings

DEFAULT_SCOPES = ("default",)


@dataclass(frozen=True)
class ChannelSettings:
    platform: str
    channel: str
    scopes: tuple[str, ...]
    require_mention: bool = False
    escalate_to: str | None = None  # the experts channel its questions go to


class ChannelStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def get(self, platform: str, channel: str) -> ChannelSettings:
        """A channel never configured sees the default scope and answers follow-ups."""
        with self._engine.connect() as conn:
            row = conn.execute(
                sa.select(channel_settings).where(
                    channel_settings.c.platform == platform, channel_settings.c.channel == channel
                )
            ).first()
        if row is None:
            return ChannelSettings(platform, channel, DEFAULT_SCOPES)
        return _settings(row)

    def set(
        self,
        platform: str,
        channel: str,
        *,
        scopes: tuple[str, ...] | None = None,
        require_mention: bool | None = None,
        escalate_to: str | None = None,
    ) -> ChannelSettings:
        """None leaves a setting as it is; `escalate_to=""` stops escalating."""
        current = self.get(platform, channel)
        new_scopes = list(scopes if scopes is not None else current.scopes)
        mention = current.require_mention if require_mention is None else require_mention
        experts = current.escalate_to if escalate_to is None else (escalate_to or None)
        values = {"scopes": new_scopes, "require_mention": mention, "escalate_to": experts}
        stmt = insert(channel_settings).values(platform=platform, channel=channel, **values)
        stmt = stmt.on_conflict_do_update(
            index_elements=["platform", "channel"],
            set_={**values, "updated_at": sa.func.now()},
        )
        with self._engine.begin() as conn:
            conn.execute(stmt)
        return ChannelSettings(platform, channel, tuple(new_scopes), mention, experts)

    def all(self) -> list[ChannelSettings]:
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(channel_settings).order_by(
                    channel_settings.c.platform, channel_settings.c.channel
                )
            )
            return [_settings(r) for r in rows]


def _settings(row: Any) -> ChannelSettings:
    return ChannelSettings(
        row.platform, row.channel, tuple(row.scopes), row.require_mention, row.escalate_to
    )
