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
    url = "https://intranet.example.com/data/{table}/{key}"   # optional link to each row
    owners = ["U0123ABCD", "teams:<AAD object id>", "someone@example.com"]   # optional

A top-level `url` (before the first [[source]]) is the link template for every file in the
folder that has none of its own; see knowledge.ingest.source_links for the placeholders.
A top-level `owners` likewise names the owners of every file without its own (see
knowledge.ingest.owners); an owner id of no known form fails the whole manifest.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from knowledge.errors import SourceError
from knowledge.ingest.kinds import SourceKind
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.owners import parse_owners
from knowledge.ingest.source_links import BadTemplate, UrlTemplate

MANIFEST_NAME = "knowbot-sources.toml"


@dataclass(frozen=True)
class Manifest:
    entries: dict[Path, dict[str, Any]] = field(default_factory=dict)  # by resolved path
    url: str | None = None  # the folder's link template, for files without their own
    owners: tuple[str, ...] = ()  # the folder's owners, for files without their own

    def entry(self, file: Path) -> dict[str, Any] | None:
        found = self.entries.get(file.resolve())
        folder: dict[str, Any] = {"url": self.url} if self.url is not None else {}
        if self.owners:
            folder["owners"] = list(self.owners)
        return {**folder, **(found or {})} if folder else found


def read_manifest(folder: Path) -> Manifest:
    """Options by file, from `folder/knowbot-sources.toml` if present."""
    path = folder / MANIFEST_NAME
    if not path.is_file():
        return Manifest()
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
        _check_owners(path, entry.get("owners", []))
        out[(folder / entry["path"]).resolve()] = entry
    url = data.get("url")
    if url is not None:
        try:
            UrlTemplate.parse(str(url))
        except BadTemplate as exc:
            raise SourceError(str(path), str(exc)) from exc
    owners = _check_owners(path, data.get("owners", []))
    return Manifest(out, str(url) if url is not None else None, owners)


def _check_owners(path: Path, value: Any) -> tuple[str, ...]:
    try:
        return parse_owners(value)
    except ValueError as exc:
        raise SourceError(str(path), str(exc)) from exc


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
            url=str(entry["url"]) if "url" in entry else base.url,
            owners=parse_owners(entry.get("owners", list(base.owners))),
        )
    except ValueError as exc:
        raise SourceError(str(entry.get("path")), f"bad manifest entry: {exc}") from exc


def _as_list(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value]
