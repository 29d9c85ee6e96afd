"""Bot Framework authentication from Settings: JWT checks on incoming requests when
MICROSOFT_APP_ID is set, none (for the Bot Framework Emulator) when it is not."""

from __future__ import annotations

import logging
from concurrent.futures import Executor
from typing import Any

from botbuilder.integration.aiohttp import ConfigurationBotFrameworkAuthentication

from bot.adapters.teams.connector import PooledConnectorFactory
from bot.adapters.teams.credentials import (
    UNAUTHENTICATED_WARNING,
    check_credentials,
    is_authenticated,
)
from bot.adapters.teams.options import BotFrameworkEndpoints
from bot.settings import Settings

log = logging.getLogger(__name__)


class _BotConfig:
    """The attribute bag botbuilder's ConfigurationBotFrameworkAuthentication reads."""

    def __init__(self, settings: Settings, endpoints: BotFrameworkEndpoints | None) -> None:
        password = settings.microsoft_app_password
        self.APP_ID = settings.microsoft_app_id
        self.APP_PASSWORD = password.get_secret_value() if password else None
        self.APP_TENANTID = settings.microsoft_app_tenant_id
        single = settings.microsoft_app_tenant_id and settings.microsoft_app_id
        self.APP_TYPE = "SingleTenant" if single else "MultiTenant"
        if endpoints is not None:
            self.TO_BOT_FROM_CHANNEL_OPENID_METADATA_URL = endpoints.openid_metadata_url
            self.TO_BOT_FROM_CHANNEL_TOKEN_ISSUER = endpoints.token_issuer
            self.TO_BOT_FROM_EMULATOR_OPENID_METADATA_URL = endpoints.emulator_openid_metadata_url
            self.TO_CHANNEL_FROM_BOT_LOGIN_URL = endpoints.login_url
            self.TO_CHANNEL_FROM_BOT_OAUTH_SCOPE = endpoints.oauth_scope
            self.OAUTH_URL = endpoints.oauth_url


class _Authentication(ConfigurationBotFrameworkAuthentication):  # type: ignore[misc]
    """botbuilder's, except that connector clients send on the adapter's own pool."""

    def __init__(self, config: _BotConfig, connector_pool: Executor) -> None:
        super().__init__(config)
        self._connector_pool = connector_pool

    def create_connector_factory(self, claims_identity: Any) -> Any:
        inner = super().create_connector_factory(claims_identity)
        return PooledConnectorFactory(inner, self._connector_pool)

    async def authenticate_request(self, activity: Any, auth_header: str) -> Any:
        """The result carries the factory replies to this activity are sent with."""
        result = await super().authenticate_request(activity, auth_header)
        if result.connector_factory is not None:
            result.connector_factory = PooledConnectorFactory(
                result.connector_factory, self._connector_pool
            )
        return result


def build_authentication(
    settings: Settings, endpoints: BotFrameworkEndpoints | None, *, connector_pool: Executor
) -> Any:
    """botbuilder's authentication for this deployment; refuses an app id without password."""
    check_credentials(settings)
    if not is_authenticated(settings):
        log.warning(UNAUTHENTICATED_WARNING)
    return _Authentication(_BotConfig(settings, endpoints), connector_pool)
