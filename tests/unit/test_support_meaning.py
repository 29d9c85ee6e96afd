"""Support judged by meaning (issue 19): a bullet that says what its cited block says in
other words is supported; one that swaps a name, flips a "not" or cites the wrong block is
not, however close in meaning it reads. A small deterministic similarity stands in for the
embedding model; one test uses the real bundled model."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

import pytest

from bot.conversation.checks.meaning import Elsewhere, Meaning, fitted, fitted_closeness
from bot.conversation.scoring import confidence_for, score_answer
from bot.conversation.types import Bullet, CheckScores, Confidence, Source

INSTRUCTIONS = "Answer only from the numbered context and cite every source you use."


def _source(number: int, text: str) -> Source:
    return Source(number, f"chunk-{number}", "rulebook", "health_policy.pdf", f"p. {number}", text)


SOURCES = [
    _source(
        1,
        "Exclusions > Sterility and Infertility\n"
        "Expenses incurred on the treatment of sterility and infertility are excluded, "
        "including assisted reproduction services such as IVF, ZIFT and GIFT.",
    ),
    _source(
        2,
        "Waiting periods > Specific diseases\n"
        "Treatment of hernia and cataract is covered only after a waiting period of 24 months "
        "of continuous coverage.",
    ),
    _source(
        3,
        "Claims > Notification\n"
        "The insured person shall notify the company of any hospitalisation within 48 hours "
        "of admission.",
    ),
]
QUESTION = "Is infertility treatment covered?"
# What a model writes: the same fact, reworded and led in, sharing few of its words.
REWORDED = Bullet(
    "Under the policy, costs of infertility and sterility care are not paid for, and that "
    "extends to assisted conception such as IVF.",
    (1,),
)

# Words that mean the same thing to the fake model (a real one learnt this from text).
_CONCEPTS = {
    "expenses": "cost", "costs": "cost", "incurred": "", "treatment": "care", "care": "care",
    "excluded": "nocover", "cover": "cover", "covered": "cover", "reproduction": "conception",
    "conception": "conception", "services": "", "including": "", "extends": "",
    "under": "", "policy": "", "there": "", "that": "", "such": "", "is": "", "are": "",
    "no": "nocover", "not": "nocover", "does": "", "paid": "cover", "for": "",
    "entry": "join", "join": "join",
}  # fmt: skip


def fake_embed(texts: Sequence[str]) -> list[list[float]]:
    """A bag of concepts, hashed into 256 dimensions: rewordings land close, unrelated
    sentences far apart; a swapped name or a dropped "not" moves a vector only a little,
    as it does under a real model."""
    out = []
    for text in texts:
        vector = [0.0] * 256
        for word in re.findall(r"[a-z]+", text.lower()):
            concept = _CONCEPTS.get(word, word)
            if concept and len(concept) > 2:
                slot = int.from_bytes(hashlib.blake2b(concept.encode(), digest_size=4).digest())
                vector[slot % 256] += 1.0
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        out.append([x / norm for x in vector])
    return out


class CountingEmbed:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return fake_embed(texts)


def _score(bullets: Sequence[Bullet], meaning: Meaning | None) -> CheckScores:
    return score_answer(
        question=QUESTION,
        bullets=bullets,
        sources=SOURCES,
        instructions=INSTRUCTIONS,
        meaning=meaning,
    )


def _level(scores: CheckScores) -> Confidence:
    return confidence_for(scores, has_context=True)


def _meaning(embed: CountingEmbed | None = None) -> Meaning:
    return Meaning(embed or CountingEmbed(), threshold=0.5)


def test_a_reworded_faithful_bullet_is_supported_by_meaning() -> None:
    scores = _score([REWORDED], _meaning())
    assert scores.contextual_continuity == 1
    assert _level(scores) == Confidence.HIGH


def test_without_a_similarity_function_shared_words_judge_and_the_rewording_fails() -> None:
    assert _score([REWORDED], None).contextual_continuity == 0


def test_a_swapped_entity_is_not_supported_however_close_in_meaning() -> None:
    """Another block's disease in the place of the cited one, the rest reworded."""
    swapped = Bullet(
        "Under the policy, costs for the treatment of hernia and infertility are not paid for, "
        "and that extends to assisted conception such as IVF.",
        (1,),
    )
    scores = _score([swapped], _meaning())
    assert _level(scores) != Confidence.HIGH
    assert scores.contextual_continuity == 0


def test_a_flipped_negation_is_not_high() -> None:
    flipped = Bullet(
        "Under the policy, costs of infertility and sterility care are paid for, and that "
        "extends to assisted conception such as IVF.",
        (1,),
    )
    scores = _score([flipped], _meaning())
    assert _level(scores) != Confidence.HIGH
    assert scores.polarity == 0


def test_a_reworded_bullet_citing_the_wrong_block_is_not_supported() -> None:
    wrong = Bullet(REWORDED.text, (3,))
    scores = _score([wrong], _meaning())
    assert scores.contextual_continuity == 0
    assert _level(scores) != Confidence.HIGH


def test_one_embedding_call_per_answer_and_none_for_a_quote() -> None:
    embed = CountingEmbed()
    second = Bullet("Hernia care is covered only after 24 months of continuous cover.", (2,))
    _score([REWORDED, second], Meaning(embed, threshold=0.5))
    assert len(embed.calls) == 1  # every claim and passage in one batch

    quoting = CountingEmbed()
    quote = Bullet(
        "Treatment of hernia and cataract is covered only after a waiting period of 24 months "
        "of continuous coverage.",
        (2,),
    )
    scores = _score([quote], Meaning(quoting, threshold=0.5))
    assert quoting.calls == []  # a quote's own words decide
    assert scores.contextual_continuity == 1


ELIGIBILITY = _source(
    4,
    "Eligibility\nPersons between 18 years and 65 years of age can take this policy as the "
    "proposer.",
)
ENTRY_AGE = "What is the entry age for a proposer?"


def _speaks(bullet: Bullet, closeness: float | None) -> CheckScores:
    meaning = Meaning(CountingEmbed(), threshold=0.5, closeness=closeness)
    return score_answer(
        question=ENTRY_AGE,
        bullets=[bullet],
        sources=[*SOURCES, ELIGIBILITY],
        instructions=INSTRUCTIONS,
        meaning=meaning,
    )


def test_an_answer_that_speaks_to_the_question_in_other_words_is_high() -> None:
    """ "Entry" is never said, yet "can join between 18 and 65" answers the entry age: close
    enough by meaning, the answer speaks to the question; by words alone it does not."""
    answer = Bullet("Persons between 18 years and 65 years of age can join as the proposer.", (4,))
    assert _speaks(answer, closeness=0.45).qa_continuity == 1
    assert _level(_speaks(answer, closeness=0.45)) == Confidence.HIGH
    assert _speaks(answer, closeness=None).qa_continuity == 0
    assert _level(_speaks(answer, closeness=None)) == Confidence.MEDIUM


def test_a_true_answer_to_another_question_does_not_speak_to_this_one() -> None:
    off_topic = Bullet(
        "The insured person shall notify the company of any hospitalisation within 48 hours "
        "of admission.",
        (3,),
    )
    scores = _speaks(off_topic, closeness=0.45)
    assert scores.contextual_continuity == 1  # true to its source ...
    assert scores.qa_continuity == 0  # ... but not about the entry age
    assert _level(scores) != Confidence.HIGH


def test_meaning_does_not_rescue_an_answer_about_a_neighbouring_condition() -> None:
    """ "Joint replacement ... 48 months" reads close to "when is cataract covered?"
    by meaning, but another retrieved block is the one that speaks of cataract."""
    joints = _source(
        5,
        "Waiting periods > Joint replacement\nJoint replacement surgery is covered only "
        "after a waiting period of 48 months of continuous coverage.",
    )
    neighbour = Bullet(
        "Joint replacement surgery is covered only after a waiting period of 48 months.", (5,)
    )
    question = "When is cataract covered?"
    meaning = Meaning(CountingEmbed(), threshold=0.5, closeness=0.1)  # any closeness passes
    assert meaning.similarity(question, neighbour.text) >= 0.1
    scores = score_answer(
        question=question,
        bullets=[neighbour],
        sources=[*SOURCES, joints],
        instructions=INSTRUCTIONS,
        meaning=meaning,
    )
    assert scores.contextual_continuity == 1  # true to the block it cites ...
    assert scores.qa_continuity == 0  # ... which is not about cataract
    assert _level(scores) != Confidence.HIGH


@pytest.mark.slow
def test_the_bundled_model_supports_a_rewording_and_not_the_wrong_block() -> None:
    from knowledge.models.embeddings import LOCAL_DEFAULT, LocalEmbedder

    threshold = fitted(LOCAL_DEFAULT)
    assert threshold is not None, "support_fitted.json has no threshold for the bundled model"
    closeness = fitted_closeness(LOCAL_DEFAULT)
    assert closeness is not None, "support_fitted.json has no closeness for the bundled model"
    embedder = LocalEmbedder(LOCAL_DEFAULT, runtime="torch")
    meaning = Meaning(embedder.embed_documents, threshold=threshold, closeness=closeness)
    assert _score([REWORDED], meaning).contextual_continuity == 1
    assert _score([Bullet(REWORDED.text, (3,))], meaning).contextual_continuity == 0


CUSTOMERS = Source(
    1,
    "chunk-customers",
    "rulebook",
    "annual_report.pdf",
    "p. 12",
    "Customers > Concentration\nIn 2019 our largest customer, Dell, accounted for 12% of revenue.",
    similarity=0.71,  # what the search measured between the question and this block
)
EXPENSES = Source(
    2,
    "chunk-expenses",
    "rulebook",
    "annual_report.pdf",
    "p. 31",
    "Operating expenses\nWithin operating expenses in 2019 there were a variety of increases, "
    "the largest of which was in headcount.",
    similarity=0.52,
)
LARGEST = "Who was the largest customer in 2019?"


def _elsewhere(
    bullet: Bullet, sources: Sequence[Source], elsewhere: Elsewhere | None
) -> CheckScores:
    meaning = Meaning(CountingEmbed(), threshold=0.5, elsewhere=elsewhere)
    return score_answer(
        question=LARGEST,
        bullets=[bullet],
        sources=sources,
        instructions=INSTRUCTIONS,
        meaning=meaning,
    )


def test_a_true_answer_citing_a_block_about_something_else_is_not_high() -> None:
    """The answer quotes its block word for word and shares the question's words ("largest",
    2019), but reads far from the question, and the search found the block on customers
    clearly closer to it than the block the answer cites: true to its source, it answers
    another question. Without the fitted rule it passes at High."""
    rule = Elsewhere(far=0.6, gap=0.025)
    quoted = Bullet(EXPENSES.text.split("\n")[1], (2,))
    assert Meaning(CountingEmbed(), threshold=0.5).similarity(LARGEST, quoted.text) < rule.far
    scores = _elsewhere(quoted, [CUSTOMERS, EXPENSES], rule)
    assert scores.contextual_continuity == 1
    assert scores.qa_continuity == 0
    assert _level(scores) == Confidence.MEDIUM
    assert _level(_elsewhere(quoted, [CUSTOMERS, EXPENSES], None)) == Confidence.HIGH


def test_a_quoted_answer_citing_a_block_about_something_else_is_not_high_either() -> None:
    """Passages quoted with no language model are judged the same way: the quote is picked
    for the words it shares with the question, which is how it lands on the wrong block."""
    meaning = Meaning(CountingEmbed(), threshold=0.5, elsewhere=Elsewhere(far=0.6, gap=0.025))
    quoted = Bullet(EXPENSES.text.split("\n")[1], (2,))
    scores = score_answer(
        question=LARGEST,
        bullets=[quoted],
        sources=[CUSTOMERS, EXPENSES],
        instructions=INSTRUCTIONS,
        meaning=meaning,
        quoted=meaning.similarity(LARGEST, quoted.text),
    )
    assert scores.qa_continuity == 0
    assert _level(scores) == Confidence.MEDIUM


def test_the_answer_from_the_closest_block_or_close_to_the_question_stays_high() -> None:
    rule = Elsewhere(far=0.6, gap=0.025)
    right = Bullet("Dell was the largest customer in 2019, at 12% of revenue.", (1,))
    assert _level(_elsewhere(right, [CUSTOMERS, EXPENSES], rule)) == Confidence.HIGH
    quoted = Bullet(EXPENSES.text.split("\n")[1], (2,))
    # nothing retrieved is closer to the question than the block it cites: not judged
    assert _level(_elsewhere(quoted, [EXPENSES], rule)) == Confidence.HIGH
    # a closer block that the search did not measure (found by its words only) is not judged
    unmeasured = Source(1, "chunk-customers", "rulebook", "annual_report.pdf", "p. 12",
                        CUSTOMERS.text)  # fmt: skip
    assert _level(_elsewhere(quoted, [unmeasured, EXPENSES], rule)) == Confidence.HIGH


SWAP_SOURCES = [
    _source(1, "Expenses incurred on the treatment of sterility and infertility are excluded."),
    _source(2, "Costs of hernia surgery are covered after a waiting period of 24 months."),
]


def test_a_name_swapped_in_stays_unsupported() -> None:
    """ "Hernia" where the passage says "sterility": another block's own word in the
    passage's place, between the same neighbours."""
    said = "Expenses incurred on the treatment of hernia and infertility are excluded."
    scores = score_answer(
        question=QUESTION,
        bullets=[Bullet(said, (1,))],
        sources=SWAP_SOURCES,
        instructions=INSTRUCTIONS,
        meaning=Meaning(CountingEmbed(), threshold=0.5),
    )
    assert scores.contextual_continuity == 0
    assert _level(scores) != Confidence.HIGH


CASHLESS = _source(
    1,
    "Claims > Procedure for cashless claims\n"
    "1. The cashless request form shall be filled in with the medical details of the patient "
    "and sent to the company.\n"
    "2. The network hospital shall display the list of its empanelled insurers at the desk.\n"
    "3. The company will issue a pre-authorisation letter within one hour of receiving the "
    "request form and related medical information.\n"
    "4. Final approval is given on the day of discharge.",
)
# The same clause without the item that says "medical details".
PLAIN = _source(1, CASHLESS.text.replace(CASHLESS.text.split("\n")[1], "1. Forms are free."))
DOCUMENTS = _source(
    2,
    "Claims > Documents\nThe claim form must reach the company with the medical details of "
    "the patient and the original bills.",
)
BILLS = _source(
    2, "Claims > Documents\nThe claim form must reach the company with the original bills."
)


@pytest.mark.parametrize("cites_own_phrase", [True, False])
def test_a_phrase_of_the_cited_block_is_its_own_wording_not_a_swapped_name(
    cites_own_phrase: bool,
) -> None:
    """ "Medical details" where the passage says "medical information": when the block the
    answer cites says "medical details" itself, the claim rewords its own block. When only
    another block (the claim documents) says it and the cited block never does, the claim
    has borrowed another block's phrase and is not High."""
    said = (
        "Once it has the request form and the medical details, the company sends the "
        "pre-authorisation letter within one hour."
    )
    scores = score_answer(
        question="How soon does the company answer a cashless request?",
        bullets=[Bullet(said, (1,))],
        sources=[CASHLESS, BILLS] if cites_own_phrase else [PLAIN, DOCUMENTS],
        instructions=INSTRUCTIONS,
        meaning=Meaning(CountingEmbed(), threshold=0.5),
    )
    assert scores.contextual_continuity == int(cites_own_phrase)
    assert (_level(scores) == Confidence.HIGH) == cites_own_phrase


CATARACT = "Is cataract surgery covered?"
CATARACT_SOURCES = [
    _source(
        1,
        "Day care procedures\nCataract surgery is covered as a day care procedure only when it "
        "is performed in a network hospital with prior approval from the administrator.",
    ),
    _source(2, "Specific waiting periods\nCataract surgery is covered after two years."),
]


def _cataract(bullet: Bullet, meaning: Meaning, quoted: float | None = None) -> Confidence:
    scores = score_answer(
        question=CATARACT,
        bullets=[bullet],
        sources=CATARACT_SOURCES,
        instructions=INSTRUCTIONS,
        meaning=meaning,
        quoted=quoted,
    )
    return _level(scores)


def _said_elsewhere(bullet: Bullet, said_gap: float | None) -> Confidence:
    rule = Elsewhere(far=0.6, gap=0.025, said_gap=said_gap)
    return _cataract(bullet, Meaning(CountingEmbed(), threshold=0.5, elsewhere=rule))


def test_an_answer_from_a_special_case_when_another_block_says_it_plainly_is_not_high() -> None:
    """The answer quotes its block and holds every word asked, but the block it leaves
    uncited says the thing asked far more nearly: a neighbouring special case, not the
    clause that answers. Without the rule it passes at High."""
    special = Bullet(CATARACT_SOURCES[0].text.split("\n")[1], (1,))
    assert _said_elsewhere(special, None) == Confidence.HIGH
    assert _said_elsewhere(special, 0.2) == Confidence.MEDIUM


def test_the_answer_from_the_block_that_says_it_stays_high() -> None:
    plain = Bullet("Cataract surgery is covered once the policy is two years old.", (2,))
    assert _said_elsewhere(plain, 0.2) == Confidence.HIGH
    special = Bullet(CATARACT_SOURCES[0].text.split("\n")[1], (1,))
    # a quoted answer (no language model) is not judged this way: its lines were picked
    # by their words, and quoted_close judges them
    meaning = Meaning(CountingEmbed(), threshold=0.5, elsewhere=Elsewhere(0.6, 0.025, 0.2))
    assert _cataract(special, meaning, quoted=1.0) == Confidence.HIGH


def test_passages_are_embedded_while_the_model_writes() -> None:
    """The check above compares the answer with every retrieved passage; their vectors are
    made in the background while the answer is being written, so judging it afterwards
    embeds only the answer's own words."""
    import threading

    from bot.conversation.checks.coverage import learning_ahead

    threads: list[str] = []

    class Recording(CountingEmbed):
        def __call__(self, texts: Sequence[str]) -> list[list[float]]:
            threads.append(threading.current_thread().name)
            return super().__call__(texts)

    embed = Recording()
    meaning = Meaning(embed, threshold=0.5, elsewhere=Elsewhere(0.6, 0.025, 0.2))
    with learning_ahead(meaning, CATARACT, CATARACT_SOURCES):
        pass  # the model writes here
    assert threads and threads[0] != threading.main_thread().name
    learnt = len(embed.calls)
    special = Bullet(CATARACT_SOURCES[0].text.split("\n")[1], (1,))
    assert _cataract(special, meaning) == Confidence.MEDIUM
    assert len(embed.calls) == learnt  # the bullet quotes a passage: nothing new to embed
