"""The fixed replies an answer may carry (not found, an empty question) and what an answer
says beside its bullets: why nothing answers it, and the doubt a Low answer voices."""

from __future__ import annotations

from bot.conversation.focus import Focus
from bot.conversation.generate import Generated
from bot.conversation.timing import StepTimer
from bot.conversation.types import Answer, Bullet, CheckScores, Confidence, Intent, Turn

NOT_FOUND = "I could not find this in the knowledge base."
EMPTY_QUESTION = "Please type a question, for example: what is the waiting period for cataract?"
NO_SCORES = CheckScores.none()


def unanswered_reason(focus: Focus | None) -> str:
    if focus is not None and focus.head_word:
        return f"the knowledge base does not speak of {focus.head_word}"
    return "the sources do not answer what was asked"


def with_doubt(notice: str, level: Confidence, scores: CheckScores, cited: list[int]) -> str:
    """A Low answer says so in words, naming where to look and what failed."""
    if level != Confidence.LOW:
        return notice
    marks = "".join(f"[{n}]" for n in cited) or "the sources"
    failed = ", ".join(name.replace("_", " ") for name in scores.failed())
    doubt = f"I am not sure — please check {marks}" + (
        f" (failed checks: {failed})." if failed else "."
    )
    return " ".join(filter(None, [doubt, notice]))


def not_found_notice(generated: Generated | None) -> str:
    """Why nothing was found, and what the listed sources are (reading, not an answer)."""
    if generated is None:
        return ""
    parts = [generated.notice] if generated.notice and generated.model != "extractive" else []
    if generated.reason:
        parts.append(f"Nothing answers this: {generated.reason}.")
    if generated.related:
        parts.append("Related reading: the closest passages are listed below.")
    return " ".join(parts)


def reply_answer(turn: Turn, question: str, text: str, timer: StepTimer) -> Answer:
    return Answer(
        id=0,
        thread=turn.thread,
        question=question,
        rewritten_question=question,
        expansions=(),
        intent=Intent.LOOKUP,
        bullets=(Bullet(text),),
        sources=(),
        confidence=Confidence.LOW,
        scores=NO_SCORES,
        prompt="none",
        model="none",
        timings_ms=timer.finish(),
    )
