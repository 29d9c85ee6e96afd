"""Slack ack latency while answers are in flight, and exactly-once answering across replicas.

Targets (issue 5): ack p99 < 100 ms while 20 questions are being answered concurrently;
50 concurrent threads all answered exactly once.

Everything real except Slack and the language model: two bot replicas, each a
`knowbot serve slack --http` process (slack-bolt on aiohttp, the real pipeline, the local
embedding model unless --hashing), share one embedded PostgreSQL; a fake Slack Web API and a
fake OpenAI-compatible model (answering after --llm-delay seconds, like a real one) run on
127.0.0.1 in this process, which also sends the load: the bots' processes carry only the
bots.

    python -m benchmarks.slack_ack [--hashing] [--llm-delay 1.5] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import aiohttp
import sqlalchemy as sa

from benchmarks.setup import bench_database, percentile
from bot.settings import Settings
from bot.wiring import open_services
from knowledge.ingest.options import IngestOptions
from tests.adapters.slack import payloads
from tests.fakes.openai_server import fake_openai, free_port, serve_app
from tests.fakes.slack_server import FakeSlack

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "knowledge"
QUESTIONS = [
    "What is the PED waiting period?",
    "Is cataract surgery covered under Plan B?",
    "How do I submit a reimbursement claim?",
    "What is the room rent limit for Plan A?",
    "Which region had the highest claims paid?",
]
IN_FLIGHT = 20
THREADS = 50
CHANNELS = 10


def model_reply(messages: list[dict[str, str]]) -> str:
    system, user = messages[0]["content"], messages[-1]["content"]
    if "Classify" in system:
        return "lookup"
    if "standalone" in system.lower():
        return user.splitlines()[-1]
    cited = re.search(r"\[(\d+)\]", user)
    n = cited.group(1) if cited else "1"
    return f"- The answer is in the policy [{n}]\n- See the cited section for details [{n}]"


@contextmanager
def replica(env: dict[str, str], log: Path) -> Iterator[str]:
    """One `knowbot serve slack --http` process; yields its events URL once it is healthy."""
    port = free_port()
    command = [sys.executable, "-m", "bot", "serve", "slack", "--http", "--port", str(port)]
    with log.open("w") as out:
        process = subprocess.Popen(
            [*command, "--no-scheduler"], env={**os.environ, **env}, stdout=out, stderr=out
        )
        try:
            wait_healthy(f"http://127.0.0.1:{port}/readyz", process, log)
            yield f"http://127.0.0.1:{port}/slack/events"
        finally:
            process.send_signal(signal.SIGINT)  # serve lets answers in progress finish
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()


def wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the bot exited ({process.returncode}):\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"the bot did not become healthy:\n{log.read_text()}")


async def post(
    http: aiohttp.ClientSession, url: str, payload: dict[str, Any], retry: int | None = None
) -> float:
    body = json.dumps(payload)
    headers = {"Content-Type": "application/json"}
    headers.update(payloads.signed_headers(body, retry=retry))
    started = time.perf_counter()
    async with http.post(url, data=body, headers=headers) as response:
        await response.read()
        assert response.status == 200, response.status
    return (time.perf_counter() - started) * 1000


def answers_posted(slack: FakeSlack) -> int:
    return sum(1 for c in slack.posts() if c.ok and "blocks" in c.args)


async def ack_under_load(url: str, slack: FakeSlack, seconds: float) -> dict[str, Any]:
    """Keep IN_FLIGHT questions unanswered at all times while probing with other events."""
    question_acks: list[float] = []
    probe_acks: list[float] = []
    in_flight_seen: list[int] = []
    asked = 0
    async with aiohttp.ClientSession() as http:

        async def top_up() -> None:
            nonlocal asked
            while time.perf_counter() < deadline:
                missing = IN_FLIGHT - (asked - answers_posted(slack))
                if missing > 0:
                    batch = [
                        payloads.mention(
                            random.choice(QUESTIONS), channel=f"C0LOAD{(asked + i) % 40:03d}"
                        )
                        for i in range(missing)
                    ]
                    asked += missing
                    question_acks.extend(await asyncio.gather(*(post(http, url, q) for q in batch)))
                await asyncio.sleep(0.05)

        async def probe() -> None:
            while time.perf_counter() < deadline:
                in_flight_seen.append(asked - answers_posted(slack))
                event = random.choice(
                    [
                        payloads.reaction("+1", ts=payloads.new_ts()),
                        payloads.message("lunch anyone?", channel="C0RANDOM"),
                        payloads.message("and for plan B?", thread_ts=payloads.new_ts()),
                    ]
                )
                probe_acks.append(await post(http, url, event))
                await asyncio.sleep(0.02)

        deadline = time.perf_counter() + 1.5
        await top_up()  # fill the pipeline before measuring
        deadline = time.perf_counter() + seconds
        await asyncio.gather(top_up(), probe())
    all_acks = question_acks + probe_acks
    return {
        "acks": len(all_acks),
        "questions asked": asked,
        "answers posted": answers_posted(slack),
        "in flight while probing (min/median)": (
            min(in_flight_seen),
            sorted(in_flight_seen)[len(in_flight_seen) // 2],
        ),
        "ack ms p50/p95/p99/max": [round(percentile(all_acks, p), 1) for p in (50, 95, 99, 100)],
        "question ack ms p99": round(percentile(question_acks, 99), 1),
        "probe ack ms p99": round(percentile(probe_acks, 99), 1),
    }


async def exactly_once(urls: tuple[str, str], slack: FakeSlack) -> dict[str, Any]:
    """Each of THREADS questions reaches replica A; Slack's retry of it reaches B at the same
    time, and a later retry reaches both."""
    first, second = urls
    questions = [
        payloads.mention(random.choice(QUESTIONS), channel=f"C0ONCE{n % CHANNELS:02d}")
        for n in range(THREADS)
    ]
    before = len(slack.posts())
    started = time.perf_counter()
    async with aiohttp.ClientSession() as http:
        await asyncio.gather(
            *(post(http, first, q) for q in questions),
            *(post(http, second, q, retry=1) for q in questions),
        )
        while answers_posted(slack) - before < THREADS and time.perf_counter() - started < 300:
            await asyncio.sleep(0.1)
        answered_in = time.perf_counter() - started
        await asyncio.gather(*(post(http, url, q, retry=2) for q in questions for url in urls))
        await asyncio.sleep(3)  # room for any wrong second answer to show up
    threads = {q["event"]["ts"] for q in questions}
    per_thread = Counter(
        c.args.get("thread_ts")
        for c in slack.posts()[before:]
        if c.args.get("thread_ts") in threads
    )
    return {
        "threads": THREADS,
        "answered": len(per_thread),
        "answered more than once": sum(1 for n in per_thread.values() if n > 1),
        "all answered in s": round(answered_in, 1),
        "hourglasses left": sum(1 for r in slack.reactions if r[2] == "hourglass_flowing_sand"),
    }


async def measure(urls: tuple[str, str], slack: FakeSlack, seconds: float) -> None:
    load = await ack_under_load(urls[0], slack, seconds)
    while answers_posted(slack) < load["questions asked"]:
        await asyncio.sleep(0.2)  # let phase 1 finish before phase 2 counts
    once = await exactly_once(urls, slack)
    print(f"ack latency with {IN_FLIGHT} questions in flight:", json.dumps(load, indent=1))
    print("exactly once across two replicas:", json.dumps(once, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hashing", action="store_true", help="hashing embedder (no model)")
    parser.add_argument("--llm-delay", type=float, default=1.5, help="model reply delay, s")
    parser.add_argument("--seconds", type=float, default=10.0, help="probing time")
    parser.add_argument("--logs", type=Path, default=None, help="keep the bots' logs here")
    args = parser.parse_args()
    random.seed(5)
    slack = FakeSlack()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        slack_url = stack.enter_context(serve_app(slack.app()))
        slack.port = int(slack_url.rsplit(":", 1)[1])
        llm = stack.enter_context(fake_openai(model_reply, delay_s=args.llm_delay))
        _, url = stack.enter_context(bench_database())
        env = {
            "DATABASE_URL": url.render_as_string(hide_password=False),
            "KNOWBOT_DATA_DIR": tmp,
            "SLACK_BOT_TOKEN": "xoxb-bench",
            "SLACK_SIGNING_SECRET": payloads.SECRET,
            "SLACK_API_URL": slack.api_url,
            "OPENAI_BASE_URL": llm.base_url,
            "OPENAI_API_KEY": "sk-bench",
        }
        if args.hashing:
            env["KNOWBOT_EMBED_MODEL"] = "hashing"
        with open_services(Settings(_env_file=None, **env)) as services:  # type: ignore[call-arg, arg-type]
            report = services.knowledge.ingestor.ingest_paths([EXAMPLES], IngestOptions())
            print(f"ingested {report.chunks} chunks from {EXAMPLES}")
        logs = args.logs or Path(tmp)
        logs.mkdir(parents=True, exist_ok=True)
        first = stack.enter_context(replica(env, logs / "replica-a.log"))
        second = stack.enter_context(replica(env, logs / "replica-b.log"))
        asyncio.run(measure((first, second), slack, args.seconds))
        with services.db.engine.connect() as conn:
            stored = conn.execute(sa.text("SELECT count(*) FROM answers")).scalar_one()
        print("answers stored:", stored, "(every question asked, both phases)")


if __name__ == "__main__":
    main()
