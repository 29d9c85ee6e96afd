"""Turning retrieved chunks, glossary definitions and graph facts into numbered sources,
and fencing them for the prompt so that text inside documents stays data."""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.conversation.text import content_words
from bot.conversation.types import Expansion, Source
from knowledge.documents import GlossaryEntry, Triple
from knowledge.search.fitted import fitted
from knowledge.search.ranking import frame_stems
from knowledge.search.retrieved import Retrieved

# relevant() keeps a chunk this close in meaning (fitted, like the next two: fit_answers.py)
MIN_DENSE_SIMILARITY = fitted("relevant_min_similarity", 0.35)
MIN_SHARED_WORDS = fitted("relevant_shared_words", 0.5)  # or: that share of the question's words
TOP_TEXT_RANK = int(fitted("relevant_text_rank", 2))  # or: among the best full-text matches
STATEMENT_BOOST = 0.1  # or: it is a table of the statement asked about (knowledge.search.ranking)


def relevant(chunks: Sequence[Retrieved], question: str) -> list[Retrieved]:
    """Drop chunks that match neither by meaning nor by words: no context beats bad context.

    A top full-text hit stays even when it shares few of a long question's words: the
    full-text search ranks by the rarest words, and one rare word ("hydrocele") in a
    chatty question can be all that names the clause. A chunk naming everything the
    question is about stays too, however few of its framing words it shares: "How does the
    policy define a 'Hospital'?" is about hospitals, and so is the definition of one.
    """
    asked = set(content_words(question))
    topic = asked - frame_stems()
    kept = []
    for chunk in chunks:
        said = set(content_words(chunk.text + " " + chunk.title))
        similar = (chunk.dense_similarity or 0.0) >= MIN_DENSE_SIMILARITY
        overlapping = bool(asked) and len(asked & said) / len(asked) >= MIN_SHARED_WORDS
        topical = bool(topic) and topic <= said
        rare_match = chunk.sparse_rank is not None and chunk.sparse_rank <= TOP_TEXT_RANK
        statement = chunk.boost >= STATEMENT_BOOST
        if similar or overlapping or topical or rare_match or statement:
            kept.append(chunk)
    return kept


def chunk_text(chunk: Retrieved) -> str:
    """What the model and the user see for a chunk; FAQ chunks show their answer's key part."""
    if chunk.kind == "faq":
        question = chunk.metadata.get("question") or chunk.text
        answer = " ".join(chunk.metadata.get("answer_sentences") or []) or chunk.metadata.get(
            "answer", ""
        )
        return f"Q: {question}\nA: {answer}"
    return chunk.text


def number_sources(
    chunks: Sequence[Retrieved],
    definitions: Sequence[GlossaryEntry],
    facts: Sequence[Triple],
    *,
    facts_format: str = "triples",
) -> list[Source]:
    sources = [
        Source(
            number=i,
            chunk_id=c.node_id,
            kind=c.kind,
            title=c.title,
            location=c.location,
            text=chunk_text(c),
            score=round(c.score, 5),
            similarity=c.dense_similarity,
        )
        for i, c in enumerate(chunks, start=1)
    ]
    for entry in definitions:
        defined = f". {entry.definition}" if entry.definition else ""
        text = f"{entry.term}: {entry.expansion}{defined}"
        key = f"glossary:{entry.term}"
        sources.append(Source(len(sources) + 1, key, "definition", "Glossary", entry.term, text))
    if facts:
        subjects = sorted({t.subject for t in facts})
        about, text = ", ".join(subjects)[:120], render_facts(facts, facts_format)
        key = "graph:" + "|".join(subjects)
        sources.append(Source(len(sources) + 1, key, "graph", "Knowledge graph", about, text))
    return sources


def render_facts(facts: Sequence[Triple], style: str) -> str:
    """Graph facts as triples, sentences or a short description (which works best is learnt)."""
    if style == "sentences":
        return " ".join(f"{t.subject} {t.relation} {t.object}." for t in facts)
    if style == "description":
        by_subject: dict[str, list[str]] = {}
        for t in facts:
            by_subject.setdefault(t.subject, []).append(f"{t.relation} {t.object}")
        return " ".join(f"{s}: {'; '.join(v)}." for s, v in by_subject.items())
    return "\n".join(f"({t.subject}, {t.relation}, {t.object})" for t in facts)


def fence(sources: Sequence[Source]) -> str:
    """Numbered blocks inside <context>; fence-like text inside documents is neutralised."""
    blocks = []
    for s in sources:
        header = f"[{s.number}] {s.title}" + (f" — {s.location}" if s.location else "")
        blocks.append(f"{header}\n{_defang(s.text)}")
    return "<context>\n" + "\n\n".join(blocks) + "\n</context>"


def _defang(text: str) -> str:
    return text.replace("<context>", "‹context›").replace("</context>", "‹/context›")


def glossary_preamble(
    question: str, expansions: Sequence[Expansion], glossary: Sequence[GlossaryEntry]
) -> list[GlossaryEntry]:
    """The preamble: definitions only for glossary terms the question used."""
    used = {e.original.strip(".").lower() for e in expansions if e.kind == "acronym"}
    words = {w.lower() for w in re.findall(r"[\w.]+", question)}
    return [
        g
        for g in glossary
        if g.definition and (g.term.strip(".").lower() in used or g.term.lower() in words)
    ][:4]
