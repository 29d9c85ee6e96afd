"""'I could not find this' only when nothing answers: on a generated handbook, with the real
embedding model (meaning decides what words cannot), a correct cited answer to a question
worded unlike the document is kept, and a question about something the handbook never
mentions is still declined — with a language model and without one."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import URL

from bot.adapters.console import console_turn
from bot.conversation.pipeline import Pipeline
from bot.conversation.replies import NOT_FOUND
from bot.conversation.types import Answer, Confidence
from bot.settings import Settings
from bot.wiring import open_services
from knowledge.ingest.options import IngestOptions
from knowledge.models.embeddings import LOCAL_DEFAULT
from tests.conftest import _ENV_NAMES, TEMPLATE_DB, admin_execute, fresh_database
from tests.fakes.openai_server import fake_openai

HANDBOOK = """EMPLOYEE BENEFITS HANDBOOK

4.1 Vision care
Spectacles and contact lenses are reimbursed up to Rs 5,000 once every two years. The claim
needs the optometrist's prescription.

4.2 Ambulance
Ambulance charges are paid up to Rs 2,000 per hospitalisation.

6.3 Parental leave
Employees receive 26 weeks of paid maternity leave after childbirth. Paternity leave of
10 working days is granted within six months of the birth.

7.1 Visitors
Visitors must sign in at reception and wear a badge at all times.
"""
# Worded unlike the handbook: it never says "eyeglasses".
REWORDED = "Does the plan pay for eyeglasses?"
VISION = "Spectacles and contact lenses are reimbursed up to Rs 5,000 once every two years"
# Nothing in the handbook speaks of cars or allowances.
NEVER_MENTIONED = "What is the car allowance for sales staff?"
NEAREST = "Ambulance charges are paid up to Rs 2,000 per hospitalisation"
_BLOCK = re.compile(r"^\[(\d+)\][^\n]*\n(.*?)(?=^\[\d+\]|</context>|\Z)", re.MULTILINE | re.DOTALL)


def model_reply(messages: list[dict[str, str]]) -> str:
    """A model answering from its context: for the eyeglasses question the vision clause,
    for anything else the ambulance clause (a helpful model's nearest passage), each
    cited by the number of the block that holds it."""
    user = messages[-1]["content"]
    if "<context>" not in user:
        return "lookup"  # the intent prompt
    fact = VISION if "eyeglasses" in user.rsplit("</context>", 1)[-1] else NEAREST
    for number, text in _BLOCK.findall(user):
        if fact in " ".join(text.split()):
            return f"- {fact}. [{number}]"
    return "NOT_FOUND"


@pytest.fixture(scope="module")
def pipelines(
    pg_admin_url: URL, template_url: URL, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Pipeline]]:
    """The handbook ingested once (the real embedding model loads once): the pipeline with
    the scripted model, and the same knowledge answered without a model."""
    folder = tmp_path_factory.mktemp("handbook")
    (folder / "benefits.txt").write_text(HANDBOOK)
    url = fresh_database(pg_admin_url, TEMPLATE_DB)
    with pytest.MonkeyPatch.context() as env, fake_openai(model_reply) as llm:
        for name in _ENV_NAMES:  # a developer's shell must not change what the test does
            env.delenv(name, raising=False)
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            DATABASE_URL=url.render_as_string(hide_password=False),
            KNOWBOT_DATA_DIR=folder / "data",
            KNOWBOT_EMBED_MODEL=LOCAL_DEFAULT,
            KNOWBOT_EMBED_RUNTIME="torch",
            KNOWBOT_ANSWER_DEADLINE_S=120,  # a busy machine must not turn the model away
            OPENAI_BASE_URL=llm.base_url,
        )
        with open_services(settings) as svc:
            svc.knowledge.ingestor.ingest_paths([folder], IngestOptions())
            without = Pipeline(
                claims=svc.events,
                history=svc.threads,
                answers=svc.answers,
                knowledge=svc.knowledge,
                model=None,
            )
            yield {"model": svc.pipeline, "none": without}
    admin_execute(pg_admin_url, f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)')


def ask(pipeline: Pipeline, text: str) -> Answer:
    answer = pipeline.answer_now(console_turn(text, thread=text, scopes=("default",)))
    assert answer is not None
    return answer


def test_a_models_cited_answer_to_a_reworded_question_is_kept(
    pipelines: dict[str, Pipeline],
) -> None:
    answer = ask(pipelines["model"], REWORDED)
    assert [b.text for b in answer.bullets] != [NOT_FOUND]
    assert any("Spectacles" in b.text and b.source_numbers for b in answer.bullets)
    assert answer.model != "extractive"
    # its words never meet the question's: kept, but flagged for checking
    assert answer.confidence == Confidence.LOW and "please check" in answer.notice


def test_a_models_answer_about_something_never_mentioned_is_declined(
    pipelines: dict[str, Pipeline],
) -> None:
    answer = ask(pipelines["model"], NEVER_MENTIONED)
    assert [b.text for b in answer.bullets] == [NOT_FOUND]
    assert answer.confidence == Confidence.LOW


def test_without_a_model_a_question_about_something_never_mentioned_is_declined(
    pipelines: dict[str, Pipeline],
) -> None:
    never = ask(pipelines["none"], NEVER_MENTIONED)
    assert [b.text for b in never.bullets] == [NOT_FOUND]
