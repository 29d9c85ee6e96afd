"""One fault planted in a faithful answer: each function returns the answer's bullets with
exactly one fault woven in (None when the answer offers no place for that kind of fault).

Faults are drawn with the case's own RNG from what the answer says, so they vary in
wording, number and position from case to case: no marker words, no broken grammar.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from benchmarks.planted.cases import Case, Piece
from benchmarks.planted.claims import topical
from benchmarks.planted.faithful import Bullet, Draft
from benchmarks.planted.numbers import NumberSpan, changed_text, number_spans
from benchmarks.planted.prompt import Prompt, tokens
from benchmarks.planted.terms import Inventory

T = TypeVar("T")
FAULTS = ("number", "entity", "polarity", "unsupported", "citation", "instructions", "neighbour")
COPY_WORDS = (12, 18)  # a copied run of the instructions is this many words long
WOVEN_CLAIM_SHARE = 0.3  # unsupported claims joined to a supported bullet, not a bullet


@dataclass(frozen=True)
class Setting:
    """What a fault may draw on besides the answer: the case, the prompt as sent, the
    document's names and claims it does not support."""

    case: Case
    prompt: Prompt
    inventory: Inventory
    strangers: tuple[str, ...]  # true sentences of another document
    invent: Callable[[random.Random], str | None]  # a claim in the document's style


@dataclass(frozen=True)
class Planted:
    bullets: tuple[Bullet, ...]
    index: int  # the bullet with the fault
    note: str  # what was changed


def plant(fault: str, draft: Draft, setting: Setting, rng: random.Random) -> Planted | None:
    return _PLANTERS[fault](draft, setting, rng)


def _swap(draft: Draft, index: int, bullet: Bullet, note: str) -> Planted:
    bullets = list(draft.bullets)
    bullets[index] = bullet
    return Planted(tuple(bullets), index, note)


def _pick(rng: random.Random, options: Sequence[tuple[float, T]]) -> T:
    return rng.choices([o for _, o in options], weights=[w for w, _ in options])[0]


# ---- number --------------------------------------------------------------------------------


def _number(draft: Draft, s: Setting, rng: random.Random) -> Planted | None:
    """A figure changed: another plausible value written the same way (digits, words,
    '36 (thirty six)', grouping, decimals), preferring the figures that answer."""
    decisive = [set(tokens(v)) for v in s.case.values]
    options: list[tuple[float, tuple[int, NumberSpan]]] = []
    for i, b in enumerate(draft.bullets):
        for span in number_spans(b.text):
            said = set(tokens(span.digits or span.words))
            weight = 4.0 if any(said and said <= v for v in decisive) else 1.0
            weight *= (2.0 if b.fact else 1.0) * (0.2 if _is_year(span.value) else 1.0)
            options.append((weight, (i, span)))
    if not options:
        return None
    i, span = _pick(rng, options)
    b = draft.bullets[i]
    others = {x.text for x in number_spans(b.text)}
    for _ in range(5):  # not a figure the bullet already states ('from 20% to 20%')
        new = changed_text(span, rng)
        if new not in others:
            break
    if new in others:
        return None
    text = b.text[: span.start] + new + b.text[span.end :]
    return _swap(draft, i, replace(b, text=text), f"{span.text} → {new}")


def _is_year(value: float) -> bool:
    return value == int(value) and 1900 <= value <= 2100


# ---- entity --------------------------------------------------------------------------------


def _entity(draft: Draft, s: Setting, rng: random.Random) -> Planted | None:
    """A name swapped for another of the same kind named in the same document."""
    options: list[tuple[float, tuple[int, int, int, list[str]]]] = []
    for i, b in enumerate(draft.bullets):
        taken: list[tuple[int, int]] = []
        for name in s.inventory.names:
            pattern = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
            flags = re.IGNORECASE if " " in name else 0  # 'Total' the label, not 'total'
            for m in re.finditer(pattern, b.text, flags):
                if any(m.start() < e and st < m.end() for st, e in taken) or _quoted(b.text, m):
                    continue
                taken.append((m.start(), m.end()))
                others = [
                    a
                    for a in s.inventory.alternatives(name)
                    if a.lower() not in b.text.lower() and _percent(a) == _percent(name)
                ]
                if others:
                    weight = (2.0 if b.fact else 1.0) * (0.5 if name.isdigit() else 1.0)
                    options.append((weight, (i, m.start(), m.end(), others)))
    if not options:
        return None
    i, start, end, others = _pick(rng, options)
    b = draft.bullets[i]
    old = b.text[start:end]
    new = _styled(rng.choice(others), old)
    text = b.text[:start] + new + b.text[end:]
    return _swap(draft, i, replace(b, text=text), f"{old} → {new}")


def _percent(name: str) -> bool:
    """A label of shares ('% of revenue', 'Percentage of ...'): swapped only for another."""
    return bool(re.search(r"%|percent", name, re.IGNORECASE))


def _quoted(text: str, m: re.Match[str]) -> bool:
    return text.count("“", 0, m.start()) > text.count("”", 0, m.start())


def _styled(name: str, like: str) -> str:
    if like.islower() and not any(w.isupper() and len(w) > 1 for w in name.split()):
        return name.lower()
    if like[:1].isupper() and name[:1].islower():
        return name[0].upper() + name[1:]
    return name


# ---- polarity ------------------------------------------------------------------------------

# (pattern, replacement, weight): a rule's sense or a figure's direction turned round.
_FLIPS: tuple[tuple[str, str, float], ...] = (
    (r"\bnot covered\b", "covered", 3),
    (r"\b(is|are|be|been) covered\b", r"\1 not covered", 3),
    (r"\bexcluded from\b", "included in", 3),
    (r"\bexcluded\b", "covered", 3),
    (r"\bnot available\b", "available", 3),
    (r"\bnot applicable\b", "applicable", 3),
    (r"\bshall not\b", "shall", 3),
    (r"\bshall (?!not\b)", "shall not ", 2),
    (r"\bwill not\b", "will", 3),
    (r"\bwill (?!not\b)", "will not ", 2),
    (r"\bdid not\b", "did", 3),
    (r"\bcannot\b", "can", 3),
    (r"\bcan (?!not\b)", "cannot ", 2),
    (r"\bwithout\b", "with", 2),
    (r"\bbefore\b", "after", 3),
    (r"\bafter\b", "before", 3),
    (r"\bprior to\b", "after", 3),
    (r"\bwithin\b", "after", 3),
    (r"\bat least\b", "at most", 3),
    (r"\bmore than\b", "less than", 3),
    (r"\bless than\b", "more than", 3),
    (r"\bgreater than\b", "less than", 3),
    (r"\bminimum\b", "maximum", 3),
    (r"\bmaximum\b", "minimum", 3),
    (r"\bhigher\b", "lower", 3),
    (r"\blower\b", "higher", 3),
    (r"\babove(?=\s+(?:Rs\.?|INR|₹|\$)?\s?\d)", "below", 2),
    (r"\bbelow(?=\s+(?:Rs\.?|INR|₹|\$)?\s?\d)", "above", 2),
    (r"\b(?<=and )above\b", "below", 2),
    (r"\ban increase\b", "a decrease", 3),
    (r"\ba decrease\b", "an increase", 3),
    (r"\bincreas(e|ed|es|ing)\b", r"decreas\1", 3),
    (r"\bdecreas(e|ed|es|ing)\b", r"increas\1", 3),
    (r"\brose\b", "fell", 3),
    (r"\bfell\b", "rose", 3),
    (r"\bup from\b", "down from", 3),
    (r"\bdown from\b", "up from", 3),
    (r"\bearlier\b", "later", 2),
    (r"\bunless\b", "only if", 2),
    (r"\bexcept\b", "including", 1),
    (r"\bincluding\b", "excluding", 1),
    (r"\bgain\b", "loss", 1),
    (r"\bimproved\b", "worsened", 2),
)


def _polarity(draft: Draft, s: Setting, rng: random.Random) -> Planted | None:
    """Covered/not covered, shall/shall not, before/after, within/after, increase/decrease,
    more/less, minimum/maximum, higher/lower ... turned round in one place."""
    options: list[tuple[float, tuple[int, re.Match[str], str]]] = []
    for i, b in enumerate(draft.bullets):
        taken: list[tuple[int, int]] = []
        for pattern, repl, weight in _FLIPS:
            for m in re.finditer(pattern, b.text, re.IGNORECASE):
                if any(m.start() < e and st < m.end() for st, e in taken):
                    continue
                taken.append((m.start(), m.end()))
                options.append((weight * (2 if b.fact else 1), (i, m, repl)))
    if not options:
        return None
    i, m, repl = _pick(rng, options)
    new = m.expand(repl)
    if m.group()[:1].isupper():
        new = new[0].upper() + new[1:]
    b = draft.bullets[i]
    text = b.text[: m.start()] + new + b.text[m.end() :]
    return _swap(draft, i, replace(b, text=text), f"{m.group()} → {new}")


# ---- unsupported claim ---------------------------------------------------------------------


def _unsupported(draft: Draft, s: Setting, rng: random.Random) -> Planted | None:
    """A fluent claim the document does not make, citing a block the answer cites: a true
    sentence of another document or an invented rule; a bullet of its own at any position,
    or joined to a supported bullet."""
    claim = None
    if s.strangers and rng.random() < 0.5:
        claim = topical(s.strangers, s.case.question, rng)
    claim = claim or s.invent(rng)
    if not claim:
        return None
    cites = sorted({n for b in draft.bullets for n in b.cites})
    bullets = list(draft.bullets)
    if rng.random() < WOVEN_CLAIM_SHARE:
        i = rng.randrange(len(bullets))
        host = bullets[i]
        joined = f"{host.text.rstrip('.; ')}, and {_lower_first(claim)}"
        bullets[i] = replace(host, text=joined)
        return Planted(tuple(bullets), i, f"joined: {claim}")
    at = rng.randint(0, len(bullets)) if rng.random() < 0.2 else rng.randint(1, len(bullets))
    bullets.insert(at, Bullet(claim, (rng.choice(cites),), (), fact=False))
    return Planted(tuple(bullets), at, f"added: {claim}")


def _lower_first(text: str) -> str:
    first = text.split()[0] if text.split() else ""
    if first.isupper() or (len(first) > 1 and any(c.isupper() for c in first[1:])):
        return text
    return text[0].lower() + text[1:]


# ---- wrong citation ------------------------------------------------------------------------


def _citation(draft: Draft, s: Setting, rng: random.Random) -> Planted | None:
    """A bullet, word for word, citing a block that does not hold its fact (often the next
    or previous block, as a model miscounts)."""
    options: list[tuple[float, tuple[int, list[int]]]] = []
    for i, b in enumerate(draft.bullets):
        if not b.cites:
            continue
        wrong = [
            blk.number
            for blk in s.prompt.blocks
            if blk.number not in b.cites and not _holds_any(blk.number, b.pieces, s.prompt)
        ]
        if wrong:
            options.append((2.0 if b.fact else 1.0, (i, wrong)))
    if not options:
        return None
    i, wrong = _pick(rng, options)
    b = draft.bullets[i]
    if rng.random() < 0.5:
        number = min(wrong, key=lambda n: (min(abs(n - c) for c in b.cites), n))
    else:
        number = rng.choice(wrong)
    return _swap(draft, i, replace(b, cites=(number,)), f"{b.cites} → ({number},)")


def _holds_any(number: int, pieces: tuple[Piece, ...], prompt: Prompt) -> bool:
    block = prompt.block(number)
    return any(block.holds(p) for p in pieces)


# ---- copied instructions -------------------------------------------------------------------

_NOT_COPYABLE = re.compile(r"NOT_FOUND|context>|\[\d|\"- \"|\bnot found\b", re.IGNORECASE)


def _instructions(draft: Draft, s: Setting, rng: random.Random) -> Planted | None:
    """A clause of 12-18 words of the system prompt actually sent, woven into a bullet as a
    lead-in, a closing clause, a sentence of its own or an aside."""
    run = _copied_run(s.prompt.system, rng)
    if run is None:
        return None
    i = rng.randrange(len(draft.bullets))
    b = draft.bullets[i]
    body = b.text.rstrip(".; ")
    lower, upper = run[0].lower() + run[1:], run[0].upper() + run[1:]
    text = rng.choice(
        [
            f"{upper}: {_lower_first(body)}",
            f"{body}; {lower}",
            f"{body}. {upper}",
            f"{body} ({lower})",
        ]
    )
    return _swap(draft, i, replace(b, text=text), f"copied: {run}")


def _copied_run(system: str, rng: random.Random) -> str | None:
    """A run starting where a clause or a comma phrase starts and ending at a comma or a
    clause end once it has COPY_WORDS[0] words (at most COPY_WORDS[1]); clauses that name
    the fences or the NOT_FOUND reply are left out (that reply would end the answer)."""
    runs: set[str] = set()
    for rule in re.split(r"\n\s*-\s+|\n\s*\n", system):
        clauses = re.split(r"(?<=[.;])\s+", " ".join(rule.split()))
        words = " ".join(c for c in clauses if not _NOT_COPYABLE.search(c)).split()
        starts = [0, *(i + 1 for i, w in enumerate(words[:-1]) if w.endswith((",", ";", ".", ":")))]
        for start in starts:
            run = _run_from(words[start:])
            if run and run.count('"') % 2 == 0 and run.count("(") == run.count(")"):
                runs.add(run)
    return rng.choice(sorted(runs)) if runs else None


def _run_from(words: list[str]) -> str | None:
    """The words up to the first clause or phrase end past COPY_WORDS[0] words; None when
    there is none within COPY_WORDS[1] (a run cut mid-phrase reads as broken)."""
    for i in range(COPY_WORDS[0] - 1, min(len(words), COPY_WORDS[1])):
        if words[i].endswith((",", ";", ".", ":")) or i == len(words) - 1:
            return " ".join(words[: i + 1]).strip(" .,;:\"'")
    return None


# ---- an answer about a neighbouring subject ------------------------------------------------

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
NEIGHBOUR_MIN_WORDS = 8


def _neighbour(draft: Draft, s: Setting, rng: random.Random) -> Planted | None:
    """The whole answer replaced by a sentence of another retrieved block, word for word
    and cited to it: true to its source, about something else. The sentence chosen shares
    the most words with the question (a clause whose title holds "waiting period" but is
    about other conditions); ties are drawn at random. A sentence stating every decisive
    value of the case answers the question and is not chosen."""
    pieces = tuple(p for b in draft.bullets for p in b.pieces)
    asked = set(tokens(s.prompt.question))
    options: list[tuple[int, float, str, int]] = []
    for block in s.prompt.blocks:
        if any(block.holds(p) for p in pieces):
            continue
        for sentence in _SENTENCE.findall(block.text):
            words = tokens(sentence)
            if len(words) >= NEIGHBOUR_MIN_WORDS:
                options.append(
                    (len(asked & set(words)), rng.random(), sentence.strip(), block.number)
                )
    options = [o for o in options if not _answers(o[2], s.case.values)]
    if not options:
        return None
    _, _, sentence, number = max(options)
    return Planted((Bullet(sentence, (number,), ()),), 0, f"answered from block {number}")


def _answers(sentence: str, values: Sequence[str]) -> bool:
    """The sentence states every decisive value of the case ("5%" and "50%" of a cumulative
    bonus, said again in the table of benefits): it answers the question, no fault."""
    return bool(values) and all(
        re.search(rf"(?<![\w.]){re.escape(v.strip())}(?!\w)", sentence, re.IGNORECASE)
        for v in values
    )


_PLANTERS: dict[str, Callable[[Draft, Setting, random.Random], Planted | None]] = {
    "number": _number,
    "entity": _entity,
    "polarity": _polarity,
    "unsupported": _unsupported,
    "citation": _citation,
    "instructions": _instructions,
    "neighbour": _neighbour,
}
