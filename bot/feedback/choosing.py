"""Which arms are live, and the chooser the pipeline gets, from the settings."""

from __future__ import annotations

from functools import cache

from sqlalchemy.engine import Engine

import prompts
from bot.conversation.ports import PromptChooser
from bot.errors import KnowbotError
from bot.feedback.bandit import FACTS, ArmSource, Bandit, BanditConfig, FixedChoice
from bot.settings import Settings
from bot.store.arms import ArmStore, Tallies


def live_arms(settings: Settings) -> ArmSource:
    """Every version file of a prompt is live, oldest first (the incumbent: a new version
    earns its traffic), unless KNOWBOT_LIVE_PROMPTS names the versions, in order."""
    _check_live_prompts(settings)

    @cache
    def arms(name: str) -> list[str]:
        if name == FACTS:
            return list(settings.facts_formats)
        return list(settings.live_prompts.get(name) or prompts.versions(name))

    return arms


def build_chooser(settings: Settings, engine: Engine) -> PromptChooser:
    if not settings.bandit_enabled:
        return FixedChoice(live_arms(settings))
    return build_bandit(settings, engine)


def build_bandit(settings: Settings, engine: Engine) -> Bandit:
    store = ArmStore(engine)

    def tallies(name: str) -> Tallies:
        return store.choice_tallies(FACTS) if name == FACTS else store.prompt_tallies(name)

    config = BanditConfig(
        exploration=settings.bandit_exploration, refresh_s=settings.bandit_refresh_s
    )
    return Bandit(arms=live_arms(settings), tallies=tallies, config=config)


def _check_live_prompts(settings: Settings) -> None:
    for name, wanted in settings.live_prompts.items():
        try:
            available = prompts.versions(name)
        except (FileNotFoundError, NotADirectoryError):
            available = []
        missing = [v for v in wanted if v not in available]
        if missing or not wanted:
            raise KnowbotError(
                f"KNOWBOT_LIVE_PROMPTS names {name}@{', '.join(missing) or '(no version)'}, "
                f"but prompts/{name}/ has {', '.join(available) or 'no versions'}. "
                'List versions that exist, e.g. {"answer": ["v1", "v2"]}.'
            )
