"""Links from a chunk to its place in the published document: a source's `url` template
filled with the chunk's own place, e.g.

    url = "https://intranet.example.com/policies/{path}#page={page}"

Files fill `{path}` (the file's path below the ingested folder), `{page}` (PDF pages) and
`{section}` (the innermost heading); rows fill `{table}` and `{key}` (the row's key values,
joined by "/"). Values are percent-encoded. When a chunk has no value for a placeholder (a
DOCX has no pages), the query parameter or fragment holding it is left out — the link
still opens the document, at its top — and when the placeholder sits in the path itself the
chunk gets no link rather than a wrong one."""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, urlsplit

from knowledge.documents import ChunkDraft

FIELDS = ("path", "page", "section", "table", "key")
SECTION_SEPARATOR = " > "  # how chunking joins a section's headings
_FORBIDDEN = set(' \t\n<>|"\\')


class BadTemplate(ValueError):
    """A template that cannot make links; the message says what to change."""


@dataclass(frozen=True)
class UrlTemplate:
    text: str

    @classmethod
    def parse(cls, text: str) -> UrlTemplate:
        """Checked once, at ingest: a bad template fails the source with a reason, not
        every answer with a broken link."""
        try:
            parts = list(string.Formatter().parse(text))
        except ValueError as exc:
            raise BadTemplate(f"url template {text!r} has unbalanced braces ({exc})") from exc
        unknown = sorted({f for _, f, _, _ in parts if f is not None and f not in FIELDS})
        if unknown:
            known = ", ".join("{" + f + "}" for f in FIELDS)
            raise BadTemplate(
                f"url template {text!r} uses {', '.join('{' + u + '}' for u in unknown)}; "
                f"the placeholders are {known}"
            )
        if urlsplit(text).scheme not in ("http", "https") or not urlsplit(text).netloc:
            raise BadTemplate(f"url template {text!r} must start with https:// (or http://)")
        if _FORBIDDEN & set(text):
            raise BadTemplate(
                f"url template {text!r} contains a space, quote, '<', '>', '|' or backslash; "
                "percent-encode them"
            )
        return cls(text)

    def fill(self, values: Mapping[str, str]) -> str:
        """The link for one chunk; `values` holds the encoded values it has."""
        out = ""
        for literal, name, _, _ in string.Formatter().parse(self.text):
            out += literal
            if name is None:
                continue
            if not values.get(name):
                return _without_holder(out)
            out += values[name]
        return out


def link_values(metadata: Mapping[str, Any], *, path: str | None) -> dict[str, str]:
    """What a chunk can fill in, percent-encoded, from the metadata its loader gave it."""
    values: dict[str, str] = {}
    if path:
        values["path"] = quote(path, safe="/")
    if metadata.get("page") is not None:
        values["page"] = quote(str(metadata["page"]), safe="")
    section = str(metadata.get("section") or "").split(SECTION_SEPARATOR)[-1].strip()
    if section:
        values["section"] = quote(section, safe="")
    if metadata.get("table"):
        values["table"] = quote(str(metadata["table"]), safe="")
    keys = metadata.get("keys")
    if isinstance(keys, dict) and keys:
        values["key"] = "/".join(quote(str(v), safe="") for v in keys.values())
    return values


def _without_holder(built: str) -> str:
    """Cut the query parameter or fragment the missing value belonged in; no link at all
    when it belonged in the path."""
    if (fragment := built.find("#")) >= 0:
        return built[:fragment]
    if (query := built.find("?")) >= 0:
        return built[: max(query, built.rfind("&"))]
    return ""


def linked(drafts: list[ChunkDraft], template: str | None, *, path: str | None) -> list[ChunkDraft]:
    """Each draft with the link to its place (metadata "url"), when the source has a
    template. The link is part of the chunk: a changed template re-writes the chunks."""
    if not template:
        return drafts
    url = UrlTemplate.parse(template)
    out = []
    for draft in drafts:
        link = url.fill(link_values(draft.metadata, path=path))
        out.append(replace(draft, metadata={**draft.metadata, "url": link}) if link else draft)
    return out
