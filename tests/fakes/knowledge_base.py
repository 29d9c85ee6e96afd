"""A small policy knowledge base that tests across the suite ingest and ask about."""

from __future__ import annotations

from pathlib import Path

from bot.settings import Settings

RULEBOOK = """HEALTH POLICY

2.2 Room rent
Room rent is covered up to 1% of sum insured per day for Plan A and 2% of sum insured per
day for Plan B.

3.2 Pre-existing diseases
Expenses related to a pre-existing disease are covered after 36 months of continuous
coverage from the first enrolment.

5.2 Reimbursement claims
Submit the claim form with original bills within 30 days of discharge. Claims are settled
within 30 days of receiving the last document.
"""
GLOSSARY = (
    "term,expansion,definition\nPED,pre-existing disease,A condition treated before enrolment.\n"
)


def write_policy_kb(folder: Path) -> Path:
    """The rulebook and glossary in `folder` (created if needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "policy.txt").write_text(RULEBOOK)
    (folder / "glossary.csv").write_text(GLOSSARY)
    return folder


def bot_settings(base: Settings, **extra: str) -> Settings:
    """Settings on the test's own database with the fast hashing embedder, plus `extra`."""
    values = {
        "DATABASE_URL": base.database_url,
        "KNOWBOT_DATA_DIR": str(base.data_dir),
        "KNOWBOT_EMBED_MODEL": "hashing",
        **extra,
    }
    return Settings(_env_file=None, **values)  # type: ignore[call-arg, arg-type]
