"""Confidence on answers written by hand, the way a language model writes them: is a
faithful answer in a model's own words High, and a wrong one below it?

The confidence benchmark (benchmarks/confidence.py) rewords its faithful answers by rule;
a rule-made paraphrase can be one the checks were fitted to. This reads answers a person
wrote instead, from a JSON file kept outside the project (never the dev data itself):

    [{"q": "What is the PED waiting period?",
      "answer": "- Pre-existing diseases are covered only after 48 months. {{48 months}}",
      "wrong": "- Pre-existing diseases are covered after 24 months. {{48 months}}",
      "ctx": 10}]

`answer` is a faithful reply and `wrong` (optional) one with a fault, each in the prompt's
bullet format; `{{text}}` cites the first context block holding `text` (as the model
would cite it). `ctx` (optional) picks a TAT-QA context to ask in, else the question is
asked of the two dev policy PDFs. Run by hand from the project folder:

    KNOWBOT_DATA_DIR=/tmp/kb-written python -m benchmarks.written_answers FILE [FILE ...]
        [--eval ../shared/eval] [-v] [--record RUN.pkl]

Printed: faithful answers High, wrong ones below High (and with -v each answer's level
and failed checks). An answer whose `{{text}}` no block holds is counted as not retrieved.
`--record` keeps each scored answer with what the pipeline scored it with (as
benchmarks.confidence --record does), to score them again under changed checks without
searching again.
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import tempfile
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.confidence import DEFAULT_EVAL, TATQA, bench_services, failed_checks, recording
from benchmarks.planted.cases import POLICY_FILES, POLICY_SCOPE
from benchmarks.planted.endpoint import Script
from benchmarks.planted.prompt import Prompt
from benchmarks.planted.tatqa import TABLE_SCOPE, note_file, table_markdown
from bot.conversation.types import ThreadRef, Turn
from bot.wiring import Services
from knowledge.ingest.options import IngestOptions

_CITE = re.compile(r"\{\{(.+?)\}\}")


def cited(reply: str, prompt: Prompt, missing: list[str]) -> str:
    """The reply with each {{text}} replaced by the number of the first block holding it."""

    def number(m: re.Match[str]) -> str:
        held = next((b.number for b in prompt.blocks if b.says(m.group(1))), None)
        if held is None:
            missing.append(m.group(1))
            return "[99]"
        return f"[{held}]"

    return _CITE.sub(number, reply)


def ingest(services: Services, folder: Path, cases: list[dict[str, Any]], tmp: Path) -> None:
    pdfs = [folder / "policies" / f"{name}.pdf" for name in POLICY_FILES]
    services.knowledge.ingestor.ingest_paths(pdfs, IngestOptions(scope=POLICY_SCOPE))
    wanted = sorted({int(c["ctx"]) for c in cases if "ctx" in c})
    if not wanted:
        return
    contexts = json.loads((folder / TATQA).read_text(encoding="utf-8"))
    for i in wanted:
        text = table_markdown(contexts[i], f"Annual report note {i}")
        (tmp / note_file(contexts[i])).write_text(text, encoding="utf-8")
    services.knowledge.ingestor.ingest_paths([tmp], IngestOptions(scope=TABLE_SCOPE))


def ask(services: Services, script: Script, case: dict[str, Any], reply: str) -> tuple[str, str]:
    """The level the pipeline gives `reply` to the case's question, and what it failed."""
    missing: list[str] = []
    script.job = lambda prompt: cited(reply, prompt, missing)
    turn = Turn(
        thread=ThreadRef("bench", "local", "written", f"w-{uuid.uuid4()}"),
        event_id=f"w-{uuid.uuid4()}",
        user_id="bench",
        text=case["q"],
        scopes=(TABLE_SCOPE if "ctx" in case else POLICY_SCOPE,),
    )
    answer = services.pipeline.answer_now(turn)
    if answer is None or answer.model == "extractive" or missing:
        return "not retrieved", ", ".join(missing)
    return answer.confidence.value, " ".join(failed_checks(answer.scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="JSON files of written answers")
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL, help="the dev data folder")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per answer")
    parser.add_argument("--record", type=Path, help="write the scored answers (a pickle)")
    args = parser.parse_args()
    cases = [c for f in args.files for c in json.loads(f.read_text(encoding="utf-8"))]
    tally: Counter[tuple[str, str]] = Counter()
    script = Script()
    calls: list[dict[str, Any]] = []
    kept: list[dict[str, Any]] = []
    with bench_services(script) as services, tempfile.TemporaryDirectory() as tmp:
        ingest(services, args.eval, cases, Path(tmp))
        for case in cases:
            for variant in ("answer", "wrong"):
                if variant not in case:
                    continue
                calls.clear()
                with recording(calls):
                    level, why = ask(services, script, case, case[variant])
                tally[(variant, level)] += 1
                if calls and level != "not retrieved":
                    kept.append({"variant": variant, "question": case["q"], "inputs": calls[-1]})
                if args.verbose:
                    print(f"{variant:6} {level:13} {why} :: {case['q'][:70]}", flush=True)
    if args.record:
        args.record.write_bytes(pickle.dumps(kept))
    for variant, label in (("answer", "faithful High"), ("wrong", "wrong below High")):
        n = sum(v for (var, lvl), v in tally.items() if var == variant and lvl != "not retrieved")
        high = tally[(variant, "High")]
        shown = high if variant == "answer" else n - high
        print(f"{label}: {shown}/{n} (not retrieved {tally[(variant, 'not retrieved')]})")


if __name__ == "__main__":
    main()
