"""Acronym expansion, spelling fixes and rule-based follow-up condensing."""

from __future__ import annotations

import pytest

from bot.conversation.follow_ups import condense_rule_based, is_follow_up
from bot.conversation.rewrite import correct_spelling, expand_acronyms
from bot.conversation.types import Expansion, HistoryTurn
from knowledge.documents import GlossaryEntry

GLOSSARY = [
    GlossaryEntry("PED", "pre-existing disease"),
    GlossaryEntry("TPA", "third party administrator"),
    GlossaryEntry("D.C.", "day care"),
    GlossaryEntry("NCB", "no claim bonus"),
    GlossaryEntry("PA", "personal accident"),
    GlossaryEntry("PA", "pre-authorisation"),
    GlossaryEntry("Sum Insured", "the most the insurer pays in a policy year"),
    GlossaryEntry("IT", "information technology"),
]


# ---- acronyms -------------------------------------------------------------------------------


def test_acronym_is_replaced_by_its_expansion() -> None:
    text, found = expand_acronyms("Is PED covered after 36 months?", GLOSSARY)
    assert text == "Is pre-existing disease covered after 36 months?"
    assert found == [Expansion("PED", "pre-existing disease")]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Are PEDs covered?", "Are pre-existing diseases covered?"),
        ("What is the PED's waiting period?", "What is the pre-existing disease's waiting period?"),
        ("Ask the TPAs' helpdesk", "Ask the third party administrators' helpdesk"),
        ("Is P.E.D. cover optional?", "Is pre-existing disease cover optional?"),
        ("Is D.C. treatment paid?", "Is day care treatment paid?"),
        ("Which procedures count as D.C.", "Which procedures count as day care."),
        ("Does NCB reset after a claim?", "Does no claim bonus reset after a claim?"),
    ],
)
def test_acronym_forms(question: str, expected: str) -> None:
    assert expand_acronyms(question, GLOSSARY)[0] == expected


@pytest.mark.parametrize(
    "question",
    [
        "Is ped covered?",  # case-sensitive
        "Is PEDAL cover sold?",  # whole words only
        "See https://insurer.example/PED/rules for details",  # not inside URLs
        "Is pre-existing disease (PED) covered?",  # already explained
        "Is PA covered?",  # two meanings in the glossary: no guess
        "What is the Sum Insured?",  # not an acronym
    ],
)
def test_acronyms_left_alone(question: str) -> None:
    assert expand_acronyms(question, GLOSSARY) == (question, [])


def test_shouted_question_does_not_expand_stopword_acronyms() -> None:
    text, _ = expand_acronyms("IS PED COVERED FOR IT STAFF", GLOSSARY)
    assert text == "IS pre-existing disease COVERED FOR IT STAFF"


def test_each_expansion_reported_once() -> None:
    _, found = expand_acronyms("PED or PED?", GLOSSARY)
    assert found == [Expansion("PED", "pre-existing disease")]


# ---- spelling -------------------------------------------------------------------------------

VOCABULARY = [
    "hospitalisation", "cataract", "claim", "claims", "cover", "covered", "spouse", "maternity",
    "waiting", "period", "premium", "ambulance", "policy", "renewal", "deductible",
]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "expected", "fixes"),
    [
        ("hospitalisaton limit", "hospitalisation limit", [("hospitalisaton", "hospitalisation")]),
        ("Is catarct surgery paid?", "Is cataract surgery paid?", [("catarct", "cataract")]),
        ("Is my spuose included?", "Is my spouse included?", [("spuose", "spouse")]),
        ("Maternty benefit", "Maternity benefit", [("Maternty", "Maternity")]),
        ("Is an ambulnce paid?", "Is an ambulance paid?", [("ambulnce", "ambulance")]),
    ],
)
def test_obvious_misspellings_of_domain_words_are_fixed(
    question: str, expected: str, fixes: list[tuple[str, str]]
) -> None:
    text, found = correct_spelling(question, VOCABULARY, ["PED"])
    assert text == expected
    assert [(f.original, f.replacement) for f in found] == fixes
    assert all(f.kind == "spelling" for f in found)


@pytest.mark.parametrize(
    "question",
    [
        "Is the clam covered?",  # short words are never touched
        "Is PEDX covered?",  # acronym-like
        "Cataracts and claimed renewals",  # inflections of known words
        "Is coverd ok?",  # two equally close candidates: cover / covered
        "Visit www.hospitalisaton.example",  # URLs
        "Premium for policy 12345",  # numbers
        "Is physiotherapy paid?",  # unknown but nothing close in the vocabulary
        "Is the PEDs rider sold?",  # glossary term variants
    ],
)
def test_spelling_leaves_other_words_alone(question: str) -> None:
    assert correct_spelling(question, VOCABULARY, ["PED", "rider"]) == (question, [])


@pytest.mark.parametrize(
    ("question", "vocabulary"),
    [
        ("What is the claim settlement ratio?", ["radio", "claim", "settlement"]),
        ("Can I raise the remaining amount with you?", ["raised", "remaining", "amount"]),
        ("How many beds count as a hospital?", ["court", "beds", "hospital"]),
    ],
)
def test_ordinary_english_words_are_never_changed_into_document_words(
    question: str, vocabulary: list[str]
) -> None:
    assert correct_spelling(question, vocabulary, []) == (question, [])


# ---- follow-ups -----------------------------------------------------------------------------


def _history(*questions: str) -> list[HistoryTurn]:
    turns: list[HistoryTurn] = []
    for question in questions:
        turns.append(HistoryTurn("user", question))
        turns.append(HistoryTurn("assistant", "- An answer [1]"))
    return turns


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        (
            "What is the room rent limit for Plan A?",
            "and for Plan B?",
            "What is the room rent limit for Plan B?",
        ),
        (
            "What is the room rent limit for Plan A?",
            "Plan B?",
            "What is the room rent limit for Plan B?",
        ),
        (
            "What is the waiting period for pre-existing disease?",
            "what about cataract?",
            "What is the waiting period for cataract?",
        ),
        (
            "Is my wife covered under the family policy?",
            "what about her husband?",
            "Is her husband covered under the family policy?",
        ),
        (
            "Is my wife covered under the family policy?",
            "and my son?",
            "Is my son covered under the family policy?",
        ),
        (
            "Does the gold plan cover dental implants?",
            "what about braces?",
            "Does the gold plan cover braces?",
        ),
        (
            "What was the motor claim ratio in 2023 for the North zone?",
            "and in 2024?",
            "What was the motor claim ratio in 2024 for the North zone?",
        ),
        (
            "What was the motor claim ratio in 2023 for the North zone?",
            "what about the South zone?",
            "What was the motor claim ratio in 2023 for the South zone?",
        ),
        (
            "What is the waiting period for pre-existing disease?",
            "and what about the grace period for renewal?",
            "What is the grace period for renewal?",
        ),
        (
            "How do I add my newborn to the policy?",
            "and my mother?",
            "How do I add my mother to the policy?",
        ),
        (
            "What is the premium for a 45 year old?",
            "and for a 60 year old?",
            "What is the premium for a 60 year old?",
        ),
        ("Is IVF covered?", "what about in the gold plan?", "Is IVF covered in the gold plan?"),
    ],
)
def test_follow_up_swaps_the_matching_phrase(previous: str, question: str, expected: str) -> None:
    history = _history(previous)
    assert is_follow_up(question, history)
    assert condense_rule_based(question, history) == expected


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        (
            "What is the room rent limit for Plan A?",
            "how much is it?",
            "How much is the room rent limit for Plan A?",
        ),
        (
            "What is the waiting period for pre-existing disease?",
            "when does it start?",
            "When does the waiting period for pre-existing disease start?",
        ),
        (
            "What is the room rent limit for Plan A?",
            "Does it include ICU charges?",
            "Does the room rent limit for Plan A include ICU charges?",
        ),
        (
            "What is the room rent limit for Plan A?",
            "how much is it for Plan B?",
            "How much is the room rent limit for Plan B?",
        ),
        (
            "Is my wife covered under the family policy?",
            "Is she covered for maternity?",
            "Is my wife covered for maternity?",
        ),
        (
            "What is the free look period?",
            "can I cancel during it?",
            "Can I cancel during the free look period?",
        ),
        (
            "What does PED mean?",
            "how long is its waiting period?",
            "How long is PED's waiting period?",
        ),
    ],
)
def test_pronoun_gets_the_previous_subject(previous: str, question: str, expected: str) -> None:
    history = _history(previous)
    assert is_follow_up(question, history)
    assert condense_rule_based(question, history) == expected


@pytest.mark.parametrize(
    "question",
    [
        "What is the claim process for cataract surgery?",
        "Is it possible to get cashless treatment at any hospital?",
        "How long does it take to settle a reimbursement claim?",
        "If my claim is rejected, can I appeal it?",
        "Explain the free look period",
        "thanks!",
    ],
)
def test_question_with_its_own_subject_is_unchanged(question: str) -> None:
    history = _history("What is the room rent limit for Plan A?")
    assert not is_follow_up(question, history)
    assert condense_rule_based(question, history) == question


def test_no_history_means_no_follow_up() -> None:
    assert not is_follow_up("and for Plan B?", [])
    assert condense_rule_based("and for Plan B?", []) == "and for Plan B?"


def test_chained_follow_ups_carry_the_subject_through() -> None:
    history = _history("What is the room rent limit for Plan A?", "and for Plan B?")
    assert condense_rule_based("how much is it?", history) == (
        "How much is the room rent limit for Plan B?"
    )


def test_assistant_turns_are_not_taken_as_the_subject() -> None:
    history = [
        HistoryTurn("user", "What is the room rent limit for Plan A?"),
        HistoryTurn("assistant", "Is there anything else about Plan C you want to know?"),
    ]
    assert condense_rule_based("and Plan B?", history) == "What is the room rent limit for Plan B?"
