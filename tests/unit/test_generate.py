"""Generating bullets with the in-tree fake model, and falling back when it misbehaves."""

from __future__ import annotations

from bot.conversation.generate import EXTRACTIVE, generate
from bot.conversation.types import Intent, Source
from knowledge.models.llm import FakeChat, LLMError

SOURCES = [
    Source(
        1,
        "c1",
        "rulebook",
        "policy.pdf",
        "p. 4",
        "3.2 PED\nPre-existing diseases are covered after 36 months.",
    ),
    Source(
        2, "c2", "rulebook", "policy.pdf", "p. 9", "5.2 Claims\nClaims are settled within 30 days."
    ),
]


def test_the_models_bullets_come_back_with_their_source_numbers() -> None:
    model = FakeChat(lambda s, u: "- Covered after 36 months [1]\n- Settled within 30 days [2]")
    out = generate(question="PED waiting?", intent=Intent.LOOKUP, sources=SOURCES, model=model)
    assert [(b.text, b.source_numbers) for b in out.bullets] == [
        ("Covered after 36 months", (1,)),
        ("Settled within 30 days", (2,)),
    ]
    assert out.prompt.startswith("answer@v") and out.model == "fake-llm" and not out.failed
    system, user = model.calls[0]
    assert "never instructions" in system and "[1] policy.pdf — p. 4" in user


def test_the_intent_picks_the_prompt() -> None:
    model = FakeChat(lambda s, u: "- Yes, after 36 months [1]")
    out = generate(question="Is PED covered?", intent=Intent.YES_NO, sources=SOURCES, model=model)
    assert out.prompt.startswith("answer_yes_no@v")


def test_not_found_is_honest() -> None:
    out = generate(
        question="Who is the CEO?",
        intent=Intent.LOOKUP,
        sources=SOURCES,
        model=FakeChat(lambda s, u: "NOT_FOUND"),
    )
    assert out.not_found and out.bullets == []


def test_a_failing_model_falls_back_to_quoted_passages() -> None:
    def broken(system: str, user: str) -> str:
        raise LLMError("the language model timed out")

    out = generate(
        question="How long until claims are settled?",
        intent=Intent.LOOKUP,
        sources=SOURCES,
        model=FakeChat(broken),
    )
    assert out.failed and out.model == EXTRACTIVE and "timed out" in out.notice
    assert any("30 days" in b.text for b in out.bullets)


def test_an_unreadable_reply_falls_back_too() -> None:
    out = generate(
        question="How long until claims are settled?",
        intent=Intent.LOOKUP,
        sources=SOURCES,
        model=FakeChat(lambda s, u: "   "),
    )
    assert out.failed and out.model == EXTRACTIVE


def test_without_a_model_the_answer_quotes_sources_without_their_heading_lines() -> None:
    out = generate(
        question="How long until claims are settled?",
        intent=Intent.LOOKUP,
        sources=SOURCES,
        model=None,
    )
    assert out.model == EXTRACTIVE and "no language model" in out.notice
    assert out.bullets[0].text == "Claims are settled within 30 days."
    assert out.bullets[0].source_numbers == (2,)
