"""What every fact of one table shares: its points, metrics and context, and the words
that place a fact ("in region North", "policies")."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.ingest.quantities import Unit
from knowledge.reading.loaders.rows import RowsSpec


@dataclass(frozen=True)
class Point:
    key: str  # the row's chunk key
    entity: str  # "policy number 0000-0001": the keys without the time column
    entity_id: str  # "policy_number=0000-0001"
    group: str | None
    period: str | None
    value: float


@dataclass(frozen=True)
class Metric:
    column: str
    name: str  # "net income" for net_income
    unit: Unit


@dataclass(frozen=True)
class TableContext:
    """What every fact of one table shares; builds the chunks so keys stay uniform."""

    table: str
    spec: RowsSpec
    as_of: str

    def fact(
        self,
        key_parts: Iterable[str | None],
        text: str,
        *,
        fact_type: str,
        metric: Metric | None = None,
        group: str | None = None,
        period: str | None = None,
        entity: str | None = None,
    ) -> ChunkDraft:
        place = [metric.name if metric else "row counts", scope_of(self.spec, group), period]
        metadata: dict[str, Any] = {
            "table": self.table,
            "metric": metric.column if metric else None,
            "group": group,
            "period": period,
            "fact_type": fact_type,
            "as_of": period or self.as_of,
        }
        if entity:
            metadata["entity"] = entity
        return ChunkDraft(
            key=":".join(["fact", fact_type, *(p for p in key_parts if p)]),
            kind=ChunkKind.FACT,
            text=f"In table {self.table}, {text}",
            title=f"table {self.table}",
            location=", ".join(p for p in place if p) + " (computed from rows)",
            metadata=metadata,
        )


def scope_of(spec: RowsSpec, group: str | None) -> str:
    return f"{human(spec.group)} {group}" if spec.group and group is not None else ""


def human(column: str) -> str:
    return column.replace("_", " ").strip()


def plural(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def where_phrase(spec: RowsSpec, group: str | None, period: str | None) -> str:
    scope = scope_of(spec, group)
    return (f" for {scope}" if scope else "") + (f" in {period}" if period else "")


def by_group(points: Iterable[Point]) -> dict[str | None, list[Point]]:
    groups: defaultdict[str | None, list[Point]] = defaultdict(list)
    for point in points:
        groups[point.group].append(point)
    return dict(sorted(groups.items(), key=lambda item: str(item[0])))


def group_id(spec: RowsSpec, group: str | None) -> str | None:
    return f"{spec.group}={group}" if spec.group and group is not None else None


def and_list(names: list[str]) -> str:
    shown = names[:5] + ([f"{len(names) - 5} more"] if len(names) > 5 else [])
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def entity_columns_of(spec: RowsSpec) -> list[str]:
    """The key columns that name a thing rather than a period."""
    return [c for c in spec.keys if c != spec.time]
