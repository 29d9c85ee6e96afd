"""The budget: shares per kind of source when kinds compete; what one kind leaves unused
goes to the rest, up to the widest share."""

from __future__ import annotations

from knowledge.search.budget import Budget, apply_budget
from knowledge.search.retrieved import Retrieved

DATA = Budget(per_group={"documents": 3, "rows": 8, "faq": 1}, total=10)


def _chunk(n: int, kind: str) -> Retrieved:
    return Retrieved(f"{kind}-{n}", kind, f"text {n}", "doc", "p. 1", {}, 1.0 - n / 100, None, None)


def test_a_documents_only_scope_gets_the_widest_share_for_a_data_question() -> None:
    ranked = [_chunk(n, "rulebook") for n in range(15)]
    kept = apply_budget(ranked, DATA)  # rows' share (8) is the widest: not 3, not all 10
    assert [c.node_id for c in kept] == [f"rulebook-{n}" for n in range(8)]


def test_shares_hold_when_kinds_compete_and_rank_order_is_kept() -> None:
    ranked = [_chunk(n, "rulebook") for n in range(5)] + [_chunk(n, "row") for n in range(5, 20)]
    kept = apply_budget(ranked, DATA)
    documents = [c for c in kept if c.kind == "rulebook"]
    assert len(kept) == 10 and len(documents) == 3  # the share, and no more
    assert kept == sorted(kept, key=lambda c: -c.score)


def test_spare_room_goes_to_the_best_of_the_rest_in_rank_order() -> None:
    ranked = [_chunk(0, "row"), *(_chunk(n, "rulebook") for n in range(1, 6)), _chunk(6, "faq")]
    kept = apply_budget(ranked, DATA)
    assert [c.node_id for c in kept] == [c.node_id for c in ranked]
