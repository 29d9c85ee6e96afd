"""FinanceBench dev split: is the evidence page among the sources an answer cites?

Run by hand (never in the test run), from the project folder:

    KNOWBOT_DATA_DIR=$(mktemp -d) python -m benchmarks.financebench [FOLDER] [--json] [-v]

FOLDER defaults to ../shared/eval/financebench_dev. Each PDF is ingested into a scope of its
own (incrementally: a second run re-embeds only what changed) and each question is asked
there, as the folder's README says. Reported, over all questions:

- page: some cited source's page range covers an evidence page (1-based);
- text: some cited source holds most (60%) of the evidence text's numbers and distinctive
  words;
- evidence: either signal;
- answer number: for information-extraction questions whose gold answer holds a number,
  that number (or it scaled by 1,000 either way) appears in a cited source;
- high without evidence: answers rated High although no cited source holds the evidence.
"""

from __future__ import annotations

import argparse
import json
import re
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.conversation.text import content_words
from bot.conversation.types import Answer, Source, ThreadRef, Turn
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions

DEFAULT_FOLDER = Path(__file__).resolve().parents[1] / ".." / "shared" / "eval" / "financebench_dev"
TEXT_SHARE = 0.6
_PAGES = re.compile(r"pp?\.\s*(\d+)(?:\s*[–-]\s*(\d+))?")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class Outcome:
    question: str
    doc: str
    pages: tuple[int, ...]
    by_page: bool
    by_text: bool
    number: bool | None
    confidence: str
    cited: tuple[str, ...]

    @property
    def evidence(self) -> bool:
        return self.by_page or self.by_text


def scope_of(doc: str) -> str:
    return "fb-" + re.sub(r"[^a-z0-9]+", "-", doc.lower()).strip("-")[:56]


def source_pages(source: Source) -> set[int]:
    match = _PAGES.search(source.location)
    if not match:
        return set()
    first = int(match.group(1))
    last = int(match.group(2) or first)
    return set(range(first, last + 1))


def _numbers(text: str) -> set[str]:
    out = set()
    for raw in _NUMBER.findall(text):
        value = raw.replace(",", "")
        if value.endswith(".00"):
            value = value[:-3]
        if value.strip("0.") and len(value.replace(".", "")) >= 2:
            out.add(value)
    return out


def holds_evidence(source_text: str, evidence: str) -> bool:
    """Most of the evidence's numbers and distinctive words are in the source."""
    wanted = _numbers(evidence) | {w for w in content_words(evidence) if len(w) > 3}
    if not wanted:
        return False
    have = _numbers(source_text) | set(content_words(source_text))
    return len(wanted & have) >= TEXT_SHARE * len(wanted)


def holds_number(source_text: str, answer: str) -> bool | None:
    wanted = _numbers(answer)
    if not wanted:
        return None
    have = _numbers(source_text)
    for value in wanted:
        number = float(value)
        scaled = {number, number * 1000, number / 1000}
        if value in have or any(_close(x, float(h)) for x in scaled for h in have):
            return True
    return False


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a))


def judge(question: dict[str, Any], answer: Answer) -> Outcome:
    evidence = question["evidence"]
    pages = tuple(int(e["page"]) for e in evidence)
    cited = answer.sources
    by_page = any(source_pages(s) & set(pages) for s in cited)
    by_text = any(holds_evidence(s.text, e["evidence_text"]) for s in cited for e in evidence)
    number = None
    if "Information extraction" in str(question.get("question_reasoning") or ""):
        found = [holds_number(s.text, question["answer"]) for s in cited]
        number = None if all(f is None for f in found) else any(bool(f) for f in found)
    return Outcome(
        question=question["question"],
        doc=question["doc_name"],
        pages=pages,
        by_page=by_page,
        by_text=by_text,
        number=number,
        confidence=answer.confidence.value,
        cited=tuple(s.location for s in cited),
    )


def ingest(services: Services, folder: Path, docs: list[str]) -> None:
    for doc in docs:
        started = time.perf_counter()
        summary = services.knowledge.ingestor.ingest_paths(
            [folder / "pdfs" / f"{doc}.pdf"], IngestOptions(scope=scope_of(doc))
        )
        print(
            f"ingested {doc}: {summary.chunks} chunks ({summary.embedded} embedded) in "
            f"{time.perf_counter() - started:.1f} s",
            flush=True,
        )
        for failed in summary.failed:
            print(f"  failed {doc}: {failed.error}", flush=True)


def ask(services: Services, question: dict[str, Any]) -> Answer | None:
    turn = Turn(
        thread=ThreadRef("eval", "local", "financebench", f"fb-{uuid.uuid4()}"),
        event_id=f"fb-{uuid.uuid4()}",
        user_id="eval",
        text=question["question"],
        scopes=(scope_of(question["doc_name"]),),
    )
    return services.pipeline.answer_now(turn)


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    n = len(outcomes) or 1
    numbered = [o for o in outcomes if o.number is not None]
    return {
        "questions": len(outcomes),
        "evidence": sum(o.evidence for o in outcomes),
        "evidence_share": round(sum(o.evidence for o in outcomes) / n, 3),
        "page": sum(o.by_page for o in outcomes),
        "text": sum(o.by_text for o in outcomes),
        "answer_number": f"{sum(bool(o.number) for o in numbered)}/{len(numbered)}",
        "high_without_evidence": sum(
            1 for o in outcomes if o.confidence == "High" and not o.evidence
        ),
        "confidence": {
            level: sum(o.confidence == level for o in outcomes)
            for level in ("High", "Medium", "Low")
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--json", action="store_true", help="print only the summary as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per question")
    args = parser.parse_args()
    questions = [
        json.loads(line)
        for line in (args.folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    docs = sorted({q["doc_name"] for q in questions})
    outcomes = []
    with open_services(Settings()) as services:
        ingest(services, args.folder, docs)
        for question in questions:
            answer = ask(services, question)
            if answer is None:
                continue
            outcome = judge(question, answer)
            outcomes.append(outcome)
            if args.verbose:
                mark = "ok " if outcome.evidence else "MISS"
                print(
                    f"{mark} {outcome.doc[:24]:24s} p{list(outcome.pages)} {outcome.confidence:6s}"
                    f" cited={list(outcome.cited)} :: {outcome.question[:90]}",
                    flush=True,
                )
    result = summary(outcomes)
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
