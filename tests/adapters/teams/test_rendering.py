"""How an answer looks: Teams' AI label and citations when a model wrote it, plain markdown
with a sources list where Teams' entities are not understood."""

from __future__ import annotations

import re
from pathlib import Path

from tests.adapters.teams import activities as teams
from tests.adapters.teams.conftest import BotFactory
from tests.fakes.openai_server import fake_openai


def model_reply(messages: list[dict[str, str]]) -> str:
    if "Classify" in messages[0]["content"]:
        return "yes_no"
    number = re.search(r"\[(\d+)\] policy\.txt", messages[1]["content"])
    n = number.group(1) if number else "1"
    return (
        f"- Yes, a pre-existing disease is covered after 36 months [{n}]\n"
        f"- The 36 months count from the first enrolment [{n}]"
    )


def test_a_model_written_answer_carries_the_ai_label_and_its_citations(
    start_bot: BotFactory,
) -> None:
    with fake_openai(model_reply) as llm, start_bot(OPENAI_BASE_URL=llm.base_url) as bot:
        bot.post(teams.message(bot.connector.url, "Is a PED covered?"))
        [reply] = bot.connector.wait_for_messages(1)
    # (a personal chat: the final message of a stream, which also carries its streaminfo)
    [entity] = [e for e in reply.activity["entities"] if e["type"] != "streaminfo"]
    assert entity["additionalType"] == ["AIGeneratedContent"]
    assert entity["@type"] == "Message" and entity["type"] == "https://schema.org/Message"
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", reply.text)}
    assert cited and cited == {c["position"] for c in entity["citation"]}
    assert "- Yes, a pre-existing disease is covered after 36 months [" in reply.text


def test_quoted_passages_are_not_labelled_ai_generated(start_bot: BotFactory) -> None:
    with start_bot() as bot:  # no language model: the answer quotes the documents
        bot.post(teams.message(bot.connector.url, "How do I submit a reimbursement claim?"))
        [reply] = bot.connector.wait_for_messages(1)
    [entity] = reply.activity["entities"]
    assert "additionalType" not in entity and entity["citation"]
    assert "Quoted passages" in reply.text


def test_outside_teams_the_sources_are_listed_in_markdown(start_bot: BotFactory) -> None:
    with start_bot() as bot:
        emulator = teams.message(bot.connector.url, "What is the PED waiting period?")
        emulator["channelId"] = "emulator"
        bot.post(emulator)
        [reply] = bot.connector.wait_for_messages(1)
    assert reply.activity.get("entities") is None
    bullets, sources = reply.text.split("**Sources**\n", 1)
    listed = {int(n) for n in re.findall(r"^- \[(\d+)\] \S+", sources, re.MULTILINE)}
    assert listed == {int(n) for n in re.findall(r"\[(\d+)\]", bullets)}
    assert re.search(r"^- \[\d+\] policy\.txt — ", sources, re.MULTILINE)
    passed, total = map(
        int, re.findall(r"Confidence: \*\*\w+\*\* \((\d+)/(\d+) checks\)", reply.text)[0]
    )
    assert total == 8 and passed <= total  # every check is counted, none twice


def test_a_source_with_a_url_template_links_its_citation_and_its_markdown_line(
    start_bot: BotFactory, knowledge_dir: Path
) -> None:
    link = "https://intranet.example.com/kb/policy.txt#:~:text=5.2%20Reimbursement%20claims"
    (knowledge_dir / "knowbot-sources.toml").write_text(
        'url = "https://intranet.example.com/kb/{path}#:~:text={section}"\n'
    )
    with start_bot() as bot:
        bot.post(teams.message(bot.connector.url, "How are reimbursement claims settled?"))
        emulator = teams.message(bot.connector.url, "How are reimbursement claims settled?")
        emulator["channelId"] = "emulator"
        bot.post(emulator)
        in_teams, outside = bot.connector.wait_for_messages(2)

    [entity] = in_teams.activity["entities"]
    urls = {c["appearance"]["name"]: c["appearance"].get("url") for c in entity["citation"]}
    assert urls["policy.txt — 5.2 Reimbursement claims"] == link
    assert f"[policy.txt — 5.2 Reimbursement claims]({link})" in outside.text
