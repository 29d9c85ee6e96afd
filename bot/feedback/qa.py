"""`knowbot eval qa FILE`: does the bot still get known questions right?

FILE is JSON lines: {"question": ..., "expected_facts": ["36 months", ...]} or
{"question": ..., "expected_answer": "..."}; optional "scopes": [...] and "unanswerable":
true (the knowledge does not hold the answer; declining is right). A case passes when
the answer states every expected fact and cites a source that states it too (an answer
that is right by luck, from no source, is not a pass). Cases with no expectation yet (a
down-voted answer exported as a regression case) still run and show their confidence.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.conversation.citations import is_not_found
from bot.conversation.entities import contains_phrase
from bot.conversation.text import content_words
from bot.conversation.types import Answer, ThreadRef, Turn
from bot.errors import KnowbotError
from bot.store.rated import EVAL_PLATFORM

ANSWER_RECALL = 0.6  # share of an expected answer's content words the answer must state
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")


@dataclass(frozen=True)
class QACase:
    line: int
    question: str
    expected_facts: tuple[str, ...] = ()
    expected_answer: str = ""
    scopes: tuple[str, ...] = ("default",)
    unanswerable: bool = False  # the knowledge does not hold the answer: it should decline

    @property
    def labelled(self) -> bool:
        return bool(self.expected_facts or self.expected_answer)


@dataclass(frozen=True)
class QAResult:
    case: QACase
    answer_id: int
    confidence: str
    answer: str
    contains: bool | None  # None: nothing expected yet
    cites: bool | None
    missing: tuple[str, ...] = ()
    declined: bool = False  # the answer said it could not find this
    failed_checks: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return bool(self.contains and self.cites)

    @property
    def outcome(self) -> str:
        """passed | stated (but cited no source holding it) | missed | declined | low |
        answered (an unanswerable question answered at Medium or High) | unlabelled."""
        if self.case.labelled:
            return "passed" if self.passed else "stated" if self.contains else "missed"
        if self.case.unanswerable:
            if self.declined:
                return "declined"
            return "low" if self.confidence == "Low" else "answered"
        return "unlabelled"


@dataclass
class QAReport:
    results: list[QAResult] = field(default_factory=list)

    @property
    def labelled(self) -> list[QAResult]:
        return [r for r in self.results if r.case.labelled]

    def summary(self) -> dict[str, object]:
        """The counts a script reads: stated and cited facts, how unanswerable questions
        were handled, and the confidence given to each outcome (High should mean passed)."""
        labelled = self.labelled
        unanswerable = [r for r in self.results if r.case.unanswerable]
        outcomes: dict[str, Counter[str]] = {}
        for r in self.results:
            outcomes.setdefault(r.outcome, Counter())[r.confidence] += 1
        high = [r for r in labelled if r.confidence == "High"]
        return {
            "cases": len(self.results),
            "labelled": len(labelled),
            "stated": sum(1 for r in labelled if r.contains),
            "cited": sum(1 for r in labelled if r.passed),
            "contain_expected": sum(1 for r in labelled if r.contains),
            "cite_supporting_source": sum(1 for r in labelled if r.passed),
            "unanswerable": len(unanswerable),
            "unanswerable_declined": sum(1 for r in unanswerable if r.declined),
            "unanswerable_low_or_declined": sum(
                1 for r in unanswerable if r.declined or r.confidence == "Low"
            ),
            "high_passed": f"{sum(1 for r in high if r.passed)}/{len(high)}",
            "confidence": dict(Counter(r.confidence for r in self.results)),
            "confidence_by_outcome": {k: dict(v) for k, v in sorted(outcomes.items())},
        }

    def rows(self) -> list[dict[str, object]]:
        """One record per case, for a closer look at each answer."""
        return [
            {
                "line": r.case.line,
                "question": r.case.question,
                "answer_id": r.answer_id,
                "outcome": r.outcome,
                "confidence": r.confidence,
                "contains": r.contains,
                "cites": r.cites,
                "missing": list(r.missing),
                "failed_checks": list(r.failed_checks),
                "answer": r.answer,
            }
            for r in self.results
        ]


def read_cases(path: Path) -> list[QACase]:
    """Every case in FILE; a bad line is an error naming the line, not a silent skip."""
    if not path.is_file():
        raise KnowbotError(f"{path} does not exist; give a JSON-lines file of questions.")
    cases = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise KnowbotError(f"{path}:{number} is not JSON ({exc.msg}).") from exc
        if not isinstance(data, dict) or not str(data.get("question") or "").strip():
            raise KnowbotError(f'{path}:{number} needs a "question" (and "expected_facts").')
        facts = data.get("expected_facts") or []
        if isinstance(facts, str):
            facts = [facts]
        cases.append(
            QACase(
                line=number,
                question=str(data["question"]),
                expected_facts=tuple(str(f) for f in facts if str(f).strip()),
                expected_answer=str(data.get("expected_answer") or ""),
                scopes=tuple(data.get("scopes") or ("default",)),
                unanswerable=bool(data.get("unanswerable")),
            )
        )
    return cases


def run_cases(cases: Sequence[QACase], answer: Callable[[Turn], Answer | None]) -> QAReport:
    report = QAReport()
    for case in cases:
        turn = Turn(
            thread=ThreadRef(EVAL_PLATFORM, "local", "qa", f"qa-{uuid.uuid4()}"),
            event_id=f"eval-{uuid.uuid4()}",
            user_id="eval",
            text=case.question,
            scopes=case.scopes,
        )
        result = answer(turn)
        if result is not None:
            report.results.append(judge(case, result))
    return report


def judge(case: QACase, answer: Answer) -> QAResult:
    said = " ".join(b.text for b in answer.bullets)
    declined = any(is_not_found(b.text) for b in answer.bullets)
    cited = {n for b in answer.bullets for n in b.source_numbers}
    sources = [s.text for s in answer.sources if s.number in cited]
    contains: bool | None = None
    cites: bool | None = None
    missing: tuple[str, ...] = ()
    if case.expected_facts:
        missing = tuple(f for f in case.expected_facts if not states(said, f))
        contains = not missing
        cites = all(any(states(s, f) for s in sources) for f in case.expected_facts)
    elif case.expected_answer:
        contains = resembles(said, case.expected_answer)
        cites = resembles(" ".join(sources), case.expected_answer)
    return QAResult(
        case=case,
        answer_id=answer.id,
        confidence=answer.confidence.value,
        answer="\n".join(f"- {b.render()}" for b in answer.bullets),
        contains=contains,
        cites=cites,
        missing=missing,
        declined=declined,
        failed_checks=() if declined else tuple(answer.scores.failed()),
    )


def states(text: str, fact: str) -> bool:
    """The text states the fact: as a phrase, or with all of its words and numbers."""
    if contains_phrase(text, fact):
        return True
    wanted = set(content_words(fact)) | set(_NUMBER.findall(fact))
    have = set(content_words(text)) | set(_NUMBER.findall(text))
    return bool(wanted) and wanted <= have


def resembles(text: str, expected: str) -> bool:
    """Every number of the expected answer, and most of its content words, are stated."""
    numbers = set(_NUMBER.findall(expected))
    words = set(content_words(expected))
    have_words = set(content_words(text))
    if not numbers <= set(_NUMBER.findall(text)):
        return False
    return not words or len(words & have_words) / len(words) >= ANSWER_RECALL
