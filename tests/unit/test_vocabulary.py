"""Vocabulary packs: a company names its own statements and document kinds in a TOML file,
runs with none, and a pack it got wrong stops the start with a message saying where."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.conversation.context import relevant
from bot.conversation.focus import focus_of
from bot.conversation.search_text import search_text
from bot.settings import Settings
from bot.wiring import use_packs
from knowledge.search.naming import name_words
from knowledge.search.ranking import rerank
from knowledge.search.retrieved import Hints, Retrieved
from knowledge.search.statements import (
    measure_inputs,
    statement_weight,
    statements_asked,
    title_words,
)
from knowledge.vocabulary import (
    DEFAULT_PACKS,
    VocabularyError,
    active,
    default_vocabulary,
    load_packs,
    use_vocabulary,
)

CHARITY_PACK = """
[[statement]]
key = "activities"
names = ['statements? of activities']
measures = ['program expense ratio']
title_words = ["activities"]

[lines]
program = '^program services'
expenses = '^total expenses'

[[measure]]
asks = 'program expense ratio'
inputs = ["program", "expenses"]
"""


@pytest.fixture(autouse=True)
def _default_vocabulary_after() -> Iterator[None]:
    yield
    use_vocabulary(None)


def _settings(packs: str) -> Settings:
    """Settings as the environment gives them: KNOWBOT_PACKS is one comma-separated string."""
    return Settings.model_validate({"KNOWBOT_PACKS": packs})


def _pack(tmp_path: Path, text: str, name: str = "company.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _chunk(node: str, section: str, score: float, kind: str = "table") -> Retrieved:
    metadata = {"section": section}
    return Retrieved(node, kind, "text", "annual.pdf", "p. 1", metadata, score, None, None)


def test_default_settings_use_the_bundled_packs() -> None:
    assert Settings().packs == list(DEFAULT_PACKS)
    assert _settings("").packs == []
    assert _settings("finance, /etc/knowbot/charity.toml").packs == [
        "finance",
        "/etc/knowbot/charity.toml",
    ]


def test_a_company_pack_names_a_statement_of_its_own(tmp_path: Path) -> None:
    pack = _pack(tmp_path, CHARITY_PACK)
    question = "What were total expenses in the statement of activities for 2023?"
    discussion = _chunk("discussion", "Annual Report > Expenses", 0.49, "rulebook")
    table = _chunk("table", "Financial Statements > Consolidated Statement of Activities", 0.45)
    assert statements_asked(question) == frozenset()
    assert rerank([discussion, table], Hints(question))[0].node_id == "discussion"

    use_packs(_settings(f"finance,documents,{pack}"))

    assert statements_asked(question) == {"activities"}
    assert statements_asked("Has the program expense ratio gone down?") == {"activities"}
    assert rerank([discussion, table], Hints(question))[0].node_id == "table"
    assert title_words(frozenset({"activities"})) == ["activities"]
    inputs = measure_inputs("What is the program expense ratio?")
    assert [p.pattern for p in inputs] == ["^program services", "^total expenses"]
    # the bundled packs still apply beside it
    assert statements_asked("What were total current assets on the balance sheet?") == {"balance"}


def test_a_company_pack_adds_a_name_to_a_bundled_statement(tmp_path: Path) -> None:
    pack = _pack(tmp_path, "[[statement]]\nkey = 'income'\nnames = ['statements? of activities']\n")
    use_vocabulary(load_packs(["finance", str(pack)]))
    assert statements_asked("Per the statement of activities, what was revenue?") == {"income"}
    assert statements_asked("What does the income statement show?") == {"income"}
    assert statement_weight("Statement of Activities", frozenset({"income"})) == 1.0


def test_without_packs_the_statement_and_naming_rules_do_nothing() -> None:
    question = "What was capital expenditure, as shown in the cash flow statement?"
    assert statements_asked(question) == {"cash"}
    assert name_words("family_medicare_policy.pdf") == ("family", "medicare")

    use_packs(_settings(""))

    assert active().statements == ()
    assert statements_asked(question) == frozenset()
    assert statements_asked("Has the quick ratio improved?") == frozenset()
    assert measure_inputs("Has the quick ratio improved?") == ()
    section = "Item 8 Financial Statements > Consolidated Statements of Cash Flows"
    assert statement_weight(section, frozenset({"cash"})) == 0.0
    mda = _chunk("mda", "Item 7 > Cash Flows from Investing Activities", 0.5)
    cash = _chunk("cash", section, 0.45)
    assert [c.node_id for c in rerank([mda, cash], Hints(question))] == ["mda", "cash"]
    assert name_words("family_medicare_policy.pdf") == ("family", "medicare", "policy")
    assert name_words("family_medicare_final_2023.pdf") == ("family", "medicare")


def test_the_bundled_packs_are_the_default_vocabulary() -> None:
    assert active() is default_vocabulary()
    assert {s.key for s in active().statements} == {
        "balance",
        "income",
        "comprehensive",
        "cash",
        "equity",
    }
    assert "10k" in active().document_kind_words


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[[statement]\nkey = 'x'\n", "not valid TOML"),
        ("[[statement]]\nkey = 'x'\nnames = ['x']\nnmaes = ['y']\n", "unknown key 'nmaes'"),
        ("[[statement]]\nkey = 'x'\nnames = ['statements? of (activities']\n", "not a regular"),
        ("[[statement]]\nkey = 'x'\n", "needs `names`"),
        ("[[measure]]\nasks = 'ratio'\ninputs = ['cash']\n", "not in this pack's [lines]"),
        ("[document_names]\nkind_words = 'policy'\n", "must be a list of strings"),
        ("[glossary]\nx = 1\n", "unknown key 'glossary'"),
        ("[acronyms]\nPPE = 1\n", "[acronyms] PPE: must be its expansion"),
    ],
)
def test_a_bad_pack_stops_the_start_saying_where_and_what_to_do(
    tmp_path: Path, text: str, says: str
) -> None:
    pack = _pack(tmp_path, text, "broken.toml")
    with pytest.raises(VocabularyError) as caught:
        use_packs(_settings(f"finance,{pack}"))
    message = str(caught.value)
    assert str(pack) in message and says in message
    assert active() is default_vocabulary()  # nothing half-loaded was put in use


def test_a_bad_pattern_names_its_statement_and_the_fix(tmp_path: Path) -> None:
    pack = _pack(tmp_path, "[[statement]]\nkey = 'activities'\nnames = ['of (activities']\n")
    with pytest.raises(VocabularyError) as caught:
        load_packs([str(pack)])
    message = str(caught.value)
    assert "[[statement]] 'activities' names" in message
    assert "'of (activities'" in message and "fix it" in message


def test_an_unknown_pack_name_lists_the_bundled_ones() -> None:
    with pytest.raises(VocabularyError, match=r"'legal' is not bundled.*finance"):
        load_packs(["legal"])
    with pytest.raises(VocabularyError, match="no such file"):
        load_packs(["/nowhere/company.toml"])


def test_question_frame_words_come_from_the_packs(tmp_path: Path) -> None:
    """ "Policy" frames a question about a rulebook ("How does the policy define a
    'Hospital'?") and is no topic: with the bundled packs the definition of a hospital names
    everything asked about and is kept as context, however far down the searches ranked
    it. A company whose documents are about policies (no pack naming the word a frame
    word) keeps it as a topic, which the definition does not name; its own pack can add
    frame words."""
    question = "How does the policy define a 'Hospital'?"
    hospital = Retrieved(
        "hospital", "rulebook", "Hospital means any institution with at least ten beds.",
        "wording.pdf", "p. 4", {"section": "2.22 Hospital"}, 0.2, 30, None,
        dense_similarity=0.3,
    )  # fmt: skip

    def kept() -> bool:
        return [c.node_id for c in relevant([hospital], question)] == ["hospital"]

    assert kept()

    use_packs(_settings(""))
    assert not kept()

    pack = _pack(tmp_path, '[questions]\nframe_words = ["policy"]\n')
    use_packs(_settings(str(pack)))
    assert kept()


def test_the_kind_of_answer_a_question_wants_comes_from_the_packs(tmp_path: Path) -> None:
    """A "grace period" question asks how long and is about grace (insurance pack); a
    company's own pack teaches "probation period"; with no pack neither is read as a
    duration, and "revenue" (finance pack) no longer asks for an amount."""
    grace = "What is the grace period for renewal?"
    assert focus_of(grace).wants == "duration"
    assert focus_of("What was revenue in 2022?").wants == "money"
    assert focus_of("What is the probation period for new staff?").wants == ""

    pack = _pack(tmp_path, '[questions]\nperiod_kinds = ["probation"]\n')
    use_packs(_settings(str(pack)))
    assert focus_of("What is the probation period for new staff?").wants == "duration"
    assert focus_of(grace).wants == ""
    assert focus_of("What was revenue in 2022?").wants == ""


def test_which_things_a_question_asks_to_list_comes_from_the_packs(tmp_path: Path) -> None:
    """ "Which diseases ..." asks for a list (insurance pack), so a quoted answer may give the
    whole list; a company's pack teaches "Which allowances ..."; without a pack naming them
    neither asks for one, while "list" and "which documents" always do."""
    diseases = "Which diseases are excluded in the first year?"
    allowances = "Which allowances are paid during relocation?"
    assert focus_of(diseases).listing
    assert not focus_of(allowances).listing

    use_packs(_settings(str(_pack(tmp_path, '[questions]\nlist_nouns = ["allowances"]\n'))))
    assert focus_of(allowances).listing
    assert not focus_of(diseases).listing
    assert focus_of("Which documents are needed for a claim?").listing
    assert focus_of("List the exclusions.").listing


def test_an_instruction_keeps_the_document_part_the_finance_pack_names() -> None:
    question = "What is the FY2022 capex? Answer using the details in the cash flow statement."
    assert search_text(question).endswith("cash flow statement")
    use_packs(_settings("documents"))
    assert "cash flow" not in search_text(question)
