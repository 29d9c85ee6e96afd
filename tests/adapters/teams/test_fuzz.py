"""POST /api/messages under fire: hundreds of hostile bodies (a fixed seed, so every run
sends the same ones), none answered with a server error, and the bot still answers a real
question afterwards. `benchmarks/fuzz_endpoints.py` sends 10,000."""

from __future__ import annotations

from collections import Counter

import requests
from hypothesis import HealthCheck, given, seed, settings

from tests.adapters.teams import activities as teams
from tests.adapters.teams.conftest import TeamsBot
from tests.fakes.fuzz import Body, teams_bodies

EXAMPLES = 300


def post(bot: TeamsBot, body: Body) -> int:
    headers = {"Content-Type": body.content_type}
    url = f"{bot.url}/api/messages"
    return requests.post(url, data=body.raw, headers=headers, timeout=30).status_code


def test_no_body_gets_a_server_error(bot: TeamsBot) -> None:
    statuses: Counter[int] = Counter()

    @seed(13)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(body=teams_bodies(bot.connector.url))
    def send(body: Body) -> None:
        status = post(bot, body)
        statuses[status] += 1
        assert status < 500, (status, body)

    send()

    assert statuses[400] and statuses[200]  # both the checks and botbuilder were reached
    question = teams.message(bot.connector.url, "How do I submit a reimbursement claim?")
    assert bot.post(question).status_code == 200
    bot.connector.wait_for(
        lambda: any(m.reply_to_id == question["id"] for m in bot.connector.messages), 15
    )
    [reply] = [m for m in bot.connector.messages if m.reply_to_id == question["id"]]
    assert "30 days" in reply.text
    assert requests.get(f"{bot.url}/readyz", timeout=10).status_code == 200


def test_nul_bytes_and_lone_surrogates_are_cleaned_before_postgres_and_teams(
    bot: TeamsBot,
) -> None:
    question = teams.message(bot.connector.url, "How do I submit a\x00 reimbursement claim?\udfff")
    question["id"] = "17\x0000"
    question["from"] = {"id": "29:\x00asha", "name": "A\ud800sha"}

    assert bot.post(question).status_code == 200
    [reply] = bot.connector.wait_for_messages(1)
    assert "30 days" in reply.text
    stored = bot.stored_answers()[0]["question"]
    assert stored == "How do I submit a reimbursement claim?\ufffd"  # storable, as readable
