"""Per-file ingest options kept beside the data: `knowbot-sources.toml` in a folder.

Rows need a key column (and may name time, group and metric columns); a folder with
several CSVs cannot get those from one command line, so each file can carry its own:

    [[source]]
    path = "claims.csv"
    kind = "rows"
    key = ["claim_id"]
    time = "month"
    group = "region"
    metrics = ["paid_amount"]
    scope = "claims"          # optional, else the command's --scope
"""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from knowledge.errors import SourceError
from knowledge.kinds import SourceKind
from knowledge.options import IngestOptions

MANIFEST_NAME = "knowbot-sources.toml"


def read_manifest(folder: Path) -> dict[Path, dict[str, Any]]:
    """Options by resolved file path, from `folder/knowbot-sources.toml` if present."""
    path = folder / MANIFEST_NAME
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SourceError(str(path), f"cannot read the manifest ({exc}); fix the TOML") from exc
    entries = data.get("source", [])
    if not isinstance(entries, list):
        raise SourceError(str(path), "expected [[source]] tables")
    out: dict[Path, dict[str, Any]] = {}
    for entry in entries:
        if not isinstance(entry, dict) or "path" not in entry:
            raise SourceError(str(path), f"every [[source]] needs a path: {entry!r}")
        out[(folder / entry["path"]).resolve()] = entry
    return out


def options_for(entry: dict[str, Any] | None, base: IngestOptions) -> IngestOptions:
    """The command's options, overridden by what the manifest says for this file."""
    if not entry:
        return base
    try:
        return replace(
            base,
            kind=SourceKind(entry.get("kind", base.kind.value)),
            scope=str(entry.get("scope", base.scope)),
            keys=tuple(_as_list(entry.get("key", list(base.keys)))),
            time=entry.get("time", base.time),
            group=entry.get("group", base.group),
            metrics=tuple(_as_list(entry.get("metrics", list(base.metrics)))),
            name=entry.get("name", base.name),
        )
    except ValueError as exc:
        raise SourceError(str(entry.get("path")), f"bad manifest entry: {exc}") from exc


def _as_list(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value]
