"""Which drive a SharePoint or OneDrive source means: a site's library (its default one
unless named) or a person's OneDrive, optionally below one folder; checked when the
sources file is read, so a URL that points inside a site says what to write instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

SITE_EXAMPLE = "https://TENANT.sharepoint.com/sites/NAME"


@dataclass(frozen=True)
class GraphDrive:
    """Which drive: a SharePoint site's library (its default one unless named) or a
    person's OneDrive, optionally only below one folder."""

    site: str | None = None
    user: str | None = None
    library: str | None = None
    folder: str | None = None
    concurrency: int = 4

    def __post_init__(self) -> None:
        if bool(self.site) == bool(self.user):
            raise ValueError(
                f'a sharepoint source needs either site = "{SITE_EXAMPLE}" or '
                'user = "someone@example.com" (a OneDrive), not both'
            )
        if self.site:
            site_path(self.site)  # raises on a URL that is not a site
        if self.user and ("@" not in self.user or "/" in self.user):
            raise ValueError(f"user = {self.user!r} is not an e-mail address (UPN)")
        if self.user and self.library:
            raise ValueError("a OneDrive has one library: drop library = … for user = …")

    @property
    def key(self) -> str:
        what = f"sharepoint:{self.site}" if self.site else f"onedrive:{self.user}"
        extra = [f"library={self.library}"] if self.library else []
        extra += [f"folder={self.folder_path}"] if self.folder_path else []
        return " ".join([what, *extra])

    @property
    def folder_path(self) -> str:
        """The folder as '/A/B' below the drive's root; '' for the whole drive."""
        return "/" + (self.folder or "").strip("/") if (self.folder or "").strip("/") else ""


def site_path(site: str) -> tuple[str, str]:
    """(host, server-relative path) of a site URL; ValueError saying what to write."""
    parts = urlsplit(site)
    segments = [s for s in parts.path.split("/") if s]
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"site = {site!r} is not a site URL such as {SITE_EXAMPLE}")
    if segments and (segments[0].lower() not in ("sites", "teams") or len(segments) < 2):
        raise ValueError(f"site = {site!r} is not a site URL such as {SITE_EXAMPLE}")
    if len(segments) > 2 or parts.query or parts.fragment:
        inside = "/".join(unquote(s) for s in segments[2:]) or parts.query or parts.fragment
        raise ValueError(
            f"site = {site!r} points inside a site ({inside}); give the site itself "
            f'({SITE_EXAMPLE}) and name a library with library = "…" and a folder with '
            'folder = "…"'
        )
    return parts.hostname, "/" + "/".join(quote(unquote(s)) for s in segments)
