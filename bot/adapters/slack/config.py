"""What a deployment tunes about the Slack adapter, read once from Settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.conversation.types import Confidence
from bot.errors import KnowbotError
from bot.settings import Settings

PLATFORM = "slack"

# Shown on the answer itself, so the level is visible without opening anything.
CONFIDENCE_REACTIONS: Mapping[Confidence, str] = {
    Confidence.HIGH: "large_green_circle",
    Confidence.MEDIUM: "large_yellow_circle",
    Confidence.LOW: "red_circle",
}
WORKING_REACTION = "hourglass_flowing_sand"
WORKING_STATUS = "is looking this up…"

# Slack's feedback buttons under every answer: the action and the two buttons' values.
FEEDBACK_ACTION = "knowbot_feedback"
GOOD, BAD = "good", "bad"
FEEDBACK_RATINGS = {GOOD: 1, BAD: -1}

# Buttons of the escalation loop (bot/adapters/slack/escalating.py).
ESCALATE_ACTION = "knowbot_escalate"  # "Ask an expert" under a Medium/Low answer
NOT_VERIFIED_ACTION = "knowbot_not_verified"  # "Not what I asked" under a verified answer
CONFIRM_ACTION = "knowbot_verified_confirm"
RETIRE_ACTION = "knowbot_verified_retire"
ANSWER_ACTION = "knowbot_answer"  # on the experts' message: opens the answer form
ANSWER_FORM = "knowbot_answer_form"  # the modal's callback id

# Why a user rated an answer down: (stored value, button label).
REASONS: tuple[tuple[str, str], ...] = (
    ("wrong", "Wrong"),
    ("incomplete", "Incomplete"),
    ("outdated", "Outdated"),
    ("not_relevant", "Not relevant"),
    ("other", "Other"),
)


@dataclass(frozen=True)
class SlackOptions:
    positive: tuple[str, ...]  # in the order configured: the first is shown as a hint
    negative: tuple[str, ...]
    post_interval_s: float = 1.0
    # Answers from a language model are streamed into their thread (when Slack allows).
    streaming: bool = True
    # Least time between two updates of a message being streamed or edited: Slack takes
    # about one update per second per message without throttling.
    stream_interval_s: float = 1.0
    # Offered when an assistant thread opens; None: the most asked, well rated questions.
    suggested_prompts: tuple[str, ...] | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> SlackOptions:
        positive = tuple(dict.fromkeys(settings.slack_positive_reactions))
        negative = tuple(dict.fromkeys(settings.slack_negative_reactions))
        both = sorted(set(positive) & set(negative))
        if both:
            raise KnowbotError(
                f"Reaction(s) {', '.join(both)} are in both KNOWBOT_SLACK_POSITIVE_REACTIONS and "
                "KNOWBOT_SLACK_NEGATIVE_REACTIONS: keep each in one list."
            )
        prompts = settings.slack_suggested_prompts
        return cls(
            positive,
            negative,
            settings.slack_post_interval_s,
            streaming=settings.streaming,
            suggested_prompts=tuple(prompts) if prompts is not None else None,
        )

    def rating_for(self, reaction: str) -> int | None:
        """+1, -1, or None for a reaction that is not a rating."""
        if reaction in self.positive:
            return 1
        if reaction in self.negative:
            return -1
        return None

    @property
    def hint(self) -> str:
        """How to rate, for the answer's footer: the first emoji of each list."""
        if not self.positive or not self.negative:
            return ""
        return f"React :{self.positive[0]}: or :{self.negative[0]}: to rate this answer"


def reaction_name(raw: str) -> str:
    """`+1::skin-tone-3` rates like `+1`."""
    return raw.split("::", 1)[0]
