"""Nothing copied from the instructions: an answer repeating ten words of the prompt's
rules or examples is reciting the prompt, not the sources (quoting a source that the
instructions also quote is fine)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.conversation.text import words
from bot.conversation.types import Bullet, Source

COPY_RUN = 10  # this many consecutive words shared with the instructions is a copy


def not_copied(
    question: str, bullets: Sequence[Bullet], sources: Sequence[Source], instructions: str
) -> bool:
    """No bullet repeats a run of COPY_RUN words from the prompt's instructions or examples.

    A run that also occurs in the question or a source is allowed: quoting the rulebook is
    the point, even when the instructions happen to quote it too.
    """
    copied = _runs(instructions)
    if not copied:
        return True
    allowed = _runs(question).union(*(_runs(s.text) for s in sources))
    return not any((_runs(b.text) & copied) - allowed for b in bullets)


def _runs(text: str) -> set[tuple[str, ...]]:
    tokens = [w.lower() for w in words(text)]
    return {tuple(tokens[i : i + COPY_RUN]) for i in range(len(tokens) - COPY_RUN + 1)}
