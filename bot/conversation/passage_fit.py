"""How one passage fits a question's focus, as the quoted answer weighs it: the quantity,
range, phrase, or financial-statement line the question asks for."""

from __future__ import annotations

from bot.conversation.focus import WANTED_KINDS, Focus, states_loosely, word_pairs
from bot.conversation.passages import Passage
from bot.conversation.quantities import quantities
from bot.conversation.text import content_words
from knowledge.search.statements import measure_inputs, statement_weight, statements_asked


def quantity_bonus(p: Passage, focus: Focus) -> float:
    if not focus.wants:
        return 0.0
    return 0.2 if states_wanted(p, focus) else -0.05


def phrase_bonus(p: Passage, focus: Focus) -> float:
    """The question's phrases found as phrases; a table row whose label is the thing
    asked about ("Sum insured | ..." for "what sum insured options") most of all."""
    bonus = 0.1 * min(2, len(focus.pairs & word_pairs(p.text)))
    label = set(content_words(p.label))
    if label and focus.asked and label <= focus.asked:
        bonus += 0.2
    return bonus


def statement_bonus(p: Passage, focus: Focus) -> float:
    """The question points to a financial statement ("... shown in the cash flow
    statement", "has the quick ratio improved?"): its lines answer before a discussion of
    the same figures elsewhere."""
    if p.kind != "row":
        return 0.0  # a statement is a table; "Balance Sheet" over a page of discussion is not
    return 0.3 * statement_weight(p.path, statements_asked(focus.question))


def input_of(p: Passage, focus: Focus) -> int | None:
    """Which of the lines the measure asked about is computed from this row is ("Total
    current liabilities" for the quick ratio), by its place in the measure's inputs."""
    if p.kind != "row":
        return None
    inputs = measure_inputs(focus.question)
    return next((i for i, pattern in enumerate(inputs) if pattern.search(p.label)), None)


def states_inputs(p: Passage, focus: Focus) -> bool:
    """A table line states an amount a computed quantity is worked out from: "What was
    the percentage change in inventories?" is answered by the inventories of each year
    when no line states the change."""
    return (
        focus.computed
        and p.kind == "row"
        and any(not q.is_year and q.kind in ("money", "number") for q in quantities(p.text))
    )


def states_wanted(p: Passage, focus: Focus) -> bool:
    """The passage (a list item read with its lead-in: "Two years waiting period:
    Hernia") states the kind of quantity asked for; a bare small number ("5 beds") or a
    year is no amount, a bare large one ("15,000" in a table of limits) is."""
    if not focus.wants:
        return True
    wanted = WANTED_KINDS[focus.wants]
    for q in quantities(p.shown() if p.kind == "item" else p.text):
        if q.is_year or (q.kind == "number" and focus.wants == "money" and q.value < 100):
            continue  # "In October 2021" states no amount
        if q.kind in wanted:
            return True
    return states_loosely(p.text, focus)
