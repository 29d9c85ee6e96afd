"""Shared fixtures: one embedded PostgreSQL (with pgvector) per test session; every test that
needs a database gets its own, cloned from a migrated template, so tests never see each
other's rows and the real database layer is always exercised."""

from __future__ import annotations

import shutil
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine

from bot.db import migrate
from bot.db.embedded import EmbeddedPostgres
from bot.db.engine import create_engine, normalize_url
from bot.settings import Settings
from tests.code_checks import MYPY, start_mypy

warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")

TEMPLATE_DB = "knowbot_template"

# Every variable Settings reads: a developer's shell must not change what tests do.
_ENV_NAMES = tuple(f.alias for f in Settings.model_fields.values() if f.alias)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start mypy beside the run when its test is among those collected."""
    if any(item.name == "test_mypy_is_clean" for item in session.items):
        session.config.stash[MYPY] = start_mypy()


def pytest_unconfigure(config: pytest.Config) -> None:
    process = config.stash.get(MYPY, None)
    if process is not None and process.poll() is None:
        process.kill()
        process.communicate()


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in _ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env file is read


def admin_execute(admin_url: URL, sql: str) -> None:
    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(sa.text(sql))
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[URL]:
    # Not under pytest's basetemp: a concurrent pytest run rotates those folders away.
    folder = Path(tempfile.mkdtemp(prefix="knowbot-test-pg-"))
    server = EmbeddedPostgres(folder / "pgdata")
    url = normalize_url(server.start())
    yield url
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def template_url(pg_admin_url: URL) -> URL:
    admin_execute(pg_admin_url, f'CREATE DATABASE "{TEMPLATE_DB}"')
    url = pg_admin_url.set(database=TEMPLATE_DB)
    engine = create_engine(url)
    migrate.upgrade(engine)
    engine.dispose()
    return url


def fresh_database(admin_url: URL, template: str | None) -> URL:
    name = f"t_{uuid.uuid4().hex[:12]}"
    source = f' TEMPLATE "{template}"' if template else ""
    admin_execute(admin_url, f'CREATE DATABASE "{name}"{source}')
    return admin_url.set(database=name)


@pytest.fixture
def db_url(pg_admin_url: URL, template_url: URL) -> Iterator[URL]:
    """A migrated database of this test's own."""
    url = fresh_database(pg_admin_url, TEMPLATE_DB)
    yield url
    admin_execute(pg_admin_url, f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)')


@pytest.fixture
def empty_db_url(pg_admin_url: URL) -> Iterator[URL]:
    """An empty database (no migrations applied) of this test's own."""
    url = fresh_database(pg_admin_url, None)
    yield url
    admin_execute(pg_admin_url, f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)')


@pytest.fixture
def engine(db_url: URL) -> Iterator[Engine]:
    eng = create_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def settings(db_url: URL, tmp_path: Path) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        DATABASE_URL=db_url.render_as_string(hide_password=False),
        KNOWBOT_DATA_DIR=tmp_path / "data",
    )


@pytest.fixture
def knowledge_dir(tmp_path: Path) -> Path:
    """The shared small policy knowledge base, written to this test's folder."""
    from tests.fakes.knowledge_base import write_policy_kb

    return write_policy_kb(tmp_path / "kb")
