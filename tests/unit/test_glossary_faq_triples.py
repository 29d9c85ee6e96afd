"""Glossary, FAQ and triple files load from their common layouts into searchable chunks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowledge.documents import ChunkKind, FaqEntry, GlossaryEntry, Triple
from knowledge.errors import SourceError
from knowledge.reading.loaders.faq import faq_chunks, key_sentences, read_faq
from knowledge.reading.loaders.glossary import glossary_chunks, read_glossary
from knowledge.reading.loaders.triples import read_triples, triple_chunks


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


# --- glossary ---------------------------------------------------------------------------


def test_glossary_with_plain_header(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "glossary.csv",
        "term,meaning,description\n"
        'PED,pre-existing disease,"Any condition diagnosed within 48 months before the policy"\n'
        "D.C.,District of Columbia,\n",
    )

    assert read_glossary(path) == [
        GlossaryEntry(
            "PED",
            "pre-existing disease",
            "Any condition diagnosed within 48 months before the policy",
        ),
        GlossaryEntry("D.C.", "District of Columbia", ""),
    ]


def test_glossary_ontology_export_layout_ignores_extra_columns(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "acronyms.tsv",
        "abbreviation\texpansion_label\tiri\tsource_file\tdefinition\r\n"
        "CDS\tcredit default swap\thttps://example.org/onto/CDS\tDER/CDS.rdf\tswap that pays on "
        "a credit event, such as default\r\n"
        "ABS\tasset-backed security\thttps://example.org/onto/ABS\tSEC/ABS.rdf\tdebt backed by "
        "receivables\r\n"
        "ABS\tabsolute prepayment rate\thttps://example.org/onto/APR\tSEC/ABS.rdf\tmonthly "
        "prepayments as a share of the original pool\r\n",
    )

    entries = read_glossary(path)

    assert [(e.term, e.expansion) for e in entries] == [
        ("CDS", "credit default swap"),
        ("ABS", "asset-backed security"),
        ("ABS", "absolute prepayment rate"),
    ]
    assert entries[0].definition == "swap that pays on a credit event, such as default"


def test_glossary_without_header_and_with_semicolons(tmp_path: Path) -> None:
    headerless = write(
        tmp_path, "a.tsv", "PED\tpre-existing disease\nTPA\tthird-party administrator\n"
    )
    semicolons = write(tmp_path, "b.csv", "Acronym;Stands_For\nNCB;no claim bonus\n")

    assert [e.term for e in read_glossary(headerless)] == ["PED", "TPA"]
    assert read_glossary(semicolons) == [GlossaryEntry("NCB", "no claim bonus", "")]


def test_glossary_chunks_read_like_a_definition() -> None:
    entries = [
        GlossaryEntry("PED", "pre-existing disease", "a condition diagnosed before cover"),
        GlossaryEntry("U.S.", "United States"),
    ]

    chunks = glossary_chunks(entries, source="glossary.csv")

    assert [c.text for c in chunks] == [
        "PED (pre-existing disease): a condition diagnosed before cover",
        "U.S. (United States)",
    ]
    assert chunks[0].kind is ChunkKind.GLOSSARY
    assert chunks[0].metadata == {"term": "PED", "expansion": "pre-existing disease"}


def test_bad_glossaries_are_refused(tmp_path: Path) -> None:
    no_term = write(tmp_path, "a.csv", "meaning,definition\npre-existing disease,x\n")
    incomplete = write(tmp_path, "b.csv", "term,expansion\nPED,pre-existing disease\nTPA,\n")

    with pytest.raises(SourceError, match="needs a term column"):
        read_glossary(no_term)
    with pytest.raises(SourceError, match="lines 3 lack"):
        read_glossary(incomplete)


# --- FAQ --------------------------------------------------------------------------------

LONG_ANSWER = (
    "Cashless claims are settled directly between the insurer and a network hospital. "
    "Our network has grown every year since 2015. "
    "To get a cashless claim, show your health card at the network hospital's insurance desk. "
    "The hospital sends a pre-authorisation request for the cashless claim to the TPA. "
    "Many customers also enjoy our wellness programme. "
    "Our call centre is open from 8 am to 8 pm."
)


class FakeParaphraser:
    """Canned rewrites with the flaws a model shows: the question itself, a repeat, too many."""

    def paraphrase(self, question: str, n: int) -> list[str]:
        return [
            question,
            "How do I claim without paying?",
            "how do i claim  without paying?",
            "Can the hospital bill the insurer directly?",
            "Is cashless treatment possible?",
        ]


def test_key_sentences_keep_what_answers_the_question_in_order() -> None:
    picked = key_sentences(LONG_ANSWER, "How do I get a cashless claim at a network hospital?")

    assert picked == (
        "Cashless claims are settled directly between the insurer and a network hospital.",
        "To get a cashless claim, show your health card at the network hospital's insurance desk.",
        "The hospital sends a pre-authorisation request for the cashless claim to the TPA.",
    )


def test_short_answer_is_kept_whole() -> None:
    answer = "Yes. The waiting period is 30 days."

    assert key_sentences(answer, "Is there a waiting period?") == (
        "Yes.",
        "The waiting period is 30 days.",
    )


def test_faq_from_csv_and_json_lines(tmp_path: Path) -> None:
    csv_path = write(
        tmp_path, "faq.csv", f'Question,Answer\nHow does a cashless claim work?,"{LONG_ANSWER}"\n'
    )
    lines = [
        {"question": "What is a deductible?", "answer": "The amount you pay first."},
        {"_id": "faq7", "title": "What is a  co-payment?", "text": "A share you always pay."},
    ]
    jsonl_path = write(tmp_path, "faq.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")

    from_csv = read_faq(csv_path)
    from_jsonl = read_faq(jsonl_path)

    assert from_csv[0].question == "How does a cashless claim work?"
    assert len(from_csv[0].key_sentences) == 3
    assert [e.question for e in from_jsonl] == ["What is a deductible?", "What is a co-payment?"]
    assert from_jsonl[1].key_sentences == ("A share you always pay.",)


def test_bad_faq_files_are_refused(tmp_path: Path) -> None:
    broken = write(tmp_path, "a.jsonl", '{"question": "Q1", "answer": "A1"}\n{"question": \n')
    unanswered = write(tmp_path, "b.csv", "question,answer\nQ1,A1\nQ2,\n")

    with pytest.raises(SourceError, match="line 2 is not valid JSON"):
        read_faq(broken)
    with pytest.raises(SourceError, match="lines 3 lack a question or an answer"):
        read_faq(unanswered)


def test_faq_chunks_match_on_question_and_paraphrases(tmp_path: Path) -> None:
    entries = read_faq(
        write(
            tmp_path,
            "faq.csv",
            f'question,answer\nHow does a cashless claim work?,"{LONG_ANSWER}"\n',
        )
    )

    chunks = faq_chunks(entries, source="faq.csv", paraphraser=FakeParaphraser(), paraphrases=2)

    assert [c.text for c in chunks] == [
        "How does a cashless claim work?",
        "How do I claim without paying?",
        "Can the hospital bill the insurer directly?",
    ]
    assert {c.kind for c in chunks} == {ChunkKind.FAQ}
    faq_key = chunks[0].metadata["faq_key"]
    assert chunks[0].key == faq_key
    assert faq_key.startswith("faq:how-does-a-cashless-claim-work-")
    assert "paraphrase_of" not in chunks[0].metadata
    assert all(c.metadata["paraphrase_of"] == faq_key for c in chunks[1:])
    assert all(c.metadata["answer_sentences"] == list(entries[0].key_sentences) for c in chunks)
    assert len({c.key for c in chunks}) == 3


def test_repeated_question_gets_its_own_key() -> None:
    entries = [
        FaqEntry("What is COVID-19?", "A disease.", ("A disease.",)),
        FaqEntry("What is  COVID-19?", "An illness.", ("An illness.",)),
    ]

    keys = [c.key for c in faq_chunks(entries, source="faq.jsonl")]

    assert keys[1] == keys[0] + "-2"


# --- triples ----------------------------------------------------------------------------


def test_triples_from_subject_relation_object_columns(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "kg.csv",
        "subject,predicate,object\nInfluenza,has symptom,fever\ninfluenza ,has  symptom,Fever\n"
        "Influenza,caused by,influenza virus\n",
    )

    assert read_triples(path) == [
        Triple("Influenza", "has symptom", "fever"),
        Triple("Influenza", "caused by", "influenza virus"),
    ]


def test_edge_list_takes_relation_from_header_and_skips_code_columns(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "disease_symptom.csv",
        "disease,disease_mesh,symptom,symptom_umls\n"
        "Influenza,D007251,Fever,C0015967\n"
        "Influenza,D007251,Cough,C0010200\n"
        "Measles,D008457,Rash,C0015230\n"
        "Measles,D008457,,C0000000\n",
    )

    triples = read_triples(path)
    renamed = read_triples(path, relation="presents with")

    assert triples == [
        Triple("Influenza", "has symptom", "Fever"),
        Triple("Influenza", "has symptom", "Cough"),
        Triple("Measles", "has symptom", "Rash"),
    ]
    assert {t.relation for t in renamed} == {"presents with"}


def test_triple_chunks_group_facts_per_subject() -> None:
    triples = [
        Triple("Influenza", "has symptom", "fever"),
        Triple("Measles", "has symptom", "rash"),
        Triple("Influenza", "has symptom", "cough"),
        Triple("Influenza", "caused by", "influenza virus"),
    ]

    chunks = triple_chunks(triples, source="kg.csv")

    assert [c.text for c in chunks] == [
        "Influenza: has symptom fever, cough; caused by influenza virus.",
        "Measles: has symptom rash.",
    ]
    assert chunks[0].kind is ChunkKind.TRIPLE
    assert chunks[0].key == "triple:influenza"
    assert chunks[0].location == "Influenza"
    assert chunks[0].metadata["triples"][1] == ["Influenza", "has symptom", "cough"]


def test_many_facts_about_one_subject_are_split_into_parts() -> None:
    triples = [Triple("Syndrome X", "has symptom", f"symptom number {i}") for i in range(100)]

    chunks = triple_chunks(triples, source="kg.csv")

    assert len(chunks) > 1
    assert [c.key for c in chunks[:2]] == ["triple:syndrome x", "triple:syndrome x:2"]
    assert sum(len(c.metadata["triples"]) for c in chunks) == 100
