"""What a candidate's own heading says about the question.

A table under the financial statement the question names ranks up (the statement boost).
A clause whose title names what was asked is marked (`title_match`), not ranked up: "How
does the policy define a 'Hospital'?" is answered by "2.22 Hospital", which the question's
other words may leave at a low similarity, so the mark keeps it among the sources
(`bot.conversation.context.relevant`). Ranking by titles let a clause *titled* "waiting
period" but about other conditions outvote the clause about the condition asked about
(issue 19), so the title no longer changes the order.
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


_HEADINGS = frozenset({Stage.TITLE_MATCH, Stage.STATEMENT_BOOST})


def rerank(
    chunks: Sequence[Retrieved], hints: Hints, stages: frozenset[Stage] = ALL_STAGES
) -> list[Retrieved]:
    """Candidates re-ordered by their score plus the statement boost, each marked with how
    far its clause title names the question's topic."""
    topic = set(content_stems(hints.question)) - _frame(active())
    if not topic or not stages & _HEADINGS:
        return list(chunks)
    boosted = []
    for chunk in chunks:
        boost = _statement_boost(chunk, hints, stages)
        match = _title_match(chunk, topic) if Stage.TITLE_MATCH in stages else 0.0
        boosted.append(replace(chunk, score=chunk.score + boost, boost=boost, title_match=match))
    return sorted(boosted, key=lambda c: c.score, reverse=True)


def _statement_boost(chunk: Retrieved, hints: Hints, stages: frozenset[Stage]) -> float:
    if chunk.kind != "table" or Stage.STATEMENT_BOOST not in stages:
        return 0.0
    section = str(chunk.metadata.get("section") or "")
    return STATEMENT_WEIGHT * statement_weight(section, statements_asked(hints.question))


def _title_match(chunk: Retrieved, topic: set[str]) -> float:
    """The share of the topic's words in the clause's own title, with a bonus when the
    title is nothing but asked words."""
    stems = set(content_stems(own_title(chunk.metadata)))
    shared = topic & stems
    if not shared:
        return 0.0
    return TITLE_WEIGHT * len(shared) / len(topic) + (WHOLE_TITLE_WEIGHT if stems <= topic else 0.0)


def own_title(metadata: Mapping[str, object]) -> str:
    """The chunk's own heading, without its clause number ("2.22 Hospital" -> "Hospital")."""
    section = str(metadata.get("section") or "")
    if not section:
        return ""
    last = section.split(PATH_SEPARATOR)[-1].rstrip("…").strip()
    return _NUMBERING.sub("", last, count=1).strip()
