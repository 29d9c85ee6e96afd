"""Where a cited source can be opened: the URL ingest stored with its chunk (built from the
source's `url` template in knowbot-sources.toml), or none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.conversation.types import Source
from knowledge.search.retrieved import Retrieved


def with_links(sources: Sequence[Source], chunks: Sequence[Retrieved]) -> list[Source]:
    urls = {c.node_id: str(c.metadata.get("url") or "") for c in chunks}
    return [replace(s, url=urls[s.chunk_id]) if urls.get(s.chunk_id) else s for s in sources]
