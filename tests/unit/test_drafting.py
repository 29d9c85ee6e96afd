"""Drafts of an answer while the model writes it: the bullets the finished answer will
show, settled only once the model has moved on, and never taken back."""

from __future__ import annotations

from itertools import pairwise

from bot.conversation.drafting import Draft, Drafter
from bot.conversation.types import Bullet


def drafts_of(reply: str, *, max_source: int = 3) -> list[Draft]:
    seen: list[Draft] = []
    drafter = Drafter(seen.append, max_source=max_source)
    for piece in reply:  # a character at a time: the hardest way to receive it
        drafter(piece)
    return seen


def test_a_bullet_settles_when_the_next_one_begins_and_reads_as_the_stored_one() -> None:
    seen = drafts_of("- Claims are settled within 30 days [1].\n- Submit the form [2][7]\n")

    assert seen[0] == Draft()  # announced before any text: the model is about to write
    settled = [d.settled for d in seen]
    first = (Bullet("Claims are settled within 30 days.", (1,)),)
    assert first in settled and settled.index(first) > 0
    assert seen[-1].settled == first  # the last bullet is never settled by the drafter
    assert seen[-1].writing == "Submit the form [2]"  # [7] points at nothing: dropped
    assert all(len(a) <= len(b) for a, b in pairwise(settled))


def test_nothing_settles_before_the_list_begins_and_a_not_found_shows_nothing() -> None:
    assert all(not d.settled for d in drafts_of("Here are the facts:\nThe waiting period is"))
    assert all(not d.started for d in drafts_of("NOT_FOUND"))


def test_a_line_that_turns_out_to_be_a_heading_takes_nothing_back() -> None:
    seen = drafts_of("- Room rent is 1% [1]\n- Plan B:\n  - 2% of sum insured [1]\n- Done [2]")

    for earlier, later in pairwise(seen):
        assert later.settled[: len(earlier.settled)] == earlier.settled
    assert [b.text for b in seen[-1].settled] == ["Room rent is 1%", "Plan B: 2% of sum insured"]


def test_a_failing_sink_is_dropped_and_the_text_still_flows() -> None:
    calls: list[Draft] = []

    def broken(draft: Draft) -> None:
        calls.append(draft)
        raise RuntimeError("chat client gone")

    drafter = Drafter(broken, max_source=1)
    drafter("- a [1]\n- b")
    assert len(calls) == 1  # the announcement failed; nothing more was tried
