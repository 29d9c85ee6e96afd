"""Fuzzing both endpoints of real `knowbot serve` processes: N hostile bodies each (issue 13:
10,000), counted by HTTP status; then whether each process is still ready and answers.

`knowbot serve slack --http` and `knowbot serve teams` (unauthenticated, as with the Bot
Framework Emulator) run as subprocesses on one throwaway embedded PostgreSQL with the
example knowledge; a fake Slack Web API and a fake Bot Framework connector run here. Half
the Slack bodies are signed with the signing secret. Bodies come from tests/fakes/fuzz.py
(hypothesis, fixed seed).

    python -m benchmarks.fuzz_endpoints [--n 10000] [--seed 13]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import requests
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from benchmarks.setup import bench_database
from bot.settings import Settings
from bot.wiring import open_services
from knowledge.ingest.options import IngestOptions
from tests.adapters.slack import payloads
from tests.adapters.slack.test_fuzz import sign
from tests.adapters.teams import activities as teams
from tests.fakes.bot_connector import fake_connector
from tests.fakes.fuzz import Body, as_json, slack_bodies, teams_bodies
from tests.fakes.openai_server import free_port, serve_app
from tests.fakes.slack_server import FakeSlack

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "knowledge"


@contextmanager
def serving(args: list[str], env: dict[str, str], log: Path) -> Iterator[str]:
    """`knowbot serve ...` on a free port; yields its base URL once /readyz says 200."""
    port = free_port()
    command = [sys.executable, "-m", "bot", "serve", *args, "--no-scheduler", "--port", str(port)]
    with log.open("w") as out:
        process = subprocess.Popen(command, env={**os.environ, **env}, stdout=out, stderr=out)
        url = f"http://127.0.0.1:{port}"
        try:
            if ready(url, wait_s=300) != 200:
                raise SystemExit(f"{args[0]} did not become ready:\n{log.read_text()}")
            yield url
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()


def ready(url: str, *, wait_s: float = 0.0) -> int:
    deadline = time.monotonic() + wait_s
    while True:
        try:
            status = requests.get(f"{url}/readyz", timeout=5).status_code
        except requests.RequestException:
            status = 0
        if status == 200 or time.monotonic() >= deadline:
            return status
        time.sleep(0.5)


def fuzz(
    name: str,
    bodies: st.SearchStrategy[Body],
    send: Callable[[Body, bool], int],
    n: int,
    seed_value: int,
) -> Counter[int]:
    statuses: Counter[int] = Counter()

    @seed(seed_value)
    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(body=bodies, signed=st.booleans())
    def one(body: Body, signed: bool) -> None:
        statuses[send(body, signed)] += 1

    started = time.perf_counter()
    one()
    seconds = time.perf_counter() - started
    print(
        f"{name}: {sum(statuses.values())} requests in {seconds:.0f} s; by status: "
        f"{dict(sorted(statuses.items()))}; responses >= 500: "
        f"{sum(c for s, c in statuses.items() if s >= 500)}"
    )
    return statuses


def post(url: str, body: Body, headers: dict[str, str]) -> int:
    headers = {"Content-Type": body.content_type, **headers}
    try:
        return requests.post(url, data=body.raw, headers=headers, timeout=30).status_code
    except requests.RequestException:
        return 0  # no response at all would be counted apart, and is a failure too


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="bodies per endpoint")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--logs", type=Path, default=None, help="keep the servers' logs here")
    args = parser.parse_args()
    slack = FakeSlack()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        stack.enter_context(serve_app(slack.app(), port=slack.port))
        connector = stack.enter_context(fake_connector())
        _, db_url = stack.enter_context(bench_database())
        env = {
            "DATABASE_URL": db_url.render_as_string(hide_password=False),
            "KNOWBOT_DATA_DIR": tmp,
            "KNOWBOT_EMBED_MODEL": "hashing",
            "SLACK_BOT_TOKEN": "xoxb-bench",
            "SLACK_SIGNING_SECRET": payloads.SECRET,
            "SLACK_API_URL": slack.api_url,
            "KNOWBOT_SLACK_POST_INTERVAL_S": "0",
        }
        with open_services(Settings(_env_file=None, **env)) as services:  # type: ignore[call-arg, arg-type]
            services.knowledge.ingestor.ingest_paths([EXAMPLES], IngestOptions())
        logs = args.logs or Path(tmp)
        logs.mkdir(parents=True, exist_ok=True)
        slack_url = stack.enter_context(serving(["slack", "--http"], env, logs / "slack.log"))
        teams_url = stack.enter_context(serving(["teams"], env, logs / "teams.log"))

        def to_slack(body: Body, signed: bool) -> int:
            return post(f"{slack_url}/slack/events", body, sign(body.raw) if signed else {})

        def to_teams(body: Body, signed: bool) -> int:
            return post(f"{teams_url}/api/messages", body, {})

        fuzz("POST /slack/events", slack_bodies(), to_slack, args.n, args.seed)
        fuzz("POST /api/messages", teams_bodies(connector.url), to_teams, args.n, args.seed)
        print("after the fuzzing:")
        print(f"  slack /readyz {ready(slack_url)}, teams /readyz {ready(teams_url)}")
        question = payloads.mention("what is the PED waiting period?")
        status = to_slack(as_json(question), True)
        time.sleep(3)
        answered = bool(slack.posts(thread_ts=question["event"]["ts"]))
        print(f"  slack: a real question got {status} and {'an' if answered else 'NO'} answer")
        activity = teams.message(connector.url, "How do I submit a reimbursement claim?")
        status = to_teams(as_json(activity), False)
        time.sleep(3)
        answered = any(m.reply_to_id == activity["id"] for m in connector.messages)
        print(f"  teams: a real question got {status} and {'an' if answered else 'NO'} answer")


if __name__ == "__main__":
    main()
