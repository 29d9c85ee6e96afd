"""Which retrieval stages earn their place: the core alone, the core with each stage, all
stages, and all stages but each one, on every dev set (issue 19).

Run by hand (never in the test run), from the project folder:

    KNOWBOT_DATA_DIR=<a folder you keep> python -m benchmarks.ablation [--eval ../shared/eval]
        [--sets policies,financebench,tatqa,insuranceqa_validation,covid_faq]
        [--split all|fit|check] [--configs core,each,all,minus] [--answers] [--json]
        [--table FILES]

The first run indexes what is missing into that folder's database (the policy PDFs in scope
`policies`, each FinanceBench filing in a scope of its own as `benchmarks.financebench`
does, TAT-QA contexts as Markdown files kept in `<data dir>/ablation-tatqa` in scope
`ab-tatqa`, each BEIR corpus in `ab-<name>`); later runs reuse it. Nothing here is a test:
the data in ../shared/eval is never copied into the project.

Per question, the pipeline's own retrieval runs (question cleaned as the pipeline cleans
it, budget by the rule-based intent) and
is scored on what it lists:
- document sets: does what it lists hold the evidence: for the first 4 (`@4`) and for
  every listed source (`@all`). Policies: each verbatim piece of the evidence in a chunk of
  the named PDF; FinanceBench: a chunk on an evidence page, or holding most of the evidence
  text; TAT-QA: chunks of the right context holding the question's facts.
- BEIR sets: MRR@10 of the corpus documents in the order listed.
`dense@4` is plain dense search: cosine top 4 over the same chunks, nothing else.
`--sets written --questions FILE...` adds new questions on the two dev policies: the
files of `benchmarks.written_answers` (kept outside the project; cases with a TAT-QA `ctx`
are left out), whose evidence is the text each faithful answer cites (`{{text}}`, its
words in a row in one listed chunk).
`--split fit|check` keeps every other question (by a hash of its text), for fitting on one
half and reporting on the other.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmarks.financebench import holds_evidence, scope_of
from benchmarks.planted.prompt import tokens
from benchmarks.planted.tatqa import note_file, table_markdown
from bot.conversation.context import relevant
from bot.conversation.intent import classify_intent
from bot.conversation.pipeline import BUDGETS, DOCS
from bot.conversation.replies import NOT_FOUND
from bot.conversation.search_text import search_text
from bot.conversation.types import Answer, ThreadRef, Turn
from bot.feedback.qa import states
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.evaluation import EVAL_BUDGET, corpus_drafts, read_beir
from knowledge.ingest.kinds import SourceKind
from knowledge.ingest.loading import Loaded
from knowledge.ingest.options import IngestOptions
from knowledge.search.retrieved import Retrieved
from knowledge.search.stages import ALL_STAGES, Stage
from knowledge.store.sources import list_sources

DEFAULT_EVAL = Path(__file__).resolve().parents[1] / ".." / "shared" / "eval"
DOC_SETS = ("policies", "financebench", "tatqa")
BEIR_SETS = ("insuranceqa_validation", "covid_faq")
TATQA_EVERY = 4  # every 4th TAT-QA question (about 420 of 1,663)
TATQA_SCOPE = "ab-tatqa"
BEIR_EVERY = {"insuranceqa_validation": 3, "covid_faq": 1}
TOP = 4
_PAGES = re.compile(r"pp?\.\s*(\d+)(?:\s*[–-]\s*(\d+))?")


@dataclass(frozen=True)
class Question:
    text: str
    scopes: tuple[str, ...]
    found: Callable[[list[Retrieved]], bool]  # for document sets
    relevant: frozenset[str] = frozenset()  # for BEIR sets: corpus ids
    facts: tuple[str, ...] = ()  # what a right answer states (policy QA, TAT-QA spans)


@dataclass
class DevSet:
    name: str
    questions: list[Question]
    beir: bool = False


@dataclass
class Scores:
    at_top: list[bool] = field(default_factory=list)
    at_all: list[bool] = field(default_factory=list)
    reciprocal: list[float] = field(default_factory=list)
    stated: list[bool] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        if self.reciprocal:
            return {"mrr@10": _mean(self.reciprocal)}
        out = {"@4": _mean(self.at_top), "@all": _mean(self.at_all)}
        return out | ({"stated": _mean(self.stated)} if self.stated else {})

    def headline(self) -> float:
        return _mean(self.reciprocal) if self.reciprocal else _mean(self.at_all)


def _mean(values: list[bool] | list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def halves(dev: DevSet) -> dict[str, DevSet]:
    """The `fit` and `check` halves of a dev set, for fitting on one and reporting on the
    other."""
    return {
        split: DevSet(dev.name, [q for q in dev.questions if _kept(q.text, split)], dev.beir)
        for split in ("fit", "check")
    }


def _kept(text: str, split: str) -> bool:
    if split == "all":
        return True
    odd = int(hashlib.sha1(text.encode()).hexdigest(), 16) % 2
    return bool(odd) == (split == "check")


# --- the dev sets -------------------------------------------------------------------------


def policies(services: Services, folder: Path) -> DevSet:
    pdfs = [folder / "arogya_sanjeevani_policy.pdf", folder / "family_medicare_policy.pdf"]
    services.knowledge.ingestor.ingest_paths(pdfs, IngestOptions(scope="policies"))
    out = []
    for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line) if line.strip() else None
        if not case or case.get("unanswerable"):
            continue
        pieces = [p for p in str(case["evidence"]).split(" | ") if p.strip()]
        found = _policy_found(case["document"], pieces)
        facts = tuple(case.get("expected_facts") or ())
        out.append(Question(case["question"], ("policies",), found, facts=facts))
    return DevSet("policies", out)


def written(services: Services, folder: Path, files: Sequence[Path]) -> DevSet:
    """Questions of written-answer files asked of the two dev policies."""
    policies(services, folder)  # indexes the PDFs (again: a no-op once they are)
    out = []
    for path in files:
        for case in json.loads(path.read_text(encoding="utf-8")):
            if "ctx" not in case:
                pieces = _CITED.findall(case["answer"])
                out.append(Question(case["q"], ("policies",), _cited_found(pieces)))
    return DevSet("written", out)


_CITED = re.compile(r"\{\{(.+?)\}\}")


def _cited_found(pieces: list[str]) -> Callable[[list[Retrieved]], bool]:
    def found(chunks: list[Retrieved]) -> bool:
        held = [f" {' '.join(tokens(c.text))} " for c in chunks]
        return all(any(f" {' '.join(tokens(p))} " in text for text in held) for p in pieces)

    return found


def _policy_found(document: str, pieces: list[str]) -> Callable[[list[Retrieved]], bool]:
    def found(chunks: list[Retrieved]) -> bool:
        own = [c.text for c in chunks if str(c.metadata.get("source_uri", "")).endswith(document)]
        return all(any(_holds(text, piece) for text in own) for piece in pieces)

    return found


def _holds(text: str, piece: str) -> bool:
    flat = " ".join(piece.lower().split())
    return flat in " ".join(text.lower().split()) or holds_evidence(text, piece)


def financebench(services: Services, folder: Path, *, ingest: bool) -> DevSet:
    """The filings' questions; with `ingest` False, only those of filings already indexed
    (the whole split takes most of an hour to read on two cores)."""
    questions = [json.loads(x) for x in (folder / "questions.jsonl").read_text().splitlines() if x]
    for doc in sorted({q["doc_name"] for q in questions}):
        options = IngestOptions(scope=scope_of(doc))
        if ingest:
            services.knowledge.ingestor.ingest_paths([folder / "pdfs" / f"{doc}.pdf"], options)
    indexed = {
        q["doc_name"]
        for q in questions
        if services.knowledge.document_names([scope_of(q["doc_name"])])
    }
    out = []
    for q in (q for q in questions if q["doc_name"] in indexed):
        pages = {int(e["page"]) for e in q["evidence"]}
        texts = [str(e["evidence_text"]) for e in q["evidence"]]
        out.append(Question(q["question"], (scope_of(q["doc_name"]),), _fb_found(pages, texts)))
    return DevSet("financebench", out)


def _fb_found(pages: set[int], texts: list[str]) -> Callable[[list[Retrieved]], bool]:
    def found(chunks: list[Retrieved]) -> bool:
        return any(_pages(c) & pages for c in chunks) or any(
            holds_evidence(c.text, t) for c in chunks for t in texts
        )

    return found


def _pages(chunk: Retrieved) -> set[int]:
    match = _PAGES.search(chunk.location)
    if not match:
        return set()
    return set(range(int(match.group(1)), int(match.group(2) or match.group(1)) + 1))


def tatqa(services: Services, folder: Path) -> DevSet:
    contexts = json.loads((folder / "tables" / "tatqa_test_gold.json").read_text())
    notes = (services.settings.data_dir / "ablation-tatqa").resolve()  # kept for re-runs
    notes.mkdir(parents=True, exist_ok=True)
    for n, context in enumerate(contexts):
        (notes / note_file(context)).write_text(table_markdown(context, f"Note {n + 1}"))
    with services.db.engine.connect() as conn:
        stored = list_sources(conn, scope=TATQA_SCOPE)
    if any(not s.uri.startswith(str(notes)) for s in stored):
        services.knowledge.ingestor.remove_scope(TATQA_SCOPE)  # copies left by older runs
    services.knowledge.ingestor.ingest_paths([notes], IngestOptions(scope=TATQA_SCOPE))
    out = []
    for context in contexts:
        for q in context["questions"]:
            given = q.get("facts") or q.get("answer") or []
            facts = [str(f) for f in (given if isinstance(given, list) else [given]) if str(f)]
            if facts:
                spans = tuple(str(a) for a in q["answer"]) if q["answer_type"] == "span" else ()
                found = _tat_found(note_file(context), facts)
                out.append(Question(q["question"], (TATQA_SCOPE,), found, facts=spans))
    return DevSet("tatqa", out[::TATQA_EVERY])


def _tat_found(note: str, facts: list[str]) -> Callable[[list[Retrieved]], bool]:
    def found(chunks: list[Retrieved]) -> bool:
        own = " ".join(
            c.text for c in chunks if str(c.metadata.get("source_uri", "")).endswith(note)
        )
        return bool(own) and all(_holds(own, f) or _number_in(f, own) for f in facts)

    return found


def _number_in(fact: str, text: str) -> bool:
    value = fact.replace(",", "").replace("$", "").strip().rstrip("%")
    flat = text.replace(",", "")
    return (
        bool(re.fullmatch(r"-?\d+(?:\.\d+)?", value))
        and re.search(rf"(?<![\d.]){re.escape(value.lstrip('-'))}(?![\d])", flat) is not None
    )


def beir(services: Services, folder: Path, name: str) -> DevSet:
    data = read_beir(folder / name)
    scope = f"ab-{name.replace('_', '-')}"
    services.knowledge.ingestor.ingest_loaded(
        f"beir:{name}", SourceKind.RULEBOOK, IngestOptions(scope=scope), Loaded(corpus_drafts(data))
    )
    every = BEIR_EVERY[name]
    chosen = sorted(data.queries)[::every]
    out = [
        Question(data.queries[q], (scope,), lambda _c: False, frozenset(data.qrels[q]))
        for q in chosen
    ]
    return DevSet(name, out, beir=True)


# --- running a configuration --------------------------------------------------------------


def listed(
    services: Services, question: Question, stages: frozenset[Stage], beir: bool
) -> list[Retrieved]:
    """What the pipeline would list as sources, with these stages on."""
    knowledge = services.knowledge
    knowledge.retriever.stages = stages
    searched = search_text(question.text)
    budget = EVAL_BUDGET if beir else BUDGETS.get(classify_intent(question.text), DOCS)
    result = knowledge.retrieve(searched, scopes=question.scopes, budget=budget)
    if Stage.RELEVANT in stages:  # what the answerer is handed
        return relevant(result.chunks, searched)
    return list(result.chunks)


def cited(
    services: Services, question: Question, stages: frozenset[Stage]
) -> tuple[list[Retrieved], str]:
    """The chunks the pipeline's answer cites (quoted: no language model), none when it
    says it could not find the answer; and the answer's text."""
    answer, chunks = answered(services, question, stages)
    if answer is None or answer.bullets[0].text == NOT_FOUND:
        return [], ""
    return chunks, " ".join(b.text for b in answer.bullets)


def answered(
    services: Services, question: Question, stages: frozenset[Stage]
) -> tuple[Answer | None, list[Retrieved]]:
    """The pipeline's answer (quoted: no language model) and the retrieved chunks its
    sources are."""
    knowledge = services.knowledge
    knowledge.retriever.stages = stages
    seen: dict[str, Retrieved] = {}
    retrieve = knowledge.retrieve

    def recording(*args: Any, **kwargs: Any) -> Any:
        result = retrieve(*args, **kwargs)
        seen.update({c.node_id: c for c in result.chunks})
        return result

    knowledge.retrieve = recording  # type: ignore[method-assign]
    try:
        turn = Turn(
            thread=ThreadRef("eval", "local", "ablation", f"ab-{uuid.uuid4()}"),
            event_id=f"ab-{uuid.uuid4()}",
            user_id="eval",
            text=question.text,
            scopes=question.scopes,
        )
        answer = services.pipeline.answer_now(turn)
    finally:
        del knowledge.retrieve
    if answer is None:
        return None, []
    return answer, [seen[s.chunk_id] for s in answer.sources if s.chunk_id in seen]


def plain_dense(services: Services, question: Question) -> list[Retrieved]:
    result = services.knowledge.retriever.retrieve(
        search_text(question.text),
        scopes=question.scopes,
        budget=EVAL_BUDGET,
        mode="dense",
        stages=frozenset(),
    )
    return result.chunks


Run = Callable[[Question], "list[Retrieved] | tuple[list[Retrieved], str]"]


def score(dev: DevSet, run: Run) -> tuple[Scores, list[bool]]:
    """Per question: is the evidence in what `run` gives (and, when it gives an answer's
    text too, does that text state the question's facts)."""
    scores = Scores()
    per_question = []
    for question in dev.questions:
        got = run(question)
        chunks, said = got if isinstance(got, tuple) else (got, None)
        if said is not None and question.facts:
            scores.stated.append(all(states(said, f) for f in question.facts))
        if dev.beir:
            ranked = list(dict.fromkeys(str(c.metadata.get("corpus_id")) for c in chunks))[:10]
            rank = next((i for i, d in enumerate(ranked, 1) if d in question.relevant), None)
            scores.reciprocal.append(1 / rank if rank else 0.0)
            per_question.append(rank is not None)
        else:
            scores.at_top.append(question.found(chunks[:TOP]))
            scores.at_all.append(question.found(chunks))
            per_question.append(scores.at_all[-1])
    return scores, per_question


QUOTING = frozenset(s for s in Stage if s.value.startswith("quote_"))
SEARCH = ALL_STAGES - QUOTING


def configurations(kinds: list[str], answers: bool) -> Iterator[tuple[str, frozenset[Stage]]]:
    """Retrieval configurations (quoting stages are off: they do not change what is
    listed), or with `answers`, quoting configurations over every retrieval stage."""
    family, base = (QUOTING, SEARCH) if answers else (SEARCH, frozenset[Stage]())
    if "core" in kinds:
        yield "core", base
    if "each" in kinds:
        for stage in sorted(family):
            yield f"core + {stage.value}", base | {stage}
    if "all" in kinds:
        yield "all stages", base | family
    if "minus" in kinds:
        for stage in sorted(family):
            yield f"all - {stage.value}", (base | family) - {stage}


def ablate(
    services: Services, dev: DevSet, kinds: list[str], *, answers: bool = False
) -> dict[str, dict[str, float]]:
    """Plain dense search, then each configuration, on one dev set: what is listed, or
    with `answers` what the quoted answer cites."""
    cut = None if dev.beir else TOP
    dense, dense_found = score(dev, lambda q: plain_dense(services, q)[:cut])
    out = {"plain dense top 4": dense.summary()}
    for label, stages in configurations(kinds, answers):

        def run(
            question: Question, on: frozenset[Stage] = stages
        ) -> list[Retrieved] | tuple[list[Retrieved], str]:
            if answers:
                return cited(services, question, on)
            return listed(services, question, on, dev.beir)

        got, found = score(dev, run)
        losses = sum(d and not f for d, f in zip(dense_found, found, strict=True))
        out[label] = got.summary() | {"lost_to_dense": losses}
    return out


def cached_queries(services: Services) -> None:
    """Embed each text once across configurations (the model is the slow part)."""
    embedder = services.knowledge.embedder
    original = embedder.embed_query
    embed = lru_cache(maxsize=20_000)(lambda text: tuple(original(text)))
    embedder.embed_query = lambda text: list(embed(text))  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--sets", default=",".join(DOC_SETS + BEIR_SETS))
    parser.add_argument("--configs", default="core,each,all,minus")
    parser.add_argument("--split", choices=("all", "fit", "check"), default="all")
    parser.add_argument("--every", type=int, default=1, help="keep every Nth question")
    parser.add_argument("--json", action="store_true", help="a line of JSON per set")
    parser.add_argument(
        "--table", nargs="+", type=Path, help="print saved --json lines as one table"
    )
    parser.add_argument(
        "--answers", action="store_true", help="score what quoted answers cite, per quoting stage"
    )
    parser.add_argument(
        "--ingest-filings", action="store_true", help="read every FinanceBench filing first"
    )
    parser.add_argument(
        "--questions",
        nargs="+",
        type=Path,
        default=[],
        help="files for --sets written",
    )
    args = parser.parse_args()
    if args.table:
        print(merged_table(args.table))
        return
    if not args.eval.is_dir():
        sys.exit(f"{args.eval} is missing: the ablation measures on ../shared/eval's dev sets")
    wanted = [s.strip() for s in args.sets.split(",") if s.strip()]
    rows: dict[str, dict[str, dict[str, float]]] = {}
    with open_services(Settings()) as services:
        cached_queries(services)
        for name in wanted:
            started = time.perf_counter()
            dev = _load(services, args.eval, name, ingest=args.ingest_filings, files=args.questions)
            dev.questions = [q for q in dev.questions if _kept(q.text, args.split)][:: args.every]
            kinds = args.configs.split(",")
            for label, got in ablate(services, dev, kinds, answers=args.answers).items():
                rows.setdefault(label, {})[name] = got
            if args.json:  # one line a set, as each finishes
                print(json.dumps({label: {name: row[name]} for label, row in rows.items()}))
            seconds = time.perf_counter() - started
            print(f"# {name}: {len(dev.questions)} questions, {seconds:.0f} s", file=sys.stderr)
    if not args.json:
        print(table(rows, wanted))


def _load(
    services: Services, folder: Path, name: str, *, ingest: bool, files: Sequence[Path] = ()
) -> DevSet:
    if name == "written":
        return written(services, folder / "policies", files)
    if name == "policies":
        return policies(services, folder / "policies")
    if name == "financebench":
        return financebench(services, folder / "financebench_dev", ingest=ingest)
    if name == "tatqa":
        return tatqa(services, folder)
    return beir(services, folder, name)


def merged_table(files: list[Path]) -> str:
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            for label, per_set in (json.loads(line) if line.strip() else {}).items():
                rows.setdefault(label, {}).update(per_set)
    sets = list(dict.fromkeys(name for per_set in rows.values() for name in per_set))
    return table(rows, sets)


def table(rows: dict[str, dict[str, dict[str, float]]], sets: list[str]) -> str:
    """Markdown: per set its headline (evidence in all listed sources, or MRR@10), then
    the mean over the sets; `@4` and losses to plain dense search in brackets."""
    head = ["configuration", *sets, "mean"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, per_set in rows.items():
        cells, values = [], []
        for name in sets:
            got = per_set.get(name, {})
            value = got.get("mrr@10", got.get("@all", 0.0))
            values.append(value)
            extra = f" ({got['@4']:.3f}@4)" if "@4" in got else ""
            lost = f" -{int(got['lost_to_dense'])}" if got.get("lost_to_dense") else ""
            cells.append(f"{value:.3f}{extra}{lost}")
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {sum(values) / len(values):.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
