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

import itertools
import math
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.errors import SourceError
from knowledge.reading.loaders.rows import RowsSpec, cell_text, check_columns, row_key

_MIN_ANOMALY_VALUES = 5
_Z_LIMIT = 3.5
_FENCE = 3.0  # IQRs beyond the quartiles: Tukey's "far out"
_MIN_SPREAD = 0.02  # of the median: the smallest spread a series is assumed to have
_COUNTS_SHOWN = 25


@dataclass(frozen=True)
class _Point:
    key: str  # the row's chunk key
    entity: str  # "policy number 0000-0001": the keys without the time column
    entity_id: str  # "policy_number=0000-0001"
    group: str | None
    period: str | None
    value: float


@dataclass(frozen=True)
class _Metric:
    column: str
    name: str  # "net income" for net_income
    unit: Unit


@dataclass(frozen=True)
class _Context:
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
        metric: _Metric | None = None,
        group: str | None = None,
        period: str | None = None,
        entity: str | None = None,
    ) -> ChunkDraft:
        place = [metric.name if metric else "row counts", _scope(self.spec, group), period]
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


def derive_facts(
    rows: Sequence[Mapping[str, Any]], spec: RowsSpec, *, table: str, as_of: str
) -> list[ChunkDraft]:
    """FACT chunks for the rows: counts, then per metric ranks, averages, trends, anomalies.

    Output order and keys are deterministic, so re-ingesting unchanged rows changes nothing.
    """
    if not rows:
        return []
    check_columns(rows, spec, table=table)
    ctx = _Context(table, spec, as_of)
    placed = [r for r in rows if not spec.time or cell_text(r[spec.time])]
    periods: list[str | None] = list(sort_periods(_periods(placed, spec))) or [None]
    facts = [_count_fact(ctx, placed, periods)]
    for column in spec.metrics:
        metric, points = _metric_points(ctx, placed, column)
        by_period: defaultdict[str | None, list[_Point]] = defaultdict(list)
        for point in points:
            by_period[point.period].append(point)
        for period in periods:
            facts += _feature_facts(ctx, metric, by_period[period], period)
            facts += _outlier_facts(ctx, metric, by_period[period], period)
        if spec.time:
            facts += _series_facts(ctx, metric, points, periods)
    return facts


def _periods(rows: Sequence[Mapping[str, Any]], spec: RowsSpec) -> list[str]:
    if not spec.time:
        return []
    return list(dict.fromkeys(cell_text(r[spec.time]) for r in rows))


def _scope(spec: RowsSpec, group: str | None) -> str:
    return f"{_human(spec.group)} {group}" if spec.group and group is not None else ""


def _human(column: str) -> str:
    return column.replace("_", " ").strip()


def _plural(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _where(spec: RowsSpec, group: str | None, period: str | None) -> str:
    scope = _scope(spec, group)
    return (f" for {scope}" if scope else "") + (f" in {period}" if period else "")


# --- points -----------------------------------------------------------------------------


def _metric_points(
    ctx: _Context, rows: Sequence[Mapping[str, Any]], column: str
) -> tuple[_Metric, list[_Point]]:
    spec = ctx.spec
    entity_columns = _entity_columns(spec)
    points: list[_Point] = []
    for row in rows:
        value = parse_number(row[column])
        if value is None:
            continue
        points.append(
            _Point(
                key=row_key(row, spec),
                entity=", ".join(f"{_human(c)} {cell_text(row[c])}" for c in entity_columns),
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
    return _Metric(column, _human(column), unit), points


def _by_group(points: Iterable[_Point]) -> dict[str | None, list[_Point]]:
    groups: defaultdict[str | None, list[_Point]] = defaultdict(list)
    for point in points:
        groups[point.group].append(point)
    return dict(sorted(groups.items(), key=lambda item: str(item[0])))


# --- counts -----------------------------------------------------------------------------


def _count_fact(
    ctx: _Context, rows: Sequence[Mapping[str, Any]], periods: list[str | None]
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
        text += f"; by {_human(spec.group)}: {shown}" + (f" and {rest} more" if rest > 0 else "")
    return ctx.fact([], text + ".", fact_type="count")


# --- ranks and averages -----------------------------------------------------------------


def _feature_facts(
    ctx: _Context, metric: _Metric, points: list[_Point], period: str | None
) -> list[ChunkDraft]:
    """Highest, lowest and average for one period: across groups, rows and within groups."""
    if not points:
        return []
    groups = _by_group(points)
    if ctx.spec.group and all(len(members) == 1 for members in groups.values()):
        noun = _human(ctx.spec.group)
        items = [(str(g), members[0].value) for g, members in groups.items()]
        ranks = _extremes(ctx, metric, items, noun=noun, period=period)
        return [*ranks, *_average(ctx, metric, items, _plural(noun), period=period)]
    facts: list[ChunkDraft] = []
    if ctx.spec.group and len(groups) > 1:
        means = [(str(g), statistics.fmean(p.value for p in ms)) for g, ms in groups.items()]
        noun = _human(ctx.spec.group)
        facts += _extremes(ctx, metric, means, noun=noun, period=period, average=True)
    facts += _row_facts(ctx, metric, points, period, group=None)
    if ctx.spec.group:
        for group, members in groups.items():
            if len(members) > 1:
                facts += _row_facts(ctx, metric, members, period, group=group)
    return facts


def _row_facts(
    ctx: _Context, metric: _Metric, points: list[_Point], period: str | None, *, group: str | None
) -> list[ChunkDraft]:
    labelled = ctx.spec.group and group is None
    items = [
        (f"{p.entity} in {_scope(ctx.spec, p.group)}" if labelled else p.entity, p.value)
        for p in points
    ]
    facts = _extremes(ctx, metric, items, noun="row", period=period, group=group)
    return [*facts, *_average(ctx, metric, items, "rows", period=period, group=group)]


def _extremes(
    ctx: _Context,
    metric: _Metric,
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
    where = _where(ctx.spec, group, period)
    facts = []
    if len({v for _, v in items}) == 1:
        text = f"all {len(items)} {_plural(noun)} have the same {what}{where} "
        text += f"({metric.unit.show(items[0][1])})."
        key = [metric.column, period, _group_id(ctx.spec, group)]
        fact_type = "same_average" if average else "same"
        return [ctx.fact(key, text, fact_type=fact_type, metric=metric, group=group, period=period)]
    for highest in (True, False):
        word = "highest" if highest else "lowest"
        ordered = sorted(items, key=lambda it: ((-it[1] if highest else it[1]), it[0]))
        tied = [label for label, value in ordered if value == ordered[0][1]]
        show = metric.unit.show
        if len(tied) > 1:
            text = f"the {word} {what}{where} ({show(ordered[0][1])}) is shared by {_and(tied)}."
        else:
            (first, v1), (second, v2) = ordered[0], ordered[1]
            text = f"the {noun} with the {word} {what}{where} is {first} ({show(v1)})"
            text += f", followed by {second} ({show(v2)})."
        fact_type = ("max" if highest else "min") + ("_average" if average else "")
        key = [metric.column, period, _group_id(ctx.spec, group)]
        facts.append(
            ctx.fact(key, text, fact_type=fact_type, metric=metric, group=group, period=period)
        )
    return facts


def _average(
    ctx: _Context,
    metric: _Metric,
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
    text = f"the average {metric.name}{_where(ctx.spec, group, period)} is "
    text += f"{show(statistics.fmean(values))} across {len(values)} {things} ("
    text += "" if metric.unit.suffix == "%" else f"total {show(sum(values))}; "
    text += f"lowest {show(min(values))}, highest {show(max(values))})."
    key = [metric.column, period, _group_id(ctx.spec, group)]
    return [ctx.fact(key, text, fact_type="average", metric=metric, group=group, period=period)]


def _group_id(spec: RowsSpec, group: str | None) -> str | None:
    return f"{spec.group}={group}" if spec.group and group is not None else None


def _and(names: list[str]) -> str:
    shown = names[:5] + ([f"{len(names) - 5} more"] if len(names) > 5 else [])
    return ", ".join(shown[:-1]) + " and " + shown[-1]


# --- trends -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Series:
    id: str  # "region=North", "all"
    subject: str  # "the average revenue for region North"
    group: str | None
    entity: str | None
    values: dict[str, float]  # period -> value, in period order


def _series_facts(
    ctx: _Context, metric: _Metric, points: list[_Point], periods: list[str | None]
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
    spec: RowsSpec, metric: _Metric, points: list[_Point], periods: list[str | None]
) -> list[_Series]:
    """Each entity over time, each group's average over time, and the overall average."""
    entities: defaultdict[str, list[_Point]] = defaultdict(list)
    for point in points:
        entities[point.entity_id].append(point)
    found = []
    for entity_id, members in sorted(entities.items()):
        entity = members[0].entity
        subject = f"{metric.name} for {entity}" if entity else metric.name
        values = _ordered({p.period: p.value for p in members}, periods)
        found.append(_Series(entity_id, subject, members[0].group, entity or None, values))
    entity_columns = _entity_columns(spec)
    if spec.group and entity_columns != [spec.group]:
        for group, members in _by_group(points).items():
            subject = f"the average {metric.name} for {_scope(spec, group)}"
            values = _ordered(_period_means(members), periods)
            found.append(_Series(str(_group_id(spec, group)), subject, group, None, values))
    if len(entities) > 1:
        noun = _human(entity_columns[0]) if len(entity_columns) == 1 else "row"
        subject = f"the average {metric.name} across all {_plural(noun)}"
        found.append(_Series("all", subject, None, None, _ordered(_period_means(points), periods)))
    return found


def _entity_columns(spec: RowsSpec) -> list[str]:
    """The key columns that name a thing rather than a period."""
    return [c for c in spec.keys if c != spec.time]


def _period_means(points: Iterable[_Point]) -> dict[str | None, float]:
    by_period: defaultdict[str | None, list[float]] = defaultdict(list)
    for point in points:
        by_period[point.period].append(point.value)
    return {period: statistics.fmean(values) for period, values in by_period.items()}


def _ordered(values: Mapping[str | None, float], periods: list[str | None]) -> dict[str, float]:
    return {p: values[p] for p in periods if p is not None and p in values}


def _series_fact(
    ctx: _Context, metric: _Metric, series: _Series, text: str, *, fact_type: str, period: str
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


def _trend(ctx: _Context, metric: _Metric, series: _Series) -> ChunkDraft:
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


def _direction(ctx: _Context, metric: _Metric, series: _Series) -> ChunkDraft:
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


def _peak(ctx: _Context, metric: _Metric, series: _Series) -> ChunkDraft:
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


# --- anomalies --------------------------------------------------------------------------


def _anomalies(ctx: _Context, metric: _Metric, series: _Series) -> list[ChunkDraft]:
    """Values far from the rest of their own series: a spike or a drop in one period."""
    periods = list(series.values)
    facts = []
    for index, usual in _unusual(list(series.values.values())):
        period, value = periods[index], series.values[periods[index]]
        text = f"{series.subject} in {period} was {metric.unit.show(value)}, "
        text += _far(value, usual, metric.unit, among="periods") + "."
        facts.append(_series_fact(ctx, metric, series, text, fact_type="anomaly", period=period))
    return facts


def _outlier_facts(
    ctx: _Context, metric: _Metric, points: list[_Point], period: str | None
) -> list[ChunkDraft]:
    """Rows far from the other rows of their group in the same period."""
    facts = []
    for group, members in _by_group(points).items():
        for index, usual in _unusual([p.value for p in members]):
            point = members[index]
            scope = _scope(ctx.spec, group)
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


# --- numbers and periods ----------------------------------------------------------------

_MISSING = frozenset({"", "-", "—", "–", "n/a", "na", "n.a.", "nan", "null", "none"})
_NUMBER = re.compile(
    r"(?P<pre0>[$€£¥₹])?\s*(?P<open>\()?\s*(?P<sign>[-+])?\s*(?P<pre>[$€£¥₹])?\s*(?P<sign2>[-+])?\s*"
    r"(?P<num>(?:\d{1,3}(?:[,\u00a0\u202f ]\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
    r"\s*(?P<post>[$€£¥₹%])?\s*(?P<close>\))?\s*(?P<pct>%)?"
)


def parse_number(value: Any) -> float | None:
    """A metric cell as a number: "$1,250", "12.5%", "(3.1)" (accounting negative), "−4".

    Anything ambiguous ("1,2", "12k", "n/a") is None, so it is skipped, never misread.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):
        number = float(value)
        return number if math.isfinite(number) else None
    match = _match_number(str(value))
    if match is None:
        return None
    number = float(re.sub(r"[,\u00a0\u202f ]", "", match["num"]))
    negative = bool(match["open"]) != (match["sign"] == "-" or match["sign2"] == "-")
    return -number if negative else number


def _match_number(text: str) -> re.Match[str] | None:
    text = text.strip().replace("\u2212", "-")
    if text.lower() in _MISSING:
        return None
    match = _NUMBER.fullmatch(text)
    if match is None or bool(match["open"]) != bool(match["close"]):
        return None
    if (match["pre0"] and match["pre"]) or (match["post"] and match["pct"]):
        return None
    return match


@dataclass(frozen=True)
class Unit:
    """A currency sign or percent shared by every cell of a metric, kept for display."""

    prefix: str = ""
    suffix: str = ""

    @classmethod
    def detect(cls, cells: Iterable[Any]) -> Unit:
        marks: set[tuple[str, str]] = set()
        for cell in cells:
            if parse_number(cell) is None:
                continue
            match = _match_number(cell) if isinstance(cell, str) else None
            post = (match["post"] or match["pct"] or "") if match else ""
            pre = (match["pre0"] or match["pre"] or "") if match else ""
            marks.add((pre, post if post == "%" else ""))
        if len(marks) != 1:
            return cls()
        prefix, suffix = marks.pop()
        return cls(prefix, suffix)

    def show(self, number: float) -> str:
        sign = "−" if number < 0 else ""
        return f"{sign}{self.prefix}{_plain(abs(number))}{self.suffix}"

    def change(self, old: float, new: float) -> str:
        """ "+150,000, +13.6%": the difference, then the relative change when it means something."""
        delta = new - old
        sign = "+" if delta >= 0 else "−"
        if self.suffix == "%":
            text = f"{sign}{_plain(abs(delta))} percentage points"
        else:
            text = f"{sign}{self.prefix}{_plain(abs(delta))}"
        if old != 0:
            text += f", {sign}{abs(delta) / abs(old) * 100:.1f}%"
        return text


def _plain(number: float) -> str:
    if number == int(number) and number < 1e15:
        return f"{int(number):,}"
    if number >= 1:
        return f"{number:,.2f}".rstrip("0").rstrip(".")
    return f"{number:.3g}"


_QUARTER = re.compile(r"(?:FY)?\s*(\d{4})\s*[-/ ]?\s*([QH])([1-4])", re.IGNORECASE)
_QUARTER_FIRST = re.compile(r"([QH])([1-4])\s*[-/ ]?\s*(?:FY)?\s*(\d{4})", re.IGNORECASE)
_YEAR_MONTH = re.compile(r"(?:FY)?\s*(\d{4})(?:[-/](\d{1,2}))?", re.IGNORECASE)


def period_key(text: str) -> tuple[int, int, int, float] | None:
    """A sortable (year, month, day, seconds) for a period label, or None if unknown.

    Understands 2026, FY2026, 2026-03, 2026/3, Mar 2026, 2026-Q1, Q1 2026, 2026-H2 and
    ISO dates or date-times.
    """
    text = text.strip()
    if match := _QUARTER.fullmatch(text):
        return _part_key(int(match[1]), match[2], int(match[3]))
    if match := _QUARTER_FIRST.fullmatch(text):
        return _part_key(int(match[3]), match[1], int(match[2]))
    if match := _YEAR_MONTH.fullmatch(text):
        month = int(match[2] or 1)
        return (int(match[1]), month, 1, 0.0) if 1 <= month <= 12 else None
    for form in ("%b %Y", "%B %Y"):
        try:
            parsed = datetime.strptime(text, form)
        except ValueError:
            continue
        return (parsed.year, parsed.month, 1, 0.0)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    seconds = moment.hour * 3600 + moment.minute * 60 + moment.second + moment.microsecond / 1e6
    return (moment.year, moment.month, moment.day, seconds)


def _part_key(year: int, kind: str, number: int) -> tuple[int, int, int, float] | None:
    if kind.upper() == "H" and number > 2:
        return None
    months_per_part = 3 if kind.upper() == "Q" else 6
    return (year, (number - 1) * months_per_part + 1, 1, 0.0)


def sort_periods(periods: Iterable[str]) -> list[str]:
    """Distinct periods in time order, or in source order when any label is not understood."""
    distinct = list(dict.fromkeys(periods))
    keys = {p: period_key(p) for p in distinct}
    if any(k is None for k in keys.values()):
        return distinct
    return sorted(distinct, key=lambda p: keys[p] or (0, 0, 0, 0.0))
