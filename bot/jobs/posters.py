"""Where the digest goes: a Slack channel or a Teams conversation, behind one small
interface so the digest job does not care which."""

from __future__ import annotations

from typing import Protocol

from bot.errors import KnowbotError
from bot.jobs.digest import Digest, render
from bot.settings import Settings


class DigestPoster(Protocol):
    @property
    def target(self) -> str: ...

    async def post(self, digest: Digest) -> None: ...


class SlackDigestPoster:
    def __init__(self, *, token: str, channel: str, api_url: str) -> None:
        self._token = token
        self._channel = channel
        self._api_url = api_url

    @property
    def target(self) -> str:
        return f"Slack channel {self._channel}"

    async def post(self, digest: Digest) -> None:
        from slack_sdk.web.async_client import AsyncWebClient

        client = AsyncWebClient(token=self._token, base_url=self._api_url)
        text = render(digest, "slack")
        await client.chat_postMessage(channel=self._channel, text=text, unfurl_links=False)


class TeamsDigestPoster:
    def __init__(self, *, service_url: str, conversation_id: str, settings: Settings) -> None:
        self._service_url = service_url
        self._conversation_id = conversation_id
        self._settings = settings

    @property
    def target(self) -> str:
        return f"Teams conversation {self._conversation_id}"

    async def post(self, digest: Digest) -> None:
        from bot.adapters.teams.proactive import app_token_source, post_activity

        await post_activity(
            service_url=self._service_url,
            conversation_id=self._conversation_id,
            activity={
                "type": "message",
                "textFormat": "markdown",
                "text": render(digest, "markdown"),
            },
            token=app_token_source(self._settings),
        )


def build_posters(settings: Settings) -> list[DigestPoster]:
    """Every configured digest target (none: the digest job is not scheduled)."""
    posters: list[DigestPoster] = []
    if settings.digest_slack_channel:
        if settings.slack_bot_token is None:
            raise KnowbotError(
                "KNOWBOT_DIGEST_SLACK_CHANNEL is set but SLACK_BOT_TOKEN is not: the digest "
                "is posted as the bot, so set the token (or unset the channel)."
            )
        posters.append(
            SlackDigestPoster(
                token=settings.slack_bot_token.get_secret_value(),
                channel=settings.digest_slack_channel,
                api_url=settings.slack_api_url,
            )
        )
    url, conversation = settings.digest_teams_service_url, settings.digest_teams_conversation
    if bool(url) != bool(conversation):
        raise KnowbotError(
            "A Teams digest needs both KNOWBOT_DIGEST_TEAMS_SERVICE_URL (the serviceUrl of "
            "the conversation, e.g. https://smba.trafficmanager.net/emea/) and "
            "KNOWBOT_DIGEST_TEAMS_CONVERSATION (its conversation id)."
        )
    if url and conversation:
        posters.append(
            TeamsDigestPoster(service_url=url, conversation_id=conversation, settings=settings)
        )
    return posters
