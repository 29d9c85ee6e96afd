"""Facts over time and among peers: trends, directions, peaks, anomalies (a value against
its own history) and outliers (against its peers in the same period)."""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from knowledge.documents import ChunkDraft
from knowledge.ingest.fact_parts import (
    Metric,
    Point,
    TableContext,
    by_group,
    entity_columns_of,
    group_id,
    human,
    plural,
    scope_of,
)
from knowledge.ingest.quantities import Unit
from knowledge.reading.loaders.rows import RowsSpec

_MIN_ANOMALY_VALUES = 5


_Z_LIMIT = 3.5


_FENCE = 3.0  # IQRs beyond the quartiles: Tukey's "far out"


_MIN_SPREAD = 0.02  # of the median: the smallest spread a series is assumed to have


@dataclass(frozen=True)
class _Series:
    id: str  # "region=North", "all"
    subject: str  # "the average revenue for region North"
    group: str | None
    entity: str | None
    values: dict[str, float]  # period -> value, in period order


def series_facts(
    ctx: TableContext, metric: Metric, points: list[Point], periods: list[str | None]
) -> list[ChunkDraft]:
    facts: list[ChunkDraft] = []
    for series in _series(ctx.spec, metric, points, periods):
        if len(series.values) >= 2:
            facts.append(_trend(ctx, metric, series))
        if len(series.values) >= 3:
            facts += [_direction(ctx, metric, series), _peak(ctx, metric, series)]
        facts += _anomalies(ctx, metric, series)
    return facts


def _series(
    spec: RowsSpec, metric: Metric, points: list[Point], periods: list[str | None]
) -> list[_Series]:
    """Each entity over time, each group's average over time, and the overall average."""
    entities: defaultdict[str, list[Point]] = defaultdict(list)
    for point in points:
        entities[point.entity_id].append(point)
    found = []
    for entity_id, members in sorted(entities.items()):
        entity = members[0].entity
        subject = f"{metric.name} for {entity}" if entity else metric.name
        values = _ordered({p.period: p.value for p in members}, periods)
        found.append(_Series(entity_id, subject, members[0].group, entity or None, values))
    entity_columns = entity_columns_of(spec)
    if spec.group and entity_columns != [spec.group]:
        for group, members in by_group(points).items():
            subject = f"the average {metric.name} for {scope_of(spec, group)}"
            values = _ordered(_period_means(members), periods)
            found.append(_Series(str(group_id(spec, group)), subject, group, None, values))
    if len(entities) > 1:
        noun = human(entity_columns[0]) if len(entity_columns) == 1 else "row"
        subject = f"the average {metric.name} across all {plural(noun)}"
        found.append(_Series("all", subject, None, None, _ordered(_period_means(points), periods)))
    return found


def _period_means(points: Iterable[Point]) -> dict[str | None, float]:
    by_period: defaultdict[str | None, list[float]] = defaultdict(list)
    for point in points:
        by_period[point.period].append(point.value)
    return {period: statistics.fmean(values) for period, values in by_period.items()}


def _ordered(values: Mapping[str | None, float], periods: list[str | None]) -> dict[str, float]:
    return {p: values[p] for p in periods if p is not None and p in values}


def _series_fact(
    ctx: TableContext, metric: Metric, series: _Series, text: str, *, fact_type: str, period: str
) -> ChunkDraft:
    key = [metric.column, series.id] + ([period] if fact_type == "anomaly" else [])
    return ctx.fact(
        key,
        text,
        fact_type=fact_type,
        metric=metric,
        group=series.group,
        period=period,
        entity=series.entity,
    )


def _trend(ctx: TableContext, metric: Metric, series: _Series) -> ChunkDraft:
    """The latest change: what "did revenue go up last quarter?" needs."""
    (p0, v0), (p1, v1) = list(series.values.items())[-2:]
    show = metric.unit.show
    if v1 == v0:
        text = f"{series.subject} was unchanged at {show(v1)} in {p0} and {p1}."
    else:
        verb = "increased" if v1 > v0 else "decreased"
        text = f"{series.subject} {verb} from {show(v0)} in {p0} to {show(v1)} in {p1} "
        text += f"({metric.unit.change(v0, v1)})."
    return _series_fact(ctx, metric, series, text, fact_type="trend", period=p1)


def _direction(ctx: TableContext, metric: Metric, series: _Series) -> ChunkDraft:
    """The longer run: how often it rose or fell, and where it ended up."""
    periods, values = list(series.values), list(series.values.values())
    steps = [b - a for a, b in itertools.pairwise(values)]
    rises, falls = sum(s > 0 for s in steps), sum(s < 0 for s in steps)
    if rises == falls == 0:
        shape = "flat"
    elif rises > falls and values[-1] > values[0]:
        shape = "rising"
    elif falls > rises and values[-1] < values[0]:
        shape = "falling"
    else:
        shape = "mixed"
    text = (
        f"over the {len(values)} periods from {periods[0]} to {periods[-1]}, {series.subject} "
        f"{_moves(rises, falls, len(steps))}, "
        f"going from {metric.unit.show(values[0])} to {metric.unit.show(values[-1])} "
        f"({metric.unit.change(values[0], values[-1])}): a {shape} trend."
    )
    return _series_fact(ctx, metric, series, text, fact_type="direction", period=periods[-1])


def _moves(rises: int, falls: int, steps: int) -> str:
    if rises == steps:
        return f"rose in all {steps} period-to-period changes"
    if falls == steps:
        return f"fell in all {steps} period-to-period changes"
    return f"rose in {rises} of the {steps} period-to-period changes and fell in {falls}"


def _peak(ctx: TableContext, metric: Metric, series: _Series) -> ChunkDraft:
    """Best and worst period: what "which quarter was best for North?" needs."""
    items = list(series.values.items())
    high = min(items, key=lambda item: -item[1])
    low = min(items, key=lambda item: item[1])
    show = metric.unit.show
    text = (
        f"from {items[0][0]} to {items[-1][0]}, {series.subject} was highest in {high[0]} "
        f"({show(high[1])}) and lowest in {low[0]} ({show(low[1])})."
    )
    return _series_fact(ctx, metric, series, text, fact_type="peak", period=items[-1][0])


def _anomalies(ctx: TableContext, metric: Metric, series: _Series) -> list[ChunkDraft]:
    """Values far from the rest of their own series: a spike or a drop in one period."""
    periods = list(series.values)
    facts = []
    for index, usual in _unusual(list(series.values.values())):
        period, value = periods[index], series.values[periods[index]]
        text = f"{series.subject} in {period} was {metric.unit.show(value)}, "
        text += _far(value, usual, metric.unit, among="periods") + "."
        facts.append(_series_fact(ctx, metric, series, text, fact_type="anomaly", period=period))
    return facts


def outlier_facts(
    ctx: TableContext, metric: Metric, points: list[Point], period: str | None
) -> list[ChunkDraft]:
    """Rows far from the other rows of their group in the same period."""
    facts = []
    for group, members in by_group(points).items():
        for index, usual in _unusual([p.value for p in members]):
            point = members[index]
            scope = scope_of(ctx.spec, group)
            text = f"{metric.name} for {point.entity}{f' in {period}' if period else ''} is "
            text += f"{metric.unit.show(point.value)}, "
            text += _far(point.value, usual, metric.unit, among="rows", scope=scope) + "."
            facts.append(
                ctx.fact(
                    [metric.column, point.key],
                    text,
                    fact_type="outlier",
                    metric=metric,
                    group=group,
                    period=period,
                    entity=point.entity,
                )
            )
    return facts


def _far(value: float, usual: list[float], unit: Unit, *, among: str, scope: str = "") -> str:
    """ "far above the usual range of 950 to 1,080 (median 1,000 over the other 7 periods)"."""
    median = statistics.median(usual)
    side = "above" if value > median else "below"
    where = f" in {scope}" if scope else ""
    return (
        f"far {side} the usual range{where} of {unit.show(min(usual))} to "
        f"{unit.show(max(usual))} (median {unit.show(median)} over the other {len(usual)} {among})"
    )


def _unusual(values: list[float]) -> list[tuple[int, list[float]]]:
    """Indexes of values far from the rest, each with the values that count as usual.

    Two tests must agree, so that among thousands of series chance clusters do not
    flag ordinary values: a robust z-score above 3.5 (median and MAD are not dragged by
    the spike they must find; when MAD is zero the mean absolute deviation stands in, as
    Iglewicz and Hoaglin advise) and a place beyond Tukey's far-out fences (3 IQR).
    """
    if len(values) < _MIN_ANOMALY_VALUES:
        return []
    median = statistics.median(values)
    deviations = [abs(v - median) for v in values]
    spread = 1.4826 * statistics.median(deviations) or 1.2533 * statistics.fmean(deviations)
    spread = max(spread, _MIN_SPREAD * abs(median))
    if spread == 0:
        return []
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    low, high = q1 - _FENCE * (q3 - q1), q3 + _FENCE * (q3 - q1)
    flagged = {
        i
        for i, (v, d) in enumerate(zip(values, deviations, strict=True))
        if d / spread > _Z_LIMIT and not low <= v <= high
    }
    usual = [v for i, v in enumerate(values) if i not in flagged]
    return [(i, usual) for i in sorted(flagged)]
