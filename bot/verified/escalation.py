"""Escalation, platform-neutral: which experts channel a question goes to, what it says and
whom it names, joining repeats, and what an expert's reply, confirmation, edit or
retirement does to the verified answers. The adapters only post and read messages.

The rules:
- a channel escalates to its own experts channel (`knowbot channels set --escalate-to`),
  else to the platform's default (KNOWBOT_ESCALATION_SLACK_CHANNEL /
  KNOWBOT_ESCALATION_TEAMS_CONVERSATION); with neither, nothing escalates.
- the verified answer an expert writes goes to a scope the asking channel sees: the scope
  of a cited source the channel sees, else the channel's first scope. Askers are joined
  only within one scope, so nobody is told an answer their channel could not be served.
- the owners named are those of the cited sources, else every owner of the channel's
  scopes; a verified answer's author comes first when that answer was rated down.
- the same question (same words once normalised) to the same experts within a day joins
  the open escalation: one message, a count of askers."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.conversation.types import ThreadRef
from bot.conversation.verified import Embed, VerifiedAnswer, VerifiedSource
from bot.store.answers import AnswerStore
from bot.store.channels import ChannelStore
from bot.store.escalations import Asker, Escalation, EscalationStore, NewEscalation
from bot.store.verified import NewVerified, VerifiedStore

log = logging.getLogger(__name__)

JOIN_WITHIN = timedelta(days=1)
_WORDS = re.compile(r"[^\W_]+")

Locate = Callable[[Sequence[str]], dict[str, tuple[int, str]]]


def question_key(question: str) -> str:
    """Two askings of one question share a key: case, punctuation and spacing ignored."""
    return " ".join(_WORDS.findall(question.lower()))


@dataclass(frozen=True)
class Told:
    """An asker and the thread their answer went to (where they are told the outcome)."""

    asker: Asker
    thread: ThreadRef | None


@dataclass(frozen=True)
class View:
    """Everything an experts' message shows, for any platform to render."""

    escalation: Escalation
    askers: tuple[Told, ...]
    verified: VerifiedAnswer | None  # the one served (question) or to confirm (confirm)
    answered: VerifiedAnswer | None  # what the expert's reply became

    @property
    def count(self) -> int:
        return len(self.askers)


@dataclass(frozen=True)
class Escalated:
    view: View
    created: bool  # post a new message
    new_asker: bool  # else update the message (a new asker) or leave it


@dataclass(frozen=True)
class Answered:
    verified: VerifiedAnswer
    view: View


class Escalator:
    def __init__(
        self,
        *,
        store: EscalationStore,
        answers: AnswerStore,
        channels: ChannelStore,
        verified: VerifiedStore,
        defaults: Mapping[str, str | None],
        embed: Callable[[], tuple[Embed, str]],
        locate: Locate | None = None,
    ) -> None:
        self._store = store
        self._answers = answers
        self._channels = channels
        self._verified = verified
        self._defaults = defaults  # platform -> default experts channel
        self._embed = embed  # (embed, model name), resolved on first use
        self._locate = locate

    @property
    def store(self) -> EscalationStore:
        return self._store

    def experts_for(self, platform: str, channel: str) -> str | None:
        own = self._channels.get(platform, channel).escalate_to
        return own or self._defaults.get(platform) or None

    def escalate(
        self,
        *,
        answer_id: int,
        user_id: str,
        rating: int | None = None,
        reason: str = "",
        service_url: str = "",
    ) -> Escalated | None:
        """Send the answer's question to its channel's experts (or join the open message);
        None when its channel has no experts channel, or the answer is unknown."""
        row = self._answers.get(answer_id)
        ref = self._answers.thread_of(answer_id)
        if row is None or ref is None:
            return None
        experts = self.experts_for(ref.platform, ref.channel)
        if not experts:
            return None
        scopes = self._channels.get(ref.platform, ref.channel).scopes
        served = self._served(row)
        sources = served.sources if served else self._cited(row)
        scope = served.scope if served else self._scope(sources, scopes)
        ids = [s.source_id for s in sources if s.source_id is not None]
        owners = self._store.source_owners(ids) if ids else []
        if not owners:
            owners = self._store.owners_in_scopes([scope] if ids else list(scopes))
        if served and served.author_id:
            owners = list(dict.fromkeys([served.author_id, *owners]))
        question = str(row.get("rewritten_question") or row["question"])
        new = NewEscalation(
            kind="question",
            platform=ref.platform,
            experts_channel=experts,
            scope=scope,
            question=question,
            question_key=question_key(question),
            answer_text=_answer_text(row),
            sources=sources,
            owners=tuple(owners),
            verified_id=served.id if served else None,
            service_url=service_url,
        )
        asker = Asker(user_id, answer_id, rating, reason)
        since = datetime.now(UTC) - JOIN_WITHIN
        joined = self._store.join_or_open(new, asker, since=since)
        return Escalated(self.view(joined.escalation), joined.created, joined.new_asker)

    def view(self, escalation: Escalation | int) -> View:
        if isinstance(escalation, int):
            found = self._store.get(escalation)
            if found is None:
                raise LookupError(f"no escalation {escalation}")
            escalation = found
        askers = tuple(
            Told(a, self._answers.thread_of(a.answer_id) if a.answer_id else None)
            for a in self._store.askers(escalation.id)
        )
        verified = self._verified.get(escalation.verified_id) if escalation.verified_id else None
        answered = (
            self._verified.get(escalation.answered_verified_id)
            if escalation.answered_verified_id
            else None
        )
        return View(escalation, askers, verified, answered)

    def reply(
        self, escalation: Escalation, *, text: str, author_id: str, author_name: str
    ) -> Answered | None:
        """The first reply to a question becomes its verified answer; None for any later
        reply (a discussion) and for requests to confirm (they are settled by buttons or
        an `edit:`)."""
        text = text.strip()
        if escalation.kind != "question" or not text:
            return None
        if not self._store.claim_answer(escalation.id, answered_by=author_name):
            return None
        embed, model = self._embed()
        q_vec, a_vec = embed([escalation.question, text])
        (verified_id,) = self._verified.add(
            [
                NewVerified(
                    scope=escalation.scope,
                    question=escalation.question,
                    answer=text,
                    author=author_name,
                    sources=escalation.sources,
                    question_embedding=q_vec,
                    answer_embedding=a_vec,
                    embed_model=model,
                    origin_escalation_id=escalation.id,
                    author_id=author_id,
                )
            ]
        )
        self._store.set_answer(escalation.id, verified_id)
        if escalation.verified_id is not None:  # the answer rated down is replaced
            self._verified.set_status(
                escalation.verified_id,
                "retired",
                reason=f"replaced by verified answer {verified_id}",
            )
        verified = self._verified.get(verified_id)
        assert verified is not None
        return Answered(verified, self.view(escalation.id))

    def target_of(self, escalation: Escalation) -> int | None:
        """The verified answer buttons and edits in this escalation's thread act on."""
        if escalation.kind == "confirm":
            return escalation.verified_id
        return escalation.answered_verified_id

    def edit(self, verified_id: int, *, text: str, by: str) -> VerifiedAnswer | None:
        """New wording: active again and verified now; requests to confirm it are settled."""
        text = text.strip()
        current = self._verified.get(verified_id)
        if current is None or current.status == "retired" or not text:
            return None
        embed, model = self._embed()
        (vector,) = embed([text])
        if not self._verified.revise(
            verified_id, answer=text, answer_embedding=vector, model=model
        ):
            return None
        self._store.close_confirms(verified_id, f"edited by {by}")
        log.info("verified answer %s edited by %s", verified_id, by)
        return self._verified.get(verified_id)

    def confirm(self, verified_id: int, *, by: str) -> list[Escalation]:
        """Restore it (verified as of now); the requests to confirm it that this settles."""
        if not self._verified.confirm(verified_id):
            return []
        log.info("verified answer %s confirmed by %s", verified_id, by)
        return self._store.close_confirms(verified_id, f"confirmed by {by}")

    def retire(self, verified_id: int, *, by: str) -> list[Escalation]:
        if not self._verified.set_status(verified_id, "retired", reason=f"retired by {by}"):
            return []
        log.info("verified answer %s retired by %s", verified_id, by)
        return self._store.close_confirms(verified_id, f"retired by {by}")

    def request_confirmations(self, verified_ids: Sequence[int], *, why: str) -> list[int]:
        """Ask the experts of each answer to confirm, edit or retire it: stored as pending
        requests that whichever process holds the chat credentials posts. The ids of the
        requests; none for an answer already waiting, or with no experts channel."""
        made: list[int] = []
        for verified_id in verified_ids:
            verified = self._verified.get(verified_id)
            if verified is None or self._store.confirm_open(verified_id):
                continue
            where = self._experts_of(verified)
            if where is None:
                log.warning(
                    "verified answer %s needs confirming (%s) but no experts channel is "
                    "configured: set KNOWBOT_ESCALATION_SLACK_CHANNEL or use knowbot verified",
                    verified_id,
                    why,
                )
                continue
            platform, experts, service_url = where
            ids = [s.source_id for s in verified.sources if s.source_id is not None]
            owners = [verified.author_id] if verified.author_id else []
            owners += self._store.source_owners(ids) if ids else []
            if not owners:
                owners = self._store.owners_in_scopes([verified.scope])
            new = NewEscalation(
                kind="confirm",
                platform=platform,
                experts_channel=experts,
                scope=verified.scope,
                question=verified.question,
                question_key=question_key(verified.question),
                answer_text=why,
                sources=verified.sources,
                owners=tuple(dict.fromkeys(owners)),
                verified_id=verified_id,
                service_url=service_url,
            )
            made.append(self._store.add(new))
        return made

    def ask_again_old(self, *, max_age: timedelta, now: datetime | None = None) -> list[int]:
        """Verified answers nobody confirmed for `max_age`: their experts are asked again."""
        when = (now or datetime.now(UTC)) - max_age
        old = [v.id for v in self._verified.older_than(when)]
        days = max_age.total_seconds() / 86400
        return self.request_confirmations(old, why=f"not confirmed for {days:g} days")

    def _experts_of(self, verified: VerifiedAnswer) -> tuple[str, str, str] | None:
        """Where to ask about a verified answer: where it was answered, else the default
        experts channel, else any experts channel of a channel that sees its scope."""
        if verified.origin_escalation_id is not None:
            origin = self._store.get(verified.origin_escalation_id)
            if origin is not None:
                return origin.platform, origin.experts_channel, origin.service_url
        for platform in ("slack", "teams"):
            default = self._defaults.get(platform)
            if default:
                return platform, default, ""
        for channel in self._channels.all():
            if channel.escalate_to and verified.scope in channel.scopes:
                return channel.platform, channel.escalate_to, ""
        return None

    def _served(self, row: Mapping[str, Any]) -> VerifiedAnswer | None:
        served = (row.get("choices") or {}).get("verified")
        return self._verified.get(int(served)) if served and str(served).isdigit() else None

    def _cited(self, row: Mapping[str, Any]) -> tuple[VerifiedSource, ...]:
        """The sources the answer's bullets cite (knowledge chunks, with their source)."""
        numbers = {n for b in row.get("bullets") or [] for n in b.get("sources") or []}
        cited = [
            VerifiedSource(
                title=str(s.get("title") or ""),
                url=str(s.get("url") or ""),
                chunk_id=str(s.get("chunk_id") or ""),
                location=str(s.get("location") or ""),
            )
            for s in row.get("sources") or []
            if s.get("number") in numbers and s.get("kind") not in ("definition", "verified")
        ]
        chunk_ids = [s.chunk_id for s in cited if s.chunk_id]
        found = self._locate(chunk_ids) if self._locate and chunk_ids else {}
        return tuple(
            VerifiedSource(
                title=s.title,
                url=s.url,
                chunk_id=s.chunk_id,
                location=s.location,
                source_id=found[s.chunk_id][0],
                uri=found[s.chunk_id][1],
            )
            if s.chunk_id in found
            else s
            for s in cited
        )

    def _scope(self, sources: Sequence[VerifiedSource], scopes: Sequence[str]) -> str:
        ids = [s.source_id for s in sources if s.source_id is not None]
        of = self._store.source_scopes(ids)
        for source_id in ids:
            if of.get(source_id) in scopes:
                return of[source_id]
        return scopes[0] if scopes else "default"


def _answer_text(row: Mapping[str, Any]) -> str:
    bullets = row.get("bullets") or []
    lines = []
    for b in bullets:
        marks = "".join(f"[{n}]" for n in b.get("sources") or [])
        lines.append(f"{b.get('text', '')} {marks}".rstrip())
    return "\n".join(lines) or str(row.get("notice") or "")
