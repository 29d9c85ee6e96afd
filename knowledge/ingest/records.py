"""Chunk drafts as the rows the store writes: stable node ids, the hashes that tell a
changed chunk or source from an unchanged one, and the text that is embedded."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from knowledge.documents import ChunkDraft
from knowledge.ingest.embedding_text import RECIPE, embed_text
from knowledge.ingest.injection import addresses_assistant
from knowledge.ingest.kinds import SourceKind
from knowledge.ingest.options import IngestOptions

NODE_NAMESPACE = uuid.UUID("0d9a3c2e-6b1f-4a53-9a53-6b6e6f77626f")


@dataclass(frozen=True)
class Pending:
    node_id: str
    text: str
    embed_text: str
    metadata: dict[str, Any]


def pending_records(
    drafts: Iterable[ChunkDraft], *, scope: str, source_id: int, uri: str
) -> list[Pending]:
    out: dict[str, Pending] = {}
    for draft in drafts:
        chunk_hash = _chunk_hash(draft)
        node_id = str(uuid.uuid5(NODE_NAMESPACE, f"{scope}|{uri}|{draft.key}|{chunk_hash}"))
        metadata = {
            **draft.metadata,
            "scope": scope,
            "source_id": source_id,
            "source_uri": uri,
            "kind": draft.kind.value,
            "title": draft.title,
            "location": draft.location,
            "key": draft.key,
            "hash": chunk_hash,
        }
        if addresses_assistant(draft.text):
            metadata["instruction_like"] = True
        out[node_id] = Pending(node_id, draft.text, embed_text(draft), metadata)
    return list(out.values())


def _chunk_hash(draft: ChunkDraft) -> str:
    """The chunk as stored and, where it differs, as embedded: a change to either makes
    it a new chunk (and only such chunks are embedded again)."""
    fields: list[object] = [draft.kind.value, draft.text, draft.title, draft.location]
    fields.append(draft.metadata)
    embedded = embed_text(draft)
    if embedded != draft.text:
        fields.append(embedded)
    payload = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def source_hash(content: bytes, kind: SourceKind, options: IngestOptions) -> str:
    digest = hashlib.sha256(content)
    recipe = [kind.value, options.as_json(), RECIPE]  # a new recipe reads every source again
    digest.update(json.dumps(recipe, sort_keys=True).encode())
    return digest.hexdigest()
