"""The faithful answer to a case, drafted from the blocks a prompt actually holds: each fact
citing the block(s) that hold its evidence, sometimes with a second, true bullet from the
same block (a condition or detail a colleague would want); then written as a language
model writes it (see rewording): plainer words, clauses reordered, a lead-in, two
statements merged into one sentence — the same facts, not a near-copy of the source."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace

from benchmarks.planted.cases import Case, Fact, Piece, clean_piece
from benchmarks.planted.prompt import Prompt, tokens
from benchmarks.planted.rewording import LEAD_SHARE, MERGE_SHARE, lead_in, merged, reworded

DETAIL_SHARE = 0.4  # faithful answers that add a second, true bullet from the cited block
_SENTENCE = re.compile(r"(?<=[a-z)][.;])\s+(?=[A-Z])")
_LED = re.compile(r"^(?:According to|The report notes that)\b")
_ANAPHORA = re.compile(r"(?:In such|Such|This|These|That|Those|It|They|However|Further)\b")


@dataclass(frozen=True)
class Bullet:
    text: str
    cites: tuple[int, ...]
    pieces: tuple[Piece, ...]  # what the cited blocks hold for it
    fact: bool = True  # False for the added detail bullet


@dataclass(frozen=True)
class Draft:
    bullets: tuple[Bullet, ...]


def draft_answer(case: Case, prompt: Prompt, rng: random.Random) -> Draft | None:
    """None when some fact's evidence is in no block (retrieval missed it)."""
    bullets = []
    for fact in case.facts:
        cites = _cites(fact, prompt, case.file)
        if cites is None:
            return None
        text = _completed(fact, prompt.block(cites[-1]).text)
        bullets.append(Bullet(text, cites, fact.pieces))
    if rng.random() < DETAIL_SHARE and (detail := _detail(bullets, prompt, rng)) is not None:
        bullets.append(detail)
    return Draft(tuple(_as_written(bullets, case.source, rng)))


def _as_written(bullets: list[Bullet], source: str, rng: random.Random) -> list[Bullet]:
    """The bullets as a model writes them: each reworded, the first perhaps led in, and
    two merged into one sentence (citing both blocks) now and then."""
    lead = lead_in(source, rng) if rng.random() < LEAD_SHARE else ""
    if bullets and _LED.match(bullets[0].text):
        lead = ""  # a quoted sentence the case already led in ("The report notes that ...")
    out = [
        replace(b, text=reworded(b.text, rng, lead=lead if i == 0 else ""))
        for i, b in enumerate(bullets)
    ]
    if len(out) >= 2 and rng.random() < MERGE_SHARE:
        i = rng.randrange(len(out) - 1)
        a, b = out[i], out[i + 1]
        both = Bullet(
            merged(a.text, b.text, rng),
            tuple(sorted({*a.cites, *b.cites})),
            a.pieces + b.pieces,
            fact=a.fact or b.fact,
        )
        out[i : i + 2] = [both]
    return out


def render(bullets: tuple[Bullet, ...] | list[Bullet], rng: random.Random) -> str:
    """The reply in the prompt's format: '- text [n]' lines."""
    lines = []
    for b in bullets:
        marks = "".join(f"[{n}]" for n in b.cites)
        stop = "." if rng.random() < 0.5 and not b.text.endswith((".", "?", ";")) else ""
        lines.append(f"- {b.text.rstrip(';')}{stop} {marks}".rstrip())
    return "\n".join(lines)


def _cites(fact: Fact, prompt: Prompt, file: str) -> tuple[int, ...] | None:
    """One block of the document holding every piece if there is one, else the first
    holder of each."""
    holders = [prompt.holding(p, file) for p in fact.pieces]
    if not all(holders):
        return None
    common = set(holders[0]).intersection(*holders[1:])
    if common:
        return (min(common),)
    return tuple(sorted({h[0] for h in holders}))


def _completed(fact: Fact, block: str) -> str:
    """A quote cut short in the evidence (at 300 characters) runs on to its sentence end."""
    last = fact.pieces[-1].needles[-1]
    if not fact.cut or last.rstrip().endswith((".", ";", ")", ":")):
        return fact.text
    words = tokens(last)
    pattern = r"\W+".join(re.escape(w) for w in words)
    m = re.search(pattern, block.replace("’", "'"), re.IGNORECASE)
    if not m:
        return fact.text
    tail = re.match(r"[^.;\n]{0,200}[.;]?", block[m.end() :])
    rest = tail.group(0).rstrip() if tail else ""
    return fact.text + rest if fact.text.endswith(last) else fact.text


def _detail(bullets: list[Bullet], prompt: Prompt, rng: random.Random) -> Bullet | None:
    """Another sentence of the first cited block, quoted: one that reads as a rule and
    speaks of what was asked or answered (a condition or limit a colleague would want)."""
    number = bullets[0].cites[0]
    said = " ".join(" ".join(tokens(b.text)) for b in bullets)
    topic = {w for w in tokens(f"{prompt.question} {said}") if len(w) > 3}
    options = []
    lines = prompt.block(number).text.splitlines()[1:]
    for sentence in (s for line in lines for s in _SENTENCE.split(line)):
        quote = clean_piece(sentence)
        words = quote.split()
        if " | " in quote or not 8 <= len(words) <= 45 or not quote.endswith((".", ";")):
            continue
        if " ".join(tokens(quote)) in said or " > " in quote or not quote[:1].isupper():
            continue
        if _ANAPHORA.match(quote):  # 'In such cases, ...' needs the sentence before it
            continue
        shared = len(topic & set(tokens(quote)))
        if shared >= 2:
            options.append((shared, quote.rstrip(";")))
    if not options:
        return None
    options.sort(key=lambda o: -o[0])
    quote = rng.choice(options[:2])[1]
    return Bullet(quote, (number,), (Piece((quote,)),), fact=False)
