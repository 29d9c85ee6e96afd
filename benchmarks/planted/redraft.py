"""The benchmark's answers drafted again on the contexts a recorded run retrieved: the
faithful answer and one answer per fault, each parsed into bullets as the pipeline parses a
model's reply. Retrieval does not depend on the answer, so a change to how answers are
written (faithful.py, rewording.py, faults.py) is measured without running the pipeline
again (benchmarks/fit_support.py)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from benchmarks.confidence import Data
from benchmarks.planted.cases import Case
from benchmarks.planted.faithful import Bullet, draft_answer, render
from benchmarks.planted.faults import FAULTS, plant
from benchmarks.planted.library import Library
from benchmarks.planted.prompt import parse_prompt
from benchmarks.planted.report import FAITHFUL, Scored
from bot.conversation.citations import parse_bullets
from bot.conversation.context import fence


def redrafted(recorded: Sequence[Scored], data: Data, seed: int) -> list[Scored]:
    """Every recorded faithful answer's context, answered again: faithfully and once per
    fault that applies (the same seeds as benchmarks.confidence)."""
    cases = {c.id: c for c in data.cases}
    library = Library(data.docs)
    out: list[Scored] = []
    for item in recorded:
        if item.outcome.variant == FAITHFUL and item.inputs is not None:
            out.extend(_answers(item, cases[item.outcome.case], library, seed))
    return out


def _answers(item: Scored, case: Case, library: Library, seed: int) -> list[Scored]:
    inputs = item.inputs or {}
    user = f"{fence(inputs['sources'])}\n\nQuestion: {case.question}"
    prompt = parse_prompt(inputs["instructions"], user)
    if prompt is None:
        return []
    draft = draft_answer(case, prompt, _rng(seed, case, FAITHFUL))
    if draft is None:
        return []
    out = [_scored(item, seed, case, FAITHFUL, draft.bullets)]
    setting = library.setting(case, prompt)
    for fault in FAULTS:
        planted = plant(fault, draft, setting, _rng(seed, case, fault))
        if planted is not None:
            out.append(_scored(item, seed, case, fault, planted.bullets, planted.note))
    return out


def _rng(seed: int, case: Case, what: str) -> random.Random:
    return random.Random(f"{seed}:{case.id}:{what}")


def _scored(
    item: Scored, seed: int, case: Case, variant: str, bullets: Sequence[Bullet], note: str = ""
) -> Scored:
    """The reply rendered as the benchmark renders it, parsed as the pipeline parses it."""
    inputs = item.inputs or {}
    reply = render(tuple(bullets), _rng(seed, case, "render"))
    parsed = parse_bullets(reply, max_source=len(inputs["sources"]))
    outcome = replace(item.outcome, variant=variant, level="", failed=(), note=note)
    return Scored(outcome, dict(inputs, bullets=parsed))
