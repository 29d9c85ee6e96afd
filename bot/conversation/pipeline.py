"""The answer pipeline: a Turn goes in, an Answer (stored, with everything that produced it)
comes out. Platform-neutral: adapters translate, this decides."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from typing import Any

import prompts
from bot.conversation.acronyms import with_acronyms
from bot.conversation.checks.coverage import learning_ahead
from bot.conversation.checks.meaning import Meaning, fitted_closeness, fitted_meaning
from bot.conversation.context import fence, glossary_preamble, number_sources, relevant
from bot.conversation.declining import Likeness, closeness, declined
from bot.conversation.drafting import Drafter, DraftSink
from bot.conversation.focus import Focus, focus_of
from bot.conversation.generate import EXTRACTIVE, Generated, generate, prompt_name
from bot.conversation.input import clean_question
from bot.conversation.links import with_links
from bot.conversation.ports import AnswerSink, Claims, History, KnowledgePort, PromptChooser
from bot.conversation.replies import (
    EMPTY_QUESTION,
    NO_SCORES,
    NOT_FOUND,
    not_found_notice,
    reply_answer,
    unanswered_reason,
    with_doubt,
)
from bot.conversation.retrieval_record import retrieval_record
from bot.conversation.scoring import confidence_for, score_answer
from bot.conversation.search_text import search_text
from bot.conversation.timing import StepTimer
from bot.conversation.types import (
    Answer,
    Bullet,
    CheckScores,
    Confidence,
    Expansion,
    HistoryTurn,
    Intent,
    Source,
    ThreadRef,
    Turn,
)
from bot.conversation.understand import intent_of, rewrite
from bot.conversation.verified import VerifiedMatcher
from bot.conversation.verified_reply import verified_reply
from knowledge.documents import Triple
from knowledge.models.bounded_chat import BoundedChat
from knowledge.models.deadline import Deadline
from knowledge.models.llm import ChatModel, LLMError
from knowledge.search.budget import Budget
from knowledge.search.stages import Stage
from knowledge.store.triples import entity_key
from knowledge.vocabulary import with_pack_acronyms

log = logging.getLogger(__name__)

FACTS_CHOICE = "facts"  # the chooser's name for how graph facts are rendered
# Of the time left, what condensing and intent may take: both have rule-based fallbacks,
# and the answer call after them must still have time.
STEP_SHARE = 0.35

DOCS = Budget(per_group={"documents": 8, "rows": 3, "faq": 2, "glossary": 1, "graph": 1}, total=10)
DATA = Budget(per_group={"documents": 3, "rows": 8, "faq": 1, "glossary": 1, "graph": 1}, total=10)
BUDGETS = {
    Intent.RANK: DATA,
    Intent.TREND: DATA,
    Intent.COMPARE: DATA,
    Intent.SUMMARISE: Budget(per_group={"documents": 8, "rows": 3, "faq": 1}, total=10),
}


@dataclass(frozen=True)
class PipelineConfig:
    history_turns: int = 8
    history_chars: int = 6000  # about 1,500 tokens of earlier conversation
    max_question_chars: int = 4000
    judge: bool = False
    # a quoted answer needs one line close to the question by meaning to be High
    quoted_closeness: bool = True
    facts_format: str = "triples"
    # From the message's arrival to the reply being ready; model calls share it, and a
    # reserve at its end is kept for scoring, storing and posting.
    answer_deadline_s: float = 12.0
    model_retries: int = 2

    @property
    def reserve_s(self) -> float:
        return min(1.0, self.answer_deadline_s * 0.1)


class Pipeline:
    def __init__(
        self,
        *,
        claims: Claims,
        history: History,
        answers: AnswerSink,
        knowledge: KnowledgePort,
        model: ChatModel | None,
        chooser: PromptChooser | None = None,
        config: PipelineConfig | None = None,
        verified: VerifiedMatcher | None = None,
    ) -> None:
        self._claims = claims
        self._history = history
        self._answers = answers
        self._knowledge = knowledge
        self._model = model
        self._chooser = chooser
        self.config = config or PipelineConfig()
        self._verified = verified

    async def answer(self, turn: Turn) -> Answer | None:
        """Answer a turn off the event loop (database, embedding and model calls block)."""
        return await asyncio.to_thread(self.answer_now, turn)

    def answer_now(self, turn: Turn, *, drafts: DraftSink | None = None) -> Answer | None:
        """None when this event was already claimed (a redelivery): no work is done.
        `drafts` receives the answer while the model writes it (see drafting.py); the
        returned Answer is scored and stored exactly as without it."""
        timer = StepTimer()
        with timer.step("claim"):
            if not self._claims.claim(turn.thread.platform, turn.event_id):
                return None
        question, notice = clean_question(turn.text, self.config.max_question_chars)
        if not question:
            return self._store(turn, reply_answer(turn, question, EMPTY_QUESTION, timer), [])
        with timer.step("history"):
            history = self._bounded(
                self._history.history(turn.thread, limit=self.config.history_turns)
            )
        answer, retrieved = self._answer(
            turn, question, history, timer, self._model_for(turn), drafts
        )
        if notice:
            answer = replace(answer, notice=" ".join(filter(None, [notice, answer.notice])))
        return self._store(turn, answer, retrieved)

    def rehearse(self, question: str, *, scopes: tuple[str, ...]) -> None:
        """Everything an answer does except claiming, storing and calling the model: loads
        the embedding model, opens database connections, fills the caches. Run at start so
        the first real answer is as fast as the tenth."""
        turn = Turn(
            thread=ThreadRef("warm-up", "local", "warm-up", "warm-up"),
            event_id="warm-up",
            user_id="warm-up",
            text=question,
            scopes=scopes,
        )
        self._answer(turn, question, [], StepTimer(), None)

    def _model_for(self, turn: Turn) -> BoundedChat | None:
        """The model for one answer: every call shares the turn's deadline, counted from
        when the message arrived."""
        if self._model is None:
            return None
        waited = (datetime.now(UTC) - turn.received_at).total_seconds()
        left = self.config.answer_deadline_s - max(0.0, waited)
        deadline = Deadline.after(left).earlier(self.config.reserve_s)
        return BoundedChat(self._model, retries=self.config.model_retries, deadline=deadline)

    def _answer(
        self,
        turn: Turn,
        question: str,
        history: list[HistoryTurn],
        timer: StepTimer,
        model: BoundedChat | None,
        drafts: DraftSink | None = None,
    ) -> tuple[Answer, list[dict[str, Any]]]:
        scopes = turn.scopes
        with timer.step("rewrite"):
            glossary = with_pack_acronyms(self._knowledge.glossary(scopes))
            standalone, expansions = rewrite(
                question, history, glossary, self._knowledge.vocabulary(scopes), _step(model)
            )
        with timer.step("verified"):  # a person's answer to this question comes first
            wanted = self._verified is not None and not turn.skip_verified
            hit = (
                self._verified.match(standalone, scopes, turn.reader)
                if wanted and self._verified
                else None
            )
        if hit is not None:
            return verified_reply(turn, question=question, rewritten=standalone,
                                  expansions=expansions, verified=hit,
                                  timings_ms=timer.finish()), []  # fmt: skip
        with timer.step("intent"):
            intent = intent_of(standalone, _step(model))
        searched = search_text(standalone)  # less "Answer in USD millions." and the like
        with timer.step("retrieve"):
            result = self._knowledge.retrieve(
                searched,
                scopes=scopes,
                budget=BUDGETS.get(intent, DOCS),
                reader=turn.reader,
            )
        for name, ms in result.timings_ms.items():
            timer.add(f"retrieve.{name}", ms)
        focus = focus_of(
            searched,
            ignore=[w for n in result.named for w in n.words],
            vocabulary=self._knowledge.vocabulary(scopes),
        )
        with timer.step("context"):
            chunks = (
                relevant(result.chunks, searched)
                if Stage.RELEVANT in result.stages
                else list(result.chunks)
            )
            definitions = glossary_preamble(question, expansions, glossary)
            facts = self._facts(standalone, scopes)
            facts_format = self._facts_format(intent) if facts else None
            sources = number_sources(
                chunks, definitions, facts, facts_format=facts_format or self.config.facts_format
            )
            sources = with_links(sources, chunks)
        focus = with_acronyms(focus, (s.text for s in sources))
        retrieved = retrieval_record(result.chunks, sources)
        version = self._chooser.choose(prompt_name(intent), intent.value) if self._chooser else None
        likeness = partial(self._knowledge.similarity, searched)
        meaning = self._meaning() if model is not None and (chunks or facts) else None
        with timer.step("generate"), learning_ahead(meaning, standalone, sources):
            generated = (
                generate(
                    question=standalone,
                    intent=intent,
                    sources=sources,
                    model=model,
                    version=version,
                    focus=focus,
                    on_text=Drafter(drafts, max_source=len(sources)) if drafts else None,
                    likeness=likeness,
                    closeness=fitted_closeness(self._knowledge.embedding_model),
                    stages=result.stages,
                )
                if chunks or facts
                else None
            )
        answer = self._finish(
            turn, question, standalone, expansions, intent, sources, generated, timer, model, focus,
            likeness=likeness, meaning=meaning,
        )  # fmt: skip
        if facts_format:  # recorded so ratings can teach which rendering works
            answer = replace(answer, choices={**answer.choices, "facts": facts_format})
        return answer, retrieved

    def _facts_format(self, intent: Intent) -> str:
        chosen = self._chooser.choose(FACTS_CHOICE, intent.value) if self._chooser else None
        return chosen or self.config.facts_format

    def _finish(
        self,
        turn: Turn,
        question: str,
        standalone: str,
        expansions: tuple[Expansion, ...],
        intent: Intent,
        sources: list[Source],
        generated: Generated | None,
        timer: StepTimer,
        model: ChatModel | None,
        focus: Focus | None = None,
        checked: CheckScores | None = None,
        *,
        likeness: Likeness | None = None,
        meaning: Meaning | None = None,
    ) -> Answer:
        base = dict(
            id=0,
            thread=turn.thread,
            question=question,
            rewritten_question=standalone,
            expansions=expansions,
            intent=intent,
            choices={"prompt": generated.prompt} if generated else {},
        )
        if generated is None or generated.not_found:
            related = generated.related if generated else ()
            return Answer(
                **base,  # type: ignore[arg-type]
                bullets=(Bullet(NOT_FOUND),),
                sources=related,
                confidence=Confidence.LOW,
                scores=checked or NO_SCORES,  # what failed, when checks ran on a reply
                prompt=generated.prompt if generated else prompts.load(prompt_name(intent)).label,
                model=generated.model if generated else "none",
                timings_ms=timer.finish(),
                notice=not_found_notice(generated),
            )
        with timer.step("score"):
            meaning = meaning or self._meaning()
            scores = score_answer(
                question=standalone,
                bullets=generated.bullets,
                sources=sources,
                instructions=generated.instructions,
                known_terms=[e.replacement for e in expansions],
                focus=focus,
                meaning=meaning,
                quoted=self._quoted_closeness(generated, likeness, meaning),
            )
            confidence = confidence_for(scores, has_context=bool(sources))
            if generated.failed:
                confidence = Confidence.LOW
            elif self.config.judge and model is not None:
                confidence = self._judged(model, standalone, generated.bullets, sources, confidence)
        if declined(generated.bullets, scores, likeness):  # nothing answers what was asked
            unanswered = replace(
                generated, related=tuple(sources[:3]), reason=unanswered_reason(focus)
            )
            return self._finish(
                turn, question, standalone, expansions, intent, sources,
                replace(unanswered, not_found=True), timer, model, focus, scores,
            )  # fmt: skip
        cited = sorted({n for b in generated.bullets for n in b.source_numbers})
        return Answer(
            **base,  # type: ignore[arg-type]
            bullets=tuple(generated.bullets),
            sources=tuple(s for s in sources if s.number in cited) or tuple(sources),
            confidence=confidence,
            scores=scores,
            prompt=generated.prompt,
            model=generated.model,
            timings_ms=timer.finish(),
            notice=with_doubt(generated.notice, confidence, scores, cited),
        )

    def _quoted_closeness(
        self, generated: Generated, likeness: Likeness | None, meaning: Meaning | None
    ) -> float | None:
        """How close a quoted answer's closest line is to the question (None for a model's
        answer, or when the rule is off); exact only below `meaning.quoted`, the threshold
        quoted_close compares it with."""
        if generated.model != EXTRACTIVE or likeness is None or not self.config.quoted_closeness:
            return None
        quoted = meaning.quoted if meaning is not None else None
        return closeness(generated.bullets, likeness, float("inf") if quoted is None else quoted)

    def _meaning(self) -> Meaning | None:
        """Similarity under the index's model, for judging support by meaning; None when no
        threshold was fitted for that model (support is then judged by shared words)."""
        return fitted_meaning(self._knowledge.embeddings, self._knowledge.embedding_model)

    def _judged(
        self,
        model: ChatModel,
        question: str,
        bullets: Sequence[Bullet],
        sources: Sequence[Source],
        level: Confidence,
    ) -> Confidence:
        """A second model grades groundedness 1-5; it may lower the confidence, never raise it."""
        prompt = prompts.load("judge")
        system, user = prompt.render(
            context=fence(sources),
            question=question,
            answer="\n".join(f"- {b.render()}" for b in bullets),
        )
        try:
            grade = re.search(r"[1-5]", model.complete(system, user, max_tokens=5))
        except LLMError:
            return level
        if grade is None:
            return level
        ceiling = {1: Confidence.LOW, 2: Confidence.LOW, 3: Confidence.MEDIUM}.get(
            int(grade.group()), Confidence.HIGH
        )
        order = [Confidence.LOW, Confidence.MEDIUM, Confidence.HIGH]
        return min(level, ceiling, key=order.index)

    def _facts(self, question: str, scopes: Sequence[str]) -> list[Triple]:
        names = self._knowledge.entity_names(scopes)
        if not names:
            return []
        asked = f" {entity_key(question)} "
        linked = [n for n in names if len(n) > 2 and f" {n} " in asked]
        return self._knowledge.facts_about(linked, scopes, hops=1)[:12] if linked else []

    def _bounded(self, history: list[HistoryTurn]) -> list[HistoryTurn]:
        kept: list[HistoryTurn] = []
        used = 0
        for turn in reversed(history):
            used += len(turn.text)
            if used > self.config.history_chars:
                break
            kept.append(turn)
        return list(reversed(kept))

    def _store(self, turn: Turn, answer: Answer, retrieved: list[dict[str, Any]]) -> Answer:
        timings = dict(answer.timings_ms)
        answer_id = self._answers.save_turn(turn, answer, retrieved=retrieved)
        return replace(answer, id=answer_id, timings_ms=timings)


def _step(model: BoundedChat | None) -> BoundedChat | None:
    """The model for a step with a fallback: a share of the time left."""
    if model is None or model.deadline is None:
        return model
    return model.until(model.deadline.share(STEP_SHARE))
