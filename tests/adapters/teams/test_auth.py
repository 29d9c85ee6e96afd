"""With MICROSOFT_APP_ID set, only requests carrying a valid Bot Framework JWT are processed.

Tokens are real RS256 JWTs checked by botbuilder against signing keys it fetches over HTTP
from a local OpenID endpoint (botbuilder's parameterized authentication, meant for private
clouds, lets the metadata URL be configured)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from bot.adapters.teams.options import BotFrameworkEndpoints, TeamsOptions
from bot.conversation.types import ThreadRef, Turn
from tests.adapters.teams import activities as teams
from tests.adapters.teams.conftest import FAST, BotFactory, TeamsBot
from tests.fakes.bot_framework_auth import FakeBotFrameworkAuth, fake_bot_framework_auth, new_key

APP_ID = "knowbot-app-id"


@pytest.fixture
def auth() -> Iterator[FakeBotFrameworkAuth]:
    with fake_bot_framework_auth() as fake:
        yield fake


@pytest.fixture
def secured(start_bot: BotFactory, auth: FakeBotFrameworkAuth) -> Iterator[TeamsBot]:
    endpoints = BotFrameworkEndpoints(
        openid_metadata_url=auth.metadata_url, emulator_openid_metadata_url=auth.metadata_url
    )
    options = TeamsOptions(retry_delays_s=FAST.retry_delays_s, endpoints=endpoints)
    with start_bot(
        options=options, MICROSOFT_APP_ID=APP_ID, MICROSOFT_APP_PASSWORD="client-secret"
    ) as bot:
        yield bot


def delivered_answer(bot: TeamsBot) -> tuple[int, str]:
    """An answer already shown in the personal chat (as if answered earlier)."""
    turn = Turn(
        thread=ThreadRef("teams", teams.TENANT, teams.PERSONAL_CHAT, teams.PERSONAL_CHAT),
        event_id="earlier",
        user_id="aad-asha",
        text="How are reimbursement claims settled?",
    )
    answer = bot.services.pipeline.answer_now(turn)
    assert answer is not None
    bot.services.answers.record_delivery(
        answer.id, platform="teams", channel=teams.PERSONAL_CHAT, message_id="bot-message-earlier"
    )
    return answer.id, "bot-message-earlier"


Forge = Callable[[FakeBotFrameworkAuth, str], str | None]
BAD_TOKENS: dict[str, Forge] = {
    "missing": lambda auth, url: None,
    "garbage": lambda auth, url: "not-a-jwt",
    "signed by someone else": lambda auth, url: auth.token(
        audience=APP_ID, service_url=url, key=new_key()
    ),
    "for another bot": lambda auth, url: auth.token(audience="some-other-bot", service_url=url),
    "expired": lambda auth, url: auth.token(audience=APP_ID, service_url=url, expires_in=-3600),
    "for another service url": lambda auth, url: auth.token(
        audience=APP_ID, service_url="https://smba.example.invalid/"
    ),
    "from an unknown issuer": lambda auth, url: auth.token(
        audience=APP_ID, service_url=url, issuer="https://issuer.example.invalid"
    ),
}


@pytest.mark.parametrize("forge", BAD_TOKENS.values(), ids=BAD_TOKENS.keys())
def test_a_request_without_a_valid_token_is_refused_and_not_processed(
    secured: TeamsBot, auth: FakeBotFrameworkAuth, forge: Forge
) -> None:
    answer_id, message_id = delivered_answer(secured)
    url = secured.connector.url
    question = teams.message(url, "What is the PED waiting period?")
    like = teams.reaction(url, teams.personal(), message_id, added=["like"])
    for activity in (question, like):
        assert secured.post(activity, token=forge(auth, url)).status_code == 401
    assert secured.connector.posted == []
    assert len(secured.stored_answers()) == 1  # only the earlier one
    assert secured.services.feedback.for_answer(answer_id) == []


def test_a_request_with_a_valid_token_is_processed(
    secured: TeamsBot, auth: FakeBotFrameworkAuth
) -> None:
    answer_id, message_id = delivered_answer(secured)
    url = secured.connector.url
    token = auth.token(audience=APP_ID, service_url=url)
    like = teams.reaction(url, teams.personal(), message_id, added=["like"])
    assert secured.post(like, token=token).status_code == 200
    invoke = teams.feedback_invoke(
        url, teams.personal(), message_id, reaction="like", text="clear and short"
    )
    assert secured.post(invoke, token=token).status_code == 200
    [rating] = secured.services.feedback.for_answer(answer_id)
    assert (rating.rating, rating.reason) == (1, "clear and short")
