"""Rule-based intent classification and parsing an LLM's intent label."""

from __future__ import annotations

import pytest

from bot.conversation.intent import INTENT_DESCRIPTIONS, classify_intent, parse_intent_label
from bot.conversation.types import Intent


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("What is the room rent limit for Plan B?", Intent.LOOKUP),
        ("What does co-payment mean?", Intent.LOOKUP),
        ("How much is the premium for a 45 year old?", Intent.LOOKUP),
        ("What is a top-up plan?", Intent.LOOKUP),
        ("What is the maximum sum insured?", Intent.LOOKUP),
        ("Is cataract surgery covered in the first year?", Intent.YES_NO),
        ("Am I eligible for the senior citizen discount?", Intent.YES_NO),
        ("Is the cataract procedure covered?", Intent.YES_NO),
        ("Is my mom covered?", Intent.YES_NO),
        ("How do I file a cashless claim?", Intent.HOW_TO),
        ("What is the procedure to port my policy?", Intent.HOW_TO),
        ("Can you tell me how to add my newborn?", Intent.HOW_TO),
        ("What is the best way to renew online?", Intent.HOW_TO),
        ("Compare the silver and gold plans", Intent.COMPARE),
        ("Silver vs gold room rent", Intent.COMPARE),
        ("What is the difference between co-pay and deductible?", Intent.COMPARE),
        ("How does the gold plan compare with silver?", Intent.COMPARE),
        ("Which branch had the highest claim ratio?", Intent.RANK),
        ("Top 5 agents by new premium", Intent.RANK),
        ("Which plan has the maximum room rent?", Intent.RANK),
        ("How have motor claims changed over the last three years?", Intent.TREND),
        ("Did renewals decline in 2024?", Intent.TREND),
        ("Show premium growth year over year", Intent.TREND),
        ("Why was my claim rejected?", Intent.WHY),
        ("Why did the claim ratio rise in Q3?", Intent.WHY),
        ("What caused the drop in renewals?", Intent.WHY),
        ("Summarise the exclusions section", Intent.SUMMARISE),
        ("Give me an overview of the family floater", Intent.SUMMARISE),
        ("Summarise why claims were rejected last year", Intent.SUMMARISE),
    ],
)
def test_classify_intent(question: str, intent: Intent) -> None:
    assert classify_intent(question) == intent


def test_every_intent_has_a_one_line_description() -> None:
    assert set(INTENT_DESCRIPTIONS) == set(Intent)
    assert all(d and "\n" not in d for d in INTENT_DESCRIPTIONS.values())


@pytest.mark.parametrize(
    ("reply", "intent"),
    [
        ("compare", Intent.COMPARE),
        ("Intent: yes_no", Intent.YES_NO),
        ('{"intent": "rank"}', Intent.RANK),
        ("YES/NO", Intent.YES_NO),
        ("The intent is **how-to** because the user asks for steps.", Intent.HOW_TO),
        ("summary.", Intent.SUMMARISE),
        ("`trend`", Intent.TREND),
        ("Lookup\n", Intent.LOOKUP),
        ("definition", Intent.LOOKUP),
        ("why", Intent.WHY),
    ],
)
def test_parse_intent_label(reply: str, intent: Intent) -> None:
    assert parse_intent_label(reply) == intent


@pytest.mark.parametrize("reply", ["", "I am not sure.", "unknown", "category: other"])
def test_parse_intent_label_unknown(reply: str) -> None:
    assert parse_intent_label(reply) is None
