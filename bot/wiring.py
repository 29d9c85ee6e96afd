"""The composition root: builds every service from one Settings object."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from bot.backends import build_chat_model, build_embedder
from bot.conversation.pipeline import Pipeline, PipelineConfig
from bot.conversation.verified import Embed, VerifiedMatcher, fitted_rule
from bot.db import migrate
from bot.db.engine import Database, create_async_engine, open_database
from bot.feedback.choosing import build_chooser
from bot.feedback.reactions import Reactions
from bot.people.graph import GraphCredentials, GraphDirectory
from bot.people.readers import Readers
from bot.settings import Settings
from bot.store.answers import AnswerStore
from bot.store.channels import ChannelStore
from bot.store.escalations import EscalationStore
from bot.store.events import EventClaims
from bot.store.feedback import FeedbackStore
from bot.store.job_runs import JobRunStore
from bot.store.rated import RatedAnswerStore
from bot.store.suggestions import SuggestionStore
from bot.store.threads import ThreadStore
from bot.store.verified import VerifiedStore
from bot.verified.escalation import Escalator
from bot.verified.expiry import suspend_changed
from bot.verified.importing import reembed_stale
from knowledge.ingest.reports import SourceReport
from knowledge.models.bounded_chat import BoundedChat
from knowledge.models.llm import ChatModel, LLMParaphraser
from knowledge.service import Knowledge, open_knowledge
from knowledge.vocabulary import load_packs, use_vocabulary

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    db: Database
    threads: ThreadStore
    events: EventClaims
    answers: AnswerStore
    feedback: FeedbackStore
    channels: ChannelStore
    _knowledge: Knowledge | None = None
    _chat_model: ChatModel | None = None
    _pipeline: Pipeline | None = None
    _readers: Readers | None = None

    @property
    def pipeline(self) -> Pipeline:
        if self._pipeline is None:
            self._pipeline = Pipeline(
                claims=self.events,
                history=self.threads,
                answers=self.answers,
                knowledge=self.knowledge,
                model=self.chat_model,
                chooser=build_chooser(self.settings, self.db.engine),
                config=PipelineConfig(
                    judge=self.settings.judge_enabled,
                    facts_format=self.settings.facts_formats[0],
                    answer_deadline_s=self.settings.answer_deadline_s,
                    model_retries=self.settings.llm_max_retries,
                ),
                verified=self.verified_matcher(),
            )
        return self._pipeline

    @property
    def readers(self) -> Readers:
        """Who askers are, with their groups from Microsoft Graph when it is configured."""
        if self._readers is None:
            self._readers = Readers(_directory(self.settings))
        return self._readers

    @property
    def verified(self) -> VerifiedStore:
        return VerifiedStore(self.db.engine)

    def verified_matcher(self) -> VerifiedMatcher:
        """Matching under the index's model: answers another model embedded are embedded
        again first, so no similarity is ever compared across models."""
        kb = self.knowledge
        reembed_stale(self.verified, embed=kb.embeddings, model=kb.embedding_model)
        return VerifiedMatcher(
            self.verified,
            embed=kb.embeddings,
            model=kb.embedding_model,
            rule=fitted_rule(kb.embedding_model, min_score=self.settings.verified_min_score),
            access=kb,
        )

    @property
    def escalator(self) -> Escalator:
        """Escalation to experts channels (bot.verified.escalation)."""
        s = self.settings

        def embed() -> tuple[Embed, str]:
            return self.knowledge.embeddings, self.knowledge.embedding_model

        def locate(chunk_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
            return self.knowledge.chunk_sources(chunk_ids)

        return Escalator(
            store=EscalationStore(self.db.engine),
            answers=self.answers,
            channels=self.channels,
            verified=self.verified,
            defaults={
                "slack": s.escalation_slack_channel,
                "teams": s.escalation_teams_conversation,
            },
            embed=embed,
            locate=locate,
        )

    @property
    def rated(self) -> RatedAnswerStore:
        return RatedAnswerStore(self.db.engine)

    @property
    def suggestions(self) -> SuggestionStore:
        return SuggestionStore(self.db.engine)

    @property
    def job_runs(self) -> JobRunStore:
        return JobRunStore(self.db.engine)

    @property
    def reactions(self) -> Reactions:
        """Reactions to ratings, with the rules every adapter shares (see Reactions)."""
        return Reactions(answers=self.answers, feedback=self.feedback)

    @property
    def chat_model(self) -> ChatModel | None:
        if self._chat_model is None:
            self._chat_model = build_chat_model(self.settings)
        return self._chat_model

    @property
    def knowledge(self) -> Knowledge:
        """Built on first use: it checks the index's embedding model against the settings."""
        if self._knowledge is None:
            model = self.chat_model
            self._knowledge = open_knowledge(
                self.db.engine,
                create_async_engine(self.db.url),
                build_embedder(self.settings),
                paraphraser=self._paraphraser(model),
                on_change=self._sources_changed,
            )
        return self._knowledge

    def _sources_changed(self, reports: Sequence[SourceReport]) -> None:
        """A re-ingest changed or removed sources: verified answers on them are suspended,
        and their experts asked to confirm them (requests the chat side posts)."""
        try:
            suspended = suspend_changed(self.verified, reports)
            if suspended:
                for verified in map(self.verified.get, suspended):
                    if verified is not None:
                        self.escalator.request_confirmations(
                            [verified.id], why=verified.status_reason
                        )
        except Exception:  # the ingest itself succeeded; say so, and what did not follow
            log.exception("verified answers on changed sources could not be suspended")

    def _paraphraser(self, model: ChatModel | None) -> LLMParaphraser | None:
        """At ingest there is no answer deadline; calls retry as the settings say."""
        if model is None:
            return None
        return LLMParaphraser(BoundedChat(model, retries=self.settings.llm_max_retries))


def _directory(settings: Settings) -> GraphDirectory | None:
    if not settings.graph_configured:
        return None
    assert settings.graph_tenant_id and settings.graph_client_id and settings.graph_client_secret
    return GraphDirectory(
        GraphCredentials(
            tenant_id=settings.graph_tenant_id,
            client_id=settings.graph_client_id,
            client_secret=settings.graph_client_secret.get_secret_value(),
            graph_url=settings.graph_url,
            authority=settings.graph_authority,
        )
    )


def use_packs(settings: Settings) -> None:
    """Load the vocabulary packs the settings name and make them the process's vocabulary:
    a pack that cannot be read stops the start with a message naming it."""
    vocabulary = load_packs(settings.packs)
    use_vocabulary(vocabulary)
    log.info("vocabulary packs: %s", ", ".join(vocabulary.packs) or "none")


@contextmanager
def open_services(settings: Settings, *, apply_migrations: bool = True) -> Iterator[Services]:
    """Open the database (embedded or configured), apply pending migrations, wire services."""
    use_packs(settings)
    db = open_database(settings)
    try:
        if apply_migrations:
            applied = migrate.upgrade(db.engine)
            if applied:
                log.info("applied migrations %s", ", ".join(applied))
        services = Services(
            settings=settings,
            db=db,
            threads=ThreadStore(db.engine),
            events=EventClaims(db.engine),
            answers=AnswerStore(db.engine),
            feedback=FeedbackStore(
                db.engine, max_answer_age=timedelta(days=settings.feedback_max_age_days)
            ),
            channels=ChannelStore(db.engine),
        )
        try:
            yield services
        finally:
            if services._readers is not None:
                services._readers.close()
    finally:
        db.close()
