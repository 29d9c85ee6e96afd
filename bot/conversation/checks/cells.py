"""A figure taken from a table is named with its own row and column.

Table blocks hold one cell per line ("Kenya Debt (5) | Interest Rate | 8.00%"). A claim
that states a cell's figure but dates it with another column's year ("Europe was 1,280 in
2019" beside "Europe | 2018 | 1,280"), names another column ("Interest Rate was 29.6"
where 29.6 is the carrying value) or another row's label, has moved the figure: the
number is in the block, but it does not say that.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from bot.conversation.checks.claims import Claim
from bot.conversation.checks.numbers import NOTED_SCALES, derived, in_units, table_scale
from bot.conversation.checks.trends import DOWN, NOT_A_CHANGE, UP
from bot.conversation.entities import contains_phrase
from bot.conversation.periods import years_in
from bot.conversation.quantities import (
    MONTH,
    SMALL_NUMBER_WORDS,
    Quantity,
    merged,
    quantities,
    spelled_numbers,
)
from bot.conversation.text import content_words, framing_words
from bot.conversation.types import Bullet, Source

# Where one figure's statement ends and the next one's begins inside a sentence:
# "231,619 in 2018, lower than 224,312 in 2019", "from 173.6 in 2018 to 176.4 in 2019";
# not before a small number bounding a band ("due in less than one year", "1 to 3 years").
_SMALL = rf"(?:\d{{1,2}}(?![\d,.])|{'|'.join(SMALL_NUMBER_WORDS)})"
_SEGMENT = re.compile(
    rf"[,;]\s|\b(?:and|than|from|to|versus|vs|against|compared (?:to|with))\b(?!\s+{_SMALL}\b)",
    re.IGNORECASE,
)
# The comma of a date ("December 31, 2018") is no cut: the year dates what stands before.
_DATE_COMMA = re.compile(rf"(?i)\b{MONTH} \d{{1,2}},(?= (?:19|20)\d\d\b)")
_FIGURE = re.compile(r"\(?[-–]?\s?[$€£₹]?\s?\d[\d,]*(?:\.\d+)?\s?%?\)?(?<!(?:19|20)\d\d)")
_CHANGE_CUE = re.compile(
    r"\b(?:increase|decrease|change|difference|rise|fall|gain|loss|growth|decline|up|down"
    r"|more|less|higher|lower|total|sum|combined|together|net)\w*\b",
    re.IGNORECASE,
)
_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)
# A small number standing alone: a bound of a header's band ("1-3 Years", "Level 2"), not
# part of a figure ("22,919", "8.00%") nor a footnote marker ("(1)").
_SMALL_NUMBER = re.compile(r"(?<![\d,.$(])\b\d{1,2}\b(?![\d,.%])|(?<=\()\d{1,2}\b(?![\d,.%)])")


# A header's note of units names no column: "2018 Amount (In thousands, except percentages)".
_UNITS_NOTE = re.compile(rf"\((?:[$€£]\s*)?(?:amounts?\s+)?in\s+(?:{NOTED_SCALES})\b[^()]*\)", re.I)


@dataclass(frozen=True)
class Cell:
    label: str
    column: str  # the column's header, a bare year completed by the header before it
    value: tuple[Quantity, ...]
    years: frozenset[int]
    label_words: frozenset[str]
    column_words: frozenset[str]


def cells_hold(claim: Claim) -> bool:
    """Every figure of `claim` that is some cited cell's value fits one such cell: the
    claim's year for it (when it gives one) is the cell's, and no other row label or
    column header of the table is named by the claim more fully than this cell's. A
    figure computed from the claim's others ("an increase of 0.3") is not a cell's."""
    table = [c for source in claim.cited for c in table_cells(source.text)]
    if not table:
        return True
    figures = [q for q in merged(quantities(claim.text)) if not q.is_year]
    for figure in figures:
        if _computed(figure, figures, claim.text):
            continue
        holding = [c for c in table if any(figure.matches(v) for v in c.value)]
        if holding and not any(_fits(c, table, figure, claim.text) for c in holding):
            return False
    return True


def _computed(figure: Quantity, figures: list[Quantity], text: str) -> bool:
    """ "an increase of 0.3" after "from 1.8 to 2.1": a change or total the claim works out
    from its other figures, named as one."""
    others = [q for q in figures if q is not figure]
    return bool(_CHANGE_CUE.search(_stretch(figure, text))) and derived(figure, others, text)


def _fits(cell: Cell, table: list[Cell], figure: Quantity, text: str) -> bool:
    years = _years_for(figure, text)
    if years and cell.years and not years & cell.years:
        return False
    near = _words(_stretch(figure, text))
    said = near if _names_any(near, table) else _words(text[: figure.end])
    labels = {c.label_words for c in table}
    columns = {c.column_words for c in table}
    quoted = contains_phrase(text, cell.label)  # a label cut by its own "and" is named whole
    as_row = said - cell.column_words | (_PERCENT if figure.kind == "percent" else frozenset())
    by_year = not cell.column_words and years & cell.years  # a bare year column, named
    return (quoted or _best(cell.label_words, labels, as_row)) and bool(
        by_year or _best(cell.column_words, columns, said - cell.label_words)
    )


# "53% of total net revenues" names the row "Percentage of total net revenues".
_PERCENT = frozenset(content_words("percent percentage"))


def _words(text: str) -> frozenset[str]:
    """Content words, with the small numbers the text writes in figures or words: "due in
    less than one year" names the column "Less than 1 Year", not "1-3 Years"."""
    return frozenset(content_words(text)) - framing_words() | _small_numbers(text)


def _small_numbers(text: str) -> frozenset[str]:
    found = {int(m.group(0)) for m in _SMALL_NUMBER.finditer(text)} | spelled_numbers(text)
    return frozenset(f"#{n}" for n in found if n < 100)


def _names_any(words: frozenset[str], table: list[Cell]) -> bool:
    return any(words & (c.label_words | c.column_words) for c in table)


def _best(mine: frozenset[str], every: set[frozenset[str]], said: frozenset[str]) -> bool:
    """No other label (or header) is named more fully than this one: "Other payables"
    names the row "Other payables" fully and "Trade payables" by half."""
    named = frozenset().union(*every) & said

    def fit(words: frozenset[str]) -> tuple[float, int]:
        return _named(words, said), -len(named - words)

    top = max((fit(words) for words in every), default=(0.0, 0))
    return top[0] == 0.0 or fit(mine) >= top


def _named(words: frozenset[str], said: frozenset[str]) -> float:
    return len(words & said) / len(words) if words else 0.0


def _stretch(figure: Quantity, text: str) -> str:
    """The part of the sentence that states `figure`, between the cuts around it. A cut
    before the sentence's first figure starts no other figure's statement: "Provisions
    added to the reserve were $13.7 million" names provisions."""
    cuts = _SEGMENT.finditer(_DATE_COMMA.sub(lambda m: m.group(0).replace(",", " "), text))
    first = min((q.start for q in merged(quantities(text)) if not q.is_year), default=0)
    start, stop = 0, len(text)
    for cut in cuts:
        if first <= cut.start() and cut.end() <= figure.start:
            start = cut.end()
        elif cut.start() >= figure.end:
            stop = cut.start()
            break
    return text[start:stop]


def _years_for(figure: Quantity, text: str, *, own_only: bool = False) -> frozenset[int]:
    """The years the claim gives this figure: those in its own stretch of the sentence,
    else the year before every year the claim names when the stretch says "a year
    earlier" or "the prior year", else (or with "respectively") every year it names."""
    for bracket in _COMPARATIVE.finditer(text):
        if bracket.start() <= figure.start and figure.end <= bracket.end():
            return years_in(bracket.group(0))  # "(2018 $10.6 million)": that year's figure
    text = _COMPARATIVE.sub(lambda m: " " * len(m.group(0)), text)
    everywhere = years_in(text)
    if _RESPECTIVELY.search(text):
        return _in_turn(figure, text) or (frozenset() if own_only else everywhere)
    stretch = _stretch(figure, text)
    own = years_in(stretch)
    if not own and _YEAR_BEFORE.search(stretch):  # "down from $33.6 million a year earlier"
        return frozenset(year - 1 for year in everywhere)
    return own if own or own_only else everywhere


def _in_turn(figure: Quantity, text: str) -> frozenset[int]:
    """The year a "respectively" list gives the figure: "For fiscal 2019, 2018, and 2017,
    ... $49.1 million, $34.9 million, and $33.6 million, respectively" dates $33.6
    million to 2017. None unless there are as many figures as years, all years differ."""
    years = [int(y) for y in _YEAR_WRITTEN.findall(text)]
    figures = [q for q in merged(quantities(text)) if not q.is_year]
    if len(years) < 2 or len(set(years)) != len(years) or len(figures) != len(years):
        return frozenset()
    place = [i for i, q in enumerate(figures) if q.start == figure.start]
    return frozenset({years[place[0]]}) if place else frozenset()


_YEAR_WRITTEN = re.compile(r"\b(?:19|20)\d\d\b")
# A comparative figure in brackets, as annual reports give the prior year's beside the
# current one: "$11.9 million was broadly consistent with the prior year (2018 $10.6
# million)" dates $10.6 million, not $11.9 million, to 2018.
_COMPARATIVE = re.compile(r"\((?:FY\s?)?(?:19|20)\d\d:?\s+[$€£₹]?\s?\d[^()]*\)")
_YEAR_BEFORE = re.compile(
    r"(?i)\b(?:(?:a|one|the) year (?:earlier|before|prior)|(?:the )?(?:prior|previous|preceding)"
    r"[ -]year|last year)\b"
)


def dated_as_written(claim: str, written: str) -> bool:
    """A figure the claim dates is dated the same way where its passage states it:
    "51.3% of revenues in 2018" beside "51.3% of our revenues in 2019"."""
    found = merged(quantities(written))
    for figure in merged(quantities(claim)):
        said = _years_for(figure, claim, own_only=True)
        if figure.is_year or not said:
            continue
        there = [q for q in found if figure.matches(q)]
        if there and all(
            not said & _years_for(q, written) and _years_for(q, written) for q in there
        ):
            return False
    return True


# "... the Americas, EMEA and Asia Pacific contributed 40%, 33% and 27%, respectively":
# the figures listed before "respectively", and the text that lists their items.
_LISTED = re.compile(
    r"(?P<before>[^.;]*?)\s(?P<figures>[^\s,]+(?:,\s+[^\s,]+)*,?\s+and\s+[^\s,]+),?\s+"
    r"respectively",
    re.IGNORECASE,
)


def paired_as_written(claim: str, written: str) -> bool:
    """An item of a "respectively" list keeps its own figure: "EMEA contributed 27%" is
    wrong beside "the Americas, EMEA and Asia Pacific contributed 40%, 33% and 27%,
    respectively"."""
    if not _RESPECTIVELY.search(written):
        return True
    mine = [q for q in merged(quantities(claim)) if not q.is_year]
    for m in _LISTED.finditer(written):
        figures = [q for q in merged(quantities(m.group("figures"))) if not q.is_year]
        items = _items(m.group("before"), len(figures))
        if len(figures) < 2 or not items:
            continue
        named = [i for i, item in enumerate(items) if item in content_words(claim)]
        if len(named) != 1:
            continue
        own = figures[named[0]]
        if any(q.matches(f) for q in mine for f in figures) and not any(
            q.matches(own) for q in mine
        ):
            return False
    return True


def _items(text: str, n: int) -> list[str]:
    """The first word of each of the last `n` items listed in `text` ("the Americas, EMEA
    and Asia Pacific regions": america, emea, asia), or none when the list is not
    there."""
    parts = re.split(r",\s+(?:and\s+)?|\s+and\s+", text)
    if len(parts) < n:
        return []
    firsts = [next(iter(content_words(p)), "") for p in parts[-n:]]
    if not all(w.isalpha() for w in firsts) or len(set(firsts)) < n:
        return []
    return firsts


@lru_cache(maxsize=256)
def table_cells(text: str) -> tuple[Cell, ...]:
    """A table block's cells in order. A bare year column ("2018") after a titled one
    ("Carrying Value (USD) 2019") belongs to the same header group, as does one that
    repeats only some of its words ("2018 Amount" after "Fiscal years ended July 31, 2019
    Amount"). Cached: each claim and each bullet citing a block reads its cells."""
    out: list[Cell] = []
    previous: Cell | None = None
    scale = table_scale(text)
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(" | ")]
        if len(parts) < 3 or "columns:" in line:
            continue
        label, column, value = parts[0], " ".join(parts[1:-1]), parts[-1]
        if any(_FIGURE.fullmatch(part) for part in parts[1:-1]):
            continue  # a row of figures ("Revenue | 1,200 | 1,100"), not one cell
        years = years_in(f"{label} {column}")
        # as a claim's words are read ("Less than 1 Year" is {year, #1}), less a units note
        words = _words(_UNITS_NOTE.sub(" ", column))
        if (
            previous is not None
            and previous.label == label
            and previous.years
            and words < previous.column_words  # "2018 Amount" after "..., 2019 Amount"
        ):
            words = previous.column_words
        cell = Cell(
            label,
            column,
            tuple(in_units(merged(quantities(value)), scale)),
            years,
            frozenset(content_words(label)),
            words,
        )
        out.append(cell)
        previous = cell
    return tuple(out)


# A level reached, with the direction it was reached from: "climbed to 34%", "fell to 5.1".
_REACHED = re.compile(rf"(?P<cue>{UP.pattern}|{DOWN.pattern})\s+to\s+(?P<level>[^,;]+)", re.I)


def levels_agree(bullets: Sequence[Bullet], sources: Sequence[Source]) -> bool:
    """Each level a bullet says was reached by a rise or a fall ("climbed to 34%") is
    one its cited table line reached that way from the year before."""
    return all(_level_agrees(b, sources) for b in bullets)


def _level_agrees(bullet: Bullet, sources: Sequence[Source]) -> bool:
    """A level said to be reached by a rise (or a fall) is one its table line reached so:
    "climbed to 34% in 2019" beside a line that was 34% in 2018 too is not a rise."""
    cited = [s for s in sources if s.number in bullet.source_numbers]
    table = [c for s in cited for c in table_cells(s.text)]
    if not table:
        return True
    text = NOT_A_CHANGE.sub(lambda m: " " * len(m.group(0)), bullet.text)
    for m in _REACHED.finditer(text):
        direction = 1 if UP.fullmatch(m.group("cue")) else -1
        level = quantities(m.group("level"))[:1]
        holding = [c for c in table for q in level for v in c.value if c.years and q.matches(v)]
        moves = [move for c in holding if (move := _move(c, table)) is not None]
        if moves and all(move * direction <= 0 for move in moves):
            return False
    return True


def _move(cell: Cell, table: list[Cell]) -> float | None:
    """How the cell's figure moved from the same line's figure a year before it."""
    year = max(cell.years)
    before = [
        c
        for c in table
        if c.label == cell.label and c.column_words == cell.column_words and year - 1 in c.years
    ]
    if not before or not before[0].value or not cell.value:
        return None
    return cell.value[0].value - before[0].value[0].value
