"""`knowbot feedback export`: one record per rated answer with everything that produced it.
This is the dataset for rewriting or retraining a prompt: what was asked, how it was
rewritten and classified, which prompt and model ran, the context exactly as numbered and
sent, the answer, its checks and confidence, and what people said about it."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal, TextIO

from bot.store.rated import RatedAnswer

RatingFilter = Literal["negative", "positive", "all"]
CHECKS = (
    "qa_continuity",
    "numbers",
    "not_copied",
    "numeric_sense",
    "context_focus",
    "contextual_continuity",
    "polarity",
    "answerability",
)


def failed_checks(scores: dict[str, int]) -> list[str]:
    """The checks an answer failed, by name (answers stored before a check existed did
    not run it: they are not counted as failing it)."""
    return [c for c in CHECKS if scores.get(c, 1) == 0]


def select(items: Iterable[RatedAnswer], rating: RatingFilter) -> list[RatedAnswer]:
    return [i for i in items if rating == "all" or i.verdict == rating]


def record(item: RatedAnswer) -> dict[str, Any]:
    a = item.answer
    name, _, version = str(a["prompt"]).partition("@")
    return {
        "answer_id": item.id,
        "created_at": _iso(a["created_at"]),
        "platform": a["platform"],
        "question": a["question"],
        "rewritten_question": a["rewritten_question"],
        "expansions": a["expansions"],
        "intent": a["intent"],
        "prompt": a["prompt"],
        "prompt_name": name,
        "prompt_version": version,
        "model": a["model"],
        "choices": a["choices"],
        "context": context_as_sent(a),
        "retrieved": [
            {"chunk_id": r["chunk_id"], "kind": r.get("kind"), "score": r.get("score")}
            for r in a["retrieved"]
        ],
        "answer": answer_text(a),
        "bullets": a["bullets"],
        "sources": a["sources"],
        "scores": a["scores"],
        "failed_checks": failed_checks(a["scores"]),
        "confidence": a["confidence"],
        "notice": a["notice"],
        "verdict": item.verdict,
        "up": item.up,
        "down": item.down,
        "ratings": [
            {
                "platform": r.platform,
                "user_id": r.user_id,
                "signal": r.signal,
                "rating": r.rating,
                "reason": r.reason,
                "at": _iso(r.updated_at),
            }
            for r in item.ratings
        ],
    }


def context_as_sent(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The numbered blocks the model saw, each with the link to its document where the
    source has one. Answers stored before the pipeline marked what it sent fall back to
    their cited sources."""
    sent = [r for r in answer["retrieved"] if "number" in r]
    if not sent:
        sent = list(answer["sources"])
    links = {s.get("number"): s.get("url") or "" for s in answer["sources"]}
    keys = ("number", "chunk_id", "kind", "title", "location", "text")
    return [
        {**{k: r.get(k) for k in keys}, "url": r.get("url") or links.get(r["number"], "")}
        for r in sorted(sent, key=lambda r: r["number"])
    ]


def answer_text(answer: dict[str, Any]) -> str:
    """The bullets as the user read them, with their [n] markers."""
    lines = []
    for b in answer["bullets"]:
        marks = "".join(f"[{n}]" for n in b.get("sources", []))
        lines.append(f"- {b['text']} {marks}".rstrip())
    return "\n".join(lines)


def write_jsonl(items: Iterable[RatedAnswer], out: TextIO) -> int:
    count = 0
    for item in items:
        out.write(json.dumps(record(item), ensure_ascii=False, default=str) + "\n")
        count += 1
    return count


CSV_COLUMNS = (
    "answer_id",
    "created_at",
    "platform",
    "verdict",
    "up",
    "down",
    "reasons",
    "question",
    "rewritten_question",
    "intent",
    "prompt",
    "model",
    "confidence",
    *(f"check_{c}" for c in CHECKS),
    "answer",
    "context_chunk_ids",
    "context",
    "sources",
    "expansions",
    "choices",
    "ratings",
    "notice",
)


def write_csv(items: Iterable[RatedAnswer], out: TextIO) -> int:
    """Flat columns for spreadsheets; nested values (context, sources, ratings) as JSON."""
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    count = 0
    for item in items:
        r = record(item)
        row: dict[str, Any] = {k: r[k] for k in CSV_COLUMNS if k in r and not _nested(r[k])}
        row.update({f"check_{c}": r["scores"].get(c) for c in CHECKS})
        row["reasons"] = " | ".join(item.reasons)
        row["context_chunk_ids"] = json.dumps([c["chunk_id"] for c in r["context"]])
        for key in ("context", "sources", "expansions", "choices", "ratings"):
            row[key] = json.dumps(r[key], ensure_ascii=False, default=str)
        writer.writerow(row)
        count += 1
    return count


def qa_case(item: RatedAnswer) -> dict[str, Any]:
    """A rated answer as an `eval qa` case. The standalone (rewritten) question is used:
    the case runs without the thread's history. A liked answer becomes the expected answer;
    a down-voted one keeps what was wrong and waits for someone to write the expected facts
    (until then `eval qa` still reports its confidence)."""
    a = item.answer
    case: dict[str, Any] = {
        "question": a["rewritten_question"] or a["question"],
        "original_question": a["question"],
        "answer_id": item.id,
        "verdict": item.verdict,
    }
    plain = " ".join(str(b["text"]) for b in a["bullets"])
    if item.verdict == "positive":
        case["expected_answer"] = plain
    else:
        case["expected_facts"] = []
        case["rejected_answer"] = plain
        case["reasons"] = item.reasons
    return case


def write_qa(items: Iterable[RatedAnswer], out: TextIO) -> int:
    count = 0
    for item in items:
        out.write(json.dumps(qa_case(item), ensure_ascii=False) + "\n")
        count += 1
    return count


def _nested(value: object) -> bool:
    return isinstance(value, dict | list)


def _iso(value: object) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)
