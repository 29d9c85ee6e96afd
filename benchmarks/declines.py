"""Does knowbot say "I could not find this" only when nothing answers? False declines
(answerable questions declined) beside true declines (unanswerable questions declined),
for both answer paths (issue 19, item 5).

Run by hand (never in the test run), from the project folder:

    python -m benchmarks.declines [--eval ../shared/eval] [--tatqa 120] [--seed 19]
        [--split all|fit|report] [--cases FILE] [--json] [-v]

It reads the dev data in ../shared/eval (never copied into the project): the two policy
PDFs are ingested into scope `policies` and TAT-QA contexts (Markdown files with a real
table, as in benchmarks.confidence) into scope `tatqa`, in a throwaway embedded
PostgreSQL. Sets:

- policies: the answerable questions with verbatim evidence, and the questions marked
  unanswerable;
- tatqa: span questions (and some "change between two periods" ones), all answerable;
- offscope: questions asked of knowledge that never speaks of their subject (policy
  questions of the financial notes' scope, the notes' questions of the policies' scope),
  all unanswerable.

Each question is asked twice through the real pipeline (`Pipeline.answer_now`):

- model: a local OpenAI-compatible endpoint writes the answer as a model would. For an
  answerable question it finds the numbered blocks holding the evidence and answers
  faithfully, citing them (benchmarks.planted.faithful); when no block holds it
  (retrieval missed) it replies NOT_FOUND, and the question counts as "not retrieved".
  For an unanswerable question it answers helpfully from the nearest passage (the
  sentence of block [1] sharing most words with the question, cited): the pipeline
  should decline, or at least mark it Low.
- extractive: the same pipeline with no model (quoted passages).

A decline is an answer whose bullet says it could not find the answer. Printed per set
and path: answerable questions, those whose evidence reached the context, false
declines among them (the pipeline's own doing) and among all; unanswerable questions
declined, and declined or Low. `--split` keeps one half of the cases (a stable hash of
each case id), so a threshold fitted on `fit` is reported on `report`;
`--cases FILE` also writes one JSON line per answer (for benchmarks.declines_fit).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import tempfile
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from benchmarks.confidence import (
    DEADLINE_S,
    DEFAULT_EVAL,
    QUESTIONS,
    TATQA,
    bench_services,
    check_eval,
)
from benchmarks.confidence import ingest as ingest_dev
from benchmarks.planted.cases import POLICY_SCOPE, Case, policy_cases
from benchmarks.planted.endpoint import Script
from benchmarks.planted.faithful import draft_answer, render
from benchmarks.planted.prompt import Prompt, tokens
from benchmarks.planted.tatqa import TABLE_SCOPE, table_cases
from bot.conversation.citations import is_not_found
from bot.conversation.pipeline import Pipeline, PipelineConfig
from bot.conversation.types import Answer, ThreadRef, Turn
from bot.settings import Settings
from bot.wiring import Services, open_services
from tests.fakes.openai_server import fake_openai

PATHS = ("model", "extractive")
_SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z(])|\n+")


@dataclass(frozen=True)
class Asked:
    """One question asked on one path, and what came back."""

    case: str
    set: str
    path: str
    answerable: bool
    question: str
    retrieved: bool  # the evidence reached the context (answerable questions)
    declined: bool
    confidence: str
    failed: tuple[str, ...]
    reply: str  # what the model wrote ("" on the extractive path)
    answer: str
    fell_back: bool = False  # the model path quoted instead (the model failed or timed out)


def split_of(case_id: str) -> str:
    """A stable half of the cases: "fit" or "report"."""
    return "fit" if hashlib.sha1(case_id.encode()).digest()[0] % 2 == 0 else "report"


def unanswerable_cases(folder: Path) -> list[Case]:
    """The policy questions marked unanswerable (nothing in the documents answers them)."""
    lines = (folder / QUESTIONS).read_text(encoding="utf-8").splitlines()
    cases = []
    for n, line in enumerate(lines):
        row = json.loads(line) if line.strip() else {}
        if row.get("unanswerable"):
            cases.append(
                Case(
                    id=f"policy-{n + 1:02d}",
                    source="policy",
                    kind="unanswerable",
                    question=row["question"],
                    scope=POLICY_SCOPE,
                    doc="",
                    file=row.get("document", ""),
                    facts=(),
                    values=(),
                )
            )
    return cases


def nearest_reply(prompt: Prompt) -> str:
    """A helpful model's answer to a question the context does not answer: the sentence of
    the first block sharing most words with the question, cited."""
    if not prompt.blocks:
        return "NOT_FOUND"
    block = prompt.blocks[0]
    asked = {w for w in tokens(prompt.question) if len(w) > 3}
    lines = block.text.splitlines()[1:] or block.text.splitlines()
    found = [s.strip() for line in lines for s in _SENTENCE.split(line) if len(s.split()) >= 5]
    if not found:
        return "NOT_FOUND"
    best = max(found, key=lambda s: len(asked & set(tokens(s))))
    return f"- {best} [{block.number}]"


class Runner:
    """Asks every case on both paths."""

    def __init__(self, services: Services, script: Script, seed: int) -> None:
        self.services, self.script, self.seed = services, script, seed
        self.extractive = Pipeline(
            claims=services.events,
            history=services.threads,
            answers=services.answers,
            knowledge=services.knowledge,
            model=None,
            config=PipelineConfig(answer_deadline_s=services.settings.answer_deadline_s),
        )

    def run(self, case: Case, set_name: str) -> list[Asked]:
        answerable = bool(case.facts)
        self.script.prompts.clear()
        self.script.job = (lambda p: self._faithful(case, p)) if answerable else nearest_reply
        answered = _ask(self.services.pipeline, case)
        prompt = self.script.last
        retrieved = answerable and bool(prompt and draft_answer(case, prompt, self._rng(case)))
        reply = self._faithful(case, prompt) if answerable and prompt else ""
        if not answerable and prompt is not None:
            reply = nearest_reply(prompt)
        plain = _ask(self.extractive, case)
        return [
            _asked(case, set_name, "model", answerable, retrieved, answered, reply),
            _asked(case, set_name, "extractive", answerable, retrieved, plain, ""),
        ]

    def _rng(self, case: Case) -> random.Random:
        return random.Random(f"{self.seed}:{case.id}")

    def _faithful(self, case: Case, prompt: Prompt) -> str:
        draft = draft_answer(case, prompt, self._rng(case))
        return render(draft.bullets, self._rng(case)) if draft else "NOT_FOUND"


def _ask(pipeline: Pipeline, case: Case) -> Answer:
    thread = ThreadRef("bench", "local", "declines", f"dec-{uuid.uuid4()}")
    turn = Turn(
        thread=thread,
        event_id=f"dec-{uuid.uuid4()}",
        user_id="bench",
        text=case.question,
        scopes=(case.scope,),
    )
    answer = pipeline.answer_now(turn)
    assert answer is not None  # a fresh event id is never a redelivery
    return answer


def _asked(
    case: Case,
    set_name: str,
    path: str,
    answerable: bool,
    retrieved: bool,
    answer: Answer,
    reply: str,
) -> Asked:
    declined = any(is_not_found(b.text) for b in answer.bullets)
    return Asked(
        case=case.id,
        set=set_name,
        path=path,
        answerable=answerable,
        question=case.question,
        retrieved=retrieved,
        declined=declined,
        confidence=answer.confidence.value,
        failed=tuple(answer.scores.failed()),
        reply=reply,
        answer="\n".join(b.render() for b in answer.bullets),
        fell_back=path == "model" and answer.model == "extractive",
    )


def read_rows(path: Path) -> list[Asked]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [Asked(**(r | {"failed": tuple(r["failed"])})) for r in rows]


def tally(rows: Iterable[Asked]) -> list[dict[str, Any]]:
    """One line per set and path."""
    groups: dict[tuple[str, str], list[Asked]] = {}
    for r in rows:
        if not r.fell_back:  # the model failed: not the checks' doing
            groups.setdefault((r.set, r.path), []).append(r)
    out = []
    for (set_name, path), group in sorted(groups.items()):
        yes = [r for r in group if r.answerable]
        held = [r for r in yes if r.retrieved]
        no = [r for r in group if not r.answerable]
        out.append(
            {
                "set": set_name,
                "path": path,
                "answerable": len(yes),
                "retrieved": len(held),
                "false_declines_retrieved": sum(r.declined for r in held),
                "false_declines": sum(r.declined for r in yes),
                "false_decline_rate": _rate(sum(r.declined for r in yes), len(yes)),
                "unanswerable": len(no),
                "true_declines": sum(r.declined for r in no),
                "declined_or_low": sum(r.declined or r.confidence == "Low" for r in no),
            }
        )
    return out


def _rate(n: int, of: int) -> float:
    return round(n / of, 4) if of else 0.0


def print_table(lines: list[dict[str, Any]]) -> None:
    head = (
        f"{'set':9s} {'path':10s} {'answerable':>10s} {'retrieved':>9s} "
        f"{'false declines (retrieved / all)':>33s} {'unanswerable':>12s} "
        f"{'declined':>8s} {'decl. or Low':>12s}"
    )
    print(head)
    for x in lines:
        falses = (
            f"{x['false_declines_retrieved']}/{x['retrieved']} / "
            f"{x['false_declines']}/{x['answerable']} ({100 * x['false_decline_rate']:.1f}%)"
        )
        print(
            f"{x['set']:9s} {x['path']:10s} {x['answerable']:>10d} {x['retrieved']:>9d} "
            f"{falses:>33s} {x['unanswerable']:>12d} {x['true_declines']:>8d} "
            f"{x['declined_or_low']:>12d}"
        )


def print_declines(rows: list[Asked]) -> None:
    for r in rows:
        if r.answerable and r.declined:
            print(f"\n[{r.set}/{r.path}] {r.case}: {r.question}", file=sys.stderr)
            if r.reply:
                print(f"  model wrote: {r.reply}", file=sys.stderr)
            print(f"  failed checks: {', '.join(r.failed) or '-'}", file=sys.stderr)


@contextmanager
def services_for(script: Script, keep: Path | None) -> Iterator[Services]:
    """A throwaway database, or the embedded one kept in `keep` (ingest is incremental, so
    a second run against it only asks)."""
    if keep is None:
        with bench_services(script) as services:
            yield services
        return
    with fake_openai(script.reply) as fake:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            KNOWBOT_DATA_DIR=keep,
            OPENAI_BASE_URL=fake.base_url,
            OPENAI_API_KEY=SecretStr("bench"),
            KNOWBOT_ANSWER_DEADLINE_S=DEADLINE_S,
            KNOWBOT_JUDGE=False,
        )
        with open_services(settings) as services:
            yield services


@contextmanager
def notes_folder(keep: Path | None) -> Iterator[Path]:
    if keep is None:
        with tempfile.TemporaryDirectory() as tmp:
            yield Path(tmp)
        return
    folder = keep / "tatqa-notes"
    folder.mkdir(parents=True, exist_ok=True)
    yield folder


def load_cases(
    folder: Path, tatqa: int, offscope: int, seed: int
) -> tuple[list[tuple[str, Case]], list[Any]]:
    answerable = policy_cases(folder / "policies")
    policies = answerable + unanswerable_cases(folder)
    contexts = json.loads((folder / TATQA).read_text(encoding="utf-8"))
    tables, used = table_cases(contexts, random.Random(seed), limit=tatqa)
    cases = [("policies", c) for c in sorted(policies, key=lambda c: c.id)]
    cases += [("tatqa", c) for c in tables]
    return cases + [("offscope", c) for c in off_scope(answerable, tables, offscope, seed)], used


def off_scope(policies: list[Case], tables: list[Case], n: int, seed: int) -> list[Case]:
    """Questions asked of knowledge that never speaks of their subject: the policy
    questions in the scope of the financial notes, and the notes' questions in the
    policies' scope. Nothing there answers them."""
    rng = random.Random(f"{seed}:offscope")
    picked = rng.sample(policies, min(n // 2, len(policies)))
    picked += rng.sample(tables, min(n - len(picked), len(tables)))
    return [
        replace(
            c,
            id=f"off-{c.id}",
            kind="unanswerable",
            scope=TABLE_SCOPE if c.scope == POLICY_SCOPE else POLICY_SCOPE,
            facts=(),
        )
        for c in picked
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL, help="the dev data folder")
    parser.add_argument("--tatqa", type=int, default=120, help="TAT-QA questions (default 120)")
    parser.add_argument(
        "--offscope", type=int, default=60, help="questions asked of the other scope (60)"
    )
    parser.add_argument("--seed", type=int, default=19, help="drives sampling and rewording")
    parser.add_argument("--split", choices=("all", "fit", "report"), default="all")
    parser.add_argument(
        "--keep", type=Path, help="keep the database in this folder (re-runs ingest nothing new)"
    )
    parser.add_argument("--cases", type=Path, help="write one JSON line per answer here")
    parser.add_argument("--only", help="ask only the questions of these sets (comma-separated)")
    parser.add_argument("--json", action="store_true", help="print one summary line only")
    parser.add_argument("-v", "--verbose", action="store_true", help="show each false decline")
    parser.add_argument("--tally", type=Path, help="only print the table of a --cases file")
    args = parser.parse_args()
    if args.tally:
        print_table(tally(read_rows(args.tally)))
        return
    check_eval(args.eval)
    cases, contexts = load_cases(args.eval, args.tatqa, args.offscope, args.seed)
    cases = [(s, c) for s, c in cases if args.split in ("all", split_of(c.id))]
    if args.only:
        cases = [(s, c) for s, c in cases if s in args.only.split(",")]
    script = Script()
    started = time.perf_counter()
    rows: list[Asked] = []
    with services_for(script, args.keep) as services, notes_folder(args.keep) as notes:
        ingest_dev(services, args.eval, contexts, notes)
        runner = Runner(services, script, args.seed)
        if args.cases:
            args.cases.write_text("", encoding="utf-8")
        for n, (set_name, case) in enumerate(cases, start=1):
            asked = runner.run(case, set_name)
            rows += asked
            if args.cases:  # as it goes: a long run stopped early still tells
                with args.cases.open("a", encoding="utf-8") as out:
                    out.writelines(json.dumps(asdict(r)) + "\n" for r in asked)
            if n % 20 == 0:
                print(f"{n}/{len(cases)} questions, {time.perf_counter() - started:.0f} s",
                      file=sys.stderr, flush=True)  # fmt: skip
    lines = tally(rows)
    failed = sum(r.fell_back for r in rows)
    if args.verbose:
        print_declines(rows)
    if args.json:
        summary = {"split": args.split, "seed": args.seed, "model_failed": failed}
        print(json.dumps(summary | {"sets": lines}))
        return
    print_table(lines)
    if failed:
        print(f"({failed} model-path answers left out: the scripted model failed or timed out)")


if __name__ == "__main__":
    main()
