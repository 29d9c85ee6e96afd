"""Facts computed from rows: ranks, averages, counts, trends and anomalies, as sentences."""

from __future__ import annotations

import pytest

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.errors import SourceError
from knowledge.ingest.facts import derive_facts
from knowledge.ingest.quantities import parse_number, sort_periods
from knowledge.reading.loaders.rows import RowsSpec

QUARTERS = ["2025-Q3", "2025-Q4", "2026-Q1", "2026-Q2", "2026-Q3"]
REVENUE = {
    "North": [900_000, 950_000, 1_000_000, 1_100_000, 1_250_000],
    "East": [1_000_000, 990_000, 1_010_000, 1_000_000, 980_000],
    "South": [800_000, 820_000, 810_000, 790_000, 805_000],
    "West": [700_000, 710_000, 690_000, 705_000, 680_000],
}
SALES_SPEC = RowsSpec(keys=("region",), time="quarter", group="region", metrics=("revenue",))


def sales_rows(revenue: dict[str, list[int]] = REVENUE) -> list[dict[str, str]]:
    """Panel rows as a CSV gives them: text cells, latest quarter first."""
    return [
        {"region": region, "quarter": quarter, "revenue": f"{values[i]:,}"}
        for i, quarter in reversed(list(enumerate(QUARTERS)))
        for region, values in revenue.items()
    ]


def by_key(facts: list[ChunkDraft]) -> dict[str, ChunkDraft]:
    return {fact.key: fact for fact in facts}


def test_highest_lowest_and_average_across_regions() -> None:
    facts = by_key(derive_facts(sales_rows(), SALES_SPEC, table="sales", as_of="2026-11-20"))

    highest = facts["fact:max:revenue:2026-Q3"]
    assert highest.kind is ChunkKind.FACT
    assert highest.text == (
        "In table sales, the region with the highest revenue in 2026-Q3 is North (1,250,000), "
        "followed by East (980,000)."
    )
    assert highest.metadata == {
        "table": "sales",
        "metric": "revenue",
        "group": None,
        "period": "2026-Q3",
        "fact_type": "max",
        "as_of": "2026-Q3",
    }
    assert facts["fact:min:revenue:2026-Q3"].text.endswith(
        "lowest revenue in 2026-Q3 is West (680,000), followed by South (805,000)."
    )
    assert "the average revenue in 2026-Q3 is 928,750 across 4 regions" in (
        facts["fact:average:revenue:2026-Q3"].text
    )
    assert "2025-Q3" in facts["fact:max:revenue:2025-Q3"].text


def test_count_fact_says_rows_periods_and_groups() -> None:
    facts = by_key(derive_facts(sales_rows(), SALES_SPEC, table="sales", as_of="2026-11-20"))

    assert facts["fact:count"].text == (
        "In table sales, there are 20 rows covering 5 periods from 2025-Q3 to 2026-Q3; "
        "by region: East 5, North 5, South 5, West 5."
    )


def test_trend_has_the_right_sign_and_percent() -> None:
    facts = by_key(derive_facts(sales_rows(), SALES_SPEC, table="sales", as_of="2026-11-20"))

    assert facts["fact:trend:revenue:region=North"].text == (
        "In table sales, revenue for region North increased from 1,100,000 in 2026-Q2 "
        "to 1,250,000 in 2026-Q3 (+150,000, +13.6%)."
    )
    assert facts["fact:trend:revenue:region=East"].text == (
        "In table sales, revenue for region East decreased from 1,000,000 in 2026-Q2 "
        "to 980,000 in 2026-Q3 (−20,000, −2.0%)."
    )
    north = facts["fact:direction:revenue:region=North"].text
    assert "rose in all 4 period-to-period changes" in north
    assert north.endswith("(+350,000, +38.9%): a rising trend.")
    assert "highest in 2026-Q3 (1,250,000) and lowest in 2025-Q3 (900,000)" in (
        facts["fact:peak:revenue:region=North"].text
    )


def test_spike_is_an_anomaly_and_steady_series_are_not() -> None:
    spiking = {**REVENUE, "West": [700_000, 710_000, 690_000, 705_000, 3_000_000]}

    facts = derive_facts(sales_rows(spiking), SALES_SPEC, table="sales", as_of="2026-11-20")

    anomalies = [f for f in facts if f.metadata["fact_type"] == "anomaly"]
    west = by_key(anomalies)["fact:anomaly:revenue:region=West:2026-Q3"]
    assert west.text == (
        "In table sales, revenue for region West in 2026-Q3 was 3,000,000, far above the usual "
        "range of 690,000 to 710,000 (median 702,500 over the other 4 periods)."
    )
    flagged = {f.metadata.get("entity") for f in anomalies}
    assert flagged <= {"region West", None}  # None: the all-regions average, lifted by West


def test_steady_series_has_no_anomaly() -> None:
    facts = derive_facts(sales_rows(), SALES_SPEC, table="sales", as_of="2026-11-20")

    assert [f for f in facts if f.metadata["fact_type"] in ("anomaly", "outlier")] == []


def test_quarters_sort_by_time_not_by_text() -> None:
    assert sort_periods(["2026-Q1", "Q4 2025", "2025-Q3", "2026-Q2"]) == [
        "2025-Q3",
        "Q4 2025",
        "2026-Q1",
        "2026-Q2",
    ]
    assert sort_periods(["2026-10", "2026-9", "2025-12"]) == ["2025-12", "2026-9", "2026-10"]
    assert sort_periods(["Mar 2026", "Jan 2026"]) == ["Jan 2026", "Mar 2026"]
    assert sort_periods(["launch", "pilot"]) == ["launch", "pilot"]  # unknown: source order


def test_rows_within_groups_and_outliers_among_peers() -> None:
    premiums = [1000, 1040, 1100, 1150, 1200, 95000, 1010, 1090, 1120, 1180]
    rows = [
        {"policy_number": f"P-{i}", "region": "North" if i < 6 else "East", "premium": f"${p:,}"}
        for i, p in enumerate(premiums)
    ]
    spec = RowsSpec(keys=("policy_number",), group="region", metrics=("premium",))

    facts = by_key(derive_facts(rows, spec, table="policies", as_of="2026-11-20"))

    assert facts["fact:max:premium:region=North"].text == (
        "In table policies, the row with the highest premium for region North is "
        "policy number P-5 ($95,000), followed by policy number P-4 ($1,200)."
    )
    assert facts["fact:average:premium:region=East"].text == (
        "In table policies, the average premium for region East is $1,100 across 4 rows "
        "(total $4,400; lowest $1,010, highest $1,180)."
    )
    assert "region with the highest average premium is North" in (
        facts["fact:max_average:premium"].text
    )
    outlier = facts["fact:outlier:premium:policy_number=P-5"]
    assert "far above the usual range in region North of $1,000 to $1,200" in outlier.text
    assert facts["fact:count"].metadata["as_of"] == "2026-11-20"


def test_messy_numbers_are_parsed_or_skipped() -> None:
    assert parse_number("(3.1)") == -3.1
    assert parse_number("$1,250,000") == 1_250_000
    assert parse_number("12.5%") == 12.5
    assert parse_number("−4") == -4
    assert parse_number("n/a") is None
    assert parse_number("1,2") is None  # ambiguous: skipped, never misread
    rows = [
        {"id": "a", "score": "10"},
        {"id": "b", "score": "n/a"},
        {"id": "c", "score": "(2)"},
    ]
    spec = RowsSpec(keys=("id",), metrics=("score",))

    facts = by_key(derive_facts(rows, spec, table="scores", as_of="2026-11-20"))

    assert "is 4 across 2 rows" in facts["fact:average:score"].text


def test_metric_without_numbers_is_refused() -> None:
    rows = [{"id": "a", "plan": "Gold"}, {"id": "b", "plan": "Silver"}]

    with pytest.raises(SourceError, match="'plan' has no numeric values"):
        derive_facts(rows, RowsSpec(keys=("id",), metrics=("plan",)), table="t", as_of="x")


def test_output_is_deterministic_with_unique_keys() -> None:
    first = derive_facts(sales_rows(), SALES_SPEC, table="sales", as_of="2026-11-20")
    second = derive_facts(sales_rows(), SALES_SPEC, table="sales", as_of="2026-11-20")

    assert first == second
    assert len({f.key for f in first}) == len(first)
