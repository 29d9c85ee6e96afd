"""Warm start: time from `knowbot serve` starting to /readyz saying 200, and the first
answer's latency after that compared with the tenth's (issue 13: first answer after ready
<= 2 s, p50 of 5 restarts, on this 2-core machine).

Each restart runs `knowbot serve slack --http` as a fresh process on one embedded
PostgreSQL holding the example knowledge, with the bundled embedding model (not the hashing
fake) and no language model (quoted answers: the bot's own latency, no model's). A fake
Slack Web API runs here; an answer's latency is from posting the signed mention to the
answer arriving at the fake Slack.

    python -m benchmarks.first_answer [--restarts 5]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import requests
from sqlalchemy.engine import URL

from benchmarks.setup import bench_database, percentile, serve_process
from bot.settings import Settings
from bot.wiring import open_services
from knowledge.ingest.options import IngestOptions
from tests.adapters.slack import payloads
from tests.adapters.slack.test_fuzz import sign
from tests.fakes.openai_server import free_port, serve_app
from tests.fakes.slack_server import FakeSlack

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "knowledge"
QUESTIONS = [
    "What is the PED waiting period?",
    "Is cataract surgery covered under Plan B?",
    "How do I submit a reimbursement claim?",
    "What is the room rent limit for Plan A?",
    "Which region had the highest claims paid?",
    "What is the co-pay for senior citizens?",
    "When are claims settled?",
    "What does OPD mean?",
    "Is maternity covered?",
    "What is the waiting period for cataract?",
]


def slack_env(db_url: URL, data_dir: str, slack_api_url: str) -> dict[str, str]:
    """The environment of a serve process talking to a fake Slack, on the bench database."""
    return {
        "DATABASE_URL": db_url.render_as_string(hide_password=False),
        "KNOWBOT_DATA_DIR": data_dir,  # the ONNX export of the model is made once, here
        "SLACK_BOT_TOKEN": "xoxb-bench",
        "SLACK_SIGNING_SECRET": payloads.SECRET,
        "SLACK_API_URL": slack_api_url,
        "KNOWBOT_SLACK_POST_INTERVAL_S": "0",
    }


def ingest_examples(env: dict[str, str]) -> None:
    with open_services(Settings(_env_file=None, **env)) as services:  # type: ignore[call-arg, arg-type]
        report = services.knowledge.ingestor.ingest_paths([EXAMPLES], IngestOptions())
        print(f"ingested {report.chunks} chunks with the bundled model")


def ask(url: str, slack: FakeSlack, question: str, n: int) -> float:
    """Seconds from posting a mention to its answer reaching Slack."""
    event = payloads.mention(question, channel=f"C0FIRST{n:03d}")
    raw = json.dumps(event).encode()
    started = time.perf_counter()
    headers = {"Content-Type": "application/json", **sign(raw)}
    assert requests.post(f"{url}/slack/events", data=raw, headers=headers, timeout=30).ok
    thread = event["event"]["ts"]
    while not slack.posts(thread_ts=thread):
        if time.perf_counter() - started > 120:
            raise SystemExit(f"no answer to {question!r} within 120 s")
        time.sleep(0.005)
    return time.perf_counter() - started


def one_start(env: dict[str, str], slack: FakeSlack, log: Path, n: int) -> dict[str, float]:
    command = ["serve", "slack", "--http", "--no-scheduler"]
    started = time.perf_counter()
    with serve_process(command, env, log, free_port()) as url:
        to_ready = time.perf_counter() - started
        latencies = [ask(url, slack, q, n * 100 + i) for i, q in enumerate(QUESTIONS)]
    return {"ready_s": to_ready, "first_s": latencies[0], "tenth_s": latencies[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--restarts", type=int, default=5)
    args = parser.parse_args()
    slack = FakeSlack()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        stack.enter_context(serve_app(slack.app(), port=slack.port))
        _, db_url = stack.enter_context(bench_database())
        env = slack_env(db_url, tmp, slack.api_url)
        ingest_examples(env)
        runs = []
        for n in range(args.restarts):
            run = one_start(env, slack, Path(tmp) / f"serve-{n}.log", n)
            print(f"start {n + 1}: " + ", ".join(f"{k} {v:.2f}" for k, v in run.items()))
            runs.append(run)
        for key in ("ready_s", "first_s", "tenth_s"):
            values = [r[key] for r in runs]
            print(f"{key}: p50 {percentile(values, 50):.2f}  max {max(values):.2f}")


if __name__ == "__main__":
    main()
