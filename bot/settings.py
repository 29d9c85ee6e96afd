"""The one settings object: read from the environment and an optional `.env`, built once."""

from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

SLACK_DEFAULT_API_URL = "https://slack.com/api/"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("knowbot"))


class Settings(BaseSettings):
    """Everything a deployment sets. Nothing else in the code reads the environment."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", populate_by_name=True
    )

    database_url: str | None = Field(default=None, alias="DATABASE_URL")
    data_dir: Path = Field(default_factory=default_data_dir, alias="KNOWBOT_DATA_DIR")

    openai_api_key: SecretStr | None = Field(default=None, alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, alias="OPENAI_BASE_URL")
    llm_model: str = Field(default="gpt-4o-mini", alias="KNOWBOT_LLM_MODEL")
    llm_timeout_s: float = Field(default=30.0, alias="KNOWBOT_LLM_TIMEOUT")
    llm_max_retries: int = Field(default=2, alias="KNOWBOT_LLM_MAX_RETRIES")
    judge_enabled: bool = Field(default=False, alias="KNOWBOT_JUDGE")
    embed_model: str = Field(default="all-MiniLM-L6-v2", alias="KNOWBOT_EMBED_MODEL")

    slack_bot_token: SecretStr | None = Field(default=None, alias="SLACK_BOT_TOKEN")
    slack_app_token: SecretStr | None = Field(default=None, alias="SLACK_APP_TOKEN")
    slack_signing_secret: SecretStr | None = Field(default=None, alias="SLACK_SIGNING_SECRET")
    slack_api_url: str = Field(default=SLACK_DEFAULT_API_URL, alias="SLACK_API_URL")

    microsoft_app_id: str | None = Field(default=None, alias="MICROSOFT_APP_ID")
    microsoft_app_password: SecretStr | None = Field(default=None, alias="MICROSOFT_APP_PASSWORD")
    microsoft_app_tenant_id: str | None = Field(default=None, alias="MICROSOFT_APP_TENANT_ID")

    port: int = Field(default=3978, alias="KNOWBOT_PORT")

    @property
    def llm_configured(self) -> bool:
        """An LLM is used when a key or a base URL (local servers often need no key) is set."""
        return self.openai_api_key is not None or self.openai_base_url is not None

    @property
    def embedded_pgdata(self) -> Path:
        return self.data_dir / "pgdata"
