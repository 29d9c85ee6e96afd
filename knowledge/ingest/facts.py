"""Sentences derived from rows in code: ranks, averages, counts, trends and anomalies.

A model asked "which region grew most last quarter?" over raw rows does arithmetic and
gets it wrong; these FACT chunks carry the answer already computed, with the numbers it
rests on, so retrieval can hand the model a sentence to quote instead of a sum to do.

Choices, so that answers stay honest:
- When a group (or the whole table) has several rows in a period, its value is the
  average of those rows and the sentence says "average" (a total of rates means nothing).
- A row whose time cell is empty cannot be placed in a period and is left out of facts.
- Anomalies need at least 5 values, a robust z-score above 3.5 (median and MAD) and a
  place beyond 3 IQR from the quartiles, with a floor on the spread so near-constant
  series do not flag tiny moves. "anomaly" compares a value with its own history,
  "outlier" with its peers in the same period.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from knowledge.documents import ChunkDraft
from knowledge.errors import SourceError
from knowledge.ingest.fact_parts import (
    Metric,
    Point,
    TableContext,
    and_list,
    by_group,
    entity_columns_of,
    group_id,
    human,
    plural,
    scope_of,
    where_phrase,
)
from knowledge.ingest.fact_series import outlier_facts, series_facts
from knowledge.ingest.quantities import Unit, parse_number, sort_periods
from knowledge.reading.loaders.rows import RowsSpec, cell_text, check_columns, row_key

_COUNTS_SHOWN = 25


def derive_facts(
    rows: Sequence[Mapping[str, Any]], spec: RowsSpec, *, table: str, as_of: str
) -> list[ChunkDraft]:
    """FACT chunks for the rows: counts, then per metric ranks, averages, trends, anomalies.

    Output order and keys are deterministic, so re-ingesting unchanged rows changes nothing.
    """
    if not rows:
        return []
    check_columns(rows, spec, table=table)
    ctx = TableContext(table, spec, as_of)
    placed = [r for r in rows if not spec.time or cell_text(r[spec.time])]
    periods: list[str | None] = list(sort_periods(_periods(placed, spec))) or [None]
    facts = [_count_fact(ctx, placed, periods)]
    for column in spec.metrics:
        metric, points = _metric_points(ctx, placed, column)
        by_period: defaultdict[str | None, list[Point]] = defaultdict(list)
        for point in points:
            by_period[point.period].append(point)
        for period in periods:
            facts += _feature_facts(ctx, metric, by_period[period], period)
            facts += outlier_facts(ctx, metric, by_period[period], period)
        if spec.time:
            facts += series_facts(ctx, metric, points, periods)
    return facts


def _periods(rows: Sequence[Mapping[str, Any]], spec: RowsSpec) -> list[str]:
    if not spec.time:
        return []
    return list(dict.fromkeys(cell_text(r[spec.time]) for r in rows))


# --- points -----------------------------------------------------------------------------


def _metric_points(
    ctx: TableContext, rows: Sequence[Mapping[str, Any]], column: str
) -> tuple[Metric, list[Point]]:
    spec = ctx.spec
    entity_columns = entity_columns_of(spec)
    points: list[Point] = []
    for row in rows:
        value = parse_number(row[column])
        if value is None:
            continue
        points.append(
            Point(
                key=row_key(row, spec),
                entity=", ".join(f"{human(c)} {cell_text(row[c])}" for c in entity_columns),
                entity_id="|".join(f"{c}={cell_text(row[c])}" for c in entity_columns) or "all",
                group=cell_text(row[spec.group]) if spec.group else None,
                period=cell_text(row[spec.time]) if spec.time else None,
                value=value,
            )
        )
    if not points:
        sample = next((cell_text(r[column]) for r in rows if cell_text(r[column])), "")
        raise SourceError(
            f"table {ctx.table}",
            f"metric column {column!r} has no numeric values (e.g. {sample!r}); "
            "list only numeric columns as metrics",
        )
    unit = Unit.detect(row[column] for row in rows)
    return Metric(column, human(column), unit), points


# --- counts -----------------------------------------------------------------------------


def _count_fact(
    ctx: TableContext, rows: Sequence[Mapping[str, Any]], periods: list[str | None]
) -> ChunkDraft:
    spec = ctx.spec
    text = "there is 1 row" if len(rows) == 1 else f"there are {len(rows)} rows"
    if spec.time and periods != [None]:
        text += f" covering {len(periods)} periods from {periods[0]} to {periods[-1]}"
    if spec.group:
        counts: defaultdict[str, int] = defaultdict(int)
        for row in rows:
            counts[cell_text(row[spec.group])] += 1
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        shown = ", ".join(f"{g} {n}" for g, n in ranked[:_COUNTS_SHOWN])
        rest = len(ranked) - _COUNTS_SHOWN
        text += f"; by {human(spec.group)}: {shown}" + (f" and {rest} more" if rest > 0 else "")
    return ctx.fact([], text + ".", fact_type="count")


# --- ranks and averages -----------------------------------------------------------------


def _feature_facts(
    ctx: TableContext, metric: Metric, points: list[Point], period: str | None
) -> list[ChunkDraft]:
    """Highest, lowest and average for one period: across groups, rows and within groups."""
    if not points:
        return []
    groups = by_group(points)
    if ctx.spec.group and all(len(members) == 1 for members in groups.values()):
        noun = human(ctx.spec.group)
        items = [(str(g), members[0].value) for g, members in groups.items()]
        ranks = _extremes(ctx, metric, items, noun=noun, period=period)
        return [*ranks, *_average(ctx, metric, items, plural(noun), period=period)]
    facts: list[ChunkDraft] = []
    if ctx.spec.group and len(groups) > 1:
        means = [(str(g), statistics.fmean(p.value for p in ms)) for g, ms in groups.items()]
        noun = human(ctx.spec.group)
        facts += _extremes(ctx, metric, means, noun=noun, period=period, average=True)
    facts += _row_facts(ctx, metric, points, period, group=None)
    if ctx.spec.group:
        for group, members in groups.items():
            if len(members) > 1:
                facts += _row_facts(ctx, metric, members, period, group=group)
    return facts


def _row_facts(
    ctx: TableContext, metric: Metric, points: list[Point], period: str | None, *, group: str | None
) -> list[ChunkDraft]:
    labelled = ctx.spec.group and group is None
    items = [
        (f"{p.entity} in {scope_of(ctx.spec, p.group)}" if labelled else p.entity, p.value)
        for p in points
    ]
    facts = _extremes(ctx, metric, items, noun="row", period=period, group=group)
    return [*facts, *_average(ctx, metric, items, "rows", period=period, group=group)]


def _extremes(
    ctx: TableContext,
    metric: Metric,
    items: list[tuple[str, float]],
    *,
    noun: str,
    period: str | None,
    group: str | None = None,
    average: bool = False,
) -> list[ChunkDraft]:
    if len(items) < 2:
        return []
    what = f"average {metric.name}" if average else metric.name
    where = where_phrase(ctx.spec, group, period)
    facts = []
    if len({v for _, v in items}) == 1:
        text = f"all {len(items)} {plural(noun)} have the same {what}{where} "
        text += f"({metric.unit.show(items[0][1])})."
        key = [metric.column, period, group_id(ctx.spec, group)]
        fact_type = "same_average" if average else "same"
        return [ctx.fact(key, text, fact_type=fact_type, metric=metric, group=group, period=period)]
    for highest in (True, False):
        word = "highest" if highest else "lowest"
        ordered = sorted(items, key=lambda it: ((-it[1] if highest else it[1]), it[0]))
        tied = [label for label, value in ordered if value == ordered[0][1]]
        show = metric.unit.show
        if len(tied) > 1:
            text = (
                f"the {word} {what}{where} ({show(ordered[0][1])}) is shared by {and_list(tied)}."
            )
        else:
            (first, v1), (second, v2) = ordered[0], ordered[1]
            text = f"the {noun} with the {word} {what}{where} is {first} ({show(v1)})"
            text += f", followed by {second} ({show(v2)})."
        fact_type = ("max" if highest else "min") + ("_average" if average else "")
        key = [metric.column, period, group_id(ctx.spec, group)]
        facts.append(
            ctx.fact(key, text, fact_type=fact_type, metric=metric, group=group, period=period)
        )
    return facts


def _average(
    ctx: TableContext,
    metric: Metric,
    items: list[tuple[str, float]],
    things: str,
    *,
    period: str | None,
    group: str | None = None,
) -> list[ChunkDraft]:
    if len(items) < 2:
        return []
    values = [v for _, v in items]
    show = metric.unit.show
    text = f"the average {metric.name}{where_phrase(ctx.spec, group, period)} is "
    text += f"{show(statistics.fmean(values))} across {len(values)} {things} ("
    text += "" if metric.unit.suffix == "%" else f"total {show(sum(values))}; "
    text += f"lowest {show(min(values))}, highest {show(max(values))})."
    key = [metric.column, period, group_id(ctx.spec, group)]
    return [ctx.fact(key, text, fact_type="average", metric=metric, group=group, period=period)]


# --- trends -----------------------------------------------------------------------------


# --- anomalies --------------------------------------------------------------------------


# --- numbers and periods ----------------------------------------------------------------
