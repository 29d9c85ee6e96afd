"""Who may read what: access lists on indexed items and the principals of whoever is asking.

An item's access list names who may read it: e-mail addresses or user principal names,
Microsoft Entra object ids, groups as "group:<id or name>", or EVERYONE (the whole
organisation). A reader is the set of such names a person answers to: their identities,
their groups and EVERYONE. A reader sees an item when the two sets share a name. Names are
compared without regard to case (e-mail addresses and object ids are case-insensitive).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

EVERYONE = "everyone"  # an access list entry: open to the whole organisation
GROUP_PREFIX = "group:"


def normalised(entries: Iterable[str]) -> tuple[str, ...]:
    """Entries as stored and compared: trimmed, lower-cased, each once, in order."""
    return tuple(dict.fromkeys(e.strip().lower() for e in entries if e and e.strip()))


@dataclass(frozen=True)
class Reader:
    """Whom an answer is for. `principals` None: no restriction at all (the operator at
    the console, evaluations); else the names whose items may be shown."""

    principals: frozenset[str] | None
    label: str = ""  # who, for logs and `ask --as`

    @classmethod
    def public(cls) -> Reader:
        """Anyone in the organisation: what a channel or group chat may be shown."""
        return cls(frozenset({EVERYONE}), label=EVERYONE)

    @classmethod
    def unrestricted(cls) -> Reader:
        return cls(None, label="unrestricted")

    @classmethod
    def person(cls, identities: Iterable[str], groups: Iterable[str] = ()) -> Reader:
        """A person known by `identities` (e-mail, object id) in `groups` (group ids or
        names, with or without the "group:" prefix)."""
        names = normalised(identities)
        grouped = normalised(_as_group(g) for g in groups)
        return cls(frozenset({EVERYONE, *names, *grouped}), label=names[0] if names else "")

    @property
    def restricted(self) -> bool:
        return self.principals is not None

    def filter(self) -> list[str] | None:
        """The principals a SQL filter matches on (sorted: one statement per reader), or
        None when nothing is filtered."""
        return None if self.principals is None else sorted(self.principals)

    def may_read(self, access: Iterable[str]) -> bool:
        if self.principals is None:
            return True
        return not self.principals.isdisjoint(normalised(access))


def _as_group(name: str) -> str:
    return name if name.lower().startswith(GROUP_PREFIX) else GROUP_PREFIX + name
