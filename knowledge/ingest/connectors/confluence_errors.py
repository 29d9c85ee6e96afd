"""What to tell a person when Confluence refuses a request: which credentials or token
scopes to check, for Cloud or Data Center, or that it was still throttled.
"""

from __future__ import annotations

import httpx


def refused(response: httpx.Response, what: str, *, cloud: bool) -> str:
    """What Confluence refused and what to do about it, for a person to read."""
    status = response.status_code
    if status == 401:
        fix = (
            "check CONFLUENCE_USER (the account's e-mail) and CONFLUENCE_API_TOKEN (tokens "
            "expire: create a new one at id.atlassian.com)"
            if cloud
            else "check CONFLUENCE_PAT (a personal access token that has not expired)"
        )
        return f"Confluence refused the credentials (HTTP 401) for {what} — {fix}"
    if status == 403:
        return (
            f"Confluence forbade {what} (HTTP 403) — the API user must be able to view the "
            "space, and a scoped token needs read:confluence-content.all, "
            "read:confluence-space.summary, read:confluence-props and search:confluence (or "
            "the granular read:page:confluence, read:attachment:confluence, "
            "read:space:confluence, read:space.permission:confluence, "
            "read:content.restriction:confluence)"
        )
    if status == 404:
        return (
            f"{what} was not found (HTTP 404) — check base_url (Cloud: "
            "https://SITE.atlassian.net/wiki) and the space key"
        )
    if status == 400:
        return f"Confluence refused the query (HTTP 400: {_message(response)}) — check cql"
    if status in (429, 503):
        return f"{what} was still throttled (HTTP {status}) after retries — sync again later"
    return f"{what} answered HTTP {status} — check that Confluence is up, then sync again"


def _message(response: httpx.Response) -> str:
    try:
        return str(response.json().get("message") or response.text[:200])
    except ValueError:
        return response.text[:200]
