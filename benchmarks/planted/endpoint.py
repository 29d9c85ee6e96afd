"""The scripted model behind the local OpenAI-compatible endpoint. Only answers are
scripted (by the job the benchmark sets before each question); the intent prompt gets the
label knowbot's own rules give, condensing gets the message back, a judge gets 5."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from benchmarks.planted.prompt import Prompt, parse_prompt
from bot.conversation.intent import classify_intent

Job = Callable[[Prompt], str]


@dataclass
class Script:
    job: Job | None = None
    prompts: list[Prompt] = field(default_factory=list)  # answer prompts, in order

    def reply(self, messages: list[dict[str, str]]) -> str:
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
        prompt = parse_prompt(system, user)
        if prompt is None:
            return _other(system, user)
        self.prompts.append(prompt)
        return self.job(prompt) if self.job else "NOT_FOUND"

    @property
    def last(self) -> Prompt | None:
        return self.prompts[-1] if self.prompts else None


def _other(system: str, user: str) -> str:
    """Replies to the prompts that are not answers."""
    if m := re.search(r"Follow-up message:\s*(.+)", user):
        return m.group(1).strip()  # condense: the question stands alone already
    if "paraphrase" in user.lower():
        return ""
    if re.search(r"\bgrade\b", system, re.IGNORECASE):
        return "5"  # a judge that never lowers: the level is the checks' alone
    question = re.sub(r"^Question:\s*", "", user.strip())
    return classify_intent(question).value
