"""Which documents a question names, and what of the name leaves the embedded question."""

from __future__ import annotations

from knowledge.search.naming import DocumentName, name_words, named_in, without_names

MEDICARE = DocumentName(1, "family_medicare_policy.pdf", name_words("family_medicare_policy.pdf"))


def test_a_product_name_is_taken_out_of_the_searched_question() -> None:
    question = "What is the grace period under Family Medicare's policy?"
    assert named_in(question, [MEDICARE]) == [MEDICARE]
    assert without_names(question, [MEDICARE]) == "What is the grace period under policy?"
