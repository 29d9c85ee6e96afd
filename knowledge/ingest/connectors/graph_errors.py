"""Graph's error answers: a GraphError for what the caller cannot go on from, which
refusals are throttling (waited out, not reported), and what a person should check when
Graph refuses a request.
"""

from __future__ import annotations

from typing import Any

import httpx

from knowledge.errors import SourceError
from knowledge.ingest.connectors.polite import RETRIED

THROTTLE_CODES = frozenset({"activityLimitReached", "throttledRequest", "tooManyRequests"})


class GraphError(SourceError):
    """Graph answered something the caller cannot go on from."""


def throttled(response: httpx.Response) -> bool:
    """429 and 503, and the 403s SharePoint answers when it throttles (a Retry-After, or
    an `activityLimitReached` code) — not a permission problem, so waited out."""
    if response.status_code in RETRIED:
        return True
    if response.status_code != 403:
        return False
    return "retry-after" in response.headers or _error_code(response) in THROTTLE_CODES


def graph_message(response: httpx.Response) -> str:
    code, message = _error_code(response), _error_text(response)
    return f"({code}: {message})" if code or message else ""


def _error_code(response: httpx.Response) -> str:
    return str(_error(response).get("code", ""))


def _error_text(response: httpx.Response) -> str:
    return str(_error(response).get("message", ""))[:200]


def _error(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


def advice(response: httpx.Response) -> str:
    status = response.status_code
    detail = f" {graph_message(response)}" if graph_message(response) else ""
    if status == 403:
        return (
            f"{detail} — the app may not read this: grant it Sites.Read.All (or Sites.Selected "
            "for this site) and Files.Read.All, with admin consent"
        )
    if status == 404:
        return f"{detail} — check the site URL (or user), library and folder in the sources file"
    if status in RETRIED:
        return f"{detail} — still throttled after the retries; sync again later"
    return f"{detail} — sync again later"
