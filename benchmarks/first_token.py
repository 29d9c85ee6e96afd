"""Streaming: time from a question to the first visible text of its answer (issue 14: with a
model whose first token comes after 300 ms, within 1.5 s in Slack and in a Teams personal
chat), and to the finished answer.

`knowbot serve slack --http` and `knowbot serve teams` run as separate processes on one
embedded PostgreSQL holding the example knowledge, with the bundled embedding model. A local
OpenAI-compatible server streams every reply (server-sent events): its first piece after
--first-token seconds, then a word every --piece seconds; intent classification is a model
call too, and waits as long for its reply. A fake Slack Web API and a fake Bot Framework
connector run here and note when each call arrives.

- Slack: a mention in a channel; first text = the first chat.startStream (or, where Slack
  refuses streams, chat.postMessage) in its thread.
- Teams: a personal-chat message; first text = the first streaming update carrying answer
  text (the informative "Reading the sources…" update comes before it and is reported too).

    python -m benchmarks.first_token [--runs 10] [--first-token 0.3] [--piece 0.02]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import requests

from benchmarks.first_answer import QUESTIONS, ingest_examples, slack_env
from benchmarks.setup import bench_database, percentile, serve_process
from tests.adapters.slack import payloads
from tests.adapters.slack.test_fuzz import sign
from tests.adapters.teams import activities as teams
from tests.fakes.bot_connector import FakeConnector, fake_connector
from tests.fakes.openai_server import fake_openai, free_port, serve_app
from tests.fakes.slack_server import FakeSlack

SLACK = ["serve", "slack", "--http", "--no-scheduler"]
TEAMS = ["serve", "teams", "--no-scheduler"]
ANSWER = (
    "- The answer's first point, as the model writes it [1]\n"
    "- A second point with the conditions that apply to it [1]\n"
    "- A third point naming the limit and the period [1]\n"
)
TIMEOUT_S = 60.0


def model_reply(messages: list[dict[str, str]]) -> str:
    return "lookup" if "Classify" in messages[0]["content"] else ANSWER


def wait_until(check: object, what: str) -> float:
    """Poll `check()` until it returns a time (monotonic seconds); that time."""
    started = time.monotonic()
    while (found := check()) is None:  # type: ignore[operator]
        if time.monotonic() - started > TIMEOUT_S:
            raise SystemExit(f"no {what} within {TIMEOUT_S:.0f} s")
        time.sleep(0.002)
    return float(found)


def slack_once(url: str, slack: FakeSlack, question: str, n: int) -> dict[str, float]:
    event = payloads.mention(question, channel=f"C0BENCH{n:03d}")
    thread, channel = event["event"]["ts"], event["event"]["channel"]
    raw = json.dumps(event).encode()
    headers = {"Content-Type": "application/json", **sign(raw)}
    sent = time.monotonic()
    assert requests.post(f"{url}/slack/events", data=raw, headers=headers, timeout=30).ok

    def first() -> float | None:
        shown = [
            c.at
            for c in list(slack.calls)
            if c.method in ("chat.startStream", "chat.postMessage")
            and c.args.get("thread_ts") == thread
        ]
        return min(shown) if shown else None

    def finished() -> float | None:
        confidence = [
            c.at
            for c in list(slack.calls)
            if c.method == "reactions.add"
            and c.args.get("channel") == channel
            and c.args.get("name") != "hourglass_flowing_sand"
        ]
        return confidence[0] if confidence else None

    first_at = wait_until(first, "first text in Slack")
    done_at = wait_until(finished, "finished Slack answer")
    streamed = any(
        c.method == "chat.stopStream" and c.args.get("channel") == channel
        for c in list(slack.calls)
    )
    return {"first_s": first_at - sent, "done_s": done_at - sent, "streamed": float(streamed)}


def teams_once(url: str, connector: FakeConnector, question: str, n: int) -> dict[str, float]:
    chat = f"a:1bench-chat-{n}"
    activity = teams.message(connector.url, question, conversation=teams.personal(chat))
    sent = time.monotonic()
    requests.post(f"{url}/api/messages", json=activity, timeout=30)

    def mine(kind: str) -> float | None:
        for posted in list(connector.posted):
            info = posted.stream or {}
            if posted.conversation_id == chat and info.get("streamType") == kind:
                return posted.at
        return None

    informative_at = wait_until(lambda: mine("informative"), "informative update in Teams")
    first_at = wait_until(lambda: mine("streaming"), "first streamed text in Teams")
    done_at = wait_until(lambda: mine("final"), "final Teams message")
    return {
        "informative_s": informative_at - sent,
        "first_s": first_at - sent,
        "done_s": done_at - sent,
    }


def summary(name: str, runs: list[dict[str, float]], keys: tuple[str, ...]) -> None:
    for key in keys:
        values = [r[key] for r in runs]
        print(f"{name} {key:14s} p50 {percentile(values, 50):5.2f} s   max {max(values):5.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--first-token", type=float, default=0.3)
    parser.add_argument("--piece", type=float, default=0.02, help="seconds between pieces")
    args = parser.parse_args()
    slack = FakeSlack()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        stack.enter_context(serve_app(slack.app(), port=slack.port))
        connector = stack.enter_context(fake_connector())
        llm = stack.enter_context(
            fake_openai(model_reply, delay_s=args.first_token, piece_interval_s=args.piece)
        )
        _, db_url = stack.enter_context(bench_database())
        env = {**slack_env(db_url, tmp, slack.api_url), "OPENAI_BASE_URL": llm.base_url}
        ingest_examples(env)
        slack_url = stack.enter_context(
            serve_process(SLACK, env, Path(tmp) / "slack.log", free_port())
        )
        teams_env = {k: v for k, v in env.items() if not k.startswith("SLACK_")}
        teams_url = stack.enter_context(
            serve_process(TEAMS, teams_env, Path(tmp) / "teams.log", free_port())
        )
        slack_once(slack_url, slack, "warm up: what is OPD?", 999)  # not counted
        teams_once(teams_url, connector, "warm up: what is OPD?", 999)
        slack_runs, teams_runs = [], []
        for n in range(args.runs):
            question = QUESTIONS[n % len(QUESTIONS)]
            slack_runs.append(slack_once(slack_url, slack, question, n))
            teams_runs.append(teams_once(teams_url, connector, question, n))
            s, t = slack_runs[-1], teams_runs[-1]
            print(
                f"run {n + 1}: slack first {s['first_s']:.2f} s (done {s['done_s']:.2f}), "
                f"teams first {t['first_s']:.2f} s "
                f"(informative {t['informative_s']:.2f}, done {t['done_s']:.2f})"
            )
        print(f"first token after {args.first_token:.2f} s, a word every {args.piece:.3f} s")
        summary("slack", slack_runs, ("first_s", "done_s"))
        summary("teams", teams_runs, ("informative_s", "first_s", "done_s"))
        if not all(r["streamed"] for r in slack_runs):
            print("note: some Slack answers were not streamed (see the logs)")


if __name__ == "__main__":
    main()
