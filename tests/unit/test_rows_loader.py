"""Rows from CSV files and SQL tables become one JSON chunk each, or a readable error."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from knowledge.documents import ChunkKind
from knowledge.errors import SourceError
from knowledge.reading.loaders.rows import RowsSpec, read_csv_rows, read_sql_rows, row_chunks

MEMBERS_CSV = """policy_number,member_id,name,premium,start_date
0000-0001,1,Asha Rao,1200.50,2026-01-15
0000-0001,2,Ravi Rao,900,2026-01-15
0000-0002,1,Meera Iyer,,2026-03-01
"""


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_csv_rows_with_composite_keys_become_json_chunks(tmp_path: Path) -> None:
    rows = read_csv_rows(write(tmp_path, "members.csv", MEMBERS_CSV))
    spec = RowsSpec(keys=("policy_number", "member_id"))

    chunks = row_chunks(rows, spec, table="members", as_of="2026-11-20")

    first = chunks[0]
    assert first.kind is ChunkKind.ROW
    assert first.key == "policy_number=0000-0001|member_id=1"
    assert first.title == "table members"
    assert first.location == "policy_number 0000-0001, member_id 1, as of 2026-11-20"
    assert json.loads(first.text) == {
        "policy_number": "0000-0001",  # leading zeros: an identifier, kept as text
        "member_id": 1,
        "name": "Asha Rao",
        "premium": 1200.5,
        "start_date": "2026-01-15",
    }
    assert first.metadata == {
        "table": "members",
        "keys": {"policy_number": "0000-0001", "member_id": "1"},
        "as_of": "2026-11-20",
    }
    assert json.loads(chunks[2].text)["premium"] is None  # empty numeric cell
    assert len({c.key for c in chunks}) == 3


def test_time_column_sets_as_of_and_tells_panel_rows_apart(tmp_path: Path) -> None:
    csv_text = "region,quarter,revenue\nNorth,2026-Q2,1100000\nNorth,2026-Q3,1250000\n"
    rows = read_csv_rows(write(tmp_path, "sales.csv", csv_text))

    chunks = row_chunks(rows, RowsSpec(keys=("region",), time="quarter"), table="sales", as_of="x")

    assert [c.key for c in chunks] == [
        "region=North|quarter=2026-Q2",
        "region=North|quarter=2026-Q3",
    ]
    assert chunks[1].location == "region North, as of 2026-Q3"
    assert chunks[1].metadata["as_of"] == chunks[1].metadata["time"] == "2026-Q3"


def test_tsv_with_bom_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, "plans.tsv", "\ufeffplan\tcover\nGold\t500000\n".encode())

    assert read_csv_rows(path) == [{"plan": "Gold", "cover": "500000"}]


def test_sql_rows_from_a_table_and_a_query(tmp_path: Path) -> None:
    db = tmp_path / "claims.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE claims (claim_id TEXT, amount NUMERIC, filed DATE)")
        connection.execute("INSERT INTO claims VALUES ('C-1', 2500.75, '2026-02-01')")
        connection.execute("INSERT INTO claims VALUES ('C-2', 400, '2026-02-03')")
    url = f"sqlite:///{db}"

    rows = read_sql_rows(url, "claims")
    chunks = row_chunks(rows, RowsSpec(keys=("claim_id",)), table="claims", as_of="2026-11-20")

    assert [c.key for c in chunks] == ["claim_id=C-1", "claim_id=C-2"]
    assert json.loads(chunks[0].text) == {
        "claim_id": "C-1",
        "amount": 2500.75,
        "filed": "2026-02-01",
    }
    assert read_sql_rows(url, "SELECT claim_id FROM claims WHERE amount > 1000") == [
        {"claim_id": "C-1"}
    ]


def test_sql_errors_say_what_went_wrong(tmp_path: Path) -> None:
    db = tmp_path / "claims.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE claims (claim_id TEXT)")
    url = f"sqlite:///{db}"

    with pytest.raises(SourceError, match="no table named claim; available tables: claims"):
        read_sql_rows(url, "claim")
    with pytest.raises(SourceError, match=r"query failed.*no such column: amount"):
        read_sql_rows(url, "SELECT amount FROM claims")
    with pytest.raises(SourceError, match="database URL: cannot be parsed"):
        read_sql_rows("not a url", "claims")


def test_latin1_file_is_refused_with_the_line_and_a_fix(tmp_path: Path) -> None:
    path = write(tmp_path, "members.csv", "name,city\nJosé,Málaga\n".encode("latin-1"))

    with pytest.raises(SourceError, match=r"not UTF-8.*line 2.*Save the file as UTF-8"):
        read_csv_rows(path)


def test_ragged_rows_are_named_by_line(tmp_path: Path) -> None:
    path = write(tmp_path, "members.csv", "a,b,c\n1,2,3\n4,5\n6,7,8,9\n10,11,12,,\n")

    with pytest.raises(SourceError, match=r"lines 3 \(has 2\), 4 \(has 4\);") as error:
        read_csv_rows(path)
    assert "5 (" not in str(error.value)  # trailing empty cells from a spreadsheet are fine


@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_empty_file_is_refused(tmp_path: Path, content: str) -> None:
    with pytest.raises(SourceError, match="empty"):
        read_csv_rows(write(tmp_path, "empty.csv", content))


def test_data_without_header_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="numbers, not column names"):
        read_csv_rows(write(tmp_path, "numbers.csv", "1,2,3\n4,5,6\n"))


def test_missing_key_column_lists_the_available_ones(tmp_path: Path) -> None:
    rows = read_csv_rows(write(tmp_path, "members.csv", MEMBERS_CSV))

    with pytest.raises(SourceError) as error:
        row_chunks(rows, RowsSpec(keys=("policy_no",)), table="members", as_of="2026-11-20")

    message = str(error.value)
    assert "no column named 'policy_no'" in message
    assert "available columns: policy_number, member_id, name, premium, start_date" in message
    assert "Did you mean 'policy_number'?" in message


def test_duplicate_keys_are_named(tmp_path: Path) -> None:
    rows = read_csv_rows(write(tmp_path, "members.csv", MEMBERS_CSV))

    with pytest.raises(SourceError, match=r"policy_number=0000-0001 \(data rows 1, 2\)"):
        row_chunks(rows, RowsSpec(keys=("policy_number",)), table="members", as_of="2026-11-20")


def test_empty_key_value_is_refused_with_the_row(tmp_path: Path) -> None:
    rows = read_csv_rows(write(tmp_path, "members.csv", "policy_number,name\n0001,A\n,B\n"))

    with pytest.raises(SourceError, match=r"empty value in key column.*data rows 2;"):
        row_chunks(rows, RowsSpec(keys=("policy_number",)), table="members", as_of="2026-11-20")
