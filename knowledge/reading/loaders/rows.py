"""Structured rows from CSV files or SQL tables, and one JSON chunk per row.

Rows are indexed as JSON objects (column -> value) with their key in metadata, so a
question about policy 0000-0001 can be matched on the key and answered from exact values.

`read_records` is also the delimited-text reader the glossary, FAQ and triple loaders use:
it owns decoding, delimiter sniffing and line numbers for error messages.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import MetaData, Table, create_engine, inspect, select
from sqlalchemy import text as sql_text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, NoSuchTableError, SQLAlchemyError

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.errors import SourceError

_DELIMITERS = ("\t", ",", ";", "|")
_SNIFF_ROWS = 20
_SHOWN = 10  # how many offending lines or values an error message lists
_PLAIN_NUMBER = re.compile(r"[+-]?(?:0|[1-9]\d*)(?:\.\d+)?")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?")


@dataclass(frozen=True)
class RowsSpec:
    """Which columns identify a row, place it in time, group it, and hold its numbers."""

    keys: tuple[str, ...]  # key column(s), required, e.g. ("policy_number",)
    time: str | None = None  # optional time column (dates, months, years, quarters)
    group: str | None = None  # optional group column (e.g. region)
    metrics: tuple[str, ...] = ()  # optional numeric metric columns


class Record(NamedTuple):
    """One parsed line of a delimited file; `line` is where it starts, for error messages."""

    line: int
    cells: list[str]


# --- delimited text ---------------------------------------------------------------------


def read_records(path: Path) -> list[Record]:
    """Non-blank records of a CSV/TSV file, delimiter sniffed, cells stripped."""
    content = read_text(path)
    if not content.strip():
        raise SourceError(str(path), "the file is empty; check that the export wrote its data")
    delimiter = sniff_delimiter(content)
    reader = csv.reader(io.StringIO(content, newline=""), delimiter=delimiter)
    records: list[Record] = []
    start = 1
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                records.append(Record(start, [c.strip() for c in cells]))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise SourceError(str(path), f"line {start} cannot be parsed ({exc})") from exc
    return records


def read_text(path: Path) -> str:
    """UTF-8 (with or without BOM) or BOM-marked UTF-16; anything else is refused clearly.

    Guessing a legacy code page silently would turn "é" into "Ã©" in answers.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(str(path), f"cannot read the file ({exc.strerror})") from exc
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SourceError(
            str(path),
            f"not UTF-8: byte 0x{data[exc.start]:02x} on line {line} cannot be decoded "
            "(probably Windows-1252/Latin-1). Save the file as UTF-8, e.g. Excel 'CSV UTF-8' "
            f"or `iconv -f cp1252 -t utf-8 {path.name} > {path.stem}.utf8{path.suffix}`",
        ) from exc


def sniff_delimiter(content: str) -> str:
    """The first of tab, comma, semicolon, pipe that splits the opening rows evenly.

    csv.Sniffer guesses wrong on prose cells; a consistent cell count is a sturdier sign.
    Tab goes first because it almost never appears inside text.
    """
    widths: dict[str, int] = {}
    for delimiter in _DELIMITERS:
        sample = csv.reader(io.StringIO(content[:65536], newline=""), delimiter=delimiter)
        counts = [len(row) for _, row in zip(range(_SNIFF_ROWS + 1), sample, strict=False) if row]
        counts = counts[:-1] if len(counts) > _SNIFF_ROWS else counts  # last may be cut off
        if counts and counts[0] > 1 and len(set(counts)) == 1:
            return delimiter
        widths[delimiter] = counts[0] if counts else 0
    widest = max(_DELIMITERS, key=lambda d: widths[d])
    return widest if widths[widest] > 1 else ","


# --- CSV rows ---------------------------------------------------------------------------


def read_csv_rows(path: Path) -> list[dict[str, str]]:
    """Rows of a CSV/TSV file with a header line, as column -> cell text."""
    records = read_records(path)
    header = _header(path, records[0].cells)
    width = len(header)
    ragged = [r for r in records[1:] if len(_trim_empty_tail(r.cells, width)) != width]
    if ragged:
        shown = listing([f"{r.line} (has {len(r.cells)})" for r in ragged])
        raise SourceError(
            str(path),
            f"rows with a different number of cells than the header's {width}: lines {shown}; "
            "look for unquoted delimiters or missing cells",
        )
    return [dict(zip(header, r.cells, strict=False)) for r in records[1:]]


def _header(path: Path, cells: list[str]) -> list[str]:
    names = _trim_empty_tail(cells, 1)
    if all(_PLAIN_NUMBER.fullmatch(n) for n in names):
        raise SourceError(str(path), "the first line holds numbers, not column names; add a header")
    empty = [str(i + 1) for i, n in enumerate(names) if not n]
    if empty:
        raise SourceError(
            str(path), f"the header has no name for column(s) {', '.join(empty)}; name them"
        )
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise SourceError(str(path), f"column name(s) {', '.join(repeated)} appear twice")
    return names


def _trim_empty_tail(cells: list[str], width: int) -> list[str]:
    """Drop empty cells past `width`: spreadsheets often leave trailing delimiters."""
    end = len(cells)
    while end > width and not cells[end - 1]:
        end -= 1
    return cells[:end]


# --- SQL rows ---------------------------------------------------------------------------


def read_sql_rows(db_url: str, query_or_table: str) -> list[dict[str, Any]]:
    """Rows of a table (a bare name, optionally schema.table) or of a SELECT query."""
    engine = _engine(db_url)
    source = engine.url.render_as_string(hide_password=True)
    try:
        connection = engine.connect()
    except SQLAlchemyError as exc:
        raise SourceError(
            source, f"cannot connect ({_cause(exc)}); check the URL, server and credentials"
        ) from exc
    try:
        with connection:
            name = query_or_table.strip()
            if _IDENTIFIER.fullmatch(name):
                statement: Any = select(_table(connection, source, name))
            else:
                statement = sql_text(query_or_table)
            return [dict(row._mapping) for row in connection.execute(statement)]
    except SQLAlchemyError as exc:
        raise SourceError(
            source, f"query failed ({_cause(exc)}); try it in a SQL console first"
        ) from exc
    finally:
        engine.dispose()


def _cause(exc: SQLAlchemyError) -> str:
    """The driver's own message, without SQLAlchemy's wrapping and doc links."""
    return " ".join(str(getattr(exc, "orig", None) or exc).split())


def _engine(db_url: str) -> Engine:
    try:
        return create_engine(make_url(db_url))
    except (NoSuchModuleError, ImportError) as exc:
        raise SourceError("database URL", f"no driver for this kind of database ({exc})") from exc
    except (ArgumentError, ValueError) as exc:
        raise SourceError(
            "database URL",
            f"cannot be parsed ({exc}); expected e.g. postgresql+psycopg://user:pw@host/db "
            "or sqlite:///path/to/file.db",
        ) from exc


def _table(connection: Connection, source: str, name: str) -> Table:
    schema, _, table_name = name.rpartition(".")
    try:
        return Table(table_name, MetaData(), autoload_with=connection, schema=schema or None)
    except NoSuchTableError as exc:
        available = inspect(connection).get_table_names(schema=schema or None)
        raise SourceError(
            source, f"no table named {name}; available tables: {', '.join(available) or 'none'}"
        ) from exc


# --- chunks -----------------------------------------------------------------------------


def row_chunks(
    rows: Sequence[Mapping[str, Any]], spec: RowsSpec, *, table: str, as_of: str
) -> list[ChunkDraft]:
    """One ROW chunk per row: its JSON text, its key, and where a citation points.

    With a time column a row is identified by its keys plus its period (panel data has
    one row per key per period). Rows with an empty key, or two rows with the same key,
    raise SourceError instead of being dropped: a silently missing record is worse than
    a failed ingest that says which rows to fix.
    """
    if not rows:
        return []
    check_columns(rows, spec, table=table)
    numeric = numeric_columns(rows)
    keys = [row_key(row, spec) for row in rows]
    _check_keys(rows, keys, spec, table=table)
    return [
        _row_chunk(row, key, spec, table=table, as_of=as_of, numeric=numeric)
        for row, key in zip(rows, keys, strict=True)
    ]


def _row_chunk(
    row: Mapping[str, Any],
    key: str,
    spec: RowsSpec,
    *,
    table: str,
    as_of: str,
    numeric: set[str],
) -> ChunkDraft:
    key_values = {c: cell_text(row[c]) for c in spec.keys}
    period = cell_text(row[spec.time]) if spec.time else ""
    row_as_of = period or as_of
    place = ", ".join(f"{c} {v}" for c, v in key_values.items() if c != spec.time)
    metadata: dict[str, Any] = {"table": table, "keys": key_values, "as_of": row_as_of}
    if spec.time:
        metadata["time"] = period
    if spec.group:
        metadata["group"] = cell_text(row[spec.group])
    body = {c: json_value(v, numeric=c in numeric) for c, v in row.items()}
    return ChunkDraft(
        key=key,
        kind=ChunkKind.ROW,
        text=json.dumps(body, ensure_ascii=False),
        title=f"table {table}",
        location=f"{place}, as of {row_as_of}",
        metadata=metadata,
    )


def key_columns(spec: RowsSpec) -> tuple[str, ...]:
    """The spec's keys, plus the time column when there is one and it is not a key."""
    if spec.time and spec.time not in spec.keys:
        return (*spec.keys, spec.time)
    return spec.keys


def row_key(row: Mapping[str, Any], spec: RowsSpec) -> str:
    """Stable chunk key, e.g. "policy_number=0000-0001" or "region=North|quarter=2026-Q3"."""
    parts = []
    for column in key_columns(spec):
        value = cell_text(row[column])
        if value or column in spec.keys:  # an empty period falls back to the keys alone
            parts.append(f"{column}={value}")
    return "|".join(parts)


def check_columns(rows: Sequence[Mapping[str, Any]], spec: RowsSpec, *, table: str) -> None:
    """Refuse a spec that names a column the rows do not have, suggesting the closest."""
    if not spec.keys:
        raise SourceError(
            f"table {table}",
            "no key column given; name the column(s) that identify a row, e.g. policy_number",
        )
    available = list(rows[0].keys())
    wanted = [*spec.keys, *([spec.time] if spec.time else []), *spec.metrics]
    wanted += [spec.group] if spec.group else []
    for column in wanted:
        if column not in available:
            close = difflib.get_close_matches(column, available, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise SourceError(
                f"table {table}",
                f"no column named {column!r}; available columns: {', '.join(available)}.{hint}",
            )


def _check_keys(
    rows: Sequence[Mapping[str, Any]], keys: list[str], spec: RowsSpec, *, table: str
) -> None:
    blank = [i + 1 for i, row in enumerate(rows) if not all(cell_text(row[c]) for c in spec.keys)]
    if blank:
        shown = listing([str(n) for n in blank])
        raise SourceError(
            f"table {table}",
            f"empty value in key column(s) {', '.join(spec.keys)} in data rows {shown}; "
            "fill them in or remove those rows",
        )
    where: defaultdict[str, list[int]] = defaultdict(list)
    for i, k in enumerate(keys):
        where[k].append(i + 1)
    repeated = [f"{k} (data rows {', '.join(map(str, n))})" for k, n in where.items() if len(n) > 1]
    if repeated:
        raise SourceError(
            f"table {table}",
            f"keys that appear more than once: {listing(repeated, sep='; ')}; "
            "add the column that tells those rows apart to the keys (or the time column)",
        )


# --- values -----------------------------------------------------------------------------


def listing(items: Sequence[str], *, sep: str = ", ") -> str:
    """The first few items of a list for an error message, saying how many were left out."""
    shown = sep.join(items[:_SHOWN])
    return f"{shown} and {len(items) - _SHOWN} more" if len(items) > _SHOWN else shown


def cell_text(value: Any) -> str:
    """A cell as display text: dates in ISO form, None as empty."""
    if value is None:
        return ""
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return str(value).strip()


def numeric_columns(rows: Iterable[Mapping[str, Any]]) -> set[str]:
    """Columns whose every non-empty cell is a plain number ("0042" and "1,200" are not).

    Leading zeros mark identifiers and formatted numbers carry units, so both stay text.
    """
    seen: set[str] = set()
    text_cells: set[str] = set()
    for row in rows:
        for column, value in row.items():
            if value is None or value == "":
                continue
            if _is_plain_number(value):
                seen.add(column)
            else:
                text_cells.add(column)
    return seen - text_cells


def _is_plain_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float | Decimal):
        return True
    return isinstance(value, str) and _PLAIN_NUMBER.fullmatch(value.strip()) is not None


def json_value(value: Any, *, numeric: bool = False) -> Any:
    """A cell as a JSON value: numbers stay numbers, dates become ISO text."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            return None
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, str) and numeric:
        stripped = value.strip()
        if not stripped:
            return None
        return float(stripped) if "." in stripped else int(stripped)
    return value if isinstance(value, str) else cell_text(value)
