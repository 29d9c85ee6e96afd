"""Knowledge-graph triples from CSV/TSV, grouped per subject into searchable chunks.

Two layouts: explicit subject/relation/object columns, or an edge list such as
`disease,symptom,disease_umls,...` where the first column is the subject, the first
column naming something else is the object, and the relation comes from that column's
name ("symptom" -> "has symptom") unless the caller names it. Identifier columns
(codes, IRIs) are not facts a person asks about and are ignored.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from knowledge.documents import ChunkDraft, ChunkKind, Triple
from knowledge.errors import SourceError
from knowledge.nlp import normalize_whitespace
from knowledge.reading.loaders.rows import Record, read_records

log = logging.getLogger(__name__)

SUBJECT_NAMES = frozenset({"subject", "head", "source", "entity", "from"})
RELATION_NAMES = frozenset({"relation", "predicate", "property", "relationship", "edge"})
OBJECT_NAMES = frozenset({"object", "tail", "target", "value", "to"})
_ID_SUFFIXES = ("id", "code", "iri", "uri", "url", "umls", "mesh", "cui", "icd")
_VERB_STARTS = frozenset({"has", "have", "is", "are", "was", "causes", "treats", "part"})
_PREPOSITIONS = frozenset({"by", "of", "in", "to", "for", "with", "from", "on", "at", "as"})
_CODE = re.compile(r"[A-Za-z]{0,4}[:_-]?\d[\w.:-]*|https?://\S+")
_CHUNK_CHARS = 800  # keeps a chunk inside a small embedding model's window


def read_triples(
    path: Path, *, relation: str | None = None, object_column: str | None = None
) -> list[Triple]:
    """Distinct triples in file order (case and spacing ignored when comparing).

    Rows with an empty subject or object are skipped and counted in a warning: graph
    exports often hold such half edges, and one should not sink the whole file.
    """
    records = read_records(path)
    header = [normalize_whitespace(c) for c in records[0].cells]
    columns = _columns(path, records, header, relation, object_column)
    seen: set[tuple[str, str, str]] = set()
    triples: list[Triple] = []
    skipped = 0
    for record in records[1:]:
        triple = _triple(record, columns)
        if triple is None:
            skipped += 1
            continue
        identity = (triple.subject.lower(), triple.relation.lower(), triple.object.lower())
        if identity not in seen:
            seen.add(identity)
            triples.append(triple)
    if skipped:
        log.warning("%s: skipped %d rows with an empty subject or object", path, skipped)
    return triples


_Columns = tuple[int, int | str, int]  # subject index, relation index or fixed text, object


def _columns(
    path: Path,
    records: list[Record],
    header: list[str],
    relation: str | None,
    object_column: str | None,
) -> _Columns:
    names = [h.lower().replace("_", " ") for h in header]
    if len(header) < 2:
        raise SourceError(str(path), "needs at least two columns: a subject and an object")
    subject, relation_index, obj = (
        _index(names, wanted) for wanted in (SUBJECT_NAMES, RELATION_NAMES, OBJECT_NAMES)
    )
    if subject is not None and obj is not None:
        fixed = relation or ("related to" if relation_index is None else relation_index)
        return subject, fixed, obj
    if object_column is not None:
        if object_column not in header:
            raise SourceError(
                str(path), f"no column {object_column!r}; columns are {', '.join(header)}"
            )
        obj = header.index(object_column)
    else:
        obj = _object_index(records, names)
    return 0, relation or relation_from_column(header[obj]), obj


def _index(names: list[str], wanted: frozenset[str]) -> int | None:
    return next((i for i, name in enumerate(names) if name in wanted), None)


def _object_index(records: list[Record], names: list[str]) -> int:
    """The first column after the subject that is neither one of its attributes nor codes."""
    subject = names[0]
    for index, name in enumerate(names[1:], start=1):
        if name.startswith(subject + " ") or name.split(" ")[-1] in _ID_SUFFIXES:
            continue
        if not _mostly_codes(records[1:], index):
            return index
    return 1


def _mostly_codes(records: list[Record], index: int) -> bool:
    cells = [r.cells[index] for r in records[:200] if index < len(r.cells) and r.cells[index]]
    return bool(cells) and sum(bool(_CODE.fullmatch(c)) for c in cells) > len(cells) / 2


def relation_from_column(column: str) -> str:
    """ "symptom" -> "has symptom"; "treated_by" and "is_a" read as they are."""
    words = normalize_whitespace(column.replace("_", " ").replace("-", " ")).lower().split()
    if not words:
        return "related to"
    if words[0] in _VERB_STARTS or words[-1] in _PREPOSITIONS:
        return " ".join(words)
    return "has " + " ".join(words)


def _triple(record: Record, columns: _Columns) -> Triple | None:
    subject_index, relation, object_index = columns
    cells = [normalize_whitespace(c) for c in record.cells]
    subject = cells[subject_index] if subject_index < len(cells) else ""
    obj = cells[object_index] if object_index < len(cells) else ""
    if isinstance(relation, int):
        relation = cells[relation] if relation < len(cells) else ""
    if not (subject and obj and relation):
        return None
    return Triple(subject, relation, obj)


def triple_chunks(triples: list[Triple], *, source: str) -> list[ChunkDraft]:
    """One TRIPLE chunk per subject (split when long): "Influenza: has symptom fever, cough."

    Facts about one entity answer a question about it together, so they travel together.
    """
    subjects: dict[str, list[Triple]] = {}
    for triple in triples:
        subjects.setdefault(triple.subject.lower(), []).append(triple)
    chunks: list[ChunkDraft] = []
    for facts in subjects.values():
        for part, group in enumerate(_parts(facts), start=1):
            chunks.append(_chunk(group, part, source))
    return chunks


def _parts(facts: list[Triple]) -> list[list[Triple]]:
    parts: list[list[Triple]] = [[]]
    size = len(facts[0].subject)
    for fact in facts:
        cost = len(fact.relation) + len(fact.object) + 4
        if parts[-1] and size + cost > _CHUNK_CHARS:
            parts.append([])
            size = len(facts[0].subject)
        parts[-1].append(fact)
        size += cost
    return parts


def _chunk(facts: list[Triple], part: int, source: str) -> ChunkDraft:
    subject = facts[0].subject
    by_relation: dict[str, list[str]] = {}
    for fact in facts:
        by_relation.setdefault(fact.relation, []).append(fact.object)
    text = "; ".join(f"{relation} {', '.join(objs)}" for relation, objs in by_relation.items())
    key = f"triple:{subject.lower()}" + (f":{part}" if part > 1 else "")
    return ChunkDraft(
        key=key,
        kind=ChunkKind.TRIPLE,
        text=f"{subject}: {text}.",
        title=source,
        location=subject,
        metadata={
            "subject": subject,
            "relations": sorted(by_relation),
            "triples": [[f.subject, f.relation, f.object] for f in facts],
        },
    )
