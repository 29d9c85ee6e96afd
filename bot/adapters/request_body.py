"""Reading a request body nobody vouches for: JSON no deeper than a platform ever sends, an
object where an object is due, and strings Postgres and chat clients accept.

Python's json module recurses once per level, so a body of 20,000 nested lists raises
RecursionError (not ValueError) there or in whatever walks the result later. The depth is
therefore measured on the raw text first, with the string literals taken out, before any
parser sees it."""

from __future__ import annotations

import json
import re
from typing import Any

from bot.conversation.input import storable

# Slack's deepest payloads (rich text in a message shortcut) and Teams' adaptive cards stay
# well under 30 levels.
MAX_DEPTH = 64
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


class BadBody(ValueError):
    """What was wrong with a request body, in words for the log and the 400 response."""


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """True when JSON `text` nests arrays/objects more than `limit` levels deep."""
    depth = 0
    for bracket in _BRACKETS.findall(_STRING.sub('""', text)):
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def load_json(text: str, *, what: str = "the body") -> Any:
    """Parse JSON within the depth limit; BadBody says why not."""
    if too_deep(text):
        raise BadBody(f"{what} nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BadBody(f"{what} is not valid JSON: {exc}") from None


def load_object(text: str, *, what: str = "the body") -> dict[str, Any]:
    """A JSON object (not a list, string or number), its strings made storable."""
    value = load_json(text, what=what)
    if not isinstance(value, dict):
        raise BadBody(f"{what} must be a JSON object, not {type(value).__name__}")
    cleaned: dict[str, Any] = storable_json(value)
    return cleaned


def storable_json(value: Any) -> Any:
    """Every string in a parsed JSON value (keys too) made storable (see `storable`)."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {storable(str(k)): storable_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [storable_json(v) for v in value]
    return value


# What a parsed body must look like where the code reads it: a type (or tuple of types), an
# object spec {key: spec}, or a list spec [spec] (every item). A missing or null field always
# passes; fields not named are not looked at.
Spec = type | tuple[type, ...] | dict[str, Any] | list[Any]
_LIST_ITEMS_CHECKED = 20


def shape_problem(value: Any, spec: Spec, where: str = "body") -> str | None:
    """None when `value` fits `spec`; else which field is of the wrong kind."""
    if value is None:
        return None
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            return f"{where} must be an object, not {_kind(value)}"
        for key, inner in spec.items():
            found = shape_problem(value.get(key), inner, f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(spec, list):
        if not isinstance(value, list):
            return f"{where} must be a list, not {_kind(value)}"
        for index, item in enumerate(value[:_LIST_ITEMS_CHECKED]):
            found = shape_problem(item, spec[0], f"{where}[{index}]")
            if found:
                return found
        return None
    if not isinstance(value, spec):
        return f"{where} must not be {_kind(value)}"
    return None


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a string" if isinstance(value, str) else type(value).__name__
