"""Does the confidence level tell right from wrong? Faithful answers and the same answers
with one planted fault, served by a scripted local model to the real pipeline (issue 12).

Run by hand (never in the test run), from the project folder:

    KNOWBOT_DATA_DIR=/tmp/kb-data python -m benchmarks.confidence [--eval ../shared/eval]
        [--limit 200] [--seed 12] [--examples 3] [--json] [-v]

It reads the dev data in ../shared/eval (never copied into the project; it says so and
stops when it is missing): the two policy PDFs are ingested into scope `policies`, and
TAT-QA contexts (each a Markdown file holding a real Markdown table and its paragraphs,
written to a temporary folder) into scope `tatqa`, all in a throwaway embedded PostgreSQL.
Cases are the answerable policy questions (with their verbatim evidence) and TAT-QA span
questions (plus a few "change between two periods" ones whose answer states its
operands); `--limit` caps the cases, half at most from the policies.

For each case the real pipeline (`Services.pipeline.answer_now`) answers through a local
OpenAI-compatible endpoint on 127.0.0.1. The endpoint reads the prompt as a model would:
it finds the numbered blocks that hold the evidence and answers in the prompt's bullet
format, citing them. Intent prompts get the label knowbot's own rules give; only the
answer is scripted. A case whose evidence is in no block (retrieval missed it) is skipped
and counted as not retrieved. Each case is asked once with the faithful answer and, each in
a fresh thread, once per fault type with exactly one planted fault:

- number: a figure changed, written the same way ("30 days" -> "45 days", "36 (thirty
  six)" -> "48 (forty eight)", "Rs. 40,000" -> "Rs. 50,000", a table figure misread);
- entity: a name swapped for another of the same kind from the same document (a disease of
  the same list, a party, a benefit, a table's row label or column header);
- polarity: covered/not covered, shall/shall not, before/after, within/after,
  increase/decrease, higher/lower, minimum/maximum ... turned round;
- unsupported: a fluent claim the document does not make (a true sentence of the other
  document, or a rule or figure invented in its style) citing a real block, as a bullet of
  its own or joined to a supported one;
- citation: a bullet, word for word, citing a block that does not hold its fact;
- instructions: 12-18 words of the system prompt actually sent, woven into a bullet;
- neighbour: the whole answer replaced by a sentence of another retrieved block, word for
  word and cited to it, the one sharing most words with the question: true to its
  source, about something else (a clause titled "waiting period" about other conditions).
  A sentence stating every decisive value of the case answers it and is passed over.

Printed: per fault type and for the faithful answers, how many were High / Medium / Low
and which checks failed; planted faults below High and faithful answers High overall (the
issue's targets: >= 95% and >= 90% per type; >= 85%); examples per fault type.
`--json` prints one summary line instead.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from benchmarks.planted.cases import (
    POLICY_FILES,
    POLICY_SCOPE,
    Case,
    Doc,
    policy_cases,
    policy_docs,
)
from benchmarks.planted.endpoint import Job, Script
from benchmarks.planted.faithful import draft_answer, render
from benchmarks.planted.faults import FAULTS, plant
from benchmarks.planted.library import Library
from benchmarks.planted.prompt import Prompt
from benchmarks.planted.report import (
    FAITHFUL,
    Outcome,
    Scored,
    Tally,
    print_examples,
    print_table,
    summary,
)
from benchmarks.planted.tatqa import TABLE_SCOPE, note_file, table_cases, table_doc, table_markdown
from benchmarks.setup import bench_database
from bot.conversation import pipeline as pipeline_module
from bot.conversation.types import Answer, CheckScores, ThreadRef, Turn
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions
from tests.fakes.openai_server import fake_openai

DEFAULT_EVAL = Path(__file__).resolve().parents[1] / ".." / "shared" / "eval"
TATQA = Path("tables") / "tatqa_test_gold.json"
QUESTIONS = Path("policies") / "questions.jsonl"
DEADLINE_S = 120  # the scripted model answers at once; no answer may fall back for time


@dataclass(frozen=True)
class Data:
    cases: list[Case]
    docs: dict[str, Doc]
    contexts: list[dict[str, Any]]  # the TAT-QA contexts the cases come from


def check_eval(folder: Path) -> None:
    wanted = [QUESTIONS, TATQA, *(Path("policies") / f"{n}.pdf" for n in POLICY_FILES)]
    missing = [str(folder / w) for w in wanted if not (folder / w).is_file()]
    if missing:
        raise SystemExit(
            "The confidence benchmark needs the dev data in ../shared/eval (it is never "
            f"copied into the project). Missing: {', '.join(missing)}. Pass --eval DIR if "
            "it lives elsewhere."
        )


def load(folder: Path, limit: int, seed: int) -> Data:
    policies = policy_cases(folder / "policies")
    policies = sorted(
        random.Random(seed).sample(policies, min(len(policies), math.ceil(limit / 2))),
        key=lambda c: c.id,
    )
    contexts = json.loads((folder / TATQA).read_text(encoding="utf-8"))
    tables, used = table_cases(contexts, random.Random(seed), limit=limit - len(policies))
    docs = policy_docs(folder / "policies")
    docs.update({c["table"]["uid"]: table_doc(c) for c in used})
    return Data(policies + tables, docs, used)


def ingest(services: Services, folder: Path, contexts: list[dict[str, Any]], tmp: Path) -> None:
    started = time.perf_counter()
    pdfs = [folder / "policies" / f"{name}.pdf" for name in POLICY_FILES]
    report = services.knowledge.ingestor.ingest_paths(pdfs, IngestOptions(scope=POLICY_SCOPE))
    for i, context in enumerate(contexts, start=1):
        text = table_markdown(context, f"Annual report note {i}")
        (tmp / note_file(context)).write_text(text, encoding="utf-8")
    tables = services.knowledge.ingestor.ingest_paths([tmp], IngestOptions(scope=TABLE_SCOPE))
    _log(
        f"ingested {report.chunks} policy chunks and {tables.chunks} chunks of "
        f"{len(contexts)} TAT-QA notes in {time.perf_counter() - started:.0f} s"
    )


_RECORDED = ("question", "bullets", "sources", "instructions", "known_terms", "focus")


@contextmanager
def recording(calls: list[dict[str, Any]]) -> Iterator[None]:
    """Every call the pipeline makes to score_answer, its arguments kept in `calls`."""
    original = pipeline_module.score_answer

    def recorded(**kwargs: Any) -> CheckScores:
        calls.append({k: v for k, v in kwargs.items() if k in _RECORDED})
        return original(**kwargs)

    pipeline_module.score_answer = recorded  # type: ignore[assignment]
    try:
        yield
    finally:
        pipeline_module.score_answer = original  # type: ignore[assignment]


@contextmanager
def bench_services(script: Script) -> Iterator[Services]:
    """The real services on a throwaway database, the model being the scripted endpoint."""
    with ExitStack() as stack:
        fake = stack.enter_context(fake_openai(script.reply))
        _, url = stack.enter_context(bench_database())
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            DATABASE_URL=url.render_as_string(hide_password=False),
            OPENAI_BASE_URL=fake.base_url,
            OPENAI_API_KEY=SecretStr("bench"),
            KNOWBOT_ANSWER_DEADLINE_S=DEADLINE_S,
            KNOWBOT_JUDGE=False,
        )
        yield stack.enter_context(open_services(settings))


def ask(services: Services, case: Case) -> Answer:
    thread = ThreadRef("bench", "local", "confidence", f"conf-{uuid.uuid4()}")
    turn = Turn(
        thread=thread,
        event_id=f"conf-{uuid.uuid4()}",
        user_id="bench",
        text=case.question,
        scopes=(case.scope,),
    )
    answer = services.pipeline.answer_now(turn)
    assert answer is not None  # a fresh event id is never a redelivery
    return answer


def failed_checks(scores: CheckScores) -> tuple[str, ...]:
    failed = getattr(scores, "failed", None)
    if callable(failed):
        return tuple(failed())
    return tuple(k for k, v in scores.as_dict().items() if not v)


class Bench:
    """Runs every case: the faithful answer, then one answer per applicable fault."""

    def __init__(self, services: Services, script: Script, library: Library, seed: int):
        self.services, self.script, self.library, self.seed = services, script, library, seed
        self.tally = Tally()
        self.outcomes: list[Outcome] = []
        self.calls: list[dict[str, Any]] = []  # score_answer's arguments, while recording
        self.scored: list[Scored] = []

    def rng(self, case: Case, what: str) -> random.Random:
        return random.Random(f"{self.seed}:{case.id}:{what}")

    def ask(self, case: Case, job: Job) -> tuple[Answer, Prompt | None]:
        """The pipeline's answer with `job` scripting the model, and the prompt it sent."""
        self.script.prompts.clear()
        self.script.job = job
        self.calls.clear()
        return ask(self.services, case), self.script.last

    def run(self, case: Case, verbose: bool) -> None:
        self.tally.cases[f"{case.source}/{case.kind}"] += 1
        answer, prompt = self.ask(case, lambda p: self._faithful_reply(case, p))
        draft = draft_answer(case, prompt, self.rng(case, FAITHFUL)) if prompt else None
        if prompt is None or draft is None:
            self.tally.not_retrieved[case.source] += 1
            return
        self._record(case, FAITHFUL, answer, self._faithful_reply(case, prompt), "", verbose)
        setting = self.library.setting(case, prompt)
        for fault in FAULTS:
            planted = plant(fault, draft, setting, self.rng(case, fault))
            if planted is None:
                self.tally.not_applicable[fault] += 1
                continue
            reply = render(planted.bullets, self.rng(case, "render"))
            answer, sent = self.ask(case, _only_for(prompt, reply))
            if sent is None or sent.blocks != prompt.blocks:
                self.tally.skipped["context changed"] += 1
                continue
            self._record(case, fault, answer, reply, planted.note, verbose, planted.index)

    def _faithful_reply(self, case: Case, prompt: Prompt) -> str:
        draft = draft_answer(case, prompt, self.rng(case, FAITHFUL))
        return render(draft.bullets, self.rng(case, "render")) if draft else "NOT_FOUND"

    def _record(
        self,
        case: Case,
        variant: str,
        answer: Answer,
        reply: str,
        note: str,
        verbose: bool,
        index: int | None = None,
    ) -> None:
        if answer.model == "extractive":  # the scripted model failed: not the checks' doing
            self.tally.skipped["model failed"] += 1
            return
        lines = reply.splitlines()
        if len(answer.bullets) != len(lines):
            self.tally.reparsed += 1
        outcome = Outcome(
            case=case.id,
            source=case.source,
            kind=case.kind,
            variant=variant,
            question=case.question,
            level=answer.confidence.value,
            failed=failed_checks(answer.scores),
            bullet=lines[index] if index is not None else "",
            note=note,
        )
        self.outcomes.append(outcome)
        self.scored.append(Scored(outcome, self.calls[-1] if self.calls else None))
        if verbose:
            _log(f"{case.id:16s} {variant:12s} {outcome.level:6s} {','.join(outcome.failed)}")


def _only_for(prompt: Prompt, reply: str) -> Job:
    """The planted reply, for the context it was planted in (an empty reply otherwise)."""

    def job(sent: Prompt) -> str:
        return reply if sent.blocks == prompt.blocks else ""

    return job


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL, help="the dev data folder")
    parser.add_argument("--limit", type=int, default=200, help="cases at most (default 200)")
    parser.add_argument("--seed", type=int, default=12, help="drives sampling and faults")
    parser.add_argument("--examples", type=int, default=3, help="examples per fault type")
    parser.add_argument("--json", action="store_true", help="print one summary line only")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per answer")
    parser.add_argument(
        "--record", type=Path, help="write every outcome with its scoring inputs (a pickle)"
    )
    args = parser.parse_args()
    check_eval(args.eval)
    data = load(args.eval, args.limit, args.seed)
    script = Script()
    started = time.perf_counter()
    with bench_services(script) as services, tempfile.TemporaryDirectory() as tmp:
        ingest(services, args.eval, data.contexts, Path(tmp))
        bench = Bench(services, script, Library(data.docs), args.seed)
        with recording(bench.calls):
            for n, case in enumerate(data.cases, start=1):
                bench.run(case, args.verbose)
                if n % 10 == 0:
                    _log(f"{n}/{len(data.cases)} cases, {time.perf_counter() - started:.0f} s")
    if args.record:
        args.record.write_bytes(pickle.dumps(bench.scored))
        _log(f"recorded {len(bench.scored)} scored outcomes in {args.record}")
    result = summary(bench.outcomes, bench.tally)
    result |= {"seed": args.seed, "limit": args.limit}
    if args.json:
        print(json.dumps(result))
        return
    print_table(result)
    print_examples(bench.outcomes, args.examples, args.seed)


if __name__ == "__main__":
    main()
