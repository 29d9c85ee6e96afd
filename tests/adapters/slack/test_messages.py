"""How answers look in Slack and how Slack's markup reads as a question (no server needed)."""

from __future__ import annotations

import json

import pytest

from bot.adapters.slack.blocks import (
    BODY_CHARS,
    CONTEXT_ELEMENTS,
    MAX_BLOCKS,
    SECTION_CHARS,
    SHORTENED,
    answer_message,
)
from bot.adapters.slack.events import plain_text, question_from
from bot.conversation.types import (
    Answer,
    Bullet,
    CheckScores,
    Confidence,
    Intent,
    Source,
    ThreadRef,
)
from tests.adapters.slack.payloads import mention, message


def an_answer(bullets: list[Bullet], sources: list[Source], **extra: object) -> Answer:
    values: dict[str, object] = dict(
        id=1,
        thread=ThreadRef("slack", "T", "C", "1.0"),
        question="what is PED?",
        rewritten_question="what is PED?",
        expansions=(),
        intent=Intent.LOOKUP,
        bullets=tuple(bullets),
        sources=tuple(sources),
        confidence=Confidence.MEDIUM,
        scores=CheckScores(1, 1, 1, 0, 1, 0),
        prompt="answer@v1",
        model="extractive",
        timings_ms={},
    )
    values.update(extra)
    return Answer(**values)  # type: ignore[arg-type]


def source(n: int) -> Source:
    return Source(n, f"c{n}", "document", f"policy-{n}.pdf", f"page {n}, section 3.{n}", "text")


def texts(blocks: list[dict[str, object]]) -> list[str]:
    found = []
    for block in blocks:
        if block["type"] == "section":
            found.append(block["text"]["text"])  # type: ignore[index]
        elif block["type"] == "context":
            found.extend(e["text"] for e in block["elements"])  # type: ignore[attr-defined]
    return found


def test_a_very_long_answer_stays_inside_slacks_limits_and_says_it_was_shortened() -> None:
    bullets = [Bullet("x" * 700 + f" point {n}", (n % 12 + 1,)) for n in range(200)]
    answer = an_answer(bullets, [source(n) for n in range(1, 13)], notice="n" * 5000)

    message = answer_message(answer, rate_hint="React :+1: or :-1: to rate this answer")

    assert len(message.blocks) <= MAX_BLOCKS
    sections = [b for b in message.blocks if b["type"] == "section"]
    assert all(len(b["text"]["text"]) <= SECTION_CHARS for b in sections)
    assert sum(len(b["text"]["text"]) for b in sections) <= BODY_CHARS
    assert all(len(b["elements"]) <= CONTEXT_ELEMENTS for b in message.blocks if "elements" in b)
    assert SHORTENED in texts(message.blocks)
    assert len(message.text) <= 3000 and message.text.startswith("• xxx")
    assert len(json.dumps(message.blocks)) < 40_000


def test_twelve_sources_all_show_within_ten_context_elements() -> None:
    sources = [source(n) for n in range(1, 13)]
    answer = an_answer([Bullet("Covered after 36 months", (12,))], sources)

    shown = "\n".join(texts(answer_message(answer).blocks))

    assert all(f"*[{n}]* policy-{n}.pdf — page {n}, section 3.{n}" in shown for n in range(1, 13))


def test_knowledge_text_cannot_ping_the_channel_or_inject_links() -> None:
    answer = an_answer([Bullet("Ask <!channel> at <https://evil.example|HR> & co", (1,))], [])

    message = answer_message(answer)

    assert "<!channel>" not in json.dumps(message.blocks) + message.text
    assert "&lt;!channel&gt;" in texts(message.blocks)[0] and "&amp; co" in message.text


def test_the_searched_for_line_appears_only_when_the_question_was_rewritten() -> None:
    same = an_answer([Bullet("a", (1,))], [source(1)])
    rewritten = an_answer(
        [Bullet("a", (1,))], [source(1)], rewritten_question="what is pre-existing disease?"
    )

    assert not any("Searched for" in t for t in texts(answer_message(same).blocks))
    assert texts(answer_message(rewritten).blocks)[0] == (
        "_Searched for: what is pre-existing disease?_"
    )


def test_slack_markup_reads_as_the_user_typed_it() -> None:
    raw = (
        "<@U0BOT> is <https://intranet/ped|the PED rule> &amp; <#C0HR|hr> ok for "
        "<@U0ALICE>? &lt;3 <!here>"
    )

    assert plain_text(raw, bot_user_id="U0BOT") == (
        "is the PED rule & #hr ok for @U0ALICE? <3 @here"
    )


@pytest.mark.parametrize(
    ("text", "forget"),
    [
        ("forget this thread", True),
        ("Please forget this conversation!", True),
        ("<@U0BOT> forget the thread.", True),
        ("how do I forget this thread's password?", False),
        ("forget", False),
    ],
)
def test_the_forget_phrase_is_recognised_only_as_a_whole_message(text: str, forget: bool) -> None:
    question = question_from(message(text), bot_user_id="U0BOT")
    assert question is not None and question.is_forget is forget


def test_a_mention_in_a_thread_keeps_its_thread_and_a_top_level_one_starts_one() -> None:
    top = question_from(mention("hi"), bot_user_id="U0BOT")
    in_thread = question_from(mention("hi", thread_ts="1700000000.000001"), bot_user_id="U0BOT")

    assert top is not None and in_thread is not None
    assert top.reply_thread == top.ts and top.ref.thread == top.ts
    assert in_thread.reply_thread == "1700000000.000001" and in_thread.is_reply
