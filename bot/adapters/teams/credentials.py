"""Whether the Teams endpoint checks tokens, decided from Settings alone (no botbuilder
import), so `knowbot serve` can refuse a half configuration and warn before it starts."""

from __future__ import annotations

from bot.errors import KnowbotError
from bot.settings import Settings

UNAUTHENTICATED_WARNING = (
    "the Teams endpoint is UNAUTHENTICATED: MICROSOFT_APP_ID is not set, so anyone who can "
    "reach /api/messages can talk to the bot and read its answers. Fine for the Bot Framework "
    "Emulator on your own machine; set MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD before "
    "exposing it."
)


def is_authenticated(settings: Settings) -> bool:
    return settings.microsoft_app_id is not None


def check_credentials(settings: Settings) -> None:
    """An app id without its password would accept tokens but fail every reply: refuse early."""
    if settings.microsoft_app_id is not None and settings.microsoft_app_password is None:
        raise KnowbotError(
            f"MICROSOFT_APP_ID is set ({settings.microsoft_app_id}) but MICROSOFT_APP_PASSWORD "
            "is not: add the bot's client secret (README, 'Microsoft Teams')."
        )
