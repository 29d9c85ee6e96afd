"""Reading verified answers from JSON lines: every bad line is named, and a file with any bad
line imports nothing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.conversation.verified import VerifiedSource
from bot.errors import KnowbotError

DEFAULT_SCOPE = "default"
_SCOPE = re.compile(r"^[A-Za-z0-9][\w.-]*$")


class EntryError(KnowbotError):
    """An import file with lines that are not verified answers."""


@dataclass(frozen=True)
class Entry:
    line: int
    question: str
    answer: str
    author: str
    scope: str
    sources: tuple[VerifiedSource, ...]


def read_entries(path: Path) -> list[Entry]:
    """Every entry of the file, or an EntryError naming each bad line (up to ten)."""
    if not path.is_file():
        raise EntryError(f"{path} is not a file: give a JSON-lines file of verified answers.")
    entries: list[Entry] = []
    problems: list[str] = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        try:
            entries.append(parse_entry(number, json.loads(text)))
        except (json.JSONDecodeError, ValueError) as exc:
            problems.append(f"line {number}: {_reason(exc)}")
    if problems:
        more = f"; and {len(problems) - 10} more" if len(problems) > 10 else ""
        shown = "; ".join(problems[:10]) + more
        raise EntryError(
            f"{path}: nothing imported, {len(problems)} bad line(s): {shown}. Each line is "
            '{"question": ..., "answer": ..., "author": ..., optional "scope" and "sources"}.'
        )
    if not entries:
        raise EntryError(f"{path} holds no verified answers (it is empty).")
    return entries


def parse_entry(line: int, data: Any) -> Entry:
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    missing = [k for k in ("question", "answer", "author") if not _text(data.get(k))]
    if missing:
        raise ValueError(f"no {' and no '.join(missing)}")
    scope = _text(data.get("scope")) or DEFAULT_SCOPE
    if not _SCOPE.match(scope):
        raise ValueError(f"scope {scope!r} is not a scope name (letters, digits, _ - .)")
    raw = data.get("sources") or []
    if not isinstance(raw, list):
        raise ValueError('"sources" must be a list')
    return Entry(
        line=line,
        question=_text(data["question"]),
        answer=_text(data["answer"]),
        author=_text(data["author"]),
        scope=scope,
        sources=tuple(VerifiedSource.from_json(s) for s in raw),
    )


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc.msg})"
    return str(exc)
