"""Reading an answer prompt the way a model sees it: the system text, the numbered blocks
inside <context> (headed `[n] title — location`) and the question; and finding which
blocks hold a piece of evidence."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from benchmarks.planted.cases import Piece

_HEADER = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)
_TOKEN = re.compile(r"[a-z0-9]+")
FUZZY_SHARE = 0.9  # a long piece is held when this share of its words is in the block
FUZZY_MIN_WORDS = 8
# Words that change what a sentence says: a fuzzy match must not lose them.
_SENSE = frozenset((
    "not", "no", "without", "except", "unless", "excluded", "exclude", "before", "after",
    "within", "more", "less", "minimum", "maximum", "higher", "lower", "above", "below",
    "increase", "decrease", "only",
))  # fmt: skip


@dataclass(frozen=True)
class Block:
    number: int
    header: str
    text: str

    @cached_property
    def tokens(self) -> str:
        return f" {' '.join(tokens(self.text))} "

    @cached_property
    def line_tokens(self) -> list[str]:
        return [f" {' '.join(tokens(line))} " for line in self.text.splitlines()]

    def says(self, text: str) -> bool:
        """The block holds `text`'s words in a row."""
        return _within(text, self.tokens)

    def holds(self, piece: Piece) -> bool:
        if piece.same_line:
            return any(all(_within(n, line) for n in piece.needles) for line in self.line_tokens)
        return all(_within(n, self.tokens) or _mostly(n, self.tokens) for n in piece.needles)


@dataclass(frozen=True)
class Prompt:
    system: str
    question: str
    blocks: tuple[Block, ...]

    def holding(self, piece: Piece, file: str) -> list[int]:
        """Blocks cut from `file` that hold the piece."""
        return [b.number for b in self.blocks if b.header.startswith(file) and b.holds(piece)]

    def block(self, number: int) -> Block:
        return next(b for b in self.blocks if b.number == number)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower().replace("’", "'"))


def _within(needle: str, haystack: str) -> bool:
    words = tokens(needle)
    return bool(words) and f" {' '.join(words)} " in haystack


def _mostly(needle: str, haystack: str) -> bool:
    """Most of a long needle's words (PDF text differs in small ways), and all its numbers."""
    words = tokens(needle)
    if len(words) < FUZZY_MIN_WORDS:
        return False
    have = set(haystack.split())
    if any(w not in have for w in words if w in _SENSE or any(c.isdigit() for c in w)):
        return False
    return sum(w in have for w in words) >= FUZZY_SHARE * len(words)


def parse_prompt(system: str, user: str) -> Prompt | None:
    """None when the user message has no <context> (not an answer prompt)."""
    start, end = user.find("<context>"), user.rfind("</context>")
    if start < 0 or end < 0:
        return None
    body = user[start + len("<context>") : end]
    question = user[end + len("</context>") :].strip()
    question = re.sub(r"^Question:\s*", "", question)
    return Prompt(system=system, question=question, blocks=tuple(_blocks(body)))


def _blocks(body: str) -> list[Block]:
    """Blocks in order; a '[n]' line only starts a block when n is the next number."""
    heads = []
    want = 1
    for m in _HEADER.finditer(body):
        if int(m.group(1)) == want:
            heads.append(m)
            want += 1
    out = []
    for i, m in enumerate(heads):
        stop = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        out.append(Block(int(m.group(1)), m.group(2), body[m.end() : stop].strip("\n")))
    return out
