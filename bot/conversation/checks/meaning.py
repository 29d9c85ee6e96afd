"""Whether a claim says what a passage says, by meaning: the cosine similarity of the two
under the index's embedding model.

A model restates its sources: "There is no cover for costs of infertility treatment" says
what "Expenses related to sterility and infertility are excluded" says while sharing two of
its words, and counting shared words calls it unsupported. Meaning does not see a swapped
name or a dropped "not" (those read as similar as the original), so the targeted checks
(numbers, names, polarity, cells) stay beside it.

Texts are embedded in batches: the support check collects every claim and every passage
it may be compared with, then embeds them in one call (`learn`) before comparing any.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]  # texts -> vectors, one batch
FITTED = Path(__file__).with_name("support_fitted.json")


@dataclass(frozen=True)
class Elsewhere:
    """An answer answers something else when none of its bullets is within `far`
    of the question by meaning and the search ranked a block it does not cite closer to
    the question than every block it cites, by more than `gap`; or when a passage of a
    block it does not cite is closer to the question than the answer and every passage
    it cites, by more than `said_gap` (None: never judged so)."""

    far: float
    gap: float
    said_gap: float | None = None


class Meaning:
    """Similarity of texts under one embedding model, each text embedded once;
    `threshold`: the similarity at which a claim says what its passage says (fitted per
    model, see `fitted`); `closeness`: the similarity to its question at which an answer
    speaks to it (see `fitted_closeness`; None: words alone decide); `quoted`: the
    similarity to its question one line of a quoted answer needs (see
    `fitted_quoted_closeness`; None: none is needed); `elsewhere`: when an answer answers
    something else (see `fitted_elsewhere`; None: never judged)."""

    def __init__(
        self,
        embed: Embed,
        *,
        threshold: float,
        closeness: float | None = None,
        quoted: float | None = None,
        elsewhere: Elsewhere | None = None,
    ) -> None:
        self._embed = embed
        self.threshold = threshold
        self.closeness = closeness
        self.quoted = quoted
        self.elsewhere = elsewhere
        self._vectors: dict[str, tuple[float, ...]] = {}

    def learn(self, texts: Iterable[str]) -> None:
        """Embed the texts not seen yet, in one call."""
        new = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if not new:
            return
        vectors = self._embed(new)
        if len(vectors) != len(new):
            raise ValueError(
                f"the embedding model returned {len(vectors)} vectors for {len(new)} texts"
            )
        for text, vector in zip(new, vectors, strict=True):
            self._vectors[text] = _unit(vector)

    def similarity(self, one: str, other: str) -> float:
        """Cosine similarity (texts not learnt yet are embedded now, one call for both)."""
        self.learn((one, other))
        a, b = self._vectors[one], self._vectors[other]
        return sum(x * y for x, y in zip(a, b, strict=False))


def _unit(vector: Sequence[float]) -> tuple[float, ...]:
    norm = math.sqrt(sum(x * x for x in vector))
    return tuple(x / norm for x in vector) if norm else tuple(vector)


def fitted_meaning(embed: Embed, model_name: str) -> Meaning | None:
    """Similarity under `model_name` with every number fitted for it; None when no
    threshold was fitted for that model (support is then judged by shared words)."""
    threshold = fitted(model_name)
    if threshold is None:
        return None
    return Meaning(
        embed,
        threshold=threshold,
        closeness=fitted_closeness(model_name),
        quoted=fitted_quoted_closeness(model_name),
        elsewhere=fitted_elsewhere(model_name),
    )


def fitted(model_name: str) -> float | None:
    """The similarity a claim needs to its passage under `model_name`, as fitted by
    benchmarks/fit_support.py (support_fitted.json); None for a model never fitted, whose
    similarities mean something else: support is then judged by shared words."""
    entry = _fitted().get(model_name)
    return float(entry["min_similarity"]) if entry else None


def fitted_closeness(model_name: str) -> float | None:
    """The similarity to its question at which an answer that misses the question's words
    still speaks to it, under `model_name` (fitted with the support threshold); None:
    words alone decide."""
    entry = _fitted().get(model_name) or {}
    value = (entry.get("closeness") or {}).get("min_closeness")
    return float(value) if value is not None else None


def fitted_quoted_closeness(model_name: str) -> float | None:
    """The similarity to its question that one line of a quoted answer (lines picked by
    the words they share with it, no language model) needs for the answer to be High,
    under `model_name`, as fitted by benchmarks/fit_quoted.py; None: none is needed."""
    entry = _fitted().get(model_name) or {}
    value = (entry.get("quoted") or {}).get("min_closeness")
    return float(value) if value is not None else None


def fitted_elsewhere(model_name: str) -> Elsewhere | None:
    """When an answer under `model_name` answers something else, as fitted by
    benchmarks/fit_support.py (`elsewhere`); None: never judged."""
    entry = (_fitted().get(model_name) or {}).get("elsewhere") or {}
    if entry.get("far") is None:
        return None
    said_gap = entry.get("said_gap")
    return Elsewhere(
        float(entry["far"]),
        float(entry["gap"]),
        float(said_gap) if said_gap is not None else None,
    )


@cache
def _fitted() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(FITTED.read_text(encoding="utf-8"))
    return data
