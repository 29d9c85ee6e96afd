"""FAQ pairs: the question is what gets matched, the answer is cut to its key sentences.

Users ask in their own words, so each FAQ is indexed by its question and, when a
paraphraser is given, by paraphrases of it, all pointing at one `faq_key`. Long answers
are cut to the sentences that matter, in answer order, so a reply stays short.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from knowledge.documents import ChunkDraft, ChunkKind, FaqEntry
from knowledge.errors import SourceError
from knowledge.nlp import content_stems, normalize_whitespace, sentences
from knowledge.reading.loaders.rows import Record, listing, read_records, read_text

QUESTION_NAMES = ("question", "q", "query", "title")
ANSWER_NAMES = ("answer", "a", "response", "text")
_JSON_SUFFIXES = frozenset({".jsonl", ".ndjson", ".json"})
_DAMPING = 0.85
_ITERATIONS = 50
_LEAD_BONUS = 0.1  # FAQ answers tend to answer first and explain after
_SLUG_CHARS = 60


class Paraphraser(Protocol):
    """Rewrites a question the way other people would ask it (an LLM, or a fake in tests)."""

    def paraphrase(self, question: str, n: int) -> list[str]: ...


def read_faq(path: Path) -> list[FaqEntry]:
    """FAQ pairs from CSV/TSV (question, answer) or JSON lines ({question, answer} or
    BEIR-style {title, text}), each with its key sentences picked."""
    if path.suffix.lower() in _JSON_SUFFIXES:
        pairs = _json_pairs(path)
    else:
        pairs = _table_pairs(path, read_records(path))
    missing = [str(line) for line, question, answer in pairs if not (question and answer)]
    if missing:
        raise SourceError(
            str(path), f"entries at lines {listing(missing)} lack a question or an answer"
        )
    return [
        FaqEntry(question, answer, key_sentences(answer, question)) for _, question, answer in pairs
    ]


def _json_pairs(path: Path) -> list[tuple[int, str, str]]:
    text = read_text(path)
    if text.lstrip().startswith("["):
        objects = list(enumerate(_parse_json(path, text, 1), start=1))
    else:
        lines = enumerate(text.splitlines(), start=1)
        objects = [(n, _parse_json(path, line, n)) for n, line in lines if line.strip()]
    pairs = []
    for line, item in objects:
        if not isinstance(item, dict):
            raise SourceError(str(path), f"entry at line {line} is not a JSON object")
        question = item.get("question", item.get("title", ""))
        answer = item.get("answer", item.get("text", ""))
        pairs.append((line, normalize_whitespace(str(question)), str(answer).strip()))
    return pairs


def _parse_json(path: Path, text: str, line: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(
            str(path), f"line {line + exc.lineno - 1} is not valid JSON ({exc.msg})"
        ) from exc


def _table_pairs(path: Path, records: list[Record]) -> list[tuple[int, str, str]]:
    """Question and answer columns by header name, else the first two columns."""
    names = [normalize_whitespace(c).lower() for c in records[0].cells]
    question = next((names.index(n) for n in QUESTION_NAMES if n in names), None)
    answer = next((names.index(n) for n in ANSWER_NAMES if n in names), None)
    if question is None and answer is None:
        body, question, answer = records, 0, 1
    elif question is None or answer is None:
        raise SourceError(
            str(path),
            f"header {', '.join(records[0].cells)} needs a question column "
            f"({', '.join(QUESTION_NAMES)}) and an answer column ({', '.join(ANSWER_NAMES)})",
        )
    else:
        body = records[1:]
    return [
        (r.line, normalize_whitespace(_cell(r.cells, question)), _cell(r.cells, answer))
        for r in body
    ]


def _cell(cells: list[str], index: int) -> str:
    return cells[index] if index < len(cells) else ""


# --- key sentences ----------------------------------------------------------------------


def key_sentences(answer: str, question: str, max_sentences: int = 3) -> tuple[str, ...]:
    """The answer's most important sentences, in answer order; short answers whole.

    Importance is half centrality (TextRank over shared content words: what the answer
    keeps coming back to) and half overlap with the question (what was asked), plus a
    small bonus for the opening sentence.
    """
    found = sentences(answer)
    if len(found) <= max_sentences:
        return tuple(found)
    stems = [set(content_stems(s)) for s in found]
    asked = set(content_stems(question))
    centrality = _textrank(stems)
    top = max(centrality) or 1.0
    scores = [
        0.5 * c / top + 0.5 * (len(s & asked) / len(asked) if asked else 0.0)
        for c, s in zip(centrality, stems, strict=True)
    ]
    scores[0] += _LEAD_BONUS
    best = sorted(range(len(found)), key=lambda i: (-scores[i], i))[:max_sentences]
    return tuple(found[i] for i in sorted(best))


def _textrank(stems: Sequence[set[str]]) -> list[float]:
    """PageRank over sentences linked by shared words (Mihalcea and Tarau, 2004)."""
    n = len(stems)
    weights = [[_similarity(a, b) if a is not b else 0.0 for b in stems] for a in stems]
    totals = [sum(row) for row in weights]
    ranks = [1.0 / n] * n
    for _ in range(_ITERATIONS):
        ranks = [
            (1 - _DAMPING) / n
            + _DAMPING * sum(weights[j][i] / totals[j] * ranks[j] for j in range(n) if totals[j])
            for i in range(n)
        ]
    return ranks


def _similarity(a: set[str], b: set[str]) -> float:
    shared = len(a & b)
    if not shared:
        return 0.0
    return shared / (math.log(len(a) + 1) + math.log(len(b) + 1))


# --- chunks -----------------------------------------------------------------------------


def faq_chunks(
    entries: list[FaqEntry],
    *,
    source: str,
    paraphraser: Paraphraser | None = None,
    paraphrases: int = 3,
) -> list[ChunkDraft]:
    """A FAQ chunk per question, plus one per paraphrase pointing at the same `faq_key`."""
    chunks: list[ChunkDraft] = []
    seen: dict[str, int] = {}
    for entry in entries:
        key = faq_key(entry.question, seen)
        metadata = {
            "faq_key": key,
            "question": entry.question,
            "answer": entry.answer,
            "answer_sentences": list(entry.key_sentences),
        }
        chunks.append(_chunk(key, entry.question, source, metadata))
        if paraphraser is not None:
            for i, text in enumerate(_paraphrases(paraphraser, entry.question, paraphrases), 1):
                extra = {**metadata, "paraphrase_of": key}
                chunks.append(_chunk(f"{key}:paraphrase:{i}", text, source, extra))
    return chunks


def faq_key(question: str, seen: dict[str, int]) -> str:
    """Readable, stable key from the question; a repeated question gets "-2", "-3"...

    Some FAQ sets answer the same question twice (two health bodies); both stay.
    """
    normal = normalize_whitespace(question).lower()
    slug = re.sub(r"[^a-z0-9]+", "-", normal).strip("-")[:_SLUG_CHARS].rstrip("-")
    digest = hashlib.sha1(normal.encode("utf-8")).hexdigest()[:8]
    key = f"faq:{slug}-{digest}"
    seen[key] = seen.get(key, 0) + 1
    return key if seen[key] == 1 else f"{key}-{seen[key]}"


def _paraphrases(paraphraser: Paraphraser, question: str, n: int) -> list[str]:
    """Distinct, non-empty paraphrases that differ from the question itself."""
    known = {normalize_whitespace(question).lower()}
    kept = []
    for text in paraphraser.paraphrase(question, n):
        text = normalize_whitespace(text)
        if text and text.lower() not in known:
            known.add(text.lower())
            kept.append(text)
    return kept[:n]


def _chunk(key: str, text: str, source: str, metadata: dict[str, Any]) -> ChunkDraft:
    question = metadata["question"]
    shown = question if len(question) <= 100 else question[:99] + "…"
    return ChunkDraft(
        key=key,
        kind=ChunkKind.FAQ,
        text=text,
        title=source,
        location=f"Q: {shown}",
        metadata=metadata,
    )
