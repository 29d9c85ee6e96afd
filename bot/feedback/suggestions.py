"""Which questions to offer as suggested prompts (Slack's assistant threads): the ones a
deployment configured, else the questions people ask most that were rated well, topped up
with FAQ questions from the knowledge base (a new deployment has no ratings yet)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from bot.store.suggestions import SuggestionStore

MAX_PROMPTS = 4  # Slack shows at most four
MIN_ASKERS = 2  # a question one person asked stays theirs
LOOKBACK = timedelta(days=90)


def suggested_questions(
    store: SuggestionStore, *, scopes: Sequence[str], configured: Sequence[str] | None
) -> list[str]:
    if configured is not None:
        return list(configured)[:MAX_PROMPTS]
    since = datetime.now(UTC) - LOOKBACK
    chosen = store.popular(scopes=scopes, since=since, min_askers=MIN_ASKERS, limit=MAX_PROMPTS)
    if len(chosen) < MAX_PROMPTS:
        taken = {_key(q) for q in chosen}
        for question in store.faq_questions(scopes=scopes, limit=MAX_PROMPTS * 2):
            if _key(question) not in taken and len(chosen) < MAX_PROMPTS:
                chosen.append(question)
                taken.add(_key(question))
    return chosen


def _key(question: str) -> str:
    return " ".join(question.lower().strip(" ?!.").split())
