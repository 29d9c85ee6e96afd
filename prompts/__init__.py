"""Versioned prompt files: `prompts/<name>/vN.md`. A released version is never edited in
place; a change is a new file. Which version is live is configuration, and every answer
records the name@version that produced it.

A file holds a system part and a user part separated by a line `---user---`; `{{name}}`
placeholders are filled at render time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

SPLIT = "---user---"
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    system: str
    user: str

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"

    def render(self, **values: str) -> tuple[str, str]:
        """(system, user) with placeholders filled; a missing value is an error, not blank."""

        def fill(match: re.Match[str]) -> str:
            key = match.group(1)
            if key not in values:
                raise KeyError(f"prompt {self.label} needs a value for {{{{{key}}}}}")
            return values[key]

        return _PLACEHOLDER.sub(fill, self.system), _PLACEHOLDER.sub(fill, self.user)


def versions(name: str) -> list[str]:
    folder = resources.files(__name__) / name
    found = [p.name[:-3] for p in folder.iterdir() if re.fullmatch(r"v\d+\.md", p.name)]
    return sorted(found, key=lambda v: int(v[1:]))


def load(name: str, version: str | None = None) -> Prompt:
    """Load `name` at `version` (default: the newest file)."""
    available = versions(name)
    if not available:
        raise FileNotFoundError(f"no prompt files for {name!r} under prompts/{name}/")
    chosen = version or available[-1]
    if chosen not in available:
        raise FileNotFoundError(
            f"prompt {name}@{chosen} does not exist; available: {', '.join(available)}"
        )
    text = (resources.files(__name__) / name / f"{chosen}.md").read_text(encoding="utf-8")
    system, _, user = text.partition(SPLIT)
    return Prompt(name=name, version=chosen, system=system.strip(), user=user.strip())
