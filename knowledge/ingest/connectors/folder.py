"""A local file or folder as a source: the files knowbot reads below it, with the
per-file options of its `knowbot-sources.toml`. Each file's version is its modification
time and size; its link is its path below the folder (filled into a `url` template)."""

from __future__ import annotations

import mimetypes
from pathlib import Path

from knowledge.ingest.connectors.base import Changes, Fetched, FetchFailed, Item, NotModified
from knowledge.ingest.kinds import known_suffixes
from knowledge.ingest.manifest import Manifest, read_manifest


class FolderConnector:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.folder = path if path.is_dir() else path.parent
        self._paths: dict[str, Path] = {}  # item id (the resolved path) -> the path as found

    @property
    def key(self) -> str:
        return f"folder:{self.path.resolve()}"

    @property
    def concurrency(self) -> int:
        return 1

    @property
    def exists(self) -> bool:
        return self.path.is_dir() or self.path.is_file()

    def files(self) -> list[Path]:
        if self.path.is_dir():
            known = known_suffixes()
            return sorted(
                p
                for p in self.path.rglob("*")
                if p.is_file() and p.suffix.lower() in known and not p.name.startswith(".")
            )
        return [self.path] if self.path.is_file() else []

    def manifest(self) -> Manifest:
        """Raises SourceError when the folder's manifest cannot be read."""
        return read_manifest(self.folder)

    def list_items(self) -> list[Item]:
        return [self._item(file) for file in self.files()]

    def path_of(self, item: Item) -> Path:
        return self._paths.get(item.id, Path(item.id))

    def content(self, item: Item) -> bytes:
        fetched = self.fetch(item, None)
        assert isinstance(fetched, Fetched)  # nothing is known, so nothing is "not modified"
        return fetched.content

    def changes(self, cursor: str | None) -> Changes | None:
        return None

    def fetch(self, item: Item, known: str | None) -> Fetched | NotModified:
        path = self.path_of(item)
        try:
            version = _version(path)
            if known is not None and known == version:
                return NotModified(known)
            return Fetched(path.read_bytes(), item.media_type, version, item.title)
        except OSError as exc:
            raise FetchFailed(item.id, f"cannot read the file ({exc.strerror})") from exc

    def _item(self, file: Path) -> Item:
        self._paths[str(file.resolve())] = file
        media_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        return Item(
            id=str(file.resolve()),
            version=_version(file),
            link=file.relative_to(self.folder).as_posix(),
            title=file.name,
            media_type=media_type,
        )


def _version(path: Path) -> str:
    stat = path.stat()
    return f"{stat.st_mtime_ns}:{stat.st_size}"
