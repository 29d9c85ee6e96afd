"""Reranking fused candidates by what their own clause title says.

A clause's title is the best short summary of it: "How does the policy define a
'Hospital'?" is answered by "2.22 Hospital", not by "2.23 Hospitalisation" or the preamble
that mention hospitals more often; "Is dental treatment covered?" by the clause titled
"Dental treatment or surgery ...". Chunks carry their section path in metadata, so the
title of each candidate is known without another query; the boost is small next to the
fused score (cosine similarity plus a scaled full-text rank), enough to order close
candidates, not to lift an unrelated chunk.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache

from knowledge.documents import PATH_SEPARATOR
from knowledge.nlp import content_stems
from knowledge.search.fitted import fitted
from knowledge.search.retrieved import Hints, Retrieved
from knowledge.search.stages import ALL_STAGES, Stage
from knowledge.search.statements import statement_weight, statements_asked
from knowledge.vocabulary import Vocabulary, active

TITLE_WEIGHT = 0.1  # all of the question's topic words in the title
WHOLE_TITLE_WEIGHT = 0.05  # ... and the title is nothing but asked words
# a table under the financial statement the question names; fitted on one half of the dev
# questions (`python -m benchmarks.fit_retrieval --number statement`)
STATEMENT_WEIGHT = fitted("statement_weight", 0.15)

# Words that frame a question without naming its topic; the packs in use add their own
# (`[questions] frame_words`: "covered", "policy").
_FRAME = (
    "what which when where who whom whose why how much many long soon tell explain give list "
    "please need want know get does do is are can could would should will shall may might "
    "must am was were define defined definition meaning mean means"
)
_NUMBERING = re.compile(
    r"^(?:(?:table|part|section|chapter|article|annexure|schedule|note|item)\s+)?"
    r"(?:[A-Z]|[IVXL]{1,6}|\d{1,3}(?:\.\d{1,3})*)[.)]?\s+",
    re.IGNORECASE,
)


@lru_cache(maxsize=8)
def _frame(vocabulary: Vocabulary) -> frozenset[str]:
    words = " ".join([_FRAME, *sorted(vocabulary.question_frame_words)])
    return frozenset(content_stems(words))


_BOOSTS = frozenset({Stage.TITLE_BOOST, Stage.STATEMENT_BOOST})


def rerank(
    chunks: Sequence[Retrieved], hints: Hints, stages: frozenset[Stage] = ALL_STAGES
) -> list[Retrieved]:
    """Candidates re-ordered by their score plus the title and definition boosts."""
    topic = set(content_stems(hints.question)) - _frame(active())
    if not topic or not stages & _BOOSTS:
        return list(chunks)
    boosted = []
    for chunk in chunks:
        boost = _boost(chunk, topic, hints, stages)
        boosted.append(replace(chunk, score=chunk.score + boost, boost=boost))
    return sorted(boosted, key=lambda c: c.score, reverse=True)


def _boost(chunk: Retrieved, topic: set[str], hints: Hints, stages: frozenset[Stage]) -> float:
    title = own_title(chunk.metadata)
    if not title:
        return 0.0
    bonus = 0.0
    if chunk.kind == "table" and Stage.STATEMENT_BOOST in stages:
        asked = statements_asked(hints.question)
        section = str(chunk.metadata.get("section") or "")
        bonus += STATEMENT_WEIGHT * statement_weight(section, asked)
    stems = set(content_stems(title))
    if topic and stems and Stage.TITLE_BOOST in stages:
        shared = topic & stems
        bonus += TITLE_WEIGHT * len(shared) / len(topic)
        if shared and stems <= topic:
            bonus += WHOLE_TITLE_WEIGHT
    return bonus


def own_title(metadata: Mapping[str, object]) -> str:
    """The chunk's own heading, without its clause number ("2.22 Hospital" -> "Hospital")."""
    section = str(metadata.get("section") or "")
    if not section:
        return ""
    last = section.split(PATH_SEPARATOR)[-1].rstrip("…").strip()
    return _NUMBERING.sub("", last, count=1).strip()
