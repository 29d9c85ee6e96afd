"""Choosing backends from settings: each case imports its library only when chosen."""

from __future__ import annotations

from pathlib import Path

from bot.errors import KnowbotError
from bot.settings import Settings
from knowledge.ingest.connectors.confluence_space import ConfluenceAuth
from knowledge.ingest.connectors.graph_auth import GraphAccess
from knowledge.models.embeddings import LOCAL_DEFAULT, Embedder, HashingEmbedder, LocalEmbedder
from knowledge.models.llm import ChatModel, OpenAIChat, OpenAIEndpoint

HASHING_MODEL = "hashing"  # a deterministic fake for tests and demos without torch


def build_embedder(settings: Settings) -> Embedder:
    name = settings.embed_model
    if name == HASHING_MODEL:
        return HashingEmbedder(model_name=HASHING_MODEL)
    if name == LOCAL_DEFAULT or Path(name).expanduser().is_dir():
        return LocalEmbedder(
            name,
            threads=settings.embed_threads,
            runtime=settings.embed_runtime,
            cache_dir=settings.data_dir / "models",
        )
    if settings.llm_configured:
        from knowledge.models.embeddings import OpenAIEmbedder

        return OpenAIEmbedder(name, _endpoint(settings))
    raise KnowbotError(
        f"KNOWBOT_EMBED_MODEL={name!r} is not the bundled {LOCAL_DEFAULT} or a local model "
        "folder, and no OpenAI-compatible endpoint is configured (OPENAI_BASE_URL / "
        "OPENAI_API_KEY)."
    )


def build_chat_model(settings: Settings) -> ChatModel | None:
    """None means: no language model; answers are extractive."""
    if not settings.llm_configured:
        return None
    return OpenAIChat(settings.llm_model, _endpoint(settings))


def _endpoint(settings: Settings) -> OpenAIEndpoint:
    key = settings.openai_api_key
    return OpenAIEndpoint(
        api_key=key.get_secret_value() if key is not None else None,
        base_url=settings.openai_base_url,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
    )


def build_graph_access(settings: Settings) -> GraphAccess | None:
    """The app credentials SharePoint/OneDrive sources sync with; None unless all three
    are set (such a source then fails, saying which settings it needs)."""
    s = settings
    if not (s.graph_tenant_id and s.graph_client_id and s.graph_client_secret):
        return None
    return GraphAccess(
        tenant_id=s.graph_tenant_id,
        client_id=s.graph_client_id,
        client_secret=s.graph_client_secret.get_secret_value(),
        graph_url=s.graph_url,
        authority=s.graph_authority,
    )


def confluence_auth(settings: Settings) -> ConfluenceAuth:
    """What Confluence sources sign in with (none set: they fail, saying what to set)."""
    token, pat = settings.confluence_api_token, settings.confluence_pat
    return ConfluenceAuth(
        user=settings.confluence_user or "",
        api_token=token.get_secret_value() if token else "",
        pat=pat.get_secret_value() if pat else "",
    )
