"""TAT-QA cases: each context (a financial table and its paragraphs) is written out as a
Markdown file with a real Markdown table; its span questions (and some "change between two
periods" questions) become cases whose facts are table cells or quoted sentences."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from benchmarks.planted.cases import Case, Doc, Fact
from benchmarks.planted.table_facts import Table, cell_fact, change_fact, read_table, sentence_fact

TABLE_SCOPE = "tatqa"
CHANGE_SHARE = 0.35  # of the "a - b" questions between two periods, this share is asked


def note_file(context: dict[str, Any]) -> str:
    """The Markdown file a TAT-QA context is written to (and its blocks are headed with)."""
    return f"note-{context['table']['uid'][:8]}.md"


def table_markdown(context: dict[str, Any], title: str) -> str:
    """The context as a Markdown file: a heading, its paragraphs, a real Markdown table
    (placed after the paragraph that introduces it, if one ends with a colon)."""
    table = read_table(context["table"]["table"])
    width = len(table.headers)

    def line(cells: list[str]) -> str:
        padded = [c.replace("|", "/") for c in cells] + [""] * (width - len(cells))
        return "| " + " | ".join(padded) + " |"

    grid = [line(table.headers), "|" + " --- |" * width]
    grid += [line(r) for r in table.rows[table.header_rows :]]
    paragraphs = [p["text"].strip() for p in sorted(context["paragraphs"], key=_order)]
    at = next((i + 1 for i, p in enumerate(paragraphs) if p.endswith(":")), 0)
    grid_text = "\n".join(grid)
    if table.caption:
        grid_text = f"{table.caption}\n\n{grid_text}"
    parts = [f"# {title}", *paragraphs[:at], grid_text, *paragraphs[at:]]
    return "\n\n".join(parts) + "\n"


def _order(paragraph: dict[str, Any]) -> int:
    return int(paragraph.get("order", 0))


def table_doc(context: dict[str, Any]) -> Doc:
    table = read_table(context["table"]["table"])
    labels = [table.label(r) for r in range(table.header_rows, len(table.rows))]
    text = "\n".join(p["text"] for p in context["paragraphs"])
    text += "\n" + "\n".join(" | ".join(r) for r in table.rows)
    return Doc(
        key=context["table"]["uid"],
        text=text,
        labels=tuple(dict.fromkeys(x for x in labels if 1 <= len(x.split()) <= 8)),
        headers=tuple(h for h in table.headers[1:] if h),
    )


def table_cases(
    contexts: list[dict[str, Any]], rng: random.Random, *, limit: int, per_context: int = 2
) -> tuple[list[Case], list[dict[str, Any]]]:
    """Up to `limit` cases, at most `per_context` from each context; and the contexts used."""
    cases: list[Case] = []
    used: list[dict[str, Any]] = []
    order = list(contexts)
    rng.shuffle(order)
    for context in order:
        if len(cases) >= limit:
            break
        found = list(_context_cases(context, rng))
        rng.shuffle(found)
        found.sort(key=lambda c: c.kind == "text")  # tables first: text spans are common
        if found:
            used.append(context)
            cases.extend(found[: min(per_context, limit - len(cases))])
    return cases, used


def _context_cases(context: dict[str, Any], rng: random.Random) -> Iterator[Case]:
    table = read_table(context["table"]["table"])
    paragraphs = {f"paragraph_{_order(p)}": p["text"] for p in context["paragraphs"]}
    for q in context["questions"]:
        kind, facts = _question_facts(q, table, paragraphs, rng)
        if not facts:
            continue
        answer = q["answer"] if isinstance(q["answer"], list) else [str(q["answer"])]
        yield Case(
            id=f"tatqa-{q['uid'][:8]}",
            source="tatqa",
            kind=kind,
            question=q["question"],
            scope=TABLE_SCOPE,
            doc=context["table"]["uid"],
            file=note_file(context),
            facts=tuple(facts),
            values=tuple(str(a) for a in answer),
        )


def _question_facts(
    q: dict[str, Any], table: Table, paragraphs: dict[str, str], rng: random.Random
) -> tuple[str, list[Fact]]:
    spots = [next(iter(m.items())) for m in q.get("mappings") or []]
    if q["answer_type"] in ("span", "multi-span") and 1 <= len(spots) <= 3:
        if all(where == "table" for where, _ in spots):
            answers = q["answer"] if isinstance(q["answer"], list) else [str(q["answer"])]
            facts = [cell_fact(table, pos[0], pos[1], answers, rng) for _, pos in spots]
            return "table", [f for f in facts if f] if all(facts) else []
        if all(where in paragraphs for where, _ in spots):
            sentence = [sentence_fact(paragraphs[w], pos[0], pos[1], rng) for w, pos in spots]
            unique = list({f.pieces: f for f in sentence if f}.values())
            return "text", unique if all(sentence) else []
    if q["answer_type"] == "arithmetic" and len(spots) == 2 and rng.random() < CHANGE_SHARE:
        fact = change_fact(q, table, [pos for _, pos in spots])
        return "change", [fact] if fact else []
    return "", []
