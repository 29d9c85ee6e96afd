"""The verified-answer match rule, the fitted rule per model, and reading import files."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.conversation.verified import (
    Candidate,
    MatchRule,
    VerifiedAnswer,
    VerifiedSource,
    choose,
    fitted_rule,
)
from bot.conversation.verified_reply import paragraphs
from bot.verified.entries import EntryError, read_entries

RULE = MatchRule(question_weight=0.8, min_score=0.7, min_margin=0.05)


def candidate(n: int, question: float, answer: float) -> Candidate:
    verified = VerifiedAnswer(n, "default", f"q{n}", f"a{n}", "Ana", datetime.now(UTC))
    return Candidate(verified, question, answer)


def test_the_clear_best_is_served_and_a_weak_or_tied_best_is_not() -> None:
    chosen = choose([candidate(1, 0.6, 0.5), candidate(2, 0.9, 0.7)], RULE)
    assert chosen is not None and chosen.answer.id == 2
    assert choose([candidate(1, 0.72, 0.4)], RULE) is None  # 0.656 < 0.7
    assert choose([candidate(1, 0.90, 0.7), candidate(2, 0.89, 0.7)], RULE) is None
    assert choose([], RULE) is None


def test_the_answer_votes_between_two_equally_close_questions() -> None:
    rule = MatchRule(question_weight=0.5, min_score=0.5, min_margin=0.05)
    chosen = choose([candidate(1, 0.9, 0.3), candidate(2, 0.9, 0.6)], rule)
    assert chosen is not None and chosen.answer.id == 2


def test_a_rule_is_fitted_for_the_bundled_model_only() -> None:
    rule = fitted_rule("all-MiniLM-L6-v2")
    assert rule is not None and 0 < rule.question_weight < 1 and rule.min_margin > 0
    assert fitted_rule("some-other-model") is None
    assert fitted_rule("some-other-model", min_score=0.8) == MatchRule(0.5, 0.8, 0.0)
    overridden = fitted_rule("all-MiniLM-L6-v2", min_score=0.99)
    assert overridden is not None and overridden.min_score == 0.99


def test_sources_may_be_links_titles_or_objects() -> None:
    assert VerifiedSource.from_json("https://x.example/a").url == "https://x.example/a"
    assert VerifiedSource.from_json("Leave policy §3").url == ""
    full = VerifiedSource.from_json({"title": "HR", "source_id": "12", "chunk_id": "c1"})
    assert full.source_id == 12 and full.as_json() == {
        "title": "HR",
        "source_id": 12,
        "chunk_id": "c1",
    }
    with pytest.raises(ValueError):
        VerifiedSource.from_json(3)


def test_every_bad_line_is_named_and_nothing_is_returned(tmp_path: Path) -> None:
    path = tmp_path / "v.jsonl"
    good = {"question": "Q?", "answer": "A.", "author": "Ana"}
    path.write_text(
        "\n".join(
            [
                json.dumps(good),
                "",
                json.dumps({"question": "Q?", "author": "Ana"}),
                "{not json",
                json.dumps({**good, "scope": "no spaces allowed"}),
                json.dumps({**good, "sources": "https://x"}),
            ]
        )
    )
    with pytest.raises(EntryError) as raised:
        read_entries(path)
    message = str(raised.value)
    assert "nothing imported, 4 bad line(s)" in message
    for expected in ("line 3: no answer", "line 4: not JSON", "line 5: scope", "line 6"):
        assert expected in message
    assert "line 1" not in message


def test_a_good_file_reads_with_default_scope(tmp_path: Path) -> None:
    path = tmp_path / "v.jsonl"
    path.write_text(json.dumps({"question": " Q? ", "answer": "A.", "author": "Ana"}) + "\n")
    (entry,) = read_entries(path)
    assert (entry.question, entry.scope, entry.sources) == ("Q?", "default", ())
    with pytest.raises(EntryError, match="not a file"):
        read_entries(tmp_path / "missing.jsonl")


def test_an_answer_in_paragraphs_becomes_bullets() -> None:
    assert paragraphs("First part\ncontinues.\n\nSecond part.") == [
        "First part continues.",
        "Second part.",
    ]
