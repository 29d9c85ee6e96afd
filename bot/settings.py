"""The one settings object: read from the environment and an optional `.env`, built once."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

SLACK_DEFAULT_API_URL = "https://slack.com/api/"
FACTS_FORMATS = ("triples", "sentences", "description")


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
    llm_max_retries: int = Field(default=2, ge=0, alias="KNOWBOT_LLM_MAX_RETRIES")
    # From a message's arrival to its reply: every model call for it (condense, intent,
    # answer, judge) and its retries share this; past it the quoted answer goes out.
    answer_deadline_s: float = Field(default=12.0, gt=0, alias="KNOWBOT_ANSWER_DEADLINE_S")
    judge_enabled: bool = Field(default=False, alias="KNOWBOT_JUDGE")
    embed_model: str = Field(default="all-MiniLM-L6-v2", alias="KNOWBOT_EMBED_MODEL")
    embed_threads: int | None = Field(default=None, ge=1, alias="KNOWBOT_EMBED_THREADS")
    # the bundled model through ONNX Runtime (same vectors, about twice as fast) or PyTorch
    embed_runtime: Literal["onnx", "torch"] = Field(default="onnx", alias="KNOWBOT_EMBED_RUNTIME")
    # The blended similarity a verified answer needs to be served; unset: the score fitted
    # for the embedding model (bot/conversation/verified_fitted.json), or none served.
    verified_min_score: float | None = Field(
        default=None, ge=-1, le=1, alias="KNOWBOT_VERIFIED_MIN_SCORE"
    )

    slack_bot_token: SecretStr | None = Field(default=None, alias="SLACK_BOT_TOKEN")
    slack_app_token: SecretStr | None = Field(default=None, alias="SLACK_APP_TOKEN")
    slack_signing_secret: SecretStr | None = Field(default=None, alias="SLACK_SIGNING_SECRET")
    slack_api_url: str = Field(default=SLACK_DEFAULT_API_URL, alias="SLACK_API_URL")
    # Reactions on an answer that rate it (comma-separated names, with or without colons).
    slack_positive_reactions: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["+1", "white_check_mark", "heart", "tada"],
        alias="KNOWBOT_SLACK_POSITIVE_REACTIONS",
    )
    slack_negative_reactions: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["-1", "x", "confused", "thinking_face"],
        alias="KNOWBOT_SLACK_NEGATIVE_REACTIONS",
    )
    # Slack allows about one message per second per channel; answers queue to keep to it.
    slack_post_interval_s: float = Field(default=1.0, ge=0, alias="KNOWBOT_SLACK_POST_INTERVAL_S")
    # Offered when a Slack assistant thread opens (a JSON list, or questions separated by
    # "|"); unset: the most asked questions that were rated well, then FAQ questions.
    slack_suggested_prompts: Annotated[list[str] | None, NoDecode] = Field(
        default=None, alias="KNOWBOT_SLACK_SUGGESTED_PROMPTS"
    )
    # A language model's answer streams into Slack threads and Teams personal chats as it
    # is written; off: one finished message, as without a model.
    streaming: bool = Field(default=True, alias="KNOWBOT_STREAMING")

    microsoft_app_id: str | None = Field(default=None, alias="MICROSOFT_APP_ID")
    microsoft_app_password: SecretStr | None = Field(default=None, alias="MICROSOFT_APP_PASSWORD")
    microsoft_app_tenant_id: str | None = Field(default=None, alias="MICROSOFT_APP_TENANT_ID")

    # Microsoft Graph with app credentials: SharePoint/OneDrive sources, and the groups of
    # whoever asks (permission-aware answers). The hosts change for national clouds and tests.
    graph_tenant_id: str | None = Field(default=None, alias="MICROSOFT_GRAPH_TENANT_ID")
    graph_client_id: str | None = Field(default=None, alias="MICROSOFT_GRAPH_CLIENT_ID")
    graph_client_secret: SecretStr | None = Field(
        default=None, alias="MICROSOFT_GRAPH_CLIENT_SECRET"
    )
    graph_url: str = Field(default="https://graph.microsoft.com/v1.0", alias="KNOWBOT_GRAPH_URL")
    graph_authority: str = Field(
        default="https://login.microsoftonline.com", alias="KNOWBOT_GRAPH_AUTHORITY"
    )

    port: int = Field(default=3978, alias="KNOWBOT_PORT")
    # Where `knowbot serve` listens: this machine only, unless told (the image sets 0.0.0.0).
    host: str = Field(default="127.0.0.1", alias="KNOWBOT_HOST")

    # Feedback and prompts that learn from it.
    feedback_max_age_days: float = Field(default=90, gt=0, alias="KNOWBOT_FEEDBACK_MAX_AGE_DAYS")
    bandit_enabled: bool = Field(default=True, alias="KNOWBOT_BANDIT")
    bandit_exploration: float = Field(default=0.2, ge=0, le=1, alias="KNOWBOT_BANDIT_EXPLORATION")
    bandit_refresh_s: float = Field(default=30.0, ge=0, alias="KNOWBOT_BANDIT_REFRESH_S")
    # Which versions of each prompt compete, e.g. {"answer": ["v1", "v2"]}; unset: every file.
    live_prompts: Annotated[dict[str, list[str]], NoDecode] = Field(
        default_factory=dict, alias="KNOWBOT_LIVE_PROMPTS"
    )
    facts_formats: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(FACTS_FORMATS), alias="KNOWBOT_FACTS_FORMATS"
    )
    # Vocabulary packs in use: names of bundled packs and/or paths of TOML files a company
    # wrote (comma-separated); empty: none, and the rules that need a domain's words rest.
    packs: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["finance", "documents", "insurance"], alias="KNOWBOT_PACKS"
    )

    # Scheduled jobs. Cron expressions: minute hour day month day-of-week; name the days
    # (mon, tue ...): APScheduler 3 numbers Monday 0, where cron numbers Sunday 0.
    schedule_timezone: str = Field(default="UTC", alias="KNOWBOT_SCHEDULE_TZ")
    reingest_paths: Annotated[list[Path], NoDecode] = Field(
        default_factory=list, alias="KNOWBOT_REINGEST_PATHS"
    )
    reingest_sources: Path | None = Field(default=None, alias="KNOWBOT_SOURCES")
    reingest_cron: str = Field(default="0 2 * * *", alias="KNOWBOT_REINGEST_CRON")
    # Confluence sources (kind = "confluence" in the sources file): Cloud takes the account's
    # e-mail and an API token, Data Center a personal access token.
    confluence_user: str | None = Field(default=None, alias="CONFLUENCE_USER")
    confluence_api_token: SecretStr | None = Field(default=None, alias="CONFLUENCE_API_TOKEN")
    confluence_pat: SecretStr | None = Field(default=None, alias="CONFLUENCE_PAT")
    memory_max_age_days: float = Field(default=30, gt=0, alias="KNOWBOT_MEMORY_MAX_AGE_DAYS")
    expire_cron: str = Field(default="30 3 * * *", alias="KNOWBOT_EXPIRE_CRON")
    digest_cron: str = Field(default="0 9 * * mon", alias="KNOWBOT_DIGEST_CRON")
    digest_slack_channel: str | None = Field(default=None, alias="KNOWBOT_DIGEST_SLACK_CHANNEL")
    digest_teams_service_url: str | None = Field(
        default=None, alias="KNOWBOT_DIGEST_TEAMS_SERVICE_URL"
    )
    digest_teams_conversation: str | None = Field(
        default=None, alias="KNOWBOT_DIGEST_TEAMS_CONVERSATION"
    )
    # Escalation: where questions rated down (or sent with "Ask an expert") go when the
    # channel names no experts channel of its own (knowbot channels set --escalate-to).
    # Unset, and no channel names one: nothing escalates.
    escalation_slack_channel: str | None = Field(
        default=None, alias="KNOWBOT_ESCALATION_SLACK_CHANNEL"
    )
    escalation_teams_conversation: str | None = Field(
        default=None, alias="KNOWBOT_ESCALATION_TEAMS_CONVERSATION"
    )
    # A verified answer nobody confirmed for this long is put to its experts again.
    verified_max_age_days: float = Field(default=180, gt=0, alias="KNOWBOT_VERIFIED_MAX_AGE_DAYS")
    # How often a running bot posts pending requests (verified answers to confirm after a
    # re-ingest changed their source) to the experts channels.
    escalation_poll_s: float = Field(default=10.0, gt=0, alias="KNOWBOT_ESCALATION_POLL_S")
    slack_workspace_url: str = Field(
        default="https://slack.com", alias="KNOWBOT_SLACK_WORKSPACE_URL"
    )

    def source_environment(self) -> Mapping[str, str]:
        """Where a sources file's `db_env` names are looked up: the process environment,
        read at each run (a database URL there keeps its password out of the sources file)."""
        return os.environ

    @field_validator("facts_formats", "reingest_paths", "packs", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        """Lists come from the environment as `a,b,c` (JSON lists are accepted too)."""
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator("slack_suggested_prompts", mode="before")
    @classmethod
    def _prompt_list(cls, value: Any) -> Any:
        """`["What is PED?", "How do I claim?"]` or `What is PED?|How do I claim?`: questions
        hold commas, so they are not comma-separated."""
        if isinstance(value, str):
            text = value.strip()
            value = json.loads(text) if text.startswith("[") else text.split("|")
        if isinstance(value, list):
            return [str(v).strip() for v in value if str(v).strip()]
        return value

    @field_validator("live_prompts", mode="before")
    @classmethod
    def _json_object(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return json.loads(value) if value.strip() else {}
            except ValueError as exc:
                raise ValueError(
                    f'must be JSON such as {{"answer": ["v1", "v2"]}}, not {value!r}'
                ) from exc
        return value

    @field_validator("facts_formats")
    @classmethod
    def _known_formats(cls, value: list[str]) -> list[str]:
        unknown = [v for v in value if v not in FACTS_FORMATS]
        if unknown or not value:
            raise ValueError(
                f"KNOWBOT_FACTS_FORMATS must list some of {', '.join(FACTS_FORMATS)}; "
                f"got {', '.join(value) or 'nothing'}"
            )
        return value

    @field_validator("slack_positive_reactions", "slack_negative_reactions", mode="before")
    @classmethod
    def _reaction_names(cls, value: Any) -> Any:
        """`+1, :heart:` and `["+1", "heart"]` alike become `["+1", "heart"]`."""
        if isinstance(value, str):
            text = value.strip()
            value = json.loads(text) if text.startswith("[") else text.split(",")
        if isinstance(value, list):
            return [str(v).strip().strip(":") for v in value if str(v).strip().strip(":")]
        return value

    @property
    def llm_configured(self) -> bool:
        """An LLM is used when a key or a base URL (local servers often need no key) is set."""
        return self.openai_api_key is not None or self.openai_base_url is not None

    @property
    def graph_configured(self) -> bool:
        """Graph is asked (for groups) only with all three app credentials."""
        return bool(self.graph_tenant_id and self.graph_client_id and self.graph_client_secret)

    @property
    def embedded_pgdata(self) -> Path:
        return self.data_dir / "pgdata"
