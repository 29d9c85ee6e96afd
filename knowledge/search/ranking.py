"""What a candidate's own heading says about the question: a table under the financial
statement the question names ranks up (the statement boost); and the words that frame a
question without naming its topic ("what", "define", a pack's "covered").

Clause titles do not rank. A title boost let a clause *titled* "waiting period" but about
other conditions outvote the clause about the condition asked about (issue 19); marking
titled clauses to keep them among the sources then changed no listed source on any dev set
(benchmarks/README.md, twenty-second session), so the title is read as any other text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from knowledge.nlp import content_stems
from knowledge.search.fitted import fitted
from knowledge.search.retrieved import Hints, Retrieved
from knowledge.search.stages import ALL_STAGES, Stage
from knowledge.search.statements import statement_weight, statements_asked
from knowledge.vocabulary import Vocabulary, active

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


def frame_stems() -> frozenset[str]:
    """The stems of the words that frame a question without naming its topic, the packs'
    in use included: "How does the policy define a 'Hospital'?" is about "hospital"."""
    return _frame(active())


@lru_cache(maxsize=8)
def _frame(vocabulary: Vocabulary) -> frozenset[str]:
    words = " ".join([_FRAME, *sorted(vocabulary.question_frame_words)])
    return frozenset(content_stems(words))


def rerank(
    chunks: Sequence[Retrieved], hints: Hints, stages: frozenset[Stage] = ALL_STAGES
) -> list[Retrieved]:
    """Candidates re-ordered by their score plus the statement boost."""
    topic = set(content_stems(hints.question)) - frame_stems()
    if Stage.STATEMENT_BOOST not in stages or not topic:
        return list(chunks)
    boosted = []
    for chunk in chunks:
        boost = _statement_boost(chunk, hints)
        boosted.append(replace(chunk, score=chunk.score + boost, boost=boost))
    return sorted(boosted, key=lambda c: c.score, reverse=True)


def _statement_boost(chunk: Retrieved, hints: Hints) -> float:
    if chunk.kind != "table":
        return 0.0
    section = str(chunk.metadata.get("section") or "")
    return STATEMENT_WEIGHT * statement_weight(section, statements_asked(hints.question))
