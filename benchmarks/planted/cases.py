"""Benchmark cases: a question plus the facts a faithful answer states, each with the
evidence that must sit in one context block for the answer to cite it. The policy cases
come from the verified policy QA set (questions with verbatim PDF evidence); TAT-QA cases
are in `benchmarks.planted.tatqa`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

POLICY_FILES = ("arogya_sanjeevani_policy", "family_medicare_policy")
POLICY_SCOPE = "policies"
EVIDENCE_CUT = 290  # the QA set cuts evidence at 300 characters
_MARKER = re.compile(r"^(?:\(?[ivxlc]{1,5}[.)]|\(?\d{1,2}(?:\.\d{1,2})*[.)]|\(?[a-h][.)]|[•▪-])\s+")
_INNER_MARKER = re.compile(r"(?P<before>\w+|[.;]) (?:\d{1,2}|[ivx]{1,4})\. (?=[A-Z0-9])")


@dataclass(frozen=True)
class Piece:
    """Evidence one block must hold: every needle (on one line, if `same_line`)."""

    needles: tuple[str, ...]
    same_line: bool = False


@dataclass(frozen=True)
class Fact:
    """One statement of the faithful answer and the evidence it rests on."""

    text: str
    pieces: tuple[Piece, ...]
    cut: bool = False  # the evidence was cut short: the quote runs on to its sentence end


@dataclass(frozen=True)
class Case:
    id: str
    source: str  # "policy" | "tatqa"
    kind: str  # policy: prose/table/list/definition; tatqa: table/text/change
    question: str
    scope: str
    doc: str  # key of the document the answer comes from
    file: str  # its file name, which heads the blocks cut from it
    facts: tuple[Fact, ...]
    values: tuple[str, ...]  # decisive values (a number fault prefers these)


@dataclass(frozen=True)
class Doc:
    """A document's text and names, for entity swaps and unsupported extra claims."""

    key: str
    text: str
    labels: tuple[str, ...] = ()  # table row labels
    headers: tuple[str, ...] = ()  # table column headers


def clean_piece(text: str) -> str:
    text = " ".join(text.split())
    while (m := _MARKER.match(text)) and len(text) > m.end():
        text = text[m.end() :]
    return _INNER_MARKER.sub(_unmark, text).strip(" |")


def _unmark(m: re.Match[str]) -> str:
    """A list marker inside a piece: dropped after 'and'/'or' or a full stop, else a colon."""
    before = m.group("before")
    if before in (".", ";") or before.lower() in ("and", "or"):
        return f"{before} "
    return f"{before}: "


# ---- policies ------------------------------------------------------------------------------


def policy_cases(folder: Path) -> list[Case]:
    """Answerable questions of policies/questions.jsonl, one fact per evidence group."""
    lines = (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    cases = []
    for n, line in enumerate(lines):
        row = json.loads(line) if line.strip() else {}
        if not row.get("evidence") or row.get("unanswerable"):
            continue
        pieces = [clean_piece(p) for p in row["evidence"].split(" | ")]
        if row.get("kind") == "table":  # a row's label and cell: both in one block
            facts = [Fact(": ".join(pieces), (Piece(tuple(pieces)),))]
        else:
            facts = _policy_facts(pieces)
        if len(row["evidence"]) >= EVIDENCE_CUT:
            facts[-1] = replace(facts[-1], cut=True)
        cases.append(
            Case(
                id=f"policy-{n + 1:02d}",
                source="policy",
                kind=row.get("kind", "prose"),
                question=row["question"],
                scope=POLICY_SCOPE,
                doc=Path(row["document"]).stem,
                file=row["document"],
                facts=tuple(facts),
                values=tuple(row.get("expected_facts") or ()),
            )
        )
    return cases


def _policy_facts(pieces: list[str]) -> list[Fact]:
    """A heading piece ("Sterility and Infertility (Code – Excl 17)") leads the piece after
    it; any other piece (a list item, a sentence) is a statement of its own."""
    facts: list[Fact] = []
    labels: list[str] = []
    for piece in pieces:
        if _is_heading(piece):
            labels.append(piece)
            continue
        text = f"{' — '.join(labels)}: {piece}" if labels else piece
        facts.append(Fact(text, tuple(Piece((p,)) for p in [*labels, piece])))
        labels = []
    if labels and facts:
        last = facts[-1]
        facts[-1] = Fact(f"{last.text} ({', '.join(labels)})", last.pieces)
    return facts


def _is_heading(piece: str) -> bool:
    words = piece.split()
    capitals = sum(w[:1].isupper() or w[:1].isdigit() for w in words)
    return len(words) <= 8 and not piece.endswith(".") and capitals * 2 >= len(words)


def policy_docs(folder: Path) -> dict[str, Doc]:
    from pypdf import PdfReader

    docs = {}
    for name in POLICY_FILES:
        reader = PdfReader(folder / f"{name}.pdf")
        text = "\n".join(page.extract_text() or "" for page in reader.pages)
        docs[name] = Doc(key=name, text=text)
    return docs
