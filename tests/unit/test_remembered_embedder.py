"""Answering embeds a text the model has just embedded once, not again."""

from __future__ import annotations

from collections.abc import Sequence

from knowledge.models.embeddings import HashingEmbedder
from knowledge.models.remembered import RememberedEmbedder


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.embedded += texts
        return super().embed_documents(texts)


def test_a_repeated_text_costs_the_model_nothing_and_gets_the_same_vector() -> None:
    model = CountingEmbedder()
    remembered = RememberedEmbedder(model)
    first = remembered.embed_documents(["Room rent is 1% of the sum insured.", "ICU is 2%."])
    again = remembered.embed_documents(["ICU is 2%.", "Cataract: Rs 40,000.", "ICU is 2%."])
    assert model.embedded == [
        "Room rent is 1% of the sum insured.",
        "ICU is 2%.",
        "Cataract: Rs 40,000.",  # only the new text, once
    ]
    assert again[0] == again[2] == first[1] == model.embed_documents(["ICU is 2%."])[0]
    again[0][0] += 1.0  # a caller changing its copy changes nothing remembered
    assert remembered.embed_documents(["ICU is 2%."])[0] == first[1]


def test_a_question_embedded_for_search_is_not_embedded_again_and_the_oldest_is_forgotten() -> None:
    model = CountingEmbedder()
    remembered = RememberedEmbedder(model, size=2)
    question = "What is the PED waiting period?"
    searched = remembered.embed_query(question)
    assert remembered.embed_documents([question]) == [searched]  # the checks compare it
    remembered.embed_documents(["Grace period: 30 days."])
    remembered.embed_query(question)  # used last: kept
    remembered.embed_documents(["Free look: 15 days."])  # pushes the oldest out
    remembered.embed_documents([question, "Grace period: 30 days."])
    assert model.embedded == [
        question,
        "Grace period: 30 days.",
        "Free look: 15 days.",
        "Grace period: 30 days.",
    ]
    remembered.forget()
    remembered.embed_query(question)
    assert model.embedded[-1] == question
    assert (remembered.model_name, remembered.dim) == ("test-hashing", 384)
