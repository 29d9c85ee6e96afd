"""Which documents a question names, and what of the name leaves the embedded question."""

from __future__ import annotations

from knowledge.search.naming import DocumentName, name_words, named_in, without_names

MEDICARE = DocumentName(1, "family_medicare_policy.pdf", name_words("family_medicare_policy.pdf"))


def test_a_product_name_is_taken_out_of_the_searched_question() -> None:
    question = "What is the grace period under Family Medicare's policy?"
    assert named_in(question, [MEDICARE]) == [MEDICARE]
    assert without_names(question, [MEDICARE]) == "What is the grace period under policy?"


def test_a_name_the_file_runs_together_is_taken_out_as_the_question_spaces_it() -> None:
    amex = DocumentName(2, "AMERICANEXPRESS_2022_10K.pdf", name_words("AMERICANEXPRESS_2022_10K"))
    question = "What are the geographies that American Express operates in?"
    assert named_in(question, [amex]) == [amex]
    assert without_names(question, [amex]) == "What are the geographies that operates in?"
    assert without_names("Is Americana Express late?", [amex]) == "Is Americana Express late?"
