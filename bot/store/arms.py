"""Ratings counted per choice the pipeline made (prompt version, facts format), per intent:
the evidence the bandit weighs. Derived from answers and feedback on every refresh, so a
new, changed or removed rating counts without any extra bookkeeping by the adapters."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from bot.db.tables import answers, feedback

# Answers whose wording no prompt shaped: quoted passages, or nothing found.
UNSHAPED_MODELS = ("extractive", "none")


@dataclass(frozen=True)
class Tally:
    up: int = 0
    down: int = 0

    @property
    def n(self) -> int:
        return self.up + self.down


Tallies = dict[tuple[str, str], Tally]  # (intent, arm) -> ratings


class ArmStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def prompt_tallies(self, name: str) -> Tallies:
        """Ratings per (intent, version) of prompt `name`. Extractive answers are left out:
        the prompt's wording did not produce them, so their ratings say nothing about it."""
        version = sa.func.split_part(answers.c.prompt, "@", 2)
        return self._tallies(
            version,
            sa.func.split_part(answers.c.prompt, "@", 1) == name,
            answers.c.model.not_in(UNSHAPED_MODELS),
        )

    def choice_tallies(self, key: str) -> Tallies:
        """Ratings per (intent, value) of a choice recorded in `answers.choices[key]`."""
        value = answers.c.choices[key].astext
        return self._tallies(value, value.is_not(None))

    def _tallies(self, arm: sa.ColumnElement[str], *where: sa.ColumnElement[bool]) -> Tallies:
        up = sa.func.count().filter(feedback.c.rating > 0)
        down = sa.func.count().filter(feedback.c.rating < 0)
        query = (
            sa.select(answers.c.intent, arm.label("arm"), up, down)
            .select_from(feedback.join(answers, answers.c.id == feedback.c.answer_id))
            .where(*where)
            .group_by(answers.c.intent, arm)
        )
        with self._engine.connect() as conn:
            return {(r[0], r[1]): Tally(int(r[2]), int(r[3])) for r in conn.execute(query)}
