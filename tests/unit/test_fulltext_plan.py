"""Which words the full-text search matches on, and what each weighs."""

from __future__ import annotations

from knowledge.store.fulltext import TermStats, plan_query, quote

# 100k chunks: 'polici' in 60%, 'claim' in 40%, 'cover' in 5%, untracked words rarer than 0.4%
STATS = TermStats(rows=100_000, share={"polici": 0.6, "claim": 0.4, "cover": 0.05}, floor=0.004)


def test_without_statistics_every_word_matches_and_weighs_the_same() -> None:
    plan = plan_query(["grace", "period", "polici"], TermStats())
    assert plan.match == "'grace' | 'period' | 'polici'"
    assert set(plan.weights.values()) == {1.0}


def test_words_too_common_for_the_budget_do_not_match_on_their_own() -> None:
    plan = plan_query(["polici", "claim", "subrog"], STATS, budget=1500)
    # 'polici' AND 'claim' would still be 24,000 rows: over the budget, so left to dense
    assert plan.match == "'subrog'"
    assert set(plan.weights) == {"polici", "claim", "subrog"}  # all still weigh in ranking


def test_common_words_are_kept_together_when_their_overlap_fits_the_budget() -> None:
    plan = plan_query(["cover", "subrog"], STATS, budget=6000)
    assert plan.match == "'subrog' | 'cover'"
    plan = plan_query(["cover", "claim", "subrog"], STATS, budget=3000)
    # 200 expected rows for subrog, then 'cover' (5,000) does not fit; cover AND claim
    # (2,000 expected) does
    assert plan.match == "'subrog' | ('cover' & 'claim')"


def test_a_question_of_only_very_common_words_has_no_full_text_match() -> None:
    assert plan_query(["polici"], STATS, budget=1500).match == ""


def test_rarer_words_weigh_more() -> None:
    weights = plan_query(["polici", "claim", "cover", "subrog"], STATS).weights
    assert weights["subrog"] > weights["cover"] > weights["claim"] > weights["polici"] > 0


def test_lexemes_are_quoted_for_tsquery() -> None:
    assert quote("o'neil") == "'o''neil'"
    assert quote("a\\b") == "'a\\\\b'"
