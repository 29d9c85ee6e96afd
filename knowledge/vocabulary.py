"""Domain vocabulary as data: the names of financial statements, the measures read off them,
the words that say what kind a document is. It is knowledge, not code, so it ships as
optional packs (TOML files) a company can edit or replace: `knowledge/packs/*.toml` are
bundled, and a pack may be any TOML file of the same shape.

The ranking and answer code asks the active vocabulary (`active()`); the composition root
loads the packs the settings name and sets it once at start (`use_vocabulary`). Never set,
it is the bundled default packs, so a library user or a test gets today's behaviour. A
pack that cannot be read fails at load, naming the file, the entry and what to do.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from knowledge.documents import GlossaryEntry
from knowledge.errors import KnowledgeError

PACKS_DIR = Path(__file__).with_name("packs")
DEFAULT_PACKS = ("finance", "documents", "insurance")

_TOP_KEYS = frozenset(
    {"statement", "lines", "measure", "supplementary", "document_names", "questions", "acronyms"}
)
_STATEMENT_KEYS = frozenset({"key", "names", "measures", "title_words"})
_MEASURE_KEYS = frozenset({"asks", "inputs"})
_SUPPLEMENTARY_KEYS = frozenset({"note_heading", "about_title", "part_title"})
_DOCUMENT_KEYS = frozenset({"kind_words"})
_QUESTION_KEYS = frozenset(
    {"frame_words", "period_kinds", "money_words", "document_parts", "list_nouns"}
)


class VocabularyError(KnowledgeError):
    """A vocabulary pack cannot be used; the message names the file, the entry and the fix."""


@dataclass(frozen=True, eq=False)
class Statement:
    """One financial statement: how it is named, and what is read off it."""

    key: str
    names: re.Pattern[str]
    measures: re.Pattern[str] | None
    title_words: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Measure:
    """A measure a question may ask about, and the statement lines it is computed from."""

    asks: re.Pattern[str]
    inputs: tuple[re.Pattern[str], ...]


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """The vocabulary of the packs in use. Compared and hashed by identity, so the functions
    that cache per question and vocabulary stay fast and never mix two vocabularies."""

    statements: tuple[Statement, ...] = ()
    measures: tuple[Measure, ...] = ()
    note_heading: re.Pattern[str] | None = None
    about_title: re.Pattern[str] | None = None
    part_title: re.Pattern[str] | None = None
    document_kind_words: frozenset[str] = frozenset()
    question_frame_words: frozenset[str] = frozenset()  # frame a question, name no topic
    period_kinds: tuple[str, ...] = ()  # "waiting" (period): a question about one asks how long
    money_words: tuple[str, ...] = ()  # "premium", "revenue": a question about one asks how much
    document_parts: re.Pattern[str] | None = None  # "balance sheet": a part a question points to
    list_nouns: tuple[str, ...] = ()  # "diseases": "which diseases ..." asks for a list
    acronyms: tuple[tuple[str, str], ...] = ()  # ("PPNE", "property, plant and equipment")
    packs: tuple[str, ...] = field(default=())  # where it came from, for messages and logs

    def statement(self, key: str) -> Statement | None:
        return next((s for s in self.statements if s.key == key), None)


EMPTY = Vocabulary()
_active: Vocabulary | None = None


def active() -> Vocabulary:
    """The vocabulary in use: what the composition root set, else the bundled default."""
    return _active if _active is not None else default_vocabulary()


def with_pack_acronyms(glossary: Sequence[GlossaryEntry]) -> list[GlossaryEntry]:
    """The company's glossary, then the active packs' acronyms it does not spell out."""
    own = {e.term.strip().upper() for e in glossary}
    packs = [GlossaryEntry(t, e) for t, e in active().acronyms if t.upper() not in own]
    return [*glossary, *packs]


def use_vocabulary(vocabulary: Vocabulary | None) -> None:
    """Set the process's vocabulary (the composition root does, once, at start); None goes
    back to the bundled default."""
    global _active
    _active = vocabulary


@cache
def default_vocabulary() -> Vocabulary:
    return load_packs(DEFAULT_PACKS)


def load_packs(packs: Sequence[str]) -> Vocabulary:
    """The vocabulary of `packs`: each the name of a bundled pack ("finance") or the path
    of a TOML file. Entries for the same statement in several packs are merged; none gives
    an empty vocabulary (every domain rule then does nothing)."""
    parts = [_read_pack(_pack_path(p)) for p in packs]
    return _merge(parts, tuple(str(p) for p in packs))


def bundled_packs() -> list[str]:
    return sorted(p.stem for p in PACKS_DIR.glob("*.toml"))


def _pack_path(pack: str) -> Path:
    if pack.endswith(".toml") or "/" in pack or "\\" in pack:
        path = Path(pack).expanduser()
        if not path.is_file():
            raise VocabularyError(
                f"vocabulary pack {path}: no such file; check the path in KNOWBOT_PACKS"
            )
        return path
    path = PACKS_DIR / f"{pack}.toml"
    if not path.is_file():
        raise VocabularyError(
            f"vocabulary pack {pack!r} is not bundled (bundled: {', '.join(bundled_packs())}); "
            "name a bundled pack or give the path of a .toml file in KNOWBOT_PACKS"
        )
    return path


@dataclass
class _Pack:
    path: Path
    statements: list[Statement]
    measures: list[Measure]
    supplementary: dict[str, re.Pattern[str]]
    kind_words: frozenset[str]
    frame_words: frozenset[str]
    period_kinds: list[str]
    money_words: list[str]
    document_parts: list[re.Pattern[str]]
    list_nouns: list[str]
    acronyms: dict[str, str]


def _read_pack(path: Path) -> _Pack:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise VocabularyError(f"vocabulary pack {path}: not valid TOML ({exc}); fix it") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise VocabularyError(f"vocabulary pack {path}: cannot be read ({exc})") from exc
    where = _Where(path)
    where.keys("the top level", data, _TOP_KEYS)
    lines = {
        name: where.pattern(f"[lines] {name}", value)
        for name, value in where.table("lines", data.get("lines", {})).items()
    }
    statements = [
        _statement(where, i, entry) for i, entry in enumerate(where.array("statement", data))
    ]
    measures = [
        _measure(where, i, entry, lines) for i, entry in enumerate(where.array("measure", data))
    ]
    supplementary = where.table("supplementary", data.get("supplementary", {}))
    where.keys("[supplementary]", supplementary, _SUPPLEMENTARY_KEYS)
    documents = where.table("document_names", data.get("document_names", {}))
    where.keys("[document_names]", documents, _DOCUMENT_KEYS)
    kind_words = where.words("[document_names] kind_words", documents.get("kind_words", []))
    questions = where.table("questions", data.get("questions", {}))
    where.keys("[questions]", questions, _QUESTION_KEYS)
    frame_words = where.words("[questions] frame_words", questions.get("frame_words", []))
    parts = where.words("[questions] document_parts", questions.get("document_parts", []))
    acronyms = where.table("[acronyms]", data.get("acronyms", {}))
    for term, expansion in acronyms.items():
        if not isinstance(expansion, str) or not expansion.strip():
            raise where.error(f"[acronyms] {term}", 'must be its expansion, as in PPE = "..."')
    return _Pack(
        path,
        statements,
        measures,
        {k: where.pattern(f"[supplementary] {k}", v) for k, v in supplementary.items()},
        frozenset(w.lower() for w in kind_words),
        frozenset(w.lower() for w in frame_words),
        where.words("[questions] period_kinds", questions.get("period_kinds", [])),
        where.words("[questions] money_words", questions.get("money_words", [])),
        [where.pattern("[questions] document_parts", p) for p in parts],
        where.words("[questions] list_nouns", questions.get("list_nouns", [])),
        {term.strip(): expansion.strip() for term, expansion in acronyms.items()},
    )


def _statement(where: _Where, i: int, entry: Any) -> Statement:
    entry = where.table(f"[[statement]] number {i + 1}", entry)
    key = entry.get("key")
    if not isinstance(key, str) or not key.strip():
        raise where.error(f"[[statement]] number {i + 1}", 'needs a `key` such as "income"')
    name = f"[[statement]] {key!r}"
    where.keys(name, entry, _STATEMENT_KEYS)
    names = where.words(f"{name} names", entry.get("names", []))
    if not names:
        raise where.error(name, "needs `names`: the patterns that name the statement")
    measures = where.words(f"{name} measures", entry.get("measures", []))
    return Statement(
        key=key.strip(),
        names=where.pattern(f"{name} names", "|".join(names)),
        measures=where.pattern(f"{name} measures", "|".join(measures)) if measures else None,
        title_words=tuple(where.words(f"{name} title_words", entry.get("title_words", []))),
    )


def _measure(where: _Where, i: int, entry: Any, lines: Mapping[str, re.Pattern[str]]) -> Measure:
    name = f"[[measure]] number {i + 1}"
    entry = where.table(name, entry)
    where.keys(name, entry, _MEASURE_KEYS)
    asks = entry.get("asks")
    if not isinstance(asks, str):
        raise where.error(name, "needs `asks`: a pattern of the measure's names")
    name = f"[[measure]] {asks!r}"
    inputs = where.words(f"{name} inputs", entry.get("inputs", []))
    unknown = [k for k in inputs if k not in lines]
    if unknown:
        raise where.error(
            f"{name} inputs",
            f"names {', '.join(unknown)}, not in this pack's [lines] "
            f"({', '.join(sorted(lines)) or 'none'}); add them to [lines] or fix the names",
        )
    return Measure(where.pattern(f"{name} asks", asks), tuple(lines[k] for k in inputs))


class _Where:
    """Reads the parts of one pack, and says where in it something is wrong."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, entry: str, problem: str) -> VocabularyError:
        return VocabularyError(f"vocabulary pack {self.path}: {entry}: {problem}")

    def keys(self, entry: str, table: Mapping[str, Any], allowed: frozenset[str]) -> None:
        unknown = sorted(set(table) - allowed)
        if unknown:
            raise self.error(
                entry,
                f"unknown key {', '.join(map(repr, unknown))}; "
                f"the keys here are {', '.join(sorted(allowed))} (check the spelling)",
            )

    def table(self, entry: str, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(entry, "must be a table ([name] or {key = value})")
        return value

    def array(self, entry: str, data: Mapping[str, Any]) -> list[Any]:
        value = data.get(entry, [])
        if not isinstance(value, list):
            raise self.error(entry, f"must be an array of tables, written [[{entry}]]")
        return value

    def words(self, entry: str, value: Any) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(entry, 'must be a list of strings, such as ["a", "b"]')
        return [v for v in value if v.strip()]

    def pattern(self, entry: str, value: Any) -> re.Pattern[str]:
        if not isinstance(value, str):
            raise self.error(entry, "must be a string holding a regular expression")
        try:
            return re.compile(value, re.IGNORECASE)
        except re.error as exc:
            raise self.error(
                entry,
                f"{value!r} is not a regular expression ({exc}); fix it, escaping "
                "characters such as ( [ ? + * with a backslash where they are meant literally",
            ) from exc


def _merge(parts: Iterable[_Pack], names: tuple[str, ...]) -> Vocabulary:
    statements: dict[str, list[Statement]] = {}
    measures: list[Measure] = []
    supplementary: dict[str, list[re.Pattern[str]]] = {}
    kind_words: set[str] = set()
    frame_words: set[str] = set()
    words: dict[str, list[str]] = {"period": [], "money": [], "list": []}
    document_parts: list[re.Pattern[str]] = []
    acronyms: dict[str, str] = {}
    for part in parts:
        acronyms.update(part.acronyms)  # a later pack spells an acronym out its own way
        for s in part.statements:
            statements.setdefault(s.key, []).append(s)
        measures += part.measures
        for k, p in part.supplementary.items():
            supplementary.setdefault(k, []).append(p)
        kind_words |= part.kind_words
        frame_words |= part.frame_words
        for key, more in (
            ("period", part.period_kinds),
            ("money", part.money_words),
            ("list", part.list_nouns),
        ):
            words[key] += [w for w in more if w not in words[key]]
        document_parts += part.document_parts
    return Vocabulary(
        statements=tuple(_one_statement(same) for same in statements.values()),
        measures=tuple(measures),
        note_heading=_either(supplementary.get("note_heading", [])),
        about_title=_either(supplementary.get("about_title", [])),
        part_title=_either(supplementary.get("part_title", [])),
        document_kind_words=frozenset(kind_words),
        question_frame_words=frozenset(frame_words),
        period_kinds=tuple(words["period"]),
        money_words=tuple(words["money"]),
        document_parts=_either(document_parts),
        list_nouns=tuple(words["list"]),
        acronyms=tuple(acronyms.items()),
        packs=names,
    )


def _one_statement(same: list[Statement]) -> Statement:
    """A statement several packs describe: any pack's names name it."""
    if len(same) == 1:
        return same[0]
    measures = [s.measures for s in same if s.measures is not None]
    return Statement(
        key=same[0].key,
        names=_either([s.names for s in same]) or same[0].names,
        measures=_either(measures),
        title_words=tuple(dict.fromkeys(w for s in same for w in s.title_words)),
    )


def _either(patterns: Sequence[re.Pattern[str]]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    if len(patterns) == 1:
        return patterns[0]
    return re.compile("|".join(f"(?:{p.pattern})" for p in patterns), re.IGNORECASE)


def phrase_pattern(phrases: Sequence[str]) -> str:
    """A regular expression matching any of `phrases` as whole words (a hyphen or space in
    a phrase also matches a hyphen, a space or nothing), or "" for none."""
    if not phrases:
        return ""
    parts = [
        re.sub(r"\\[- ]", "[- ]?", re.escape(p)) for p in sorted(phrases, key=len, reverse=True)
    ]
    return r"\b(?:" + "|".join(parts) + r")\b"
