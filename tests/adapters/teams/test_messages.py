"""Questions in Teams over real HTTP: personal chats, channel mentions, reply chains."""

from __future__ import annotations

import re

from bot.adapters.teams.render import FORGOTTEN
from tests.adapters.teams import activities as teams
from tests.adapters.teams.conftest import BotFactory, TeamsBot


def test_a_personal_message_is_answered_with_sources_and_confidence(
    start_bot: BotFactory,
) -> None:
    with start_bot(options=None) as bot:  # the app exactly as `knowbot serve teams` builds it
        question = teams.message(bot.connector.url, "What is the PED waiting period?")
        response = bot.post(question)
        assert response.status_code == 200
        [reply] = bot.connector.wait_for_messages(1)
    assert reply.conversation_id == teams.PERSONAL_CHAT
    assert reply.reply_to_id == question["id"]
    text = reply.text
    assert "_Searched for: What is the pre-existing disease waiting period?_" in text
    [bullet] = [line for line in text.splitlines() if "36 months" in line]
    number = int(re.findall(r"\[(\d+)\]", bullet)[-1])
    assert re.search(r"(🟢|🟡|🔴) Confidence: \*\*(High|Medium|Low)\*\*", text)
    assert reply.activity["channelData"] == {"feedbackLoopEnabled": True}
    # Teams renders [n] as a citation whose card names the document and quotes the passage
    [entity] = reply.activity["entities"]
    [cited] = [c for c in entity["citation"] if c["position"] == number]
    assert cited["appearance"]["name"].startswith("policy.txt — ")
    assert "covered after 36 months" in cited["appearance"]["abstract"]
    assert len(cited["appearance"]["abstract"]) <= 160
    assert "**Sources**" not in text  # Teams lists the references itself
    # typing showed while it worked, before the answer
    first_typing = next(i for i, p in enumerate(bot.connector.posted) if p.type == "typing")
    assert first_typing < bot.connector.posted.index(reply)
    [stored] = bot.stored_answers()
    assert stored["platform"] == "teams" and stored["user_id"] == "aad-asha"


def test_a_channel_mention_is_answered_in_its_reply_chain_without_the_mention(
    bot: TeamsBot,
) -> None:
    post = teams.channel_mention(bot.connector.url, "How do I submit a reimbursement claim?")
    assert bot.post(post).status_code == 200
    [reply] = bot.connector.wait_for_messages(1)
    assert reply.conversation_id == f"{teams.CHANNEL};messageid={post['id']}"
    assert reply.reply_to_id == post["id"]
    assert "30 days" in reply.text
    [stored] = bot.stored_answers()
    assert stored["question"] == "How do I submit a reimbursement claim?"


def test_a_channel_message_without_a_mention_is_left_alone(bot: TeamsBot) -> None:
    chatter = teams.message(
        bot.connector.url,
        "What is the PED waiting period?",
        conversation=teams.channel_chain(teams.next_id()),
    )
    assert bot.post(chatter).status_code == 200
    assert bot.connector.posted == [] and bot.stored_answers() == []


def test_follow_ups_in_a_reply_chain_use_that_chain_only(bot: TeamsBot) -> None:
    url = bot.connector.url
    first = teams.channel_mention(url, "What is the room rent limit for Plan A?")
    bot.post(first)
    follow_up = teams.channel_mention(url, "and for Plan B?", root=first["id"])
    bot.post(follow_up)
    elsewhere = teams.channel_mention(url, "and for Plan B?")  # a new post: a new chain
    bot.post(elsewhere)
    _, in_chain, other_chain = bot.connector.wait_for_messages(3)
    assert in_chain.reply_to_id == follow_up["id"]
    assert in_chain.conversation_id.endswith(f"messageid={first['id']}")
    assert "_Searched for: What is the room rent limit for Plan B?_" in in_chain.text
    assert "2%" in in_chain.text
    assert "Searched for" not in other_chain.text


def test_forget_this_thread_starts_the_chain_afresh(bot: TeamsBot) -> None:
    url = bot.connector.url
    first = teams.channel_mention(url, "What is the room rent limit for Plan A?")
    bot.post(first)
    bot.post(teams.channel_mention(url, "forget this thread", root=first["id"]))
    bot.post(teams.channel_mention(url, "and for Plan B?", root=first["id"]))
    _, forgotten, after = bot.connector.wait_for_messages(3)
    assert forgotten.text == FORGOTTEN
    assert "Searched for" not in after.text  # nothing left to make it a follow-up of


def test_the_same_activity_delivered_twice_is_answered_once(bot: TeamsBot) -> None:
    question = teams.message(bot.connector.url, "How are reimbursement claims settled?")
    assert bot.post(question).status_code == 200
    assert bot.post(question).status_code == 200
    bot.connector.wait_for_messages(1)
    assert len(bot.connector.messages) == 1 and len(bot.stored_answers()) == 1


def test_a_conversation_sees_only_the_knowledge_scopes_mapped_to_it(bot: TeamsBot) -> None:
    bot.services.channels.set("teams", teams.CHANNEL, scopes=("hr-only",))
    bot.post(teams.channel_mention(bot.connector.url, "What is the PED waiting period?"))
    [reply] = bot.connector.wait_for_messages(1)
    assert "could not find" in reply.text and "36 months" not in reply.text
    [stored] = bot.stored_answers()
    assert stored["sources"] == []


def test_formatting_and_other_mentions_are_read_as_plain_words(bot: TeamsBot) -> None:
    question = (
        "<div><p>Hi&nbsp;<at>Ben Okafor</at>, see "
        '<a href="https://intranet.example/ped">this</a>:</p>'
        "<p>what is the <b>PED</b> waiting period?</p></div>"
    )
    bot.post(teams.channel_mention(bot.connector.url, question))
    bot.connector.wait_for_messages(1)
    [stored] = bot.stored_answers()
    assert stored["question"] == "Hi Ben Okafor, see this: what is the PED waiting period?"


def test_in_a_group_chat_only_mentions_are_answered(bot: TeamsBot) -> None:
    group = {"conversationType": "groupChat", "tenantId": teams.TENANT, "id": "19:grp@thread.v2"}
    url = bot.connector.url
    bot.post(teams.message(url, "What is the PED waiting period?", conversation=group))
    mention = teams.channel_mention(url, "What is the PED waiting period?")
    mention |= {"conversation": group, "channelData": {"tenant": {"id": teams.TENANT}}}
    bot.post(mention)
    [reply] = bot.connector.wait_for_messages(1)
    assert reply.conversation_id == "19:grp@thread.v2" and reply.reply_to_id == mention["id"]
    assert len(bot.stored_answers()) == 1
