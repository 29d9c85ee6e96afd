"""Which documents a question names ("... under Family Medicare?", "Nike's FY2019 ...").

A question that names a document pulls embedded search toward the chunks about the name
itself (a cover page, a discount clause, a list of subsidiaries) and away from the clause
that answers. Keeping the search to the named document, and taking the name out of the
embedded text, fixes both. Names come from the file name, minus words that say what kind
of document it is ("policy", "10K", "wordings": the vocabulary packs list them) or its
version and date ("final", "2023").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from knowledge.nlp import content_words
from knowledge.vocabulary import active

# Words that describe the version, date or file type of a document rather than name it.
# The words naming a kind of document ("policy", "10K", "wording") are vocabulary: they
# come from the packs in use (`knowledge/packs/documents.toml`).
_VERSION_WORDS = """
    final draft copy version rev revised updated new old latest current english en
    dated the of and for a an to in pdf docx txt md html scan scanned signed
    jan feb mar apr may jun jul aug sep sept oct nov dec
    """
_GENERIC = frozenset(_VERSION_WORDS.split())
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&']*")
_CODE = re.compile(r"^\d+$|^(?:fy|q|h)?\d+(?:q\d|h\d)?$|^\d{4}\w+$")  # 2023, fy2022, 2023q4


@dataclass(frozen=True)
class DocumentName:
    source_id: int
    uri: str
    words: tuple[str, ...]  # distinctive name words, lower-cased: ("family", "medicare")


def name_words(uri: str) -> tuple[str, ...]:
    """The words that name a document, from its file name: "family_medicare_policy.pdf"
    gives ("family", "medicare"), "NIKE_2018_10K.pdf" gives ("nike",)."""
    stem = PurePath(uri).stem
    kinds = active().document_kind_words
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", stem)  # "FamilyMedicare" -> "Family Medicare"
    out = []
    for word in _WORD.findall(spaced.replace("_", " ")):
        low = word.lower()
        if low in _GENERIC or low in kinds or len(low) < 2 or _CODE.match(low):
            continue
        if low not in out:
            out.append(low)
    return tuple(out)


def named_in(question: str, names: Iterable[DocumentName]) -> list[DocumentName]:
    """The documents whose every name word the question uses (as words, any case);
    a name of one short word ("3M") counts only as written, in capitals."""
    asked = _question_words(question)
    found = []
    for name in names:
        if not name.words:
            continue
        short = len(name.words) == 1 and len(name.words[0]) < 4
        if short and not re.search(rf"\b{re.escape(name.words[0].upper())}\b", question):
            continue
        if all(word in asked for word in name.words):
            found.append(name)
    return found


def without_names(question: str, names: Sequence[DocumentName]) -> str:
    """The question with the named documents' names (as written, "Family Medicare's", or
    spaced where the file name runs them together: "American Express" for
    "AMERICANEXPRESS") taken out; unchanged when a name's words are scattered rather than
    a phrase."""
    stripped = question
    for name in names:
        phrase = spaced("".join(name.words))
        stripped = re.sub(rf"(?i)\b{phrase}(?:['’]s)?\b", " ", stripped)
    return re.sub(r"\s{2,}", " ", stripped).strip()


def spaced(name: str) -> str:
    """A pattern for `name` however a question spaces it: "americanexpress" matches
    "American Express" and "american-express" (only spaces, "_" and "-" between letters)."""
    return r"[\s_-]*".join(re.escape(c) for c in name)


def narrowed(
    question: str, documents: Sequence[DocumentName], *, leave_out: bool
) -> tuple[list[DocumentName], list[int] | None, str]:
    """The naming stage: the `documents` the question names, the sources search is kept
    to (None: all, when it names none or every one of them), and the text to embed: with
    `leave_out`, the question without the names. Search is kept to the named documents,
    where a name tells no chunk apart by meaning; embedded, it would pull the question
    toward the chunks about the name itself (a cover page, a list of subsidiaries). Full
    text still sees it, weighed by its rarity."""
    named = named_in(question, documents)
    sources = [n.source_id for n in named] if named and len(named) < len(documents) else None
    searched = without_names(question, named) if leave_out and named else question
    if searched != question and not content_words(searched):
        searched = question
    return named, sources, searched


def _question_words(question: str) -> set[str]:
    words = [w.lower() for w in _WORD.findall(question)]
    joined = {a + b for a, b in itertools.pairwise(words)}  # "foot locker"
    return {re.sub(r"['’]s$", "", w) for w in words} | joined
